CREATE TABLE "loan_applications" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"member_id" text NOT NULL,
	"product_slug" text NOT NULL,
	"product_name" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"term_months" integer NOT NULL,
	"purpose" text NOT NULL,
	"income_enc" text NOT NULL,
	"employer_enc" text NOT NULL,
	"status" text DEFAULT 'submitted' NOT NULL,
	"idempotency_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_at" timestamp with time zone,
	"decided_by" text,
	"decided_by_email" text,
	"offer_amount_cents" bigint,
	"offer_term_months" integer,
	"offer_rate_ppm" integer,
	"offer_expires_on" date,
	"adverse_reasons" jsonb,
	"adverse_other_text" text,
	"accepted_at" timestamp with time zone,
	"disclosure" jsonb,
	"disclosure_pdf" "bytea",
	CONSTRAINT "loan_applications_member_key_unique" UNIQUE("member_id","idempotency_key"),
	CONSTRAINT "loan_applications_status_valid" CHECK ("loan_applications"."status" in ('submitted', 'approved', 'countered', 'declined', 'accepted', 'lapsed')),
	CONSTRAINT "loan_applications_amount_positive" CHECK ("loan_applications"."amount_cents" > 0),
	CONSTRAINT "loan_applications_term_positive" CHECK ("loan_applications"."term_months" > 0),
	CONSTRAINT "loan_applications_offer_complete" CHECK ("loan_applications"."status" not in ('approved', 'countered', 'accepted', 'lapsed') or ("loan_applications"."offer_amount_cents" > 0 and "loan_applications"."offer_term_months" > 0 and "loan_applications"."offer_rate_ppm" >= 0 and "loan_applications"."offer_expires_on" is not null)),
	CONSTRAINT "loan_applications_decline_explained" CHECK ("loan_applications"."status" <> 'declined' or jsonb_array_length("loan_applications"."adverse_reasons") > 0),
	CONSTRAINT "loan_applications_accepted_disclosed" CHECK ("loan_applications"."status" <> 'accepted' or ("loan_applications"."accepted_at" is not null and "loan_applications"."disclosure_pdf" is not null))
);
--> statement-breakpoint
CREATE TABLE "loan_scheduled_payments" (
	"loan_id" bigint NOT NULL,
	"number" integer NOT NULL,
	"due_on" date NOT NULL,
	"payment_cents" bigint NOT NULL,
	"interest_cents" bigint NOT NULL,
	"principal_cents" bigint NOT NULL,
	"balance_after_cents" bigint NOT NULL,
	CONSTRAINT "loan_scheduled_payments_unique" UNIQUE("loan_id","number"),
	CONSTRAINT "loan_scheduled_payments_sums" CHECK ("loan_scheduled_payments"."payment_cents" = "loan_scheduled_payments"."interest_cents" + "loan_scheduled_payments"."principal_cents")
);
--> statement-breakpoint
CREATE TABLE "loans" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"application_id" bigint NOT NULL,
	"member_id" text NOT NULL,
	"product_name" text NOT NULL,
	"receivable_account_id" bigint NOT NULL,
	"checking_account_id" bigint NOT NULL,
	"disbursement_transaction_id" bigint NOT NULL,
	"principal_cents" bigint NOT NULL,
	"rate_ppm" integer NOT NULL,
	"apr_bp" integer NOT NULL,
	"term_months" integer NOT NULL,
	"disbursed_on" date NOT NULL,
	"first_payment_on" date NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "loans_application_unique" UNIQUE("application_id"),
	CONSTRAINT "loans_receivable_unique" UNIQUE("receivable_account_id"),
	CONSTRAINT "loans_principal_positive" CHECK ("loans"."principal_cents" > 0)
);
--> statement-breakpoint
ALTER TABLE "ledger_accounts" DROP CONSTRAINT "ledger_accounts_type_matches_owner";--> statement-breakpoint
DROP INDEX "ledger_accounts_institution_type_unique";--> statement-breakpoint
ALTER TABLE "loan_scheduled_payments" ADD CONSTRAINT "loan_scheduled_payments_loan_id_loans_id_fk" FOREIGN KEY ("loan_id") REFERENCES "public"."loans"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "loans" ADD CONSTRAINT "loans_application_id_loan_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."loan_applications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "loan_applications_member_idx" ON "loan_applications" USING btree ("member_id","id");--> statement-breakpoint
CREATE INDEX "loan_applications_open_idx" ON "loan_applications" USING btree ("status") WHERE "loan_applications"."status" = 'submitted';--> statement-breakpoint
CREATE INDEX "loans_member_idx" ON "loans" USING btree ("member_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_accounts_institution_type_unique" ON "ledger_accounts" USING btree ("type") WHERE "ledger_accounts"."owner" = 'institution' and "ledger_accounts"."type" <> 'loan_receivable';--> statement-breakpoint
ALTER TABLE "ledger_accounts" ADD CONSTRAINT "ledger_accounts_type_matches_owner" CHECK (("ledger_accounts"."owner" = 'member' and "ledger_accounts"."type" in ('checking', 'savings', 'credit_card') and "ledger_accounts"."member_id" is not null)
        or ("ledger_accounts"."owner" = 'institution' and "ledger_accounts"."type" in ('cash', 'ach_settlement', 'wire_settlement', 'bill_pay_settlement', 'deposits_in_transit', 'adjustments', 'fees_income', 'card_settlement', 'dividends_paid', 'loan_receivable') and "ledger_accounts"."member_id" is null));