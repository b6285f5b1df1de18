CREATE TABLE "payment_export_files" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"file_name" text NOT NULL,
	"content" text NOT NULL,
	"sha256" text NOT NULL,
	"business_date" date NOT NULL,
	"effective_date" date NOT NULL,
	"payment_count" integer NOT NULL,
	"total_cents" bigint NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_export_files_name_unique" UNIQUE("file_name"),
	CONSTRAINT "payment_export_files_kind_valid" CHECK ("payment_export_files"."kind" in ('ach', 'wire')),
	CONSTRAINT "payment_export_files_counts" CHECK ("payment_export_files"."payment_count" > 0 and "payment_export_files"."total_cents" > 0)
);
--> statement-breakpoint
ALTER TABLE "external_payments" ADD COLUMN "export_file_id" bigint;--> statement-breakpoint
CREATE INDEX "payment_export_files_kind_idx" ON "payment_export_files" USING btree ("kind","id");--> statement-breakpoint
CREATE INDEX "external_payments_export_file_idx" ON "external_payments" USING btree ("export_file_id");--> statement-breakpoint
ALTER TABLE "external_payments" ADD CONSTRAINT "external_payments_sent_has_file" CHECK (("external_payments"."status" = 'sent') = ("external_payments"."export_file_id" is not null));