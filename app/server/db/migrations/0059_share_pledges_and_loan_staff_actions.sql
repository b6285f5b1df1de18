CREATE TABLE "share_pledges" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"application_id" bigint NOT NULL,
	"member_id" text NOT NULL,
	"account_id" bigint NOT NULL,
	"loan_id" bigint,
	"status" text DEFAULT 'pledged' NOT NULL,
	"hold_transaction_id" bigint,
	"held_cents" bigint DEFAULT 0 NOT NULL,
	"released_on" date,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "share_pledges_application_unique" UNIQUE("application_id"),
	CONSTRAINT "share_pledges_loan_unique" UNIQUE("loan_id"),
	CONSTRAINT "share_pledges_status_valid" CHECK ("share_pledges"."status" in ('pledged', 'held', 'released')),
	CONSTRAINT "share_pledges_held_not_negative" CHECK ("share_pledges"."held_cents" >= 0),
	CONSTRAINT "share_pledges_hold_matches" CHECK (("share_pledges"."hold_transaction_id" is null) = ("share_pledges"."held_cents" = 0) and ("share_pledges"."status" = 'held' or "share_pledges"."held_cents" = 0)),
	CONSTRAINT "share_pledges_held_has_loan" CHECK ("share_pledges"."status" = 'pledged' or "share_pledges"."loan_id" is not null),
	CONSTRAINT "share_pledges_released_dated" CHECK (("share_pledges"."status" = 'released') = ("share_pledges"."released_on" is not null))
);
--> statement-breakpoint
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
ALTER TABLE "share_pledges" ADD CONSTRAINT "share_pledges_application_id_loan_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."loan_applications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "share_pledges" ADD CONSTRAINT "share_pledges_account_id_ledger_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."ledger_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "share_pledges" ADD CONSTRAINT "share_pledges_loan_id_loans_id_fk" FOREIGN KEY ("loan_id") REFERENCES "public"."loans"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "share_pledges" ADD CONSTRAINT "share_pledges_hold_transaction_id_ledger_transactions_id_fk" FOREIGN KEY ("hold_transaction_id") REFERENCES "public"."ledger_transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "loan_staff_actions" ADD CONSTRAINT "loan_staff_actions_loan_id_loans_id_fk" FOREIGN KEY ("loan_id") REFERENCES "public"."loans"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "loan_staff_actions" ADD CONSTRAINT "loan_staff_actions_target_transaction_id_ledger_transactions_id_fk" FOREIGN KEY ("target_transaction_id") REFERENCES "public"."ledger_transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "loan_staff_actions" ADD CONSTRAINT "loan_staff_actions_transaction_id_ledger_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "public"."ledger_transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "share_pledges_account_idx" ON "share_pledges" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "loan_staff_actions_loan_idx" ON "loan_staff_actions" USING btree ("loan_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "loan_staff_actions_once" ON "loan_staff_actions" USING btree ("target_transaction_id") WHERE "loan_staff_actions"."status" <> 'declined';