CREATE TABLE "ledger_accounts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_number" text NOT NULL,
	"owner" text NOT NULL,
	"type" text NOT NULL,
	"member_id" text,
	"name" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"posted_cents" bigint DEFAULT 0 NOT NULL,
	"held_cents" bigint DEFAULT 0 NOT NULL,
	"overdraft_limit_cents" bigint DEFAULT 0 NOT NULL,
	"transfer_count" integer DEFAULT 0 NOT NULL,
	"transfer_count_month" text,
	"opened_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ledger_accounts_account_number_unique" UNIQUE("account_number"),
	CONSTRAINT "ledger_accounts_account_number_format" CHECK ("ledger_accounts"."account_number" ~ '^[1-9][0-9]{9}$'),
	CONSTRAINT "ledger_accounts_owner_valid" CHECK ("ledger_accounts"."owner" in ('member', 'institution')),
	CONSTRAINT "ledger_accounts_type_matches_owner" CHECK (("ledger_accounts"."owner" = 'member' and "ledger_accounts"."type" in ('checking', 'savings', 'credit_card') and "ledger_accounts"."member_id" is not null)
        or ("ledger_accounts"."owner" = 'institution' and "ledger_accounts"."type" in ('cash', 'ach_settlement', 'wire_settlement', 'bill_pay_settlement', 'deposits_in_transit', 'adjustments', 'fees_income') and "ledger_accounts"."member_id" is null)),
	CONSTRAINT "ledger_accounts_status_valid" CHECK ("ledger_accounts"."status" in ('active', 'frozen', 'closed')),
	CONSTRAINT "ledger_accounts_held_not_negative" CHECK ("ledger_accounts"."held_cents" >= 0),
	CONSTRAINT "ledger_accounts_overdraft_not_negative" CHECK ("ledger_accounts"."overdraft_limit_cents" >= 0),
	CONSTRAINT "ledger_accounts_transfer_count_not_negative" CHECK ("ledger_accounts"."transfer_count" >= 0),
	CONSTRAINT "ledger_accounts_member_available_not_negative" CHECK ("ledger_accounts"."owner" <> 'member' or "ledger_accounts"."posted_cents" - "ledger_accounts"."held_cents" + "ledger_accounts"."overdraft_limit_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"transaction_id" bigint NOT NULL,
	"account_id" bigint NOT NULL,
	"amount_cents" bigint NOT NULL,
	CONSTRAINT "ledger_entries_transaction_account_unique" UNIQUE("transaction_id","account_id"),
	CONSTRAINT "ledger_entries_amount_not_zero" CHECK ("ledger_entries"."amount_cents" <> 0)
);
--> statement-breakpoint
CREATE TABLE "ledger_transactions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"initiator" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"batch_key" text,
	"reverses_id" bigint,
	"effective_date" date NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" text NOT NULL,
	"memo" text,
	"reference" text,
	"category" text,
	"resolved_at" timestamp with time zone,
	"resolved_by" text,
	"resolution_key" text,
	CONSTRAINT "ledger_transactions_initiator_key_unique" UNIQUE("initiator","idempotency_key"),
	CONSTRAINT "ledger_transactions_status_valid" CHECK ("ledger_transactions"."status" in ('pending', 'posted', 'failed', 'reversed')),
	CONSTRAINT "ledger_transactions_reversal_shape" CHECK (("ledger_transactions"."kind" = 'reversal') = ("ledger_transactions"."reverses_id" is not null))
);
--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_transaction_id_ledger_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "public"."ledger_transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_account_id_ledger_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."ledger_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_transactions" ADD CONSTRAINT "ledger_transactions_reverses_id_ledger_transactions_id_fk" FOREIGN KEY ("reverses_id") REFERENCES "public"."ledger_transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ledger_accounts_member_id_idx" ON "ledger_accounts" USING btree ("member_id");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_accounts_institution_type_unique" ON "ledger_accounts" USING btree ("type") WHERE "ledger_accounts"."owner" = 'institution';--> statement-breakpoint
CREATE INDEX "ledger_entries_account_id_id_idx" ON "ledger_entries" USING btree ("account_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_transactions_reverses_id_unique" ON "ledger_transactions" USING btree ("reverses_id") WHERE "ledger_transactions"."reverses_id" is not null;--> statement-breakpoint
CREATE INDEX "ledger_transactions_batch_idx" ON "ledger_transactions" USING btree ("initiator","batch_key") WHERE "ledger_transactions"."batch_key" is not null;--> statement-breakpoint
CREATE INDEX "ledger_transactions_pending_idx" ON "ledger_transactions" USING btree ("id") WHERE "ledger_transactions"."status" = 'pending';