import type { Actor } from "~/domain/actor";
import { and, desc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { jobRuns } from "~/server/db/schema";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import type { JobClock } from "./clock.server";
import type { JobDefinition } from "./job";

/**
 * What staff see at /admin/jobs (docs/product.md#scheduled-jobs): for each job, when it runs next,
 * how its last run ended, the run being retried and its error, and the latest runs. Errors are the
 * runner's safe messages (no stack, no address, no secret).
 */
export interface JobRunView {
  id: number;
  job: string;
  key: string;
  state: string;
  attempts: number;
  max_attempts: number;
  run_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  last_error: string | null;
  result: unknown;
}

export interface JobOverview {
  name: string;
  title: string;
  description: string;
  schedule: string | null;
  next_run_at: Date | null;
  running: boolean;
  /** The latest run that ended, succeeded or failed. */
  last_run: JobRunView | null;
  /** A run waiting for another attempt after a failure. */
  retrying: JobRunView | null;
  /** Runs that gave up, all time. */
  failed_runs: number;
}

export interface JobsPage {
  clock: { now: Date; adjustable: boolean };
  jobs: JobOverview[];
  /** The latest runs of every job that ended or are being retried, newest first. */
  recent: JobRunView[];
}

const RECENT_MAX = 20;

const columns = {
  id: jobRuns.id,
  job: jobRuns.job,
  key: jobRuns.key,
  state: jobRuns.state,
  attempts: jobRuns.attempts,
  max_attempts: jobRuns.max_attempts,
  run_at: jobRuns.run_at,
  started_at: jobRuns.started_at,
  finished_at: jobRuns.finished_at,
  last_error: jobRuns.last_error,
  result: jobRuns.result,
};

export async function jobsPage(db: Db, jobs: readonly JobDefinition<never>[], clock: JobClock): Promise<JobsPage> {
  const overviews: JobOverview[] = [];
  for (const job of jobs) {
    const [next] = await db
      .select({
        run_at: sql<Date | null>`min(${jobRuns.run_at})`.mapWith(jobRuns.run_at),
        running: sql<boolean>`bool_or(${jobRuns.state} = 'running')`,
      })
      .from(jobRuns)
      .where(and(eq(jobRuns.job, job.name), inArray(jobRuns.state, ["queued", "running"])));
    const [last_run] = await db
      .select(columns)
      .from(jobRuns)
      .where(and(eq(jobRuns.job, job.name), inArray(jobRuns.state, ["succeeded", "failed"])))
      .orderBy(desc(jobRuns.finished_at), desc(jobRuns.id))
      .limit(1);
    const [retrying] = await db
      .select(columns)
      .from(jobRuns)
      .where(and(eq(jobRuns.job, job.name), eq(jobRuns.state, "queued"), isNotNull(jobRuns.last_error)))
      .orderBy(jobRuns.run_at)
      .limit(1);
    const [failed] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(jobRuns)
      .where(and(eq(jobRuns.job, job.name), eq(jobRuns.state, "failed")));
    overviews.push({
      name: job.name,
      title: job.title,
      description: job.description,
      schedule: job.schedule ?? null,
      next_run_at: next?.run_at ?? null,
      running: Boolean(next?.running),
      last_run: last_run ?? null,
      retrying: retrying ?? null,
      failed_runs: Number(failed?.n ?? 0),
    });
  }
  const names = jobs.map((j) => j.name);
  const recent = names.length
    ? await db
        .select(columns)
        .from(jobRuns)
        .where(
          and(
            inArray(jobRuns.job, names),
            sql`(${jobRuns.state} in ('succeeded', 'failed') or ${jobRuns.last_error} is not null)`,
          ),
        )
        .orderBy(desc(jobRuns.id))
        .limit(RECENT_MAX)
    : [];
  return { clock: { now: await clock.now(), adjustable: clock.adjustable }, jobs: overviews, recent };
}

/** Staff move the adjustable job clock forward (the demo); audited. */
export async function advanceJobClock(
  db: Db,
  clock: JobClock,
  input: { hours: number; staff: Actor; origin: AuditOrigin },
): Promise<Date> {
  const before = await clock.now();
  const after = await clock.advance(input.hours * 60 * 60_000);
  await recordAudit(db, {
    actor_id: input.staff.id,
    actor_email: input.staff.email,
    action: "job_clock.advance",
    subject_type: "job_clock",
    before: { at: before.toISOString() },
    after: { at: after.toISOString(), hours: input.hours },
    request_id: input.origin.request_id,
    ip: input.origin.ip,
  });
  return after;
}
