import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, sql } from "drizzle-orm";
import { RouterContextProvider } from "react-router";
import type { Database } from "~/server/db/client.server";
import {
  auditLog,
  jobClock,
  jobRuns,
  outbox,
  rateLimitCounters,
  sessions,
  signInChallenges,
  verifications,
} from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { requestInfoContext } from "~/context";
import * as jobsRoute from "~/routes/admin/jobs";
import { adjustableJobClock, manualJobClock } from "~/server/jobs/clock.server";
import { pruneExpiredJob, outboxDeliveryJob } from "~/server/jobs/registry.server";
import { JobRunner, enqueueJob } from "~/server/jobs/runner.server";
import { advanceJobClock } from "~/server/jobs/status.server";
import { retryOutboxDeliveries, OUTBOX_ATTEMPTS_MAX } from "~/server/jobs/outbox-retry.server";
import { pino } from "pino";
import { scrape } from "~/server/metrics/metrics.server";
import { openTestDatabase } from "../test-database";
import { applicant, ORIGIN, person, signedIn } from "../admin-support";

/**
 * /admin/jobs for every kind of person (staff only: not a reviewer either) (docs/product.md#access-rules), what staff read there after
 * a failure, and the app's own jobs: pruning removes only what expired (never money, never the
 * audit log; each run audited) and outbox retries pick the undelivered messages whose wait is over.
 */
type Persona = "anonymous" | "pending" | "member" | "reviewer" | "staff";
const PERSONAS: Persona[] = ["anonymous", "pending", "member", "reviewer", "staff"];
// A reviewer is staff without money or system powers: sent back to the back office's first page.
const HOME: Record<"pending" | "member" | "reviewer", string> = {
  pending: "/pending-approval",
  member: "/dashboard",
  reviewer: "/admin",
};

let database: Database;
const cookies: Partial<Record<Persona, string>> = {};
let memberId = "";

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const staff = await person(database.db, "admin");
  const member = await person(database.db, "user");
  memberId = member.id;
  const pending = await applicant(database.db);
  const reviewer = await person(database.db, "reviewer");
  cookies.reviewer = await signedIn(database.db, reviewer.id);
  cookies.staff = await signedIn(database.db, staff.id);
  cookies.member = await signedIn(database.db, member.id);
  cookies.pending = await signedIn(database.db, pending.id);
});
afterAll(async () => {
  await database?.close();
});

function context() {
  const provider = new RouterContextProvider();
  provider.set(requestInfoContext, { request_id: "jobs-request-0001", ip: "203.0.113.78", nonce: "" });
  return provider;
}

function request(persona: Persona, form?: Record<string, string>): Request {
  const headers = new Headers({ origin: "http://localhost:3000" });
  if (cookies[persona]) headers.set("cookie", cookies[persona]!);
  if (!form) return new Request("http://localhost:3000/admin/jobs", { headers });
  headers.set("content-type", "application/x-www-form-urlencoded");
  return new Request("http://localhost:3000/admin/jobs", { method: "POST", headers, body: new URLSearchParams(form) });
}

async function outcome(fn: () => Promise<unknown>): Promise<{ status: number; location?: string; body: string }> {
  let value: unknown;
  try {
    value = await fn();
  } catch (thrown) {
    value = thrown;
  }
  if (value instanceof Response)
    return {
      status: value.status,
      location: value.headers.get("location") ?? undefined,
      body: await value.clone().text(),
    };
  const init = (value as { init?: { status?: number } } | null)?.init;
  return { status: init?.status ?? 200, body: JSON.stringify((value as { data?: unknown } | null)?.data ?? value) };
}

async function auditCount(): Promise<number> {
  const [row] = await database.db.select({ n: count() }).from(auditLog);
  return Number(row!.n);
}

