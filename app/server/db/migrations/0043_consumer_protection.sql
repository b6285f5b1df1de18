CREATE TABLE "dispute_attachments" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"case_id" bigint NOT NULL,
	"file" text NOT NULL,
	"mime" text NOT NULL,
	"bytes" integer NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dispute_attachments_mime" CHECK ("dispute_attachments"."mime" in ('application/pdf', 'image/jpeg', 'image/png'))
);
--> statement-breakpoint
CREATE TABLE "disclosure_changes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"version" text NOT NULL,
	"profile_effective_on" text NOT NULL,
	"effective_on" text NOT NULL,
	"announced_on" text NOT NULL,
	"baseline" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"notices_done_at" timestamp with time zone,
	CONSTRAINT "disclosure_changes_once" UNIQUE("kind","version")
);
--> statement-breakpoint
ALTER TABLE "mobile_deposits" DROP CONSTRAINT "mobile_deposits_availability_split";--> statement-breakpoint
ALTER TABLE "mobile_deposits" ADD COLUMN "deposited_on" date;--> statement-breakpoint
ALTER TABLE "mobile_deposits" ADD COLUMN "hold_exception" text;--> statement-breakpoint
ALTER TABLE "mobile_deposits" ADD COLUMN "hold_reason" text;--> statement-breakpoint
ALTER TABLE "mobile_deposits" ADD COLUMN "exception_amount_cents" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "mobile_deposits" ADD COLUMN "exception_available_on" date;--> statement-breakpoint
ALTER TABLE "mobile_deposits" ADD COLUMN "exception_hold_transaction_id" bigint;--> statement-breakpoint
ALTER TABLE "mobile_deposits" ADD COLUMN "hold_notice_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "mobile_deposits" ADD COLUMN "hold_notice_channel" text;--> statement-breakpoint
ALTER TABLE "dispute_cases" ADD COLUMN "reported_via" text DEFAULT 'online' NOT NULL;--> statement-breakpoint
ALTER TABLE "dispute_cases" ADD COLUMN "entered_by" text;--> statement-breakpoint
ALTER TABLE "dispute_cases" ADD COLUMN "entered_by_email" text;--> statement-breakpoint
ALTER TABLE "dispute_cases" ADD COLUMN "chargeback_marked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "dispute_cases" ADD COLUMN "chargeback_marked_by" text;--> statement-breakpoint
ALTER TABLE "dispute_attachments" ADD CONSTRAINT "dispute_attachments_case_id_dispute_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."dispute_cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dispute_attachments_case_idx" ON "dispute_attachments" USING btree ("case_id","id");--> statement-breakpoint
ALTER TABLE "mobile_deposits" ADD CONSTRAINT "mobile_deposits_hold_exception_valid" CHECK ("mobile_deposits"."hold_exception" is null or "mobile_deposits"."hold_exception" in ('new_account', 'large_deposit', 'redeposited', 'reasonable_cause'));--> statement-breakpoint
ALTER TABLE "mobile_deposits" ADD CONSTRAINT "mobile_deposits_reasonable_cause_has_reason" CHECK ("mobile_deposits"."hold_exception" is distinct from 'reasonable_cause' or "mobile_deposits"."hold_reason" is not null);--> statement-breakpoint
ALTER TABLE "mobile_deposits" ADD CONSTRAINT "mobile_deposits_hold_notice_given" CHECK ("mobile_deposits"."exception_amount_cents" = 0 or ("mobile_deposits"."hold_exception" is not null and "mobile_deposits"."hold_notice_at" is not null));--> statement-breakpoint
ALTER TABLE "mobile_deposits" ADD CONSTRAINT "mobile_deposits_availability_split" CHECK ("mobile_deposits"."next_day_amount_cents" >= 0 and "mobile_deposits"."later_amount_cents" >= 0 and "mobile_deposits"."exception_amount_cents" >= 0 and "mobile_deposits"."next_day_amount_cents" + "mobile_deposits"."later_amount_cents" + "mobile_deposits"."exception_amount_cents" <= "mobile_deposits"."amount_cents");--> statement-breakpoint
ALTER TABLE "dispute_cases" ADD CONSTRAINT "dispute_cases_reported_via_valid" CHECK ("dispute_cases"."reported_via" in ('online', 'phone', 'in_person', 'mail'));--> statement-breakpoint
ALTER TABLE "dispute_cases" ADD CONSTRAINT "dispute_cases_entered_by_staff" CHECK (("dispute_cases"."reported_via" = 'online') = ("dispute_cases"."entered_by" is null));