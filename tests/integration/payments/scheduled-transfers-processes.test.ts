import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { eq, inArray, sql } from "drizzle-orm";
import { AppProcess, appEnvironment, jobRunsSettled } from "../app-server";
import { newMember, key } from "../member-support";
import { onPostgres, openTestDatabase } from "../test-database";
import { first_day, on, when } from "./scheduled-support";
import type { Database, Db } from "~/server/db/client.server";
import { setAppDatabase } from "~/server/db/db.server";
import { externalPayments, ledgerTransactions, scheduledTransferRuns, scheduledTransfers } from "~/server/db/schema";
import { scheduleTransfer, slotKey } from "~/server/payments/scheduled-transfers.server";
import { scheduledTransfersJob } from "~/server/jobs/registry.server";
import { enqueueJob } from "~/server/jobs/runner.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { betweenAccountsSchema, toMemberSchema, toUsBankSchema } from "~/domain/transfers";
import { seriesPaymentDate } from "~/domain/schedule";

/**
 * Each kind of repeating transfer (Between Accounts, To Another Member, To US Bank) sent once per
 * slot by two compiled app servers on one PostgreSQL database, each with its job runner (issue 32,
 * "Done when"). The job clock (JOB_CLOCK=adjustable, shared through the database) is moved to
 * each slot's date, and besides the hourly run extra runs of the job are queued at once, so both
 * processes run the job side by side and race for the same slots: every slot is claimed once, one
 * run row, one ledger transaction (or one ACH payment) under the slot's own key, and the ledger
 * verifies. PostgreSQL only: several processes cannot share one embedded database; on PGlite the
 * same race is run by job runners inside one process (scheduled-transfers.test.ts,
 * scheduled-us-bank.test.ts).
 */
let database: (Database & { url?: string }) | undefined;
const apps: AppProcess[] = [];
let dataDir: string | undefined;
afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop()));
  await database?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

const ORIGIN = { request_id: "scheduled-transfers-processes-0001", ip: "203.0.113.29" };
/** Runs of the job queued beside the hourly one at each slot, so both processes run it at once. */
const EXTRA_RUNS = 4;

/** Moves the shared job clock so that "now" is noon on `date` where the credit union is (forward only). */
async function jobClockTo(db: Db, date: string) {
  const offset_ms = on(date).getTime() - Date.now();
  await db.execute(
    sql`insert into job_clock (id, offset_ms) values (1, ${offset_ms}) on conflict (id) do update set offset_ms = greatest(job_clock.offset_ms, ${offset_ms})`,
  );
}

