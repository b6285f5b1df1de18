import crypto from "node:crypto";
import os from "node:os";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { jobRuns } from "~/server/db/schema";
import { describeDatabaseError, isDatabaseUnavailable } from "~/server/db/unavailable.server";
import { recordAudit } from "~/server/audit/audit.server";
import { countJobRun } from "~/server/metrics/metrics.server";
import type { JobClock } from "./clock.server";
import { DEFAULT_MAX_ATTEMPTS, type JobDefinition, type JobResult } from "./job";
import { DEFAULT_BACKOFF, nextCronTime, retryDelayMs, safeErrorMessage, slotKey } from "./schedule";

/**
 * The job runner (docs/architecture.md#scheduled-jobs; why our own: docs/decisions/0010). Every
 * app process runs one. Each poll it:
 *  1. puts back runs whose process stopped while running them (their lease ran out; on the
 *     embedded database, which one process only can open, every run left running at start-up);
 *  2. claims the oldest due run with `FOR UPDATE SKIP LOCKED`, so two processes never claim the
 *     same one, and marks it running with a lease it extends while the work goes on;
 *  3. runs it, then marks it succeeded, or queues it again after the backoff, or, after its last
 *     attempt, failed (audited);
 * and repeats until nothing is due. A recurring job's next slot is queued when a slot is claimed,
 * keyed by its time, so every process computing it queues it once.
 */
export interface RunnerOptions {
  db: Db;
  /** "pglite": only this process can have the database open, so a run left running is orphaned. */
  kind: "pglite" | "postgres";
  clock: JobClock;
  jobs: readonly JobDefinition<never>[];
  time_zone: string;
  logger: Logger;
  /** Wait between polls when nothing is due. */
  poll_ms: number;
  /** How long a claimed run is this process's without a heartbeat (a third of it apart). */
  lease_ms: number;
}

export interface RunOutcome {
  id: number;
  job: string;
  outcome: "succeeded" | "retry" | "failed";
}

interface ClaimedRun {
  id: number;
  job: string;
  key: string;
  payload: Record<string, unknown>;
  attempts: number;
  max_attempts: number;
}

export class JobRunner {
  readonly worker_id = `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString("hex")}`;
  private readonly byName: Map<string, JobDefinition<never>>;
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private started = false;
  /** The poll in progress (a run and the ones due after it), awaited by stop(). */
  private current: Promise<unknown> | undefined;

  constructor(private readonly options: RunnerOptions) {
    this.byName = new Map(options.jobs.map((j) => [j.name, j]));
    if (this.byName.size !== options.jobs.length) throw new Error("two jobs share a name");
  }

