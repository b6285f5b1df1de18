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
CREATE INDEX "gl_entry_requests_status_idx" ON "gl_entry_requests" USING btree ("status","id");