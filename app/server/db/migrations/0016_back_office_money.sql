CREATE TABLE "balance_adjustments" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"member_id" text NOT NULL,
	"from_cents" bigint NOT NULL,
	"target_cents" bigint NOT NULL,
	"amount_cents" bigint NOT NULL,
	"reason" text NOT NULL,
	"status" text NOT NULL,
	"requested_by" text NOT NULL,
	"requested_by_email" text,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_by" text,
	"decided_by_email" text,
	"decided_at" timestamp with time zone,
	"decline_reason" text,
	"transaction_id" bigint,
	CONSTRAINT "balance_adjustments_status_valid" CHECK ("balance_adjustments"."status" in ('awaiting_approval', 'posted', 'declined')),
	CONSTRAINT "balance_adjustments_amount_not_zero" CHECK ("balance_adjustments"."amount_cents" <> 0 and "balance_adjustments"."target_cents" >= 0),
	CONSTRAINT "balance_adjustments_reason_required" CHECK (length("balance_adjustments"."reason") > 0),
	CONSTRAINT "balance_adjustments_checker_not_maker" CHECK ("balance_adjustments"."decided_by" is null or "balance_adjustments"."decided_by" <> "balance_adjustments"."requested_by"),
	CONSTRAINT "balance_adjustments_posted_has_transaction" CHECK ("balance_adjustments"."status" <> 'posted' or "balance_adjustments"."transaction_id" is not null),
	CONSTRAINT "balance_adjustments_declined_has_reason" CHECK ("balance_adjustments"."status" <> 'declined' or ("balance_adjustments"."decided_by" is not null and length("balance_adjustments"."decline_reason") > 0))
);
--> statement-breakpoint
CREATE TABLE "member_account_settings" (
	"account_id" bigint PRIMARY KEY NOT NULL,
	"routing_number" text,
	"status_reason" text,
	"updated_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "member_account_settings_routing_format" CHECK ("member_account_settings"."routing_number" is null or "member_account_settings"."routing_number" ~ '^[0-9]{9}$')
);
--> statement-breakpoint
ALTER TABLE "users" DROP CONSTRAINT "users_role_valid";--> statement-breakpoint
ALTER TABLE "balance_adjustments" ADD CONSTRAINT "balance_adjustments_account_id_ledger_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."ledger_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "balance_adjustments" ADD CONSTRAINT "balance_adjustments_transaction_id_ledger_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "public"."ledger_transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_account_settings" ADD CONSTRAINT "member_account_settings_account_id_ledger_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."ledger_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "balance_adjustments_awaiting_idx" ON "balance_adjustments" USING btree ("requested_at","id") WHERE "balance_adjustments"."status" = 'awaiting_approval';--> statement-breakpoint
CREATE INDEX "balance_adjustments_account_idx" ON "balance_adjustments" USING btree ("account_id","id");--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_role_valid" CHECK ("users"."role" is null or "users"."role" in ('user', 'pending', 'admin', 'reviewer'));