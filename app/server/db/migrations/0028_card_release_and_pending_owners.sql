ALTER TABLE "card_authorizations" ADD COLUMN "released_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "card_authorizations_pending_idx" ON "card_authorizations" USING btree ("business_date") WHERE "card_authorizations"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "bill_payments_hold_transaction_idx" ON "bill_payments" USING btree ("hold_transaction_id") WHERE "bill_payments"."hold_transaction_id" is not null;--> statement-breakpoint
CREATE INDEX "mobile_deposits_pending_transaction_idx" ON "mobile_deposits" USING btree ("pending_transaction_id");