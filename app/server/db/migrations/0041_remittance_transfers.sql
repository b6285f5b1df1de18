ALTER TABLE "external_payments" ADD COLUMN "cancel_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "external_payments" ADD COLUMN "available_on" text;--> statement-breakpoint
ALTER TABLE "external_payments" ADD COLUMN "third_party_fee_minor" bigint;