describe("/admin/jobs", () => {
  for (const persona of PERSONAS) {
    it(`the page for ${persona}`, async () => {
      const result = await outcome(() =>
        jobsRoute.loader({ request: request(persona), params: {}, context: context() } as never),
      );
      if (persona === "staff") {
        expect(result.status).toBe(200);
        expect(result.body).toContain("prune-expired");
        return;
      }
      expect(result.status).toBe(302);
      expect(result.location).toBe(persona === "anonymous" ? "/login?redirectTo=%2Fadmin%2Fjobs" : HOME[persona]);
      expect(result.body).not.toContain("prune-expired");
    });
  }

  for (const persona of PERSONAS.filter((p) => p !== "staff")) {
    it(`moving the job clock by ${persona} is refused (${persona === "anonymous" ? 401 : 403}) and changes nothing`, async () => {
      const before = await auditCount();
      const result = await outcome(() =>
        jobsRoute.action({ request: request(persona, { hours: "24" }), params: {}, context: context() } as never),
      );
      expect(result.status).toBe(persona === "anonymous" ? 401 : 403);
      expect(await auditCount()).toBe(before);
      expect(await database.db.select().from(jobClock)).toEqual([]);
    });
  }

  it("moving the job clock is refused to staff too where it follows the real time (every deployment but the demo)", async () => {
    const result = await outcome(() =>
      jobsRoute.action({ request: request("staff", { hours: "24" }), params: {}, context: context() } as never),
    );
    expect(result.status).toBe(400);
    expect(result.body).toContain("The job clock follows the real time here and cannot be moved.");
    expect(await database.db.select().from(jobClock)).toEqual([]);
  });

  it("the adjustable clock moves forward for every process, never back, and the move is audited", async () => {
    const clock = adjustableJobClock(database.db);
    const before = (await clock.now()).getTime();
    await advanceJobClock(database.db, clock, {
      hours: 48,
      staff: { id: "staff-id", email: "staff@example.com" },
      origin: ORIGIN,
    });
    expect((await adjustableJobClock(database.db).now()).getTime() - before).toBeGreaterThanOrEqual(48 * 3_600_000);
    await expect(clock.advance(-1)).rejects.toThrow(RangeError);
    const [audit] = await database.db
      .select()
      .from(auditLog)
      .where(sql`${auditLog.action} = 'job_clock.advance'`);
    expect(audit!.after).toMatchObject({ hours: 48 });
    await database.db.delete(jobClock);
  });

  it("shows staff a run being retried and a failed run with their errors, never a secret", async () => {
    const failing = {
      ...outboxDeliveryJob,
      max_attempts: 2,
      backoff: { first_ms: 60_000, max_ms: 60_000 },
      run: async () =>
        Promise.reject(new Error("421 mail relay refused alex@example.com token abcdefabcdefabcdefabcdefabcdefabcdef")),
    };
    const clock = manualJobClock(new Date("2026-03-02T10:00:00Z"));
    const runner = new JobRunner({
      db: database.db,
      kind: database.kind,
      clock,
      jobs: [failing],
      time_zone: "UTC",
      logger: pino({ level: "silent" }),
      poll_ms: 60_000,
      lease_ms: 60_000,
    });
    await enqueueJob(database.db, failing, { key: "manual-1", run_at: new Date("2026-03-02T10:00:00Z") });
    await runner.runDue();
    let page = await outcome(() =>
      jobsRoute.loader({ request: request("staff"), params: {}, context: context() } as never),
    );
    const data = JSON.parse(page.body) as {
      jobs: { name: string; retrying: { attempts: number; last_error: string } | null }[];
    };
    expect(data.jobs.find((j) => j.name === "outbox-delivery")!.retrying).toMatchObject({
      attempts: 1,
      last_error: "421 mail relay refused [email] token [token]",
    });
    await clock.advance(60_000);
    await runner.runDue();
    page = await outcome(() =>
      jobsRoute.loader({ request: request("staff"), params: {}, context: context() } as never),
    );
    const after = JSON.parse(page.body) as {
      jobs: { name: string; failed_runs: number; last_run: { state: string; last_error: string } | null }[];
    };
    const job = after.jobs.find((j) => j.name === "outbox-delivery")!;
    expect(job.failed_runs).toBe(1);
    expect(job.last_run).toMatchObject({ state: "failed", last_error: "421 mail relay refused [email] token [token]" });
    expect(page.body).not.toContain("alex@example.com");
    await database.db.delete(jobRuns);
  });
});

