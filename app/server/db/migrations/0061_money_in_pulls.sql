CREATE TABLE "money_in_pulls" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"member_id" text NOT NULL,
	"linked_account_id" bigint NOT NULL,
	"account_id" bigint NOT NULL,
	"amount_cents" bigint NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"idempotency_key" text NOT NULL,
	"authorization_text" text NOT NULL,
	"credit_transaction_id" bigint NOT NULL,
	"export_file_id" bigint,
	"trace_number" text,
	"effective_date" date,
	"hold_transaction_id" bigint,
	"available_on" date,
	"available_at" timestamp with time zone,
	"return_code" text,
	"return_transaction_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	CONSTRAINT "money_in_pulls_status_valid" CHECK ("money_in_pulls"."status" in ('pending', 'sent', 'returned', 'cancelled')),
	CONSTRAINT "money_in_pulls_amount_positive" CHECK ("money_in_pulls"."amount_cents" > 0)
);
--> statement-breakpoint
ALTER TABLE "linked_accounts" ADD COLUMN "return_code" text;--> statement-breakpoint
CREATE INDEX "money_in_pulls_member_idx" ON "money_in_pulls" USING btree ("member_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "money_in_pulls_key_idx" ON "money_in_pulls" USING btree ("member_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "money_in_pulls_pending_idx" ON "money_in_pulls" USING btree ("id") WHERE "money_in_pulls"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "money_in_pulls_held_idx" ON "money_in_pulls" USING btree ("available_on") WHERE "money_in_pulls"."status" = 'sent' and "money_in_pulls"."available_at" is null;