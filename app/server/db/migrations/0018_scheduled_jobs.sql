CREATE TABLE "job_clock" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"offset_ms" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "job_clock_one_row" CHECK ("job_clock"."id" = 1),
	CONSTRAINT "job_clock_forward_only" CHECK ("job_clock"."offset_ms" >= 0)
);
--> statement-breakpoint
CREATE TABLE "job_runs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"job" text NOT NULL,
	"key" text NOT NULL,
	"payload" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"state" text DEFAULT 'queued' NOT NULL,
	"run_at" timestamp with time zone NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer NOT NULL,
	"last_error" text,
	"result" jsonb,
	"claimed_by" text,
	"lease_until" timestamp with time zone,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "job_runs_job_key_unique" UNIQUE("job","key"),
	CONSTRAINT "job_runs_state_valid" CHECK ("job_runs"."state" in ('queued', 'running', 'succeeded', 'failed')),
	CONSTRAINT "job_runs_attempts_range" CHECK ("job_runs"."attempts" >= 0 and "job_runs"."max_attempts" >= 1 and "job_runs"."attempts" <= "job_runs"."max_attempts")
);
--> statement-breakpoint
CREATE INDEX "job_runs_due_idx" ON "job_runs" USING btree ("run_at") WHERE "job_runs"."state" = 'queued';--> statement-breakpoint
CREATE INDEX "job_runs_running_idx" ON "job_runs" USING btree ("lease_until") WHERE "job_runs"."state" = 'running';--> statement-breakpoint
CREATE INDEX "job_runs_job_idx" ON "job_runs" USING btree ("job","id");