CREATE TABLE "ach_inbound_iat_entries" (
	"entry_id" bigint PRIMARY KEY NOT NULL,
	"details" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "suspicious_activity_reports" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"source_type" text NOT NULL,
	"source_id" bigint NOT NULL,
	"subject_member_ids" jsonb NOT NULL,
	"suspect_identified" boolean NOT NULL,
	"amount_cents" bigint NOT NULL,
	"activity_from" date NOT NULL,
	"activity_to" date NOT NULL,
	"detected_on" date NOT NULL,
	"due_on" date NOT NULL,
	"narrative_enc" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"opened_by" text NOT NULL,
	"opened_at" timestamp with time zone DEFAULT now() NOT NULL,
	"approved_by" text,
	"approved_at" timestamp with time zone,
	"filed_by" text,
	"filed_at" timestamp with time zone,
	"bsa_acknowledgement" text,
	CONSTRAINT "suspicious_activity_reports_status_valid" CHECK ("suspicious_activity_reports"."status" in ('open', 'approved', 'filed')),
	CONSTRAINT "suspicious_activity_reports_source_valid" CHECK ("suspicious_activity_reports"."source_type" in ('screening', 'credit_review')),
	CONSTRAINT "suspicious_activity_reports_approved_by_another" CHECK ("suspicious_activity_reports"."status" = 'open' or ("suspicious_activity_reports"."approved_by" is not null and "suspicious_activity_reports"."approved_by" <> "suspicious_activity_reports"."opened_by")),
	CONSTRAINT "suspicious_activity_reports_filed_has_acknowledgement" CHECK (("suspicious_activity_reports"."status" = 'filed') = ("suspicious_activity_reports"."bsa_acknowledgement" is not null)),
	CONSTRAINT "suspicious_activity_reports_amount" CHECK ("suspicious_activity_reports"."amount_cents" >= 0),
	CONSTRAINT "suspicious_activity_reports_dates" CHECK ("suspicious_activity_reports"."activity_from" <= "suspicious_activity_reports"."activity_to")
);
--> statement-breakpoint
ALTER TABLE "ach_inbound_entries" DROP CONSTRAINT "ach_inbound_entries_status_valid";--> statement-breakpoint
ALTER TABLE "sanctions_screenings" DROP CONSTRAINT "sanctions_screenings_subject_valid";--> statement-breakpoint
ALTER TABLE "ach_inbound_iat_entries" ADD CONSTRAINT "ach_inbound_iat_entries_entry_id_ach_inbound_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."ach_inbound_entries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "suspicious_activity_reports_status_idx" ON "suspicious_activity_reports" USING btree ("status","due_on");--> statement-breakpoint
ALTER TABLE "ach_inbound_entries" ADD CONSTRAINT "ach_inbound_entries_status_valid" CHECK ("ach_inbound_entries"."status" in ('received', 'posted', 'returned', 'applied', 'unmatched', 'noted', 'held', 'screening', 'blocked'));--> statement-breakpoint
ALTER TABLE "sanctions_screenings" ADD CONSTRAINT "sanctions_screenings_subject_valid" CHECK ("sanctions_screenings"."subject_type" in ('payment', 'application', 'member', 'ach_entry'));