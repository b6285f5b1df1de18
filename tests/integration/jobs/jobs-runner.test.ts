import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { pino } from "pino";
import type { Database } from "~/server/db/client.server";
import { auditLog, jobRuns } from "~/server/db/schema";
import { manualJobClock } from "~/server/jobs/clock.server";
import { defineJob, type JobDefinition } from "~/server/jobs/job";
import { enqueueJob, JobRunner } from "~/server/jobs/runner.server";
import { openTestDatabase, onPostgres } from "../test-database";

/**
 * The job runner (app/server/jobs/runner.server.ts) in this process, on PGlite and on PostgreSQL:
 * a job runs when the job clock reaches its time, fails and is retried after its backoff, runs
 * once per key, runs once with two runners on one database, comes back after its process stopped
 * in the middle, and a stopping runner finishes the run in hand. The job clock is moved by the
 * test; nothing waits on the wall clock.
 */
let database: Database;
const logger = pino({ level: "silent" });
const START = new Date("2026-03-02T10:02:00Z");

beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});
beforeEach(async () => {
  await database.db.execute(sql`truncate job_runs restart identity`);
});

function runner(jobs: JobDefinition<never>[], clock = manualJobClock(START), options: { lease_ms?: number } = {}) {
  return {
    clock,
    runner: new JobRunner({
      db: database.db,
      kind: database.kind,
      clock,
      jobs,
      time_zone: "UTC",
      logger,
      poll_ms: 60_000,
      lease_ms: options.lease_ms ?? 60_000,
    }),
  };
}

async function runsOf(job: string) {
  return database.db.select().from(jobRuns).where(eq(jobRuns.job, job)).orderBy(jobRuns.id);
}

describe("a recurring job", () => {
  it("runs when the job clock reaches its slot, once, and queues the next slot", async () => {
    let runs = 0;
    const job = defineJob({
      name: "every-five",
      title: "t",
      description: "d",
      schedule: "*/5 * * * *",
      run: async () => void runs++,
    });
    const { runner: r, clock } = runner([job]);
    expect(await r.runDue()).toEqual([]);
    expect(runs).toBe(0);
    expect((await runsOf("every-five")).map((x) => [x.key, x.state])).toEqual([
      ["at:2026-03-02T10:05:00.000Z", "queued"],
    ]);

    await clock.advance(2 * 60_000 + 59_000); // 10:04:59
    expect(await r.runDue()).toEqual([]);
    await clock.advance(1_000); // 10:05:00
    expect((await r.runDue()).map((o) => o.outcome)).toEqual(["succeeded"]);
    expect(runs).toBe(1);
    expect(await r.runDue()).toEqual([]);
    expect((await runsOf("every-five")).map((x) => [x.key, x.state])).toEqual([
      ["at:2026-03-02T10:05:00.000Z", "succeeded"],
      ["at:2026-03-02T10:10:00.000Z", "queued"],
    ]);
  });

  it("is not scheduled while what it needs is not configured (Web Push's keys, an SMS provider)", async () => {
    let configured = false;
    let runs = 0;
    const job = defineJob({
      name: "every-minute-if-configured",
      title: "t",
      description: "d",
      schedule: "* * * * *",
      configured: () => configured,
      run: async () => void runs++,
    });
    const { runner: r, clock } = runner([job]);
    await r.runDue();
    await clock.advance(5 * 60_000);
    expect(await r.runDue()).toEqual([]);
    expect(await runsOf("every-minute-if-configured")).toEqual([]);
    // Configured at the next start: scheduled again.
    configured = true;
    const { runner: next } = runner([job], clock);
    await next.runDue();
    await clock.advance(60_000);
    expect((await next.runDue()).map((o) => o.outcome)).toEqual(["succeeded"]);
    expect(runs).toBe(1);
  });

  it("after a long pause (the clock moved a day) runs once, not once per missed slot", async () => {
    let runs = 0;
    const job = defineJob({
      name: "hourly",
      title: "t",
      description: "d",
      schedule: "0 * * * *",
      run: async () => void runs++,
    });
    const { runner: r, clock } = runner([job]);
    await r.runDue();
    await clock.advance(24 * 60 * 60_000);
    await r.runDue();
    expect(runs).toBe(1);
  });
});