describe("metrics", () => {
  it("count job attempts by outcome and the runs waiting by state (the queue depth)", async () => {
    const flaky = {
      ...outboxDeliveryJob,
      schedule: undefined,
      max_attempts: 3,
      backoff: { first_ms: 3_600_000, max_ms: 3_600_000 },
      run: async () => Promise.reject(new Error("refused")),
    };
    const base = Date.now();
    const clock = manualJobClock(new Date(base - 60_000));
    const runner = new JobRunner({
      db: database.db,
      kind: database.kind,
      clock,
      jobs: [flaky],
      time_zone: "UTC",
      logger: pino({ level: "silent" }),
      poll_ms: 60_000,
      lease_ms: 60_000,
    });
    await enqueueJob(database.db, flaky, { key: "metrics-1", run_at: new Date(base - 120_000) });
    await enqueueJob(database.db, flaky, { key: "metrics-2", run_at: new Date(base - 1_000) });
    await enqueueJob(database.db, flaky, { key: "metrics-3", run_at: new Date(base + 3_600_000) });
    // Runs metrics-1 and metrics-2 (the clock is a minute behind the wall clock: only metrics-1).
    await runner.runDue();
    const text = await scrape(database, { outbox: false });
    expect(text).toMatch(/mutual_job_runs_total\{job="outbox-delivery",outcome="retry"\} [1-9]/);
    // metrics-2 is due by the database's clock; metrics-1 waits for its retry; metrics-3 later.
    expect(text).toContain('mutual_job_runs_waiting{job="outbox-delivery",state="due"} 1');
    expect(text).toContain('mutual_job_runs_waiting{job="outbox-delivery",state="scheduled"} 2');
    expect(text).toContain('mutual_job_runs_waiting{job="outbox-delivery",state="failed"} 0');
    await database.db.delete(jobRuns);
  });
});

describe("pruning (prune-expired)", () => {
  it("removes only what ended over a day ago, and the run is audited with its counts", async () => {
    const now = new Date();
    const ago = (ms: number) => new Date(now.getTime() - ms);
    const DAY = 24 * 3_600_000;
    await database.db.insert(verifications).values([
      { id: "v-old", identifier: "old", value: "x", expiresAt: ago(DAY + 60_000) },
      { id: "v-live", identifier: "live", value: "x", expiresAt: new Date(now.getTime() + 600_000) },
    ]);
    await database.db.insert(sessions).values([
      {
        id: "s-old",
        token: "t-old",
        userId: memberId,
        expiresAt: new Date(now.getTime() + DAY),
        lastActiveAt: ago(2 * DAY),
        createdAt: ago(2 * DAY),
      },
      {
        id: "s-live",
        token: "t-live",
        userId: memberId,
        expiresAt: new Date(now.getTime() + DAY),
        lastActiveAt: now,
        createdAt: now,
      },
    ]);
    await database.db.insert(signInChallenges).values([
      { id: "c-old", user_id: memberId, method: "email", created_at: ago(DAY + 60_000) },
      { id: "c-live", user_id: memberId, method: "email", created_at: now },
    ]);
    await database.db.insert(rateLimitCounters).values([
      { key: "test:old", window_start: ago(DAY + 60_000), hits: 3 },
      { key: "test:live", window_start: ago(60_000), hits: 3 },
    ]);
    const auditBefore = await auditCount();
    const runner = new JobRunner({
      db: database.db,
      kind: database.kind,
      clock: manualJobClock(now),
      jobs: [pruneExpiredJob],
      time_zone: "UTC",
      logger: pino({ level: "silent" }),
      poll_ms: 60_000,
      lease_ms: 60_000,
    });
    await enqueueJob(database.db, pruneExpiredJob, { key: "test-prune", run_at: now });
    expect((await runner.runDue()).map((o) => o.outcome)).toEqual(["succeeded"]);

    const ids = async (table: typeof verifications | typeof sessions | typeof signInChallenges) =>
      (await database.db.select({ id: table.id }).from(table))
        .map((r) => r.id)
        .filter((id) => /-(old|live)$/.test(id))
        .sort();
    expect(await ids(verifications)).toEqual(["v-live"]);
    expect(await ids(sessions)).toEqual(["s-live"]);
    expect(await ids(signInChallenges)).toEqual(["c-live"]);
    expect(
      (await database.db.select().from(rateLimitCounters)).map((r) => r.key).filter((k) => k.startsWith("test:")),
    ).toEqual(["test:live"]);
    // Nothing left the audit log; the run added its own row with the counts.
    expect(await auditCount()).toBe(auditBefore + 1);
    const [row] = await database.db
      .select()
      .from(auditLog)
      .where(sql`${auditLog.action} = 'job.run.succeeded'`);
    expect(row!.after).toMatchObject({
      job: "prune-expired",
      result: { verifications: 1, sessions: 1, sign_in_challenges: 1, rate_limit_counters: 1 },
    });
  });
});

