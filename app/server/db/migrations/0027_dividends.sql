CREATE TABLE "account_dividends" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"period_month" text NOT NULL,
	"days" integer NOT NULL,
	"average_daily_balance_cents" bigint NOT NULL,
	"apy_ppm" integer NOT NULL,
	"dividend_cents" bigint NOT NULL,
	"transaction_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "account_dividends_account_month_unique" UNIQUE("account_id","period_month"),
	CONSTRAINT "account_dividends_month_format" CHECK ("account_dividends"."period_month" ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
	CONSTRAINT "account_dividends_days" CHECK ("account_dividends"."days" between 28 and 31),
	CONSTRAINT "account_dividends_apy_range" CHECK ("account_dividends"."apy_ppm" between 0 and 250000),
	CONSTRAINT "account_dividends_amount_not_negative" CHECK ("account_dividends"."dividend_cents" >= 0),
	CONSTRAINT "account_dividends_paid_by_transaction" CHECK (("account_dividends"."dividend_cents" = 0) = ("account_dividends"."transaction_id" is null))
);
--> statement-breakpoint
ALTER TABLE "ledger_accounts" DROP CONSTRAINT "ledger_accounts_type_matches_owner";--> statement-breakpoint
ALTER TABLE "account_dividends" ADD CONSTRAINT "account_dividends_account_id_ledger_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."ledger_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_dividends" ADD CONSTRAINT "account_dividends_transaction_id_ledger_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "public"."ledger_transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_accounts" ADD CONSTRAINT "ledger_accounts_type_matches_owner" CHECK (("ledger_accounts"."owner" = 'member' and "ledger_accounts"."type" in ('checking', 'savings', 'credit_card') and "ledger_accounts"."member_id" is not null)
        or ("ledger_accounts"."owner" = 'institution' and "ledger_accounts"."type" in ('cash', 'ach_settlement', 'wire_settlement', 'bill_pay_settlement', 'deposits_in_transit', 'adjustments', 'fees_income', 'card_settlement', 'dividends_paid') and "ledger_accounts"."member_id" is null));