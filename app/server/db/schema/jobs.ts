import { sql } from "drizzle-orm";
import { bigint, bigserial, check, index, integer, jsonb, pgTable, text, timestamp, unique } from "drizzle-orm/pg-core";

/**
 * Durable scheduled jobs (docs/architecture.md#scheduled-jobs, app/server/jobs/). Every run of a
 * job is one row: queued with the time it is due, claimed by one app process with
 * `FOR UPDATE SKIP LOCKED`, then succeeded or, after its last attempt, failed. A row is never
 * claimed twice at once: a process that dies while running one loses its lease and the run is
 * claimed again (on the embedded database, at the next start).
 */
const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const JOB_RUN_STATES = ["queued", "running", "succeeded", "failed"] as const;
export type JobRunState = (typeof JOB_RUN_STATES)[number];

export const jobRuns = pgTable(
  "job_runs",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** The job's name, as registered in app/server/jobs/registry.server.ts. */
    job: text("job").notNull(),
    /**
     * Makes enqueueing idempotent: one run per job and key. A recurring job's key is the time of
     * its slot; an enqueued job's key is the caller's (a bill payment's id and date).
     */
    key: text("key").notNull(),
    payload: jsonb("payload")
      .notNull()
      .default(sql`'{}'::jsonb`),
    state: text("state").notNull().default("queued"),
    /** When it is due, on the job clock. A retry moves it later by the backoff. */
    run_at: timestamptz("run_at").notNull(),
    /** Attempts started so far (a retry is an attempt after the first). */
    attempts: integer("attempts").notNull().default(0),
    max_attempts: integer("max_attempts").notNull(),
    /** The last attempt's error message (never a stack, never a secret). */
    last_error: text("last_error"),
    /** What the run reported when it succeeded (counts, never personal data). */
    result: jsonb("result"),
    /** The process that holds it while running, and until when (extended while it runs). */
    claimed_by: text("claimed_by"),
    lease_until: timestamptz("lease_until"),
    started_at: timestamptz("started_at"),
    finished_at: timestamptz("finished_at"),
    created_at: timestamptz("created_at").defaultNow().notNull(),
  },
  (t) => [
    unique("job_runs_job_key_unique").on(t.job, t.key),
    index("job_runs_due_idx")
      .on(t.run_at)
      .where(sql`${t.state} = 'queued'`),
    index("job_runs_running_idx")
      .on(t.lease_until)
      .where(sql`${t.state} = 'running'`),
    index("job_runs_job_idx").on(t.job, t.id),
    check("job_runs_state_valid", sql`${t.state} in ('queued', 'running', 'succeeded', 'failed')`),
    check(
      "job_runs_attempts_range",
      sql`${t.attempts} >= 0 and ${t.max_attempts} >= 1 and ${t.attempts} <= ${t.max_attempts}`,
    ),
  ],
);

/**
 * The job clock's offset from the wall clock, one row. Read only when JOB_CLOCK=adjustable (demo
 * and tests): staff or a test move the jobs' time forward to see a job that is due tomorrow run
 * now, in every process at once. Never read in a real deployment.
 */
export const jobClock = pgTable(
  "job_clock",
  {
    id: integer("id").primaryKey().default(1),
    offset_ms: bigint("offset_ms", { mode: "number" }).notNull().default(0),
    updated_at: timestamptz("updated_at").defaultNow().notNull(),
  },
  (t) => [check("job_clock_one_row", sql`${t.id} = 1`), check("job_clock_forward_only", sql`${t.offset_ms} >= 0`)],
);