describe("an enqueued job", () => {
  it("runs at its time with its payload, once per key", async () => {
    const seen: unknown[] = [];
    const job = defineJob<{ payment_id: number }>({
      name: "pay-bill",
      title: "t",
      description: "d",
      run: async ({ payload }) => void seen.push(payload),
    });
    const { runner: r, clock } = runner([job as JobDefinition<never>]);
    const due = new Date(START.getTime() + 24 * 60 * 60_000);
    const first = await enqueueJob(database.db, job, {
      key: "payment:7:2026-03-03",
      payload: { payment_id: 7 },
      run_at: due,
    });
    const again = await enqueueJob(database.db, job, {
      key: "payment:7:2026-03-03",
      payload: { payment_id: 7 },
      run_at: due,
    });
    expect(first.created).toBe(true);
    expect(again).toEqual({ id: first.id, created: false });
    await r.runDue();
    expect(seen).toEqual([]);
    await clock.advance(24 * 60 * 60_000);
    await r.runDue();
    await r.runDue();
    expect(seen).toEqual([{ payment_id: 7 }]);
  });

  it("is retried after its backoff, doubling, and its error is kept without personal data", async () => {
    let calls = 0;
    const job = defineJob({
      name: "flaky",
      title: "t",
      description: "d",
      max_attempts: 3,
      backoff: { first_ms: 60_000, max_ms: 3_600_000 },
      run: async () => {
        calls++;
        if (calls < 3) throw new Error(`mail server refused alex.morgan@harborview.example (try ${calls})`);
        return { sent: 1 };
      },
    });
    const { runner: r, clock } = runner([job]);
    await enqueueJob(database.db, job, { key: "one", run_at: START });

    expect((await r.runDue()).map((o) => o.outcome)).toEqual(["retry"]);
    let [row] = await runsOf("flaky");
    expect(row).toMatchObject({ state: "queued", attempts: 1, last_error: "mail server refused [email] (try 1)" });
    expect(row!.run_at.toISOString()).toBe("2026-03-02T10:03:00.000Z");

    await clock.advance(59_000);
    expect(await r.runDue()).toEqual([]);
    await clock.advance(1_000);
    expect((await r.runDue()).map((o) => o.outcome)).toEqual(["retry"]);
    [row] = await runsOf("flaky");
    // The second wait is twice the first.
    expect(row!.run_at.toISOString()).toBe("2026-03-02T10:05:00.000Z");

    await clock.advance(119_000);
    expect(await r.runDue()).toEqual([]);
    await clock.advance(1_000);
    expect((await r.runDue()).map((o) => o.outcome)).toEqual(["succeeded"]);
    [row] = await runsOf("flaky");
    expect(row).toMatchObject({ state: "succeeded", attempts: 3, result: { sent: 1 } });
    expect(calls).toBe(3);
  });

  it("after its last attempt is marked failed, and the failure is in the audit log", async () => {
    const job = defineJob({
      name: "doomed",
      title: "t",
      description: "d",
      max_attempts: 2,
      backoff: { first_ms: 1_000, max_ms: 1_000 },
      run: async () => Promise.reject(new Error("ledger account 123456789 is closed")),
    });
    const { runner: r, clock } = runner([job]);
    const { id } = await enqueueJob(database.db, job, { key: "k", run_at: START });
    await r.runDue();
    await clock.advance(1_000);
    expect((await r.runDue()).map((o) => o.outcome)).toEqual(["failed"]);
    const [row] = await runsOf("doomed");
    expect(row).toMatchObject({ state: "failed", attempts: 2, last_error: "ledger account [number] is closed" });
    await clock.advance(3_600_000);
    expect(await r.runDue()).toEqual([]);
    const audit = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "job.run.failed"), eq(auditLog.subject_id, String(id))));
    expect(audit).toHaveLength(1);
    expect(audit[0]!.after).toMatchObject({ job: "doomed", attempts: 2, error: "ledger account [number] is closed" });
  });
});

