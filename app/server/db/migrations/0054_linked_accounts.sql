CREATE TABLE "linked_accounts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"member_id" text NOT NULL,
	"routing_number" text NOT NULL,
	"account_number_enc" text NOT NULL,
	"account_last4" text NOT NULL,
	"account_type" text NOT NULL,
	"nickname" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"micro_first_cents" integer NOT NULL,
	"micro_second_cents" integer NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"micro_file_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	CONSTRAINT "linked_accounts_status_valid" CHECK ("linked_accounts"."status" in ('pending', 'verified', 'failed', 'removed')),
	CONSTRAINT "linked_accounts_type_valid" CHECK ("linked_accounts"."account_type" in ('checking', 'savings')),
	CONSTRAINT "linked_accounts_micro_range" CHECK ("linked_accounts"."micro_first_cents" between 1 and 99 and "linked_accounts"."micro_second_cents" between 1 and 99),
	CONSTRAINT "linked_accounts_attempts_range" CHECK ("linked_accounts"."attempts" between 0 and 3)
);
--> statement-breakpoint
ALTER TABLE "payment_export_files" DROP CONSTRAINT "payment_export_files_counts";--> statement-breakpoint
CREATE INDEX "linked_accounts_member_idx" ON "linked_accounts" USING btree ("member_id","id");--> statement-breakpoint
CREATE INDEX "linked_accounts_micro_pending_idx" ON "linked_accounts" USING btree ("id") WHERE "linked_accounts"."micro_file_id" is null and "linked_accounts"."status" = 'pending';--> statement-breakpoint
ALTER TABLE "payment_export_files" ADD CONSTRAINT "payment_export_files_counts" CHECK ("payment_export_files"."payment_count" >= 0 and "payment_export_files"."total_cents" >= 0 and ("payment_export_files"."payment_count" = 0) = ("payment_export_files"."total_cents" = 0));