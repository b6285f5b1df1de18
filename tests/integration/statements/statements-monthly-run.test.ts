import { describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { pino } from "pino";
import type { Db } from "~/server/db/client.server";
import { accountStatements, jobRuns, notifications } from "~/server/db/schema";
import { manualJobClock } from "~/server/jobs/clock.server";
import { JobRunner } from "~/server/jobs/runner.server";
import type { JobDefinition } from "~/server/jobs/job";
import { monthlyStatementsJob } from "~/server/jobs/registry.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { postTransfer } from "~/server/ledger/ledger.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { institution } from "~/config/institution.server";
import { fileDatabase } from "../test-database";
import { accepted } from "../ledger-fixtures";
import { key, newMember } from "../member-support";

/**
 * The monthly statement run as a job (app/server/jobs/registry.server.ts), the job clock moved by
 * the test: nothing before the month's first business day, then every account's statement for
 * the month just ended, kept, each member told once; a later run makes nothing again.
 */
let db: Db;
const database = fileDatabase({
  onOpen: (opened) => void (db = opened.db),
  beforeClose: async (db) => expect((await verifyLedger(db)).ok).toBe(true),
});

async function post(account_id: number, amount_cents: number, date: string) {
  const cash = await institutionAccount(db, "cash");
  return accepted(
    postTransfer(db, {
      kind: amount_cents > 0 ? "ach_in" : "card_payment",
      initiator: "system:test",
      idempotency_key: key(),
      created_by: "test",
      effective_date: date,
      memo: "Line",
      entries: [
        { account_id, amount_cents },
        { account_id: cash.id, amount_cents: -amount_cents },
      ],
    }),
  );
}

describe("the monthly statements job", () => {
  it("on the first business day makes October's statement for every account, tells each member once, and a later run makes none again", async () => {
    const a = await newMember(db, { checking_cents: 0, savings_cents: 0 });
    const b = await newMember(db, { checking_cents: 0, savings_cents: 0 });
    await post(a.checking.id, 100_000, "2026-10-02");
    await post(a.checking.id, -2_500, "2026-10-20");
    await post(b.savings.id, 40_000, "2026-09-10");
    await post(a.checking.id, -1_000, "2026-11-03"); // November: not in October's statement
    // More members, so the run works on several accounts at once (its workers share the database).
    const more = [];
    for (let i = 0; i < 6; i++) {
      const extra = await newMember(db, { checking_cents: 0, savings_cents: 0 });
      await post(extra.checking.id, 1_000 + i, "2026-10-05");
      more.push(extra);
    }

    // Friday 30 October 2026; 1 November is a Sunday, so the first business day is Monday the 2nd.
    const clock = manualJobClock(new Date("2026-10-30T16:00:00Z"));
    const runner = new JobRunner({
      db,
      kind: database.kind,
      clock,
      jobs: [monthlyStatementsJob as JobDefinition<never>],
      time_zone: institution().time_zone,
      logger: pino({ level: "silent" }),
      poll_ms: 60_000,
      lease_ms: 60_000,
    });
    expect(await runner.runDue()).toEqual([]);
    const [queued] = await db.select().from(jobRuns).where(eq(jobRuns.job, "monthly-statements"));
    // 6:00 in New York on Monday 2 November (EST, UTC-5).
    expect(queued!.key).toBe("at:2026-11-02T11:00:00.000Z");

    await clock.advance(new Date("2026-11-02T10:59:00Z").getTime() - new Date("2026-10-30T16:00:00Z").getTime());
    expect(await runner.runDue()).toEqual([]);
    expect(await db.select().from(accountStatements)).toHaveLength(0);

    await clock.advance(60_000);
    const outcomes = await runner.runDue();
    expect(outcomes.map((o) => o.outcome)).toEqual(["succeeded"]);
    const [run] = await db
      .select()
      .from(jobRuns)
      .where(and(eq(jobRuns.job, "monthly-statements"), eq(jobRuns.state, "succeeded")));
    // Every member account whose history began by 31 October: A's checking, B's savings and the six
    // others' checking. The other accounts were opened in November (today, in real time) with
    // nothing dated before.
    expect(run!.result).toMatchObject({ month: "2026-10", made: 8, waiting_for_business_day: false });

    const kept = await db.select().from(accountStatements).orderBy(accountStatements.account_id);
    expect(kept.map((s) => [s.account_id, s.period_month])).toEqual(
      [a.checking.id, b.savings.id, ...more.map((x) => x.checking.id)]
        .sort((x, y) => x - y)
        .map((id) => [id, "2026-10"]),
    );
    expect(more.map((x) => kept.find((s) => s.account_id === x.checking.id)!.closing_cents)).toEqual([
      1_000, 1_001, 1_002, 1_003, 1_004, 1_005,
    ]);
    const a_checking = kept.find((s) => s.account_id === a.checking.id)!;
    expect(a_checking).toMatchObject({
      opening_cents: 0,
      credits_cents: 100_000,
      debits_cents: 2_500,
      closing_cents: 97_500,
      posted_count: 2,
      created_by: "system:statements",
    });
    // B's savings earns dividends, and the dividend run (0:30) is not in this runner: the statement
    // run paid October's first, so the statement shows it. $400.00 all October (31 days):
    // 40,000 x (1.035^(31/365) - 1) = 117.04 cents -> $1.17.
    expect(kept.find((s) => s.account_id === b.savings.id)).toMatchObject({
      opening_cents: 40_000,
      credits_cents: 117,
      closing_cents: 40_117,
      posted_count: 1,
    });
    const told = await db.select().from(notifications).where(eq(notifications.kind, "statement_ready"));
    expect(told.map((n) => [n.member_id, n.title]).sort()).toEqual(
      [a, b, ...more].map((x) => [x.member.id, "Your October 2026 statement is ready"]).sort(),
    );
    expect(told.find((n) => n.member_id === a.member.id)!.body).toBe(
      `The statement for Personal Checking •••• ${a.checking.account_number.slice(-4)} is on your Statements page.`,
    );
    expect(told.some((n) => /\d{10}/.test(n.body))).toBe(false);

    // The next weekday's run finds nothing left to make and tells no one again.
    await clock.advance(24 * 60 * 60_000);
    expect((await runner.runDue()).map((o) => o.outcome)).toEqual(["succeeded"]);
    expect(await db.select().from(accountStatements)).toHaveLength(8);
    expect(await db.select().from(notifications).where(eq(notifications.kind, "statement_ready"))).toHaveLength(8);
    const [{ n } = { n: 0 }] = (
      await db.execute(
        sql`select count(*)::int as n from job_runs where job = 'monthly-statements' and state = 'succeeded'`,
      )
    ).rows as { n: number }[];
    expect(Number(n)).toBe(2);
  });
});