  /**
   * Starts polling. The first poll recovers orphaned runs and queues each recurring job's next
   * slot; a database that fails it (PostgreSQL restarting) only delays it to the next poll.
   */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.schedulePoll(0);
  }

  private startedUp = false;
  private async startUp(): Promise<void> {
    if (this.startedUp) return;
    if (this.options.kind === "pglite") await this.recoverOrphans({ all: true });
    await this.queueNextSlots();
    this.startedUp = true;
  }

  /**
   * Stops polling and waits for the run in progress to finish (graceful shutdown); claims nothing
   * more. A run still going after the caller's own limit is cut off with the process, and its
   * lease brings it back.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    await this.current?.catch(() => undefined);
  }

  get runningNow(): boolean {
    return this.current !== undefined;
  }

  /**
   * Runs everything due now, one run at a time, and returns what happened. The poll loop calls it;
   * tests call it after moving the job clock.
   */
  async runDue(): Promise<RunOutcome[]> {
    if (this.current) await this.current.catch(() => undefined);
    const work = this.drain();
    this.current = work;
    try {
      return await work;
    } finally {
      if (this.current === work) this.current = undefined;
    }
  }

  private async drain(): Promise<RunOutcome[]> {
    const outcomes: RunOutcome[] = [];
    await this.startUp();
    await this.recoverOrphans({ all: false });
    while (!this.stopping) {
      const now = await this.options.clock.now();
      const run = await this.claim(now);
      if (!run) break;
      outcomes.push(await this.execute(run, now));
    }
    return outcomes;
  }

  private schedulePoll(delay_ms: number): void {
    if (this.stopping) return;
    this.timer = setTimeout(() => {
      void this.runDue()
        .then(() => this.databaseReachable())
        .catch((error: unknown) => this.pollFailed(error))
        .finally(() => this.schedulePoll(this.options.poll_ms));
    }, delay_ms);
    // A poll waiting never keeps a stopping process alive.
    this.timer.unref();
  }

  /** Whether the last poll found the database unreachable (said once per outage, not every poll). */
  private databaseDown = false;

  private pollFailed(error: unknown): void {
    if (!isDatabaseUnavailable(error)) {
      this.options.logger.error({ err: error }, "job runner poll failed");
      return;
    }
    if (this.databaseDown) return;
    this.databaseDown = true;
    this.options.logger.warn(
      { database: describeDatabaseError(error) },
      "job runner: the database is unreachable; jobs wait until it is back",
    );
  }

  private databaseReachable(): void {
    if (!this.databaseDown) return;
    this.databaseDown = false;
    this.options.logger.info("job runner: the database is reachable again; due jobs run");
  }

  /** The claim: the oldest due run of a job this process knows, locked so no other process takes it. */
  private async claim(now: Date): Promise<ClaimedRun | undefined> {
    const names = [...this.byName.keys()];
    if (!names.length) return undefined;
    const lease = `${this.options.lease_ms} milliseconds`;
    const result = await this.options.db.execute<Record<string, unknown>>(sql`
      update job_runs set state = 'running', attempts = attempts + 1, claimed_by = ${this.worker_id},
             lease_until = now() + ${lease}::interval, started_at = ${now.toISOString()}::timestamptz, finished_at = null
       where id = (
         select id from job_runs
          where state = 'queued' and run_at <= ${now.toISOString()}::timestamptz
            and job in (${sql.join(
              names.map((n) => sql`${n}`),
              sql`, `,
            )})
          order by run_at, id
          limit 1
          for update skip locked)
      returning id, job, key, payload, attempts, max_attempts`);
    const row = result.rows[0];
    if (!row) return undefined;
    const run: ClaimedRun = {
      id: Number(row.id),
      job: String(row.job),
      key: String(row.key),
      payload: (typeof row.payload === "string" ? JSON.parse(row.payload) : row.payload) as Record<string, unknown>,
      attempts: Number(row.attempts),
      max_attempts: Number(row.max_attempts),
    };
    // The schedule goes on whatever this run's outcome.
    const definition = this.byName.get(run.job);
    if (definition?.schedule) await this.queueSlotAfter(definition, now);
    return run;
  }

  private async execute(run: ClaimedRun, now: Date): Promise<RunOutcome> {
    const definition = this.byName.get(run.job)!;
    const log = this.options.logger.child({ job: run.job, job_run_id: run.id, attempt: run.attempts });
    const heartbeat = setInterval(
      () =>
        void this.extendLease(run.id).catch((error: unknown) =>
          log.warn({ err: error }, "could not extend a job run's lease"),
        ),
      Math.max(250, Math.floor(this.options.lease_ms / 3)),
    );
    heartbeat.unref();
    const started_ms = performance.now();
    let result: JobResult | void;
    try {
      log.info("job run started");
      result = await definition.run({
        db: this.options.db,
        now,
        payload: run.payload as never,
        run: { id: run.id, key: run.key, attempt: run.attempts, max_attempts: run.max_attempts },
        log,
      });
    } catch (error) {
      clearInterval(heartbeat);
      const message = safeErrorMessage(error);
      const finished = await this.options.clock.now();
      const duration_ms = Math.round(performance.now() - started_ms);
      if (run.attempts < run.max_attempts) {
        const retry_at = new Date(
          finished.getTime() + retryDelayMs(definition.backoff ?? DEFAULT_BACKOFF, run.attempts),
        );
        await this.options.db
          .update(jobRuns)
          .set({ state: "queued", run_at: retry_at, last_error: message, claimed_by: null, lease_until: null })
          .where(and(eq(jobRuns.id, run.id), eq(jobRuns.claimed_by, this.worker_id)));
        log.warn(
          { error: message, retry_at: retry_at.toISOString(), duration_ms },
          "job run failed; it will be tried again",
        );
        countJobRun(run.job, "retry");
        return { id: run.id, job: run.job, outcome: "retry" };
      }
      await this.options.db.transaction(async (tx) => {
        await tx
          .update(jobRuns)
          .set({ state: "failed", finished_at: finished, last_error: message, claimed_by: null, lease_until: null })
          .where(and(eq(jobRuns.id, run.id), eq(jobRuns.claimed_by, this.worker_id)));
        await auditRun(tx, run, "job.run.failed", { attempts: run.attempts, error: message }, finished);
      });
      log.error({ error: message, duration_ms }, "job run failed after its last attempt");
      countJobRun(run.job, "failed");
      return { id: run.id, job: run.job, outcome: "failed" };
    }
    clearInterval(heartbeat);
    const finished = await this.options.clock.now();
    const kept = result ? result : null;
    await this.options.db.transaction(async (tx) => {
      await tx
        .update(jobRuns)
        .set({
          state: "succeeded",
          finished_at: finished,
          result: kept,
          last_error: null,
          claimed_by: null,
          lease_until: null,
        })
        .where(and(eq(jobRuns.id, run.id), eq(jobRuns.claimed_by, this.worker_id)));
      if (definition.audit_every_run)
        await auditRun(tx, run, "job.run.succeeded", { attempts: run.attempts, result: kept }, finished);
    });
    log.info({ duration_ms: Math.round(performance.now() - started_ms), result: kept }, "job run succeeded");
    countJobRun(run.job, "succeeded");
    return { id: run.id, job: run.job, outcome: "succeeded" };
  }

  private async extendLease(id: number): Promise<void> {
    await this.options.db.execute(
      sql`update job_runs set lease_until = now() + ${`${this.options.lease_ms} milliseconds`}::interval where id = ${id} and claimed_by = ${this.worker_id} and state = 'running'`,
    );
  }

  /**
   * Runs whose process stopped while running them go back in the queue, due at once (the
   * interrupted attempt counts); one that had no attempt left is marked failed. `all` (the
   * embedded database at start-up): every run left running, since no other process can hold one.
   * Otherwise only runs whose lease ran out.
   */
  private async recoverOrphans({ all }: { all: boolean }): Promise<void> {
    const now = await this.options.clock.now();
    const stale = all ? sql`state = 'running'` : sql`state = 'running' and lease_until < now()`;
    const message = "The app process running it stopped before it finished.";
    const result = await this.options.db.execute<{
      id: number;
      job: string;
      key: string;
      state: string;
      attempts: number;
      max_attempts: number;
    }>(sql`
      update job_runs
         set state = case when attempts < max_attempts then 'queued' else 'failed' end,
             finished_at = case when attempts < max_attempts then null else ${now.toISOString()}::timestamptz end,
             last_error = ${message}, claimed_by = null, lease_until = null
       where ${stale}
      returning id, job, key, state, attempts, max_attempts`);
    for (const row of result.rows) {
      this.options.logger.warn(
        { job: row.job, job_run_id: Number(row.id), now_state: row.state },
        "a job run was interrupted by a stopped process",
      );
      if (row.state === "failed") {
        await auditRun(
          this.options.db,
          { id: Number(row.id), job: row.job, key: row.key },
          "job.run.failed",
          { attempts: Number(row.attempts), error: message },
          now,
        );
        countJobRun(row.job, "failed");
      }
    }
  }

  /** Each recurring job has its next slot queued (at start-up, and after a new job is added). */
  private async queueNextSlots(): Promise<void> {
    const now = await this.options.clock.now();
    for (const definition of this.byName.values()) {
      if (definition.schedule) await this.queueSlotAfter(definition, now, { unless_pending: true });
    }
  }

  private async queueSlotAfter(
    definition: JobDefinition<never>,
    after: Date,
    options: { unless_pending?: boolean } = {},
  ): Promise<void> {
    if (definition.configured && !definition.configured()) return;
    if (options.unless_pending) {
      const pending = await this.options.db
        .select({ id: jobRuns.id })
        .from(jobRuns)
        .where(
          and(
            eq(jobRuns.job, definition.name),
            inArray(jobRuns.state, ["queued", "running"]),
            sql`${jobRuns.key} like 'at:%'`,
          ),
        )
        .limit(1);
      if (pending.length) return;
    }
    const due = nextCronTime({ cron: definition.schedule!, time_zone: this.options.time_zone }, after);
    await enqueueJob(this.options.db, definition, { key: slotKey(due), run_at: due });
  }
}

