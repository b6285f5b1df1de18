CREATE TABLE "loan_statements" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"loan_id" bigint NOT NULL,
	"member_id" text NOT NULL,
	"period_month" text NOT NULL,
	"period_start" date NOT NULL,
	"period_end" date NOT NULL,
	"opening_cents" bigint NOT NULL,
	"closing_cents" bigint NOT NULL,
	"principal_cents" bigint NOT NULL,
	"advanced_cents" bigint NOT NULL,
	"interest_charged_cents" bigint NOT NULL,
	"fees_charged_cents" bigint NOT NULL,
	"paid_cents" bigint NOT NULL,
	"amount_due_cents" bigint,
	"due_on" date,
	"past_due_cents" bigint DEFAULT 0 NOT NULL,
	"pdf" "bytea" NOT NULL,
	"mail_paper_copy" boolean DEFAULT false NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "loan_statements_loan_month_unique" UNIQUE("loan_id","period_month"),
	CONSTRAINT "loan_statements_month_format" CHECK ("loan_statements"."period_month" ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
	CONSTRAINT "loan_statements_totals" CHECK ("loan_statements"."closing_cents" = "loan_statements"."opening_cents" + "loan_statements"."advanced_cents" + "loan_statements"."interest_charged_cents" + "loan_statements"."fees_charged_cents" - "loan_statements"."paid_cents")
);
--> statement-breakpoint
ALTER TABLE "loan_statements" ADD CONSTRAINT "loan_statements_loan_id_loans_id_fk" FOREIGN KEY ("loan_id") REFERENCES "public"."loans"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "loan_statements_member_idx" ON "loan_statements" USING btree ("member_id","period_month");