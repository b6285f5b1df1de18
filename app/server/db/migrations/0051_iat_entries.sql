CREATE TABLE "ach_inbound_iat_entries" (
	"entry_id" bigint PRIMARY KEY NOT NULL,
	"details" jsonb NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ach_inbound_entries" DROP CONSTRAINT "ach_inbound_entries_status_valid";--> statement-breakpoint
ALTER TABLE "sanctions_screenings" DROP CONSTRAINT "sanctions_screenings_subject_valid";--> statement-breakpoint
ALTER TABLE "ach_inbound_iat_entries" ADD CONSTRAINT "ach_inbound_iat_entries_entry_id_ach_inbound_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."ach_inbound_entries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ach_inbound_entries" ADD CONSTRAINT "ach_inbound_entries_status_valid" CHECK ("ach_inbound_entries"."status" in ('received', 'posted', 'returned', 'applied', 'unmatched', 'noted', 'held', 'screening', 'blocked'));--> statement-breakpoint
ALTER TABLE "sanctions_screenings" ADD CONSTRAINT "sanctions_screenings_subject_valid" CHECK ("sanctions_screenings"."subject_type" in ('payment', 'application', 'member', 'ach_entry'));