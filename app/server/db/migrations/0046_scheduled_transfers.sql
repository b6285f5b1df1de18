CREATE TABLE "scheduled_transfer_runs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"series_id" bigint NOT NULL,
	"sequence" integer NOT NULL,
	"run_date" date NOT NULL,
	"amount_cents" bigint NOT NULL,
	"status" text NOT NULL,
	"transaction_id" bigint,
	"failure_reason" text,
	"claimed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "scheduled_transfer_runs_slot_unique" UNIQUE("series_id","sequence"),
	CONSTRAINT "scheduled_transfer_runs_status_valid" CHECK ("scheduled_transfer_runs"."status" in ('running', 'sent', 'failed', 'skipped')),
	CONSTRAINT "scheduled_transfer_runs_failed_has_reason" CHECK (("scheduled_transfer_runs"."status" = 'failed') = ("scheduled_transfer_runs"."failure_reason" is not null))
);
--> statement-breakpoint
CREATE TABLE "scheduled_transfers" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"member_id" text NOT NULL,
	"kind" text NOT NULL,
	"from_account_id" bigint NOT NULL,
	"to_account_id" bigint,
	"recipient_member_id" text,
	"amount_cents" bigint NOT NULL,
	"reference" text NOT NULL,
	"frequency" text NOT NULL,
	"interval_weeks" integer,
	"first_date" date NOT NULL,
	"start_sequence" integer DEFAULT 1 NOT NULL,
	"end_date" date,
	"payment_count" integer,
	"on_failure" text DEFAULT 'continue' NOT NULL,
	"next_sequence" integer DEFAULT 1 NOT NULL,
	"next_date" date,
	"status" text DEFAULT 'active' NOT NULL,
	"idempotency_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone,
	CONSTRAINT "scheduled_transfers_member_key_unique" UNIQUE("member_id","idempotency_key"),
	CONSTRAINT "scheduled_transfers_amount_positive" CHECK ("scheduled_transfers"."amount_cents" > 0),
	CONSTRAINT "scheduled_transfers_kind_valid" CHECK (("scheduled_transfers"."kind" = 'internal' and "scheduled_transfers"."to_account_id" is not null and "scheduled_transfers"."recipient_member_id" is null) or ("scheduled_transfers"."kind" = 'member' and "scheduled_transfers"."to_account_id" is null and "scheduled_transfers"."recipient_member_id" is not null)),
	CONSTRAINT "scheduled_transfers_frequency_valid" CHECK (("scheduled_transfers"."frequency" in ('once', 'monthly') and "scheduled_transfers"."interval_weeks" is null) or ("scheduled_transfers"."frequency" = 'weeks' and "scheduled_transfers"."interval_weeks" between 1 and 52)),
	CONSTRAINT "scheduled_transfers_one_end" CHECK (("scheduled_transfers"."end_date" is null) <> ("scheduled_transfers"."payment_count" is null)),
	CONSTRAINT "scheduled_transfers_status_valid" CHECK ("scheduled_transfers"."status" in ('active', 'ended', 'stopped', 'cancelled')),
	CONSTRAINT "scheduled_transfers_on_failure_valid" CHECK ("scheduled_transfers"."on_failure" in ('continue', 'stop'))
);
--> statement-breakpoint
ALTER TABLE "scheduled_transfer_runs" ADD CONSTRAINT "scheduled_transfer_runs_series_id_scheduled_transfers_id_fk" FOREIGN KEY ("series_id") REFERENCES "public"."scheduled_transfers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scheduled_transfers" ADD CONSTRAINT "scheduled_transfers_from_account_id_ledger_accounts_id_fk" FOREIGN KEY ("from_account_id") REFERENCES "public"."ledger_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scheduled_transfers" ADD CONSTRAINT "scheduled_transfers_to_account_id_ledger_accounts_id_fk" FOREIGN KEY ("to_account_id") REFERENCES "public"."ledger_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "scheduled_transfer_runs_running_idx" ON "scheduled_transfer_runs" USING btree ("claimed_at") WHERE "scheduled_transfer_runs"."status" = 'running';--> statement-breakpoint
CREATE INDEX "scheduled_transfers_member_idx" ON "scheduled_transfers" USING btree ("member_id","id");--> statement-breakpoint
CREATE INDEX "scheduled_transfers_due_idx" ON "scheduled_transfers" USING btree ("status","next_date");