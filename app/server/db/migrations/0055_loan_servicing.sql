CREATE TABLE "loan_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"loan_id" bigint NOT NULL,
	"kind" text NOT NULL,
	"on" date NOT NULL,
	"from_on" date,
	"amount_cents" bigint DEFAULT 0 NOT NULL,
	"transaction_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "loan_events_once" UNIQUE("loan_id","kind","on"),
	CONSTRAINT "loan_events_kind_valid" CHECK ("loan_events"."kind" in ('interest', 'late_fee', 'autopay_failed')),
	CONSTRAINT "loan_events_amount_not_negative" CHECK ("loan_events"."amount_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE "loan_payments" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"loan_id" bigint NOT NULL,
	"member_id" text NOT NULL,
	"from_account_id" bigint NOT NULL,
	"kind" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"fees_cents" bigint NOT NULL,
	"interest_cents" bigint NOT NULL,
	"principal_cents" bigint NOT NULL,
	"transaction_id" bigint NOT NULL,
	"idempotency_key" text NOT NULL,
	"paid_on" date NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "loan_payments_loan_key_unique" UNIQUE("loan_id","idempotency_key"),
	CONSTRAINT "loan_payments_kind_valid" CHECK ("loan_payments"."kind" in ('one_time', 'autopay')),
	CONSTRAINT "loan_payments_applied" CHECK ("loan_payments"."amount_cents" > 0 and "loan_payments"."fees_cents" >= 0 and "loan_payments"."interest_cents" >= 0 and "loan_payments"."principal_cents" >= 0 and "loan_payments"."amount_cents" = "loan_payments"."fees_cents" + "loan_payments"."interest_cents" + "loan_payments"."principal_cents")
);
--> statement-breakpoint
ALTER TABLE "ledger_accounts" DROP CONSTRAINT "ledger_accounts_type_matches_owner";--> statement-breakpoint
ALTER TABLE "loans" ADD COLUMN "status" text DEFAULT 'active' NOT NULL;--> statement-breakpoint
-- Loans booked before servicing: interest runs from the day the money was paid out.
ALTER TABLE "loans" ADD COLUMN "interest_accrued_to" date;--> statement-breakpoint
UPDATE "loans" SET "interest_accrued_to" = "disbursed_on";--> statement-breakpoint
ALTER TABLE "loans" ALTER COLUMN "interest_accrued_to" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "loans" ADD COLUMN "accrued_interest_cents" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "loans" ADD COLUMN "accrual_carry" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "loans" ADD COLUMN "fees_due_cents" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "loans" ADD COLUMN "paid_toward_schedule_cents" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "loans" ADD COLUMN "closed_on" date;--> statement-breakpoint
ALTER TABLE "loans" ADD COLUMN "autopay_account_id" bigint;--> statement-breakpoint
ALTER TABLE "loan_events" ADD CONSTRAINT "loan_events_loan_id_loans_id_fk" FOREIGN KEY ("loan_id") REFERENCES "public"."loans"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "loan_payments" ADD CONSTRAINT "loan_payments_loan_id_loans_id_fk" FOREIGN KEY ("loan_id") REFERENCES "public"."loans"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "loan_payments_loan_idx" ON "loan_payments" USING btree ("loan_id","id");--> statement-breakpoint
ALTER TABLE "ledger_accounts" ADD CONSTRAINT "ledger_accounts_type_matches_owner" CHECK (("ledger_accounts"."owner" = 'member' and "ledger_accounts"."type" in ('checking', 'savings', 'credit_card') and "ledger_accounts"."member_id" is not null)
        or ("ledger_accounts"."owner" = 'institution' and "ledger_accounts"."type" in ('cash', 'ach_settlement', 'wire_settlement', 'bill_pay_settlement', 'deposits_in_transit', 'adjustments', 'fees_income', 'card_settlement', 'dividends_paid', 'interest_receivable', 'interest_income', 'loan_receivable') and "ledger_accounts"."member_id" is null));--> statement-breakpoint
ALTER TABLE "loans" ADD CONSTRAINT "loans_status_valid" CHECK ("loans"."status" in ('active', 'paid_off'));--> statement-breakpoint
ALTER TABLE "loans" ADD CONSTRAINT "loans_servicing_not_negative" CHECK ("loans"."accrued_interest_cents" >= 0 and "loans"."accrual_carry" >= 0 and "loans"."accrual_carry" < 365000000 and "loans"."fees_due_cents" >= 0 and "loans"."paid_toward_schedule_cents" >= 0);--> statement-breakpoint
ALTER TABLE "loans" ADD CONSTRAINT "loans_closed_when_paid_off" CHECK (("loans"."status" = 'paid_off') = ("loans"."closed_on" is not null));