ALTER TABLE "ach_inbound_entries" DROP CONSTRAINT "ach_inbound_entries_status_valid";--> statement-breakpoint
ALTER TABLE "external_payments" ADD COLUMN "export_problem" text;--> statement-breakpoint
ALTER TABLE "ach_inbound_entries" ADD COLUMN "duplicate_of_entry_id" bigint;--> statement-breakpoint
CREATE INDEX "ach_inbound_entries_held_idx" ON "ach_inbound_entries" USING btree ("id") WHERE "ach_inbound_entries"."status" = 'held';--> statement-breakpoint
CREATE INDEX "ach_inbound_entries_trace_idx" ON "ach_inbound_entries" USING btree ("trace_number","effective_date");--> statement-breakpoint
ALTER TABLE "ach_inbound_entries" ADD CONSTRAINT "ach_inbound_entries_status_valid" CHECK ("ach_inbound_entries"."status" in ('received', 'posted', 'returned', 'applied', 'unmatched', 'noted', 'held'));