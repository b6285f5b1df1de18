CREATE TABLE "dispute_cases" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"member_id" text NOT NULL,
	"account_id" bigint NOT NULL,
	"transaction_id" bigint NOT NULL,
	"kind" text NOT NULL,
	"details" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"idempotency_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"received_on" date NOT NULL,
	"investigate_by" date NOT NULL,
	"complete_by" date NOT NULL,
	"new_account" boolean DEFAULT false NOT NULL,
	"point_of_sale" boolean DEFAULT false NOT NULL,
	"foreign_initiated" boolean DEFAULT false NOT NULL,
	"provisional_transaction_id" bigint,
	"provisional_credited_on" date,
	"provisional_amount_cents" bigint,
	"reversal_notice_on" date,
	"reversal_on" date,
	"reversal_transaction_id" bigint,
	"final_credit_transaction_id" bigint,
	"resolution" text,
	"decided_at" timestamp with time zone,
	"decided_by" text,
	"resolved_at" timestamp with time zone,
	"flagged_on" date,
	"reversal_problem" text,
	CONSTRAINT "dispute_cases_member_key_unique" UNIQUE("member_id","idempotency_key"),
	CONSTRAINT "dispute_cases_kind_valid" CHECK ("dispute_cases"."kind" in ('not_mine', 'wrong_amount', 'not_received', 'duplicate', 'other')),
	CONSTRAINT "dispute_cases_status_valid" CHECK ("dispute_cases"."status" in ('open', 'provisionally_credited', 'reversal_scheduled', 'resolved_error', 'resolved_no_error')),
	CONSTRAINT "dispute_cases_amount_positive" CHECK ("dispute_cases"."amount_cents" > 0),
	CONSTRAINT "dispute_cases_provisional_amount" CHECK (("dispute_cases"."provisional_transaction_id" is null) = ("dispute_cases"."provisional_amount_cents" is null) and ("dispute_cases"."provisional_amount_cents" is null or "dispute_cases"."provisional_amount_cents" between 1 and "dispute_cases"."amount_cents")),
	CONSTRAINT "dispute_cases_details_present" CHECK (length("dispute_cases"."details") > 0),
	CONSTRAINT "dispute_cases_credited_has_credit" CHECK ("dispute_cases"."status" not in ('provisionally_credited', 'reversal_scheduled') or "dispute_cases"."provisional_transaction_id" is not null),
	CONSTRAINT "dispute_cases_reversal_dated" CHECK ("dispute_cases"."status" <> 'reversal_scheduled' or ("dispute_cases"."reversal_notice_on" is not null and "dispute_cases"."reversal_on" is not null)),
	CONSTRAINT "dispute_cases_resolved_explained" CHECK ("dispute_cases"."status" not in ('resolved_error', 'resolved_no_error', 'reversal_scheduled') or "dispute_cases"."resolution" is not null)
);
--> statement-breakpoint
CREATE TABLE "dispute_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"case_id" bigint NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"kind" text NOT NULL,
	"actor_id" text,
	"actor_email" text,
	"text" text,
	"internal" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
ALTER TABLE "dispute_events" ADD CONSTRAINT "dispute_events_case_id_dispute_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."dispute_cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "dispute_cases_open_transaction_unique" ON "dispute_cases" USING btree ("transaction_id","account_id") WHERE "dispute_cases"."status" not in ('resolved_error', 'resolved_no_error');--> statement-breakpoint
CREATE INDEX "dispute_cases_member_idx" ON "dispute_cases" USING btree ("member_id","id");--> statement-breakpoint
CREATE INDEX "dispute_cases_unresolved_idx" ON "dispute_cases" USING btree ("status") WHERE "dispute_cases"."status" not in ('resolved_error', 'resolved_no_error');--> statement-breakpoint
CREATE INDEX "dispute_events_case_idx" ON "dispute_events" USING btree ("case_id","id");