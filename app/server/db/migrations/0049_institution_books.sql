CREATE TABLE "books_reconciliations" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"rail" text NOT NULL,
	"business_date" date NOT NULL,
	"statement_cents" bigint NOT NULL,
	"ledger_cents" bigint NOT NULL,
	"entered_by" text NOT NULL,
	"entered_by_email" text,
	"entered_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "books_reconciliations_rail_valid" CHECK ("books_reconciliations"."rail" in ('ach', 'wire', 'bill_pay', 'card'))
);
--> statement-breakpoint
CREATE TABLE "gl_entry_requests" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"debit_account" text NOT NULL,
	"credit_account" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"memo" text NOT NULL,
	"status" text DEFAULT 'awaiting_approval' NOT NULL,
	"requested_by" text NOT NULL,
	"requested_by_email" text,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_by" text,
	"decided_by_email" text,
	"decided_at" timestamp with time zone,
	"reject_reason" text,
	"transaction_id" bigint,
	CONSTRAINT "gl_entry_requests_amount_positive" CHECK ("gl_entry_requests"."amount_cents" > 0),
	CONSTRAINT "gl_entry_requests_two_accounts" CHECK ("gl_entry_requests"."debit_account" <> "gl_entry_requests"."credit_account"),
	CONSTRAINT "gl_entry_requests_status_valid" CHECK ("gl_entry_requests"."status" in ('awaiting_approval', 'posted', 'rejected')),
	CONSTRAINT "gl_entry_requests_checker_not_maker" CHECK ("gl_entry_requests"."decided_by" is null or "gl_entry_requests"."decided_by" <> "gl_entry_requests"."requested_by")
);
--> statement-breakpoint
ALTER TABLE "users" DROP CONSTRAINT "users_role_valid";--> statement-breakpoint
CREATE INDEX "books_reconciliations_rail_date_idx" ON "books_reconciliations" USING btree ("rail","business_date","id");--> statement-breakpoint
CREATE INDEX "gl_entry_requests_status_idx" ON "gl_entry_requests" USING btree ("status","id");--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_role_valid" CHECK ("users"."role" is null or "users"."role" in ('user', 'pending', 'admin', 'reviewer', 'accountant'));