/**
 * Queues a run of `job` due at `run_at` (default: now on the wall clock), once per job and key:
 * enqueueing the same key again changes nothing and returns the existing run's id. Takes a
 * transaction, so a run is queued together with what it will work on (a scheduled bill payment).
 */
export async function enqueueJob<Payload extends Record<string, unknown>>(
  db: DbOrTx,
  job: JobDefinition<Payload>,
  options: { key: string; payload?: Payload; run_at?: Date },
): Promise<{ id: number; created: boolean }> {
  if (!options.key || options.key.length > 200) throw new RangeError("a job key is 1 to 200 characters");
  const inserted = await db
    .insert(jobRuns)
    .values({
      job: job.name,
      key: options.key,
      payload: options.payload ?? {},
      run_at: options.run_at ?? new Date(),
      max_attempts: job.max_attempts ?? DEFAULT_MAX_ATTEMPTS,
    })
    .onConflictDoNothing({ target: [jobRuns.job, jobRuns.key] })
    .returning({ id: jobRuns.id });
  if (inserted[0]) return { id: inserted[0].id, created: true };
  const [existing] = await db
    .select({ id: jobRuns.id })
    .from(jobRuns)
    .where(and(eq(jobRuns.job, job.name), eq(jobRuns.key, options.key)));
  return { id: existing!.id, created: false };
}

async function auditRun(
  db: DbOrTx,
  run: { id: number; job: string; key: string },
  action: string,
  after: Record<string, unknown>,
  at: Date,
): Promise<void> {
  // The system acted (no actor). The row's own time is the wall clock; the job clock's is kept too.
  await recordAudit(db, {
    actor_id: null,
    action,
    subject_type: "job_run",
    subject_id: run.id,
    after: { job: run.job, key: run.key, job_clock_at: at.toISOString(), ...after },
  });
}
