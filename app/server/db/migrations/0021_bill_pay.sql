CREATE TABLE "bill_payees" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"member_id" text NOT NULL,
	"name" text NOT NULL,
	"account_number" text NOT NULL,
	"address" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"removed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "bill_payment_series" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"member_id" text NOT NULL,
	"payee_id" bigint NOT NULL,
	"from_account_id" bigint NOT NULL,
	"amount_cents" bigint NOT NULL,
	"memo" text,
	"frequency" text NOT NULL,
	"interval_weeks" integer,
	"first_date" date NOT NULL,
	"end_date" date,
	"payment_count" integer,
	"status" text DEFAULT 'active' NOT NULL,
	"idempotency_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone,
	CONSTRAINT "bill_payment_series_member_key_unique" UNIQUE("member_id","idempotency_key"),
	CONSTRAINT "bill_payment_series_amount_positive" CHECK ("bill_payment_series"."amount_cents" > 0),
	CONSTRAINT "bill_payment_series_frequency_valid" CHECK (("bill_payment_series"."frequency" = 'monthly' and "bill_payment_series"."interval_weeks" is null) or ("bill_payment_series"."frequency" = 'weeks' and "bill_payment_series"."interval_weeks" between 1 and 52)),
	CONSTRAINT "bill_payment_series_one_end" CHECK (("bill_payment_series"."end_date" is null) <> ("bill_payment_series"."payment_count" is null)),
	CONSTRAINT "bill_payment_series_count_positive" CHECK ("bill_payment_series"."payment_count" is null or "bill_payment_series"."payment_count" >= 1),
	CONSTRAINT "bill_payment_series_status_valid" CHECK ("bill_payment_series"."status" in ('active', 'ended', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "bill_payments" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"member_id" text NOT NULL,
	"payee_id" bigint NOT NULL,
	"from_account_id" bigint NOT NULL,
	"amount_cents" bigint NOT NULL,
	"payment_date" date NOT NULL,
	"memo" text,
	"status" text DEFAULT 'scheduled' NOT NULL,
	"hold_transaction_id" bigint,
	"paid_transaction_id" bigint,
	"failure_reason" text,
	"series_id" bigint,
	"sequence" integer,
	"idempotency_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	"resolved_by" text,
	CONSTRAINT "bill_payments_member_key_unique" UNIQUE("member_id","idempotency_key"),
	CONSTRAINT "bill_payments_series_sequence_unique" UNIQUE("series_id","sequence"),
	CONSTRAINT "bill_payments_amount_positive" CHECK ("bill_payments"."amount_cents" > 0),
	CONSTRAINT "bill_payments_status_valid" CHECK ("bill_payments"."status" in ('scheduled', 'paid', 'failed', 'cancelled')),
	CONSTRAINT "bill_payments_failed_has_reason" CHECK (("bill_payments"."status" = 'failed') = ("bill_payments"."failure_reason" is not null)),
	CONSTRAINT "bill_payments_series_has_sequence" CHECK (("bill_payments"."series_id" is null) = ("bill_payments"."sequence" is null))
);
--> statement-breakpoint
ALTER TABLE "bill_payment_series" ADD CONSTRAINT "bill_payment_series_payee_id_bill_payees_id_fk" FOREIGN KEY ("payee_id") REFERENCES "public"."bill_payees"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bill_payment_series" ADD CONSTRAINT "bill_payment_series_from_account_id_ledger_accounts_id_fk" FOREIGN KEY ("from_account_id") REFERENCES "public"."ledger_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bill_payments" ADD CONSTRAINT "bill_payments_payee_id_bill_payees_id_fk" FOREIGN KEY ("payee_id") REFERENCES "public"."bill_payees"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bill_payments" ADD CONSTRAINT "bill_payments_from_account_id_ledger_accounts_id_fk" FOREIGN KEY ("from_account_id") REFERENCES "public"."ledger_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bill_payments" ADD CONSTRAINT "bill_payments_series_id_bill_payment_series_id_fk" FOREIGN KEY ("series_id") REFERENCES "public"."bill_payment_series"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "bill_payees_member_idx" ON "bill_payees" USING btree ("member_id","id");--> statement-breakpoint
CREATE INDEX "bill_payment_series_member_idx" ON "bill_payment_series" USING btree ("member_id","id");--> statement-breakpoint
CREATE INDEX "bill_payments_member_idx" ON "bill_payments" USING btree ("member_id","payment_date");--> statement-breakpoint
CREATE INDEX "bill_payments_due_idx" ON "bill_payments" USING btree ("status","payment_date");