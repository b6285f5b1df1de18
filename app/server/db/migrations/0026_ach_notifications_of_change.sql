CREATE TABLE "ach_notifications_of_change" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"entry_id" bigint NOT NULL,
	"change_code" text NOT NULL,
	"original_trace_number" text NOT NULL,
	"corrected_data" text NOT NULL,
	"payment_id" bigint,
	"member_id" text,
	"status" text DEFAULT 'waiting' NOT NULL,
	"note" text,
	"resolved_by" text,
	"resolved_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ach_notifications_of_change_entry_unique" UNIQUE("entry_id"),
	CONSTRAINT "ach_notifications_of_change_status_valid" CHECK ("ach_notifications_of_change"."status" in ('waiting', 'applied', 'handled')),
	CONSTRAINT "ach_notifications_of_change_resolved" CHECK (("ach_notifications_of_change"."status" = 'waiting') = ("ach_notifications_of_change"."resolved_at" is null))
);
--> statement-breakpoint
ALTER TABLE "ach_inbound_entries" DROP CONSTRAINT "ach_inbound_entries_kind_valid";--> statement-breakpoint
ALTER TABLE "ach_notifications_of_change" ADD CONSTRAINT "ach_notifications_of_change_entry_id_ach_inbound_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."ach_inbound_entries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ach_notifications_of_change_waiting_idx" ON "ach_notifications_of_change" USING btree ("id") WHERE "ach_notifications_of_change"."status" = 'waiting';--> statement-breakpoint
CREATE INDEX "ach_notifications_of_change_payment_idx" ON "ach_notifications_of_change" USING btree ("payment_id") WHERE "ach_notifications_of_change"."payment_id" is not null;--> statement-breakpoint
ALTER TABLE "ach_inbound_entries" ADD CONSTRAINT "ach_inbound_entries_kind_valid" CHECK ("ach_inbound_entries"."kind" in ('credit', 'debit', 'prenote', 'return', 'noc'));