CREATE TABLE "loan_staff_actions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"loan_id" bigint NOT NULL,
	"member_id" text NOT NULL,
	"kind" text NOT NULL,
	"target_kind" text NOT NULL,
	"target_transaction_id" bigint NOT NULL,
	"amount_cents" bigint NOT NULL,
	"reason" text NOT NULL,
	"status" text NOT NULL,
	"requested_by" text NOT NULL,
	"requested_by_email" text,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_by" text,
	"decided_by_email" text,
	"decided_at" timestamp with time zone,
	"decline_reason" text,
	"transaction_id" bigint,
	"posted_on" date,
	CONSTRAINT "loan_staff_actions_kind_valid" CHECK ("loan_staff_actions"."kind" in ('waive_fee', 'correct_entry')),
	CONSTRAINT "loan_staff_actions_target_valid" CHECK ("loan_staff_actions"."target_kind" in ('late_fee', 'interest', 'payment')),
	CONSTRAINT "loan_staff_actions_status_valid" CHECK ("loan_staff_actions"."status" in ('awaiting_approval', 'posted', 'declined')),
	CONSTRAINT "loan_staff_actions_amount_positive" CHECK ("loan_staff_actions"."amount_cents" > 0),
	CONSTRAINT "loan_staff_actions_reason_required" CHECK (length("loan_staff_actions"."reason") > 0),
	CONSTRAINT "loan_staff_actions_checker_not_maker" CHECK ("loan_staff_actions"."decided_by" is null or "loan_staff_actions"."decided_by" <> "loan_staff_actions"."requested_by"),
	CONSTRAINT "loan_staff_actions_posted_has_transaction" CHECK ("loan_staff_actions"."status" <> 'posted' or "loan_staff_actions"."transaction_id" is not null),
	CONSTRAINT "loan_staff_actions_declined_has_reason" CHECK ("loan_staff_actions"."status" <> 'declined' or ("loan_staff_actions"."decided_by" is not null and length("loan_staff_actions"."decline_reason") > 0))
);
--> statement-breakpoint
ALTER TABLE "loan_staff_actions" ADD CONSTRAINT "loan_staff_actions_loan_id_loans_id_fk" FOREIGN KEY ("loan_id") REFERENCES "public"."loans"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "loan_staff_actions" ADD CONSTRAINT "loan_staff_actions_target_transaction_id_ledger_transactions_id_fk" FOREIGN KEY ("target_transaction_id") REFERENCES "public"."ledger_transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "loan_staff_actions" ADD CONSTRAINT "loan_staff_actions_transaction_id_ledger_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "public"."ledger_transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "loan_staff_actions_loan_idx" ON "loan_staff_actions" USING btree ("loan_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "loan_staff_actions_once" ON "loan_staff_actions" USING btree ("target_transaction_id") WHERE "loan_staff_actions"."status" <> 'declined';