/** Waits until `done` holds, then until no job run is running or due on the job clock. */
async function settle(db: Db, done: () => Promise<boolean>, what: string) {
  for (let tries = 0; !(await done()); tries++) {
    if (tries > 600) throw new Error(`${what}: not done in 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await jobRunsSettled(db, 60);
}

describe("repeating transfers with two app processes", () => {
  it.skipIf(!onPostgres)(
    "each kind is sent once per slot, whichever process runs the job",
    async () => {
      database = await openTestDatabase({ pool_max: 4 });
      setAppDatabase(database);
      const db = database.db;

      // Three members' series, each weekly for two transfers, set up as the form does.
      const sender = await newMember(db, { checking_cents: 100_000, savings_cents: 5_000 });
      const friend = await newMember(db, { checking_cents: 1_000, savings_cents: 0 });
      const who = { id: sender.member.id, email: sender.member.email, name: sender.member.name };
      const rule = when({ when: "repeat", frequency: "weeks", every_weeks: "1", ends: "count", payment_count: "2" });
      const from_account_id = String(sender.checking.id);
      const requests = [
        {
          kind: "internal" as const,
          form: betweenAccountsSchema.parse({
            from_account_id,
            to_account_id: String(sender.savings.id),
            amount: "11.00",
            reference: "Savings",
            idempotency_key: key(),
          }),
        },
        {
          kind: "member" as const,
          form: toMemberSchema.parse({
            from_account_id,
            recipient_email: friend.member.email,
            amount: "12.00",
            reference: "Lunch",
            idempotency_key: key(),
          }),
        },
        {
          kind: "ach" as const,
          form: toUsBankSchema.parse({
            from_account_id,
            routing_number: "121000248",
            account_number: "5550001234567",
            account_type: "checking",
            account_name: "Casey Landlord",
            amount: "13.00",
            reference: "Rent",
            idempotency_key: key(),
          }),
        },
      ];
      const series_ids: number[] = [];
      for (const request of requests) {
        const set = await scheduleTransfer(db, who, request, rule, ORIGIN);
        if (!set.ok) throw new Error(`${request.kind}: ${set.message}`);
        series_ids.push(set.series_id);
      }

      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-scheduled-apps-"));
      const environment = appEnvironment(database.url!, dataDir, {
        DATABASE_POOL_MAX: "6",
        JOB_CLOCK: "adjustable",
        JOB_POLL_MS: "100",
        // The To US Bank series keeps its account number sealed with the data key the set-up used.
        DATA_ENCRYPTION_KEY: process.env.DATA_ENCRYPTION_KEY!,
      });
      apps.push(new AppProcess(environment), new AppProcess(environment));
      await Promise.all(apps.map((app) => app.waitForLine(/job runner started/, "the job runner")));

      const sentRuns = async () =>
        db
          .select({ series_id: scheduledTransferRuns.series_id, sequence: scheduledTransferRuns.sequence })
          .from(scheduledTransferRuns)
          .where(inArray(scheduledTransferRuns.series_id, series_ids));
      const slots = [seriesPaymentDate(rule.rule!, 1), seriesPaymentDate(rule.rule!, 2)];
      expect(slots[0]).toBe(first_day);
      for (const [index, date] of slots.entries()) {
        await jobClockTo(db, date);
        for (let n = 1; n <= EXTRA_RUNS; n++) await enqueueJob(db, scheduledTransfersJob, { key: `race:${date}:${n}` });
        const expected = series_ids.length * (index + 1);
        await settle(db, async () => (await sentRuns()).length >= expected, `slot ${index + 1} (${date})`);
      }

      // One run per series and slot, each sent, and every series ended after its count.
      const runs = await db
        .select()
        .from(scheduledTransferRuns)
        .where(inArray(scheduledTransferRuns.series_id, series_ids));
      expect(runs).toHaveLength(series_ids.length * slots.length);
      expect(runs.map((r) => r.status)).toEqual(runs.map(() => "sent"));
      for (const series_id of series_ids) {
        const mine = runs.filter((r) => r.series_id === series_id);
        expect(mine.map((r) => r.sequence).toSorted()).toEqual([1, 2]);
        expect(mine.map((r) => r.run_date).toSorted()).toEqual(slots);
        const [series] = await db.select().from(scheduledTransfers).where(eq(scheduledTransfers.id, series_id));
        expect(series!.status).toBe("ended");
      }
      // The money moved once per slot, under the slot's own key.
      const [internal, member, ach] = series_ids;
      const keys = (id: number) => [slotKey(id, 1), slotKey(id, 2)];
      const posted = await db
        .select({ key: ledgerTransactions.idempotency_key })
        .from(ledgerTransactions)
        .where(inArray(ledgerTransactions.idempotency_key, [...keys(internal!), ...keys(member!)]));
      expect(posted.map((t) => t.key).toSorted()).toEqual([...keys(internal!), ...keys(member!)].toSorted());
      const payments = await db
        .select({ key: externalPayments.idempotency_key, amount_cents: externalPayments.amount_cents })
        .from(externalPayments)
        .where(eq(externalPayments.member_id, sender.member.id));
      expect(payments.map((p) => p.key).toSorted()).toEqual(keys(ach!).toSorted());
      expect(payments.every((p) => p.amount_cents === 1300)).toBe(true);

      // Every run of the job (the hourly one and the extra ones, at both slots) succeeded at its first attempt.
      const jobRuns = (
        await db.execute<{ id: number; state: string; attempts: number }>(
          sql`select id, state, attempts from job_runs where job = 'scheduled-transfers' and state <> 'queued'`,
        )
      ).rows;
      expect(jobRuns.length).toBeGreaterThanOrEqual(slots.length * (EXTRA_RUNS + 1));
      expect(jobRuns.every((r) => r.state === "succeeded" && Number(r.attempts) === 1)).toBe(true);
      // Each run logged as succeeded by exactly one of the two processes (both took runs: 5 and 5 when written).
      const logged = apps.flatMap((app) =>
        app.lines
          .filter((line) => line.includes('"job run succeeded"'))
          .map((line) => JSON.parse(line) as { job_run_id: number })
          .map((line) => Number(line.job_run_id)),
      );
      for (const run of jobRuns) expect(logged.filter((id) => id === Number(run.id))).toHaveLength(1);
      expect((await verifyLedger(db)).problems).toEqual([]);

      await Promise.all(apps.map((app) => app.stop("SIGTERM")));
      expect(apps.map((app) => app.exit)).toEqual(["0", "0"]);
    },
    300_000,
  );
});
