CREATE TABLE "account_statements" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"member_id" text NOT NULL,
	"period_month" text NOT NULL,
	"period_start" date NOT NULL,
	"period_end" date NOT NULL,
	"opening_cents" bigint NOT NULL,
	"closing_cents" bigint NOT NULL,
	"credits_cents" bigint NOT NULL,
	"debits_cents" bigint NOT NULL,
	"posted_count" integer NOT NULL,
	"pending_count" integer NOT NULL,
	"pdf" "bytea" NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "account_statements_account_month_unique" UNIQUE("account_id","period_month"),
	CONSTRAINT "account_statements_month_format" CHECK ("account_statements"."period_month" ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
	CONSTRAINT "account_statements_totals" CHECK ("account_statements"."closing_cents" = "account_statements"."opening_cents" + "account_statements"."credits_cents" - "account_statements"."debits_cents"),
	CONSTRAINT "account_statements_totals_not_negative" CHECK ("account_statements"."credits_cents" >= 0 and "account_statements"."debits_cents" >= 0)
);
--> statement-breakpoint
ALTER TABLE "account_statements" ADD CONSTRAINT "account_statements_account_id_ledger_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."ledger_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "account_statements_member_idx" ON "account_statements" USING btree ("member_id","period_month");