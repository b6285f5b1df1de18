CREATE TABLE "ledger_daily_totals" (
	"account_id" bigint NOT NULL,
	"effective_date" date NOT NULL,
	"kind" text NOT NULL,
	"category" text NOT NULL,
	"credits_cents" bigint DEFAULT 0 NOT NULL,
	"debits_cents" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "ledger_daily_totals_pk" PRIMARY KEY("account_id","effective_date","kind","category")
);
--> statement-breakpoint
ALTER TABLE "ledger_daily_totals" ADD CONSTRAINT "ledger_daily_totals_account_id_ledger_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."ledger_accounts"("id") ON DELETE no action ON UPDATE no action;