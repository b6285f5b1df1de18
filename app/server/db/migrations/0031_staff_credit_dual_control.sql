CREATE TABLE "staff_posting_requests" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"member_id" text NOT NULL,
	"source" text NOT NULL,
	"file_name" text,
	"batch_key" text NOT NULL,
	"rows" jsonb NOT NULL,
	"row_count" integer NOT NULL,
	"credit_total_cents" bigint NOT NULL,
	"debit_total_cents" bigint NOT NULL,
	"wait_reason" text,
	"status" text NOT NULL,
	"requested_by" text NOT NULL,
	"requested_by_email" text,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_by" text,
	"decided_by_email" text,
	"decided_at" timestamp with time zone,
	"decline_reason" text,
	CONSTRAINT "staff_posting_requests_batch_key_unique" UNIQUE("batch_key"),
	CONSTRAINT "staff_posting_requests_status_valid" CHECK ("staff_posting_requests"."status" in ('awaiting_approval', 'posted', 'declined')),
	CONSTRAINT "staff_posting_requests_source_valid" CHECK ("staff_posting_requests"."source" in ('csv', 'table')),
	CONSTRAINT "staff_posting_requests_totals" CHECK ("staff_posting_requests"."credit_total_cents" >= 0 and "staff_posting_requests"."debit_total_cents" >= 0 and "staff_posting_requests"."row_count" > 0),
	CONSTRAINT "staff_posting_requests_checker_not_maker" CHECK ("staff_posting_requests"."decided_by" is null or "staff_posting_requests"."decided_by" <> "staff_posting_requests"."requested_by"),
	CONSTRAINT "staff_posting_requests_waits_with_reason" CHECK ("staff_posting_requests"."status" = 'posted' or length("staff_posting_requests"."wait_reason") > 0),
	CONSTRAINT "staff_posting_requests_declined_has_reason" CHECK ("staff_posting_requests"."status" <> 'declined' or ("staff_posting_requests"."decided_by" is not null and length("staff_posting_requests"."decline_reason") > 0))
);
--> statement-breakpoint
CREATE INDEX "staff_posting_requests_awaiting_idx" ON "staff_posting_requests" USING btree ("requested_at","id") WHERE "staff_posting_requests"."status" = 'awaiting_approval';--> statement-breakpoint
CREATE INDEX "staff_posting_requests_maker_idx" ON "staff_posting_requests" USING btree ("requested_by","requested_at");--> statement-breakpoint
CREATE INDEX "balance_adjustments_maker_idx" ON "balance_adjustments" USING btree ("requested_by","requested_at");