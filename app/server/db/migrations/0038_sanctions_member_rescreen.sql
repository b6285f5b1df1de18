CREATE TABLE "sanctions_rescreens" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"version_ids" jsonb NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"cursor" text,
	"members_screened" integer DEFAULT 0 NOT NULL,
	"possible_matches" integer DEFAULT 0 NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "sanctions_rescreens_status_valid" CHECK ("sanctions_rescreens"."status" in ('running', 'done', 'superseded')),
	CONSTRAINT "sanctions_rescreens_finished" CHECK (("sanctions_rescreens"."status" = 'running') = ("sanctions_rescreens"."finished_at" is null))
);
--> statement-breakpoint
ALTER TABLE "sanctions_screenings" DROP CONSTRAINT "sanctions_screenings_subject_valid";--> statement-breakpoint
CREATE INDEX "sanctions_rescreens_status_idx" ON "sanctions_rescreens" USING btree ("status","id");--> statement-breakpoint
ALTER TABLE "sanctions_screenings" ADD CONSTRAINT "sanctions_screenings_subject_valid" CHECK ("sanctions_screenings"."subject_type" in ('payment', 'application', 'member'));