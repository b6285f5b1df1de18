CREATE TABLE "credit_line_activity" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"line_id" bigint NOT NULL,
	"member_id" text NOT NULL,
	"kind" text NOT NULL,
	"account_id" bigint NOT NULL,
	"amount_cents" bigint NOT NULL,
	"fees_cents" bigint DEFAULT 0 NOT NULL,
	"interest_cents" bigint DEFAULT 0 NOT NULL,
	"principal_cents" bigint NOT NULL,
	"transaction_id" bigint NOT NULL,
	"idempotency_key" text NOT NULL,
	"on" date NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_line_activity_key_unique" UNIQUE("line_id","idempotency_key"),
	CONSTRAINT "credit_line_activity_kind_valid" CHECK ("credit_line_activity"."kind" in ('draw', 'payment', 'autopay')),
	CONSTRAINT "credit_line_activity_applied" CHECK ("credit_line_activity"."amount_cents" > 0 and "credit_line_activity"."fees_cents" >= 0 and "credit_line_activity"."interest_cents" >= 0 and "credit_line_activity"."principal_cents" >= 0 and "credit_line_activity"."amount_cents" = "credit_line_activity"."fees_cents" + "credit_line_activity"."interest_cents" + "credit_line_activity"."principal_cents")
);
--> statement-breakpoint
CREATE TABLE "credit_line_cycles" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"line_id" bigint NOT NULL,
	"closed_on" date NOT NULL,
	"due_on" date NOT NULL,
	"balance_cents" bigint NOT NULL,
	"minimum_due_cents" bigint NOT NULL,
	"paid_cents" bigint DEFAULT 0 NOT NULL,
	"late_fee_charged" boolean DEFAULT false NOT NULL,
	"autopay_failed" boolean DEFAULT false NOT NULL,
	CONSTRAINT "credit_line_cycles_once" UNIQUE("line_id","closed_on"),
	CONSTRAINT "credit_line_cycles_amounts" CHECK ("credit_line_cycles"."balance_cents" >= 0 and "credit_line_cycles"."minimum_due_cents" >= 0 and "credit_line_cycles"."minimum_due_cents" <= "credit_line_cycles"."balance_cents" and "credit_line_cycles"."paid_cents" >= 0 and "credit_line_cycles"."due_on" > "credit_line_cycles"."closed_on")
);
--> statement-breakpoint
CREATE TABLE "credit_lines" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"application_id" bigint NOT NULL,
	"member_id" text NOT NULL,
	"product_name" text NOT NULL,
	"receivable_account_id" bigint NOT NULL,
	"credit_limit_cents" bigint NOT NULL,
	"rate_ppm" integer NOT NULL,
	"minimum_payment_ppm" integer NOT NULL,
	"minimum_payment_floor_cents" bigint NOT NULL,
	"grace_days" integer NOT NULL,
	"late_fee_cents" bigint NOT NULL,
	"opened_on" date NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"interest_accrued_to" date NOT NULL,
	"accrued_interest_cents" bigint DEFAULT 0 NOT NULL,
	"accrual_carry" bigint DEFAULT 0 NOT NULL,
	"fees_due_cents" bigint DEFAULT 0 NOT NULL,
	"next_cycle_close_on" date NOT NULL,
	"cycles_closed" integer DEFAULT 0 NOT NULL,
	"autopay_account_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_lines_application_unique" UNIQUE("application_id"),
	CONSTRAINT "credit_lines_receivable_unique" UNIQUE("receivable_account_id"),
	CONSTRAINT "credit_lines_limit_positive" CHECK ("credit_lines"."credit_limit_cents" > 0),
	CONSTRAINT "credit_lines_status_valid" CHECK ("credit_lines"."status" in ('active', 'closed')),
	CONSTRAINT "credit_lines_terms_valid" CHECK ("credit_lines"."rate_ppm" >= 0 and "credit_lines"."minimum_payment_ppm" > 0 and "credit_lines"."minimum_payment_floor_cents" > 0 and "credit_lines"."grace_days" >= 0 and "credit_lines"."late_fee_cents" >= 0),
	CONSTRAINT "credit_lines_servicing_not_negative" CHECK ("credit_lines"."accrued_interest_cents" >= 0 and "credit_lines"."accrual_carry" >= 0 and "credit_lines"."accrual_carry" < 365000000 and "credit_lines"."fees_due_cents" >= 0)
);
--> statement-breakpoint
ALTER TABLE "loan_applications" DROP CONSTRAINT "loan_applications_term_positive";--> statement-breakpoint
ALTER TABLE "loan_applications" DROP CONSTRAINT "loan_applications_offer_complete";--> statement-breakpoint
ALTER TABLE "loan_applications" ALTER COLUMN "term_months" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "loan_applications" ADD COLUMN "open_end" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "credit_line_activity" ADD CONSTRAINT "credit_line_activity_line_id_credit_lines_id_fk" FOREIGN KEY ("line_id") REFERENCES "public"."credit_lines"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_line_cycles" ADD CONSTRAINT "credit_line_cycles_line_id_credit_lines_id_fk" FOREIGN KEY ("line_id") REFERENCES "public"."credit_lines"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_lines" ADD CONSTRAINT "credit_lines_application_id_loan_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."loan_applications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "credit_line_activity_line_idx" ON "credit_line_activity" USING btree ("line_id","id");--> statement-breakpoint
CREATE INDEX "credit_lines_member_idx" ON "credit_lines" USING btree ("member_id","id");--> statement-breakpoint
ALTER TABLE "loan_applications" ADD CONSTRAINT "loan_applications_term_positive" CHECK (("loan_applications"."open_end" and "loan_applications"."term_months" is null) or (not "loan_applications"."open_end" and "loan_applications"."term_months" > 0));--> statement-breakpoint
ALTER TABLE "loan_applications" ADD CONSTRAINT "loan_applications_offer_complete" CHECK ("loan_applications"."status" not in ('approved', 'countered', 'accepted', 'lapsed') or ("loan_applications"."offer_amount_cents" > 0 and ("loan_applications"."offer_term_months" > 0 or ("loan_applications"."open_end" and "loan_applications"."offer_term_months" is null)) and "loan_applications"."offer_rate_ppm" >= 0 and "loan_applications"."offer_expires_on" is not null));