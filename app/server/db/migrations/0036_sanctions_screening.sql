CREATE TABLE "sanctions_entries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"version_id" bigint NOT NULL,
	"uid" text NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"programs" jsonb NOT NULL,
	"aliases" jsonb NOT NULL,
	"birth_dates" jsonb NOT NULL,
	"countries" jsonb NOT NULL,
	"remarks" text,
	CONSTRAINT "sanctions_entries_version_uid_unique" UNIQUE("version_id","uid")
);
--> statement-breakpoint
CREATE TABLE "sanctions_list_versions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"source" text NOT NULL,
	"published_on" date NOT NULL,
	"loaded_at" timestamp with time zone DEFAULT now() NOT NULL,
	"loaded_by" text,
	"loaded_by_label" text NOT NULL,
	"entry_count" integer NOT NULL,
	"file_names" text NOT NULL,
	"sha256" text NOT NULL,
	CONSTRAINT "sanctions_list_versions_source_valid" CHECK ("sanctions_list_versions"."source" in ('sdn', 'consolidated')),
	CONSTRAINT "sanctions_list_versions_count" CHECK ("sanctions_list_versions"."entry_count" >= 0)
);
--> statement-breakpoint
CREATE TABLE "sanctions_screenings" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"subject_type" text NOT NULL,
	"subject_id" text NOT NULL,
	"member_id" text NOT NULL,
	"screened_name" text NOT NULL,
	"screened_details" jsonb NOT NULL,
	"matches" jsonb NOT NULL,
	"score" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"cleared_by" text,
	"cleared_at" timestamp with time zone,
	"clear_reason" text,
	"confirm_requested_by" text,
	"confirm_requested_at" timestamp with time zone,
	"confirm_reason" text,
	"confirmed_by" text,
	"confirmed_at" timestamp with time zone,
	CONSTRAINT "sanctions_screenings_subject_valid" CHECK ("sanctions_screenings"."subject_type" in ('payment', 'application')),
	CONSTRAINT "sanctions_screenings_status_valid" CHECK ("sanctions_screenings"."status" in ('open', 'cleared', 'confirm_requested', 'confirmed')),
	CONSTRAINT "sanctions_screenings_cleared_has_reason" CHECK (("sanctions_screenings"."status" = 'cleared') = ("sanctions_screenings"."cleared_by" is not null and "sanctions_screenings"."clear_reason" is not null)),
	CONSTRAINT "sanctions_screenings_confirmed_by_another" CHECK ("sanctions_screenings"."status" <> 'confirmed' or ("sanctions_screenings"."confirmed_by" is not null and "sanctions_screenings"."confirmed_by" <> "sanctions_screenings"."confirm_requested_by"))
);
--> statement-breakpoint
ALTER TABLE "external_payments" DROP CONSTRAINT "external_payments_status_valid";--> statement-breakpoint
ALTER TABLE "sanctions_entries" ADD CONSTRAINT "sanctions_entries_version_id_sanctions_list_versions_id_fk" FOREIGN KEY ("version_id") REFERENCES "public"."sanctions_list_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sanctions_list_versions_source_idx" ON "sanctions_list_versions" USING btree ("source","id");--> statement-breakpoint
CREATE INDEX "sanctions_screenings_status_idx" ON "sanctions_screenings" USING btree ("status","id");--> statement-breakpoint
CREATE INDEX "sanctions_screenings_subject_idx" ON "sanctions_screenings" USING btree ("subject_type","subject_id");--> statement-breakpoint
ALTER TABLE "external_payments" ADD CONSTRAINT "external_payments_status_valid" CHECK ("external_payments"."status" in ('pending', 'sent', 'cancelled', 'screening', 'blocked'));