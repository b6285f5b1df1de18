CREATE TABLE "ach_inbound_entries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"file_id" bigint NOT NULL,
	"line" integer NOT NULL,
	"batch_number" integer NOT NULL,
	"company_name" text NOT NULL,
	"company_discretionary_data" text NOT NULL,
	"company_id" text NOT NULL,
	"sec_code" text NOT NULL,
	"entry_description" text NOT NULL,
	"effective_date" date NOT NULL,
	"transaction_code" text NOT NULL,
	"kind" text NOT NULL,
	"account_number" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"individual_id" text NOT NULL,
	"individual_name" text NOT NULL,
	"trace_number" text NOT NULL,
	"payment_information" text,
	"status" text DEFAULT 'received' NOT NULL,
	"return_code" text,
	"original_trace_number" text,
	"account_id" bigint,
	"transaction_id" bigint,
	"payment_id" bigint,
	"return_file_id" bigint,
	"return_trace_number" text,
	"resolved_at" timestamp with time zone,
	CONSTRAINT "ach_inbound_entries_file_line_unique" UNIQUE("file_id","line"),
	CONSTRAINT "ach_inbound_entries_kind_valid" CHECK ("ach_inbound_entries"."kind" in ('credit', 'debit', 'prenote', 'return')),
	CONSTRAINT "ach_inbound_entries_status_valid" CHECK ("ach_inbound_entries"."status" in ('received', 'posted', 'returned', 'applied', 'unmatched', 'noted')),
	CONSTRAINT "ach_inbound_entries_returned_has_code" CHECK ("ach_inbound_entries"."status" <> 'returned' or "ach_inbound_entries"."return_code" is not null),
	CONSTRAINT "ach_inbound_entries_posted_has_transaction" CHECK ("ach_inbound_entries"."status" <> 'posted' or "ach_inbound_entries"."transaction_id" is not null),
	CONSTRAINT "ach_inbound_entries_amount" CHECK ("ach_inbound_entries"."amount_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE "ach_inbound_files" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"file_name" text NOT NULL,
	"sha256" text NOT NULL,
	"content" text NOT NULL,
	"immediate_origin" text NOT NULL,
	"created_date" date NOT NULL,
	"file_id_modifier" text NOT NULL,
	"status" text DEFAULT 'posting' NOT NULL,
	"entry_count" integer NOT NULL,
	"credit_total_cents" bigint NOT NULL,
	"debit_total_cents" bigint NOT NULL,
	"posted_count" integer DEFAULT 0 NOT NULL,
	"returned_count" integer DEFAULT 0 NOT NULL,
	"uploaded_by" text NOT NULL,
	"uploaded_at" timestamp with time zone DEFAULT now() NOT NULL,
	"posted_at" timestamp with time zone,
	CONSTRAINT "ach_inbound_files_sha256_unique" UNIQUE("sha256"),
	CONSTRAINT "ach_inbound_files_status_valid" CHECK ("ach_inbound_files"."status" in ('posting', 'posted')),
	CONSTRAINT "ach_inbound_files_totals" CHECK ("ach_inbound_files"."entry_count" > 0 and "ach_inbound_files"."credit_total_cents" >= 0 and "ach_inbound_files"."debit_total_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE "ach_return_files" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"file_name" text NOT NULL,
	"content" text NOT NULL,
	"sha256" text NOT NULL,
	"business_date" date NOT NULL,
	"entry_count" integer NOT NULL,
	"credit_total_cents" bigint NOT NULL,
	"debit_total_cents" bigint NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ach_return_files_name_unique" UNIQUE("file_name"),
	CONSTRAINT "ach_return_files_counts" CHECK ("ach_return_files"."entry_count" > 0)
);
--> statement-breakpoint
CREATE INDEX "ach_inbound_entries_file_status_idx" ON "ach_inbound_entries" USING btree ("file_id","status","id");--> statement-breakpoint
CREATE INDEX "ach_inbound_entries_waiting_idx" ON "ach_inbound_entries" USING btree ("id") WHERE ("ach_inbound_entries"."status" = 'returned' and "ach_inbound_entries"."return_file_id" is null) or "ach_inbound_entries"."status" = 'unmatched';--> statement-breakpoint
CREATE INDEX "ach_inbound_entries_return_file_idx" ON "ach_inbound_entries" USING btree ("return_file_id");