describe("outbox delivery retries (outbox-delivery)", () => {
  it("tries again the undelivered messages whose wait is over, and not codes past their use", async () => {
    const now = new Date();
    const minutes = (n: number) => new Date(now.getTime() - n * 60_000);
    const rows = await database.db
      .insert(outbox)
      .values([
        {
          to_email: "a@example.com",
          subject: "failed once, 3 min ago",
          text_body: "x",
          kind: "application_received",
          attempts: 1,
          error: "timeout",
          created_at: minutes(3),
        },
        {
          to_email: "b@example.com",
          subject: "failed once, 1.5 min ago: waits",
          text_body: "x",
          kind: "application_received",
          attempts: 1,
          error: "timeout",
          created_at: new Date(now.getTime() - 90_000),
        },
        {
          to_email: "c@example.com",
          subject: "just written: its first delivery may be running",
          text_body: "x",
          kind: "application_received",
          attempts: 0,
          created_at: new Date(now.getTime() - 10_000),
        },
        {
          to_email: "d@example.com",
          subject: "a code from an hour ago",
          text_body: "x",
          kind: "sign_in_code",
          attempts: 1,
          error: "timeout",
          created_at: minutes(60),
        },
        {
          to_email: "e@example.com",
          subject: "gave up",
          text_body: "x",
          kind: "application_received",
          attempts: OUTBOX_ATTEMPTS_MAX,
          error: "timeout",
          created_at: minutes(24 * 60),
        },
        {
          to_email: "f@example.com",
          subject: "delivered",
          text_body: "x",
          kind: "application_received",
          attempts: 1,
          sent_at: minutes(2),
          created_at: minutes(3),
        },
        {
          to_email: "g@example.com",
          subject: "never finished, 2 min ago",
          text_body: "x",
          kind: "application_received",
          attempts: 0,
          created_at: minutes(2),
        },
      ])
      .returning({ id: outbox.id, subject: outbox.subject });
    const tried: string[] = [];
    const counts = await retryOutboxDeliveries(database.db, now, {
      smtp: true,
      deliver: async (_db, id) => {
        tried.push(rows.find((r) => r.id === id)!.subject);
        return "sent";
      },
    });
    expect(tried.sort()).toEqual(["failed once, 3 min ago", "never finished, 2 min ago"]);
    expect(counts).toMatchObject({ tried: 2, delivered: 2, failed: 0 });
    // A mail server refusing everything fails the run, for staff to see.
    await expect(
      retryOutboxDeliveries(database.db, now, { smtp: true, deliver: async () => "failed" }),
    ).rejects.toThrow(/did not accept any of 2 message/);
    // Without a mail server the outbox is the mailbox: nothing to send.
    expect(await retryOutboxDeliveries(database.db, now, { smtp: false })).toMatchObject({
      mail_server: "not configured",
      tried: 0,
    });
  });
});
