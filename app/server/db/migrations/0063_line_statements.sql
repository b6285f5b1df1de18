CREATE TABLE "credit_line_statements" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"line_id" bigint NOT NULL,
	"cycle_id" bigint NOT NULL,
	"member_id" text NOT NULL,
	"period_start" date NOT NULL,
	"closed_on" date NOT NULL,
	"previous_balance_cents" bigint NOT NULL,
	"draws_cents" bigint NOT NULL,
	"interest_cents" bigint NOT NULL,
	"fees_cents" bigint NOT NULL,
	"payments_cents" bigint NOT NULL,
	"new_balance_cents" bigint NOT NULL,
	"minimum_due_cents" bigint NOT NULL,
	"due_on" date NOT NULL,
	"pdf" "bytea" NOT NULL,
	"mail_paper_copy" boolean DEFAULT false NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_line_statements_cycle_unique" UNIQUE("cycle_id"),
	CONSTRAINT "credit_line_statements_totals" CHECK ("credit_line_statements"."new_balance_cents" = "credit_line_statements"."previous_balance_cents" + "credit_line_statements"."draws_cents" + "credit_line_statements"."interest_cents" + "credit_line_statements"."fees_cents" - "credit_line_statements"."payments_cents")
);
--> statement-breakpoint
ALTER TABLE "credit_line_statements" ADD CONSTRAINT "credit_line_statements_line_id_credit_lines_id_fk" FOREIGN KEY ("line_id") REFERENCES "public"."credit_lines"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_line_statements" ADD CONSTRAINT "credit_line_statements_cycle_id_credit_line_cycles_id_fk" FOREIGN KEY ("cycle_id") REFERENCES "public"."credit_line_cycles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "credit_line_statements_line_idx" ON "credit_line_statements" USING btree ("line_id","closed_on");