describe("several runners on one database", () => {
  it("run each of 30 queued runs exactly once", async () => {
    const ran: string[] = [];
    const job = defineJob({
      name: "count-me",
      title: "t",
      description: "d",
      run: async ({ run }) => {
        ran.push(run.key);
        // Let the other runner try to claim in the meantime.
        await new Promise((resolve) => setImmediate(resolve));
      },
    });
    const clock = manualJobClock(START);
    const a = runner([job], clock).runner;
    const b = runner([job], clock).runner;
    for (let i = 0; i < 30; i++) await enqueueJob(database.db, job, { key: `k${i}`, run_at: START });
    const [fromA, fromB] = await Promise.all([a.runDue(), b.runDue()]);
    expect(ran.toSorted()).toEqual(Array.from({ length: 30 }, (_, i) => `k${i}`).toSorted());
    expect(fromA.length + fromB.length).toBe(30);
    if (onPostgres) {
      // Both took part: the claim skips the row the other holds instead of waiting for it.
      expect(fromA.length).toBeGreaterThan(0);
      expect(fromB.length).toBeGreaterThan(0);
    }
    const states = await database.db.execute<{ state: string; n: number }>(
      sql`select state, count(*)::int as n from job_runs where job = 'count-me' group by state`,
    );
    expect(states.rows).toEqual([{ state: "succeeded", n: 30 }]);
  });
});

describe("a process that stopped in the middle of a run", () => {
  it("has its run taken again, once, when its lease ran out (PostgreSQL) or at the next start (embedded)", async () => {
    let runs = 0;
    const job = defineJob({
      name: "interrupted",
      title: "t",
      description: "d",
      max_attempts: 3,
      run: async () => void runs++,
    });
    const { id } = await enqueueJob(database.db, job, { key: "k", run_at: START });
    // What a killed process leaves: the run claimed, its lease over.
    await database.db.execute(
      sql`update job_runs set state = 'running', attempts = 1, claimed_by = 'dead-host:1:abc', lease_until = now() - interval '1 second' where id = ${id}`,
    );
    const { runner: r } = runner([job]);
    expect((await r.runDue()).map((o) => o.outcome)).toEqual(["succeeded"]);
    expect(await r.runDue()).toEqual([]);
    expect(runs).toBe(1);
    const [row] = await runsOf("interrupted");
    expect(row).toMatchObject({ state: "succeeded", attempts: 2 });
  });

  it("keeps a run whose lease is still held by a live process", async () => {
    let runs = 0;
    const job = defineJob({ name: "held", title: "t", description: "d", run: async () => void runs++ });
    const { id } = await enqueueJob(database.db, job, { key: "k", run_at: START });
    await database.db.execute(
      sql`update job_runs set state = 'running', attempts = 1, claimed_by = 'other:1:abc', lease_until = now() + interval '1 hour' where id = ${id}`,
    );
    const { runner: r } = runner([job]);
    if (database.kind === "postgres") {
      expect(await r.runDue()).toEqual([]);
      expect(runs).toBe(0);
    } else {
      // The embedded database has one process: a run left running at start-up is orphaned.
      expect((await r.runDue()).map((o) => o.outcome)).toEqual(["succeeded"]);
    }
  });
});

describe("stopping", () => {
  it("waits for the run in hand to finish and claims nothing after it", async () => {
    let release!: () => void;
    const started: string[] = [];
    const finished: string[] = [];
    const job = defineJob({
      name: "slow",
      title: "t",
      description: "d",
      run: async ({ run }) => {
        started.push(run.key);
        await new Promise<void>((resolve) => (release = resolve));
        finished.push(run.key);
      },
    });
    const { runner: r } = runner([job]);
    await enqueueJob(database.db, job, { key: "a", run_at: START });
    await enqueueJob(database.db, job, { key: "b", run_at: START });
    const draining = r.runDue();
    while (started.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const stopped = r.stop();
    let stopDone = false;
    void stopped.then(() => (stopDone = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopDone).toBe(false);
    release();
    await stopped;
    await draining;
    expect(finished).toEqual(["a"]);
    expect((await runsOf("slow")).map((x) => [x.key, x.state])).toEqual([
      ["a", "succeeded"],
      ["b", "queued"],
    ]);
  });
});
