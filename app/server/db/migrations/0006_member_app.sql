CREATE TABLE "currency_rates" (
	"code" text PRIMARY KEY NOT NULL,
	"usd_per_unit" text NOT NULL,
	"updated_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "external_payments" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"member_id" text NOT NULL,
	"kind" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"from_account_id" bigint NOT NULL,
	"hold_transaction_id" bigint NOT NULL,
	"amount_cents" bigint NOT NULL,
	"fee_cents" bigint DEFAULT 0 NOT NULL,
	"currency" text DEFAULT 'USD' NOT NULL,
	"foreign_amount_minor" bigint,
	"rate" text,
	"details" jsonb NOT NULL,
	"reference" text,
	"idempotency_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	"resolved_by" text,
	CONSTRAINT "external_payments_member_key_unique" UNIQUE("member_id","idempotency_key"),
	CONSTRAINT "external_payments_kind_valid" CHECK ("external_payments"."kind" in ('ach', 'wire')),
	CONSTRAINT "external_payments_status_valid" CHECK ("external_payments"."status" in ('pending', 'sent', 'cancelled')),
	CONSTRAINT "external_payments_amount_positive" CHECK ("external_payments"."amount_cents" > 0 and "external_payments"."fee_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE "payment_controls" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"outgoing_paused" boolean DEFAULT false NOT NULL,
	"reason" text,
	"updated_by" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_controls_single_row" CHECK ("payment_controls"."id" = 1)
);
--> statement-breakpoint
CREATE TABLE "payment_step_up_codes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"member_id" text NOT NULL,
	"code_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"member_id" text NOT NULL,
	"kind" text NOT NULL,
	"title" text NOT NULL,
	"body" text NOT NULL,
	"read_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "external_payments_queue_idx" ON "external_payments" USING btree ("kind","status","id");--> statement-breakpoint
CREATE INDEX "external_payments_member_created_idx" ON "external_payments" USING btree ("member_id","created_at");--> statement-breakpoint
CREATE INDEX "payment_step_up_codes_member_idx" ON "payment_step_up_codes" USING btree ("member_id","id");--> statement-breakpoint
CREATE INDEX "notifications_member_id_idx" ON "notifications" USING btree ("member_id","id");--> statement-breakpoint
CREATE INDEX "notifications_member_unread_idx" ON "notifications" USING btree ("member_id") WHERE "notifications"."read_at" is null;--> statement-breakpoint
-- The member app's date-bounded figures (this month's income and outgoing, 30 days of spending):
-- the first transaction of a date range, then one account's entries from that transaction on.
CREATE INDEX "ledger_transactions_effective_date_idx" ON "ledger_transactions" USING btree ("effective_date","id");--> statement-breakpoint
CREATE INDEX "ledger_entries_account_transaction_idx" ON "ledger_entries" USING btree ("account_id","transaction_id");--> statement-breakpoint
INSERT INTO "payment_controls" ("id", "outgoing_paused") VALUES (1, false) ON CONFLICT DO NOTHING;
