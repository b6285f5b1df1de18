import { describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { pino } from "pino";
import type { Db } from "~/server/db/client.server";
import { accountDividends, jobRuns, ledgerTransactions, users } from "~/server/db/schema";
import { manualJobClock } from "~/server/jobs/clock.server";
import { JobRunner } from "~/server/jobs/runner.server";
import type { JobDefinition } from "~/server/jobs/job";
import { monthlyDividendsJob } from "~/server/jobs/registry.server";
import { getAccount, institutionAccount, memberAccounts, setAccountStatus } from "~/server/ledger/accounts.server";
import { placeHold, postTransfer, reverseTransaction } from "~/server/ledger/ledger.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { extractText, getDocumentProxy } from "unpdf";
import { readStatementFigures, statementData } from "~/server/statements/statements.server";
import { renderStatementPdf } from "~/server/statements/pdf.server";
import { memberStatementPdf } from "~/server/statements/member-statements.server";
import { runMonthlyStatements } from "~/server/statements/monthly-run.server";
import { keptStatement } from "~/server/statements/statements.server";
import {
  accountsToPay,
  DIVIDEND_INITIATOR,
  dividendKey,
  payMonthlyDividends,
  statementDividends,
} from "~/server/dividends/dividends.server";
import { institution } from "~/config/institution.server";
import { seedDemoHistory } from "~/server/seed/demo-history.server";
import { DEMO_SIGNINS } from "~/server/auth/demo-signins.server";
import { fileDatabase } from "../test-database";
import { accepted, newKey, openMember } from "../ledger-fixtures";

/**
 * The monthly dividend run (app/server/dividends/dividends.server.ts) on the demo profile's rates
 * (savings 3.50% APY, checking nothing): the average daily balance read from the ledger's
 * effective dates, one credit per account and month from the Dividends paid account, nothing for
 * a closed account, a frozen one paid on time like any other, never twice, and a run that failed half way
 * finished by the next. The ledger verifies clean at the end.
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
      kind: amount_cents > 0 ? "deposit" : "withdrawal",
      initiator: "system:test",
      idempotency_key: newKey("line"),
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

async function dividendTransactions(account_id: number, month: string) {
  return db
    .select({ id: ledgerTransactions.id })
    .from(ledgerTransactions)
    .where(
      and(
        eq(ledgerTransactions.initiator, DIVIDEND_INITIATOR),
        eq(ledgerTransactions.idempotency_key, dividendKey(account_id, month)),
      ),
    );
}

async function rowOf(account_id: number, month: string) {
  const [row] = await db
    .select()
    .from(accountDividends)
    .where(and(eq(accountDividends.account_id, account_id), eq(accountDividends.period_month, month)));
  return row;
}

describe("a run that stops between accounts", () => {
  it("is finished by the next run, and no account is paid twice", async () => {
    // $1,000, $2,000 and $3,000 all of September 2026 (30 days). 1.035^(30/365) - 1 = 0.00283151571...,
    // so the dividends are 283.15, 566.30 and 849.45 cents: $2.83, $5.66 and $8.49.
    const members = [await openMember(db), await openMember(db), await openMember(db)];
    for (const [i, m] of members.entries()) await post(m.savings.id, (i + 1) * 100_000, "2026-08-20");
    const [first, second, third] = members.map((m) => m.savings.id) as [number, number, number];

    // The database refuses the second account's row: the run fails there, as a process stopped
    // in the middle would. Whatever it paid is paid in full (posting and row together), the rest untouched.
    await db.execute(
      sql.raw(`create function test_stop_dividend() returns trigger language plpgsql as $$
      begin if new.account_id = ${second} then raise exception 'simulated stop'; end if; return new; end $$`),
    );
    await db.execute(
      sql`create trigger test_stop_dividend before insert on account_dividends for each row execute function test_stop_dividend()`,
    );
    const october_1 = new Date("2026-10-01T12:00:00Z");
    const stopped = await payMonthlyDividends(db, october_1).then(
      () => null,
      (error: Error) => error,
    );
    expect(String((stopped?.cause as Error | undefined)?.message ?? stopped?.message)).toMatch(/simulated stop/);
    expect(await rowOf(second, "2026-09")).toBeUndefined();
    expect(await dividendTransactions(second, "2026-09")).toHaveLength(0);
    expect((await getAccount(db, second))!.current_cents).toBe(200_000);
    expect((await verifyLedger(db)).ok).toBe(true);

    await db.execute(sql`drop trigger test_stop_dividend on account_dividends`);
    await db.execute(sql`drop function test_stop_dividend()`);
    const rerun = await payMonthlyDividends(db, october_1);
    expect(rerun.month).toBe("2026-09");
    expect(rerun.paid).toBeGreaterThanOrEqual(1);
    // And once more: nothing is left to pay.
    expect(await payMonthlyDividends(db, new Date("2026-10-02T12:00:00Z"))).toEqual({
      month: "2026-09",
      paid: 0,
      paid_cents: 0,
      earned_nothing: 0,
      waiting: 0,
    });

    for (const [id, dividend, balance] of [
      [first, 283, 100_000],
      [second, 566, 200_000],
      [third, 849, 300_000],
    ] as const) {
      expect(await dividendTransactions(id, "2026-09")).toHaveLength(1);
      expect(await rowOf(id, "2026-09")).toMatchObject({
        days: 30,
        average_daily_balance_cents: balance,
        apy_ppm: 35_000,
        dividend_cents: dividend,
      });
      expect((await getAccount(db, id))!.current_cents).toBe(balance + dividend);
    }
    const expense = await institutionAccount(db, "dividends_paid");
    expect((await getAccount(db, expense.id))!.current_cents).toBe(-(283 + 566 + 849));
  });
});

describe("the monthly dividends job", () => {
  it("on the night of 1 November pays October on each account's average daily balance, once", async () => {
    // A: $1,000 when October began, $3,100 in on the 17th (15 days), $500 out on the 25th (7 days),
    // $200 in on the 10th reversed on the 20th (in the balance from the 10th to the 19th: 10 days),
    // and a $50 hold on the 20th that a pending transaction never counts:
    // (31 x 100,000 + 15 x 310,000 - 7 x 50,000 + 10 x 20,000) / 31 = 7,600,000 / 31 = 245,161.29
    // cents a day; x (1.035^(31/365) - 1) = 717.35 cents -> $7.17.
    const a = await openMember(db);
    const cash = await institutionAccount(db, "cash");
    await post(a.savings.id, 100_000, "2026-09-15");
    await post(a.savings.id, 310_000, "2026-10-17");
    await post(a.savings.id, -50_000, "2026-10-25");
    const mistaken = await post(a.savings.id, 20_000, "2026-10-10");
    await accepted(
      reverseTransaction(db, {
        transaction_id: mistaken.transaction.id,
        idempotency_key: newKey("reverse"),
        initiator: "system:test",
        created_by: "test",
        effective_date: "2026-10-20",
      }),
    );
    await accepted(
      placeHold(db, {
        kind: "withdrawal",
        initiator: "system:test",
        idempotency_key: newKey("hold"),
        created_by: "test",
        effective_date: "2026-10-20",
        memo: "Held",
        entries: [
          { account_id: a.savings.id, amount_cents: -5_000 },
          { account_id: cash.id, amount_cents: 5_000 },
        ],
      }),
    );
    await post(a.checking.id, 500_000, "2026-10-01"); // checking earns nothing in the demo profile
    // B: savings never funded: worked out (nothing earned), so later runs skip it.
    const b = await openMember(db);
    await post(b.checking.id, 1_000, "2026-10-01");
    await post(b.savings.id, 1_000, "2026-10-02");
    await post(b.savings.id, -1_000, "2026-10-02");
    // C: frozen since before the night: paid all the same (a freeze stops what is done with the money, not what it earns).
    const c = await openMember(db);
    await post(c.savings.id, 1_000_000, "2026-09-30");
    await accepted(setAccountStatus(db, c.savings.id, "frozen"));
    // D: had money in October, emptied and closed since: nothing.
    const d = await openMember(db);
    await post(d.savings.id, 50_000, "2026-10-05");
    await post(d.savings.id, -50_000, "2026-11-02");
    await accepted(setAccountStatus(db, d.savings.id, "closed"));

    const clock = manualJobClock(new Date("2026-10-31T12:00:00Z"));
    const runner = new JobRunner({
      db,
      kind: database.kind,
      clock,
      jobs: [monthlyDividendsJob as JobDefinition<never>],
      time_zone: institution().time_zone,
      logger: pino({ level: "silent" }),
      poll_ms: 60_000,
      lease_ms: 60_000,
    });
    expect(await runner.runDue()).toEqual([]);
    const [queued] = await db.select().from(jobRuns).where(eq(jobRuns.job, "monthly-dividends"));
    // 0:30 in New York on Sunday 1 November, still summer time (UTC-4) until 2:00; before the 6:00 statement run.
    expect(queued!.key).toBe("at:2026-11-01T04:30:00.000Z");

    await clock.advance(new Date("2026-11-01T04:30:00Z").getTime() - new Date("2026-10-31T12:00:00Z").getTime());
    expect((await runner.runDue()).map((o) => o.outcome)).toEqual(["succeeded"]);
    const [run] = await db
      .select()
      .from(jobRuns)
      .where(and(eq(jobRuns.job, "monthly-dividends"), eq(jobRuns.state, "succeeded")));
    expect(run!.result).toMatchObject({ month: "2026-10", waiting: 0 });

    expect(await rowOf(a.savings.id, "2026-10")).toMatchObject({
      days: 31,
      average_daily_balance_cents: 245_161,
      apy_ppm: 35_000,
      dividend_cents: 717,
    });
    const [credit] = await dividendTransactions(a.savings.id, "2026-10");
    expect(credit).toBeDefined();
    const [transaction] = await db.select().from(ledgerTransactions).where(eq(ledgerTransactions.id, credit!.id));
    expect(transaction).toMatchObject({
      kind: "interest",
      status: "posted",
      effective_date: "2026-10-31",
      memo: "Dividend for October 2026",
      category: "Interest",
    });
    expect((await getAccount(db, a.savings.id))!.current_cents).toBe(360_000 + 717);
    // The October statement shows it as a credit on the 31st.
    const october = await readStatementFigures(db, a.savings.id, "2026-10");
    expect(october.posted.at(-1)).toMatchObject({
      effective_date: "2026-10-31",
      description: "Dividend for October 2026",
      amount_cents: 717,
    });
    // Its summary gives the dividend, the year's so far, the average daily balance and the APY
    // earned: (1 + 717 / 245,161)^(365/31) - 1 = 3.4983% -> 3.50%.
    const data = await statementData(db, (await getAccount(db, a.savings.id))!, "2026-10");
    expect(data.dividends).toEqual({
      period_cents: 717,
      year_to_date_cents: 717,
      average_daily_balance_cents: 245_161,
      days: 31,
      apy_earned: "3.50%",
    });
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(await renderStatementPdf(data))), {
      mergePages: true,
    });
    for (const expected of [
      "Dividends earned this period (31 days)",
      "$7.17",
      "Dividends earned this year",
      "Average daily balance",
      "$2,451.61",
      "Annual percentage yield earned",
      "3.50%",
      "Dividend for October 2026",
    ]) {
      expect(text).toContain(expected);
    }
    expect(await statementDividends(db, a.checking.id, "2026-10")).toBeNull();
    // November's balances begin with it (monthly compounding).
    const november = await accountsToPay(db, "2026-11", ["savings"], a.savings.id - 1, 1);
    expect(november[0]).toMatchObject({ id: a.savings.id, opening_cents: 360_717 });

    expect(await rowOf(a.checking.id, "2026-10")).toBeUndefined();
    expect(await rowOf(b.savings.id, "2026-10")).toMatchObject({
      average_daily_balance_cents: 0,
      dividend_cents: 0,
      transaction_id: null,
    });
    // $10,000 all October earns $29.26; the account stays frozen.
    expect(await rowOf(c.savings.id, "2026-10")).toMatchObject({
      average_daily_balance_cents: 1_000_000,
      dividend_cents: 2_926,
    });
    expect(await getAccount(db, c.savings.id)).toMatchObject({ current_cents: 1_002_926, status: "frozen" });
    expect(await rowOf(d.savings.id, "2026-10")).toBeUndefined();
    expect(await dividendTransactions(d.savings.id, "2026-10")).toHaveLength(0);
    expect((await verifyLedger(db)).ok).toBe(true);

    // The next night (0:30 is now 5:30 UTC: summer time ended) pays nothing more.
    await clock.advance(25 * 60 * 60_000);
    expect((await runner.runDue()).map((o) => o.outcome)).toEqual(["succeeded"]);
    const second = await db
      .select()
      .from(jobRuns)
      .where(and(eq(jobRuns.job, "monthly-dividends"), eq(jobRuns.state, "succeeded")))
      .orderBy(jobRuns.id);
    expect(second.at(-1)!.result).toEqual({ month: "2026-10", paid: 0, paid_cents: 0, earned_nothing: 0, waiting: 0 });
    expect(await dividendTransactions(a.savings.id, "2026-10")).toHaveLength(1);
    expect(await dividendTransactions(c.savings.id, "2026-10")).toHaveLength(1);
    // Frozen, C's money still cannot move: the dividend is the only posting let in.
    const moved = await postTransfer(db, {
      kind: "withdrawal",
      initiator: "system:test",
      idempotency_key: newKey("out"),
      created_by: "test",
      entries: [
        { account_id: c.savings.id, amount_cents: -100 },
        { account_id: (await institutionAccount(db, "cash")).id, amount_cents: 100 },
      ],
    });
    expect(moved).toMatchObject({ ok: false, code: "account_frozen" });
    expect((await verifyLedger(db)).ok).toBe(true);
  });
});

describe("the demo's history", () => {
  it("has each past month's dividend paid by the same rule and rows as every member's, which the nightly run never pays again", async () => {
    for (const person of DEMO_SIGNINS.filter((p) => p.kind === "member")) {
      await db.insert(users).values({
        id: `demo-${person.email}`,
        name: `${person.first_name} ${person.last_name}`,
        email: person.email,
        role: "user",
        emailVerified: true,
      });
    }
    const now = new Date("2026-11-22T15:00:00Z");
    expect(await seedDemoHistory(db, now)).toBe(true);
    const savings = (await memberAccounts(db, "demo-alex.morgan@harborview.example")).find(
      (a) => a.type === "savings",
    )!;
    const rows = await db
      .select()
      .from(accountDividends)
      .where(eq(accountDividends.account_id, savings.id))
      .orderBy(accountDividends.period_month);
    expect(rows.map((r) => r.period_month)).toEqual(["2026-05", "2026-06", "2026-07", "2026-08", "2026-09", "2026-10"]);
    // May: $18,500.00 in on the 1st and $500.00 moved from checking on the 3rd (29 days):
    // (31 x 1,850,000 + 29 x 50,000) / 31 = 1,896,774.19 cents a day; x 0.0029260375 = 5,550.03 -> $55.50.
    expect(rows[0]).toMatchObject({
      days: 31,
      average_daily_balance_cents: 1_896_774,
      apy_ppm: 35_000,
      dividend_cents: 5_550,
    });
    expect(rows.every((r) => r.dividend_cents > 0 && r.transaction_id !== null)).toBe(true);
    const memos = await db.execute(
      sql`select distinct t.memo from ledger_entries e join ledger_transactions t on t.id = e.transaction_id where e.account_id = ${savings.id} and t.kind = 'interest' order by 1`,
    );
    expect(memos.rows.map((r) => r.memo)).toEqual([
      "Dividend for August 2026",
      "Dividend for July 2026",
      "Dividend for June 2026",
      "Dividend for May 2026",
      "Dividend for October 2026",
      "Dividend for September 2026",
    ]);
    expect((await statementDividends(db, savings.id, "2026-10"))!.year_to_date_cents).toBe(
      rows.reduce((sum, r) => sum + r.dividend_cents, 0),
    );
    expect((await statementDividends(db, savings.id, "2026-05"))!.year_to_date_cents).toBe(5_550);
    await payMonthlyDividends(db, now);
    expect(await dividendTransactions(savings.id, "2026-10")).toHaveLength(1);
    expect(await db.select().from(accountDividends).where(eq(accountDividends.account_id, savings.id))).toHaveLength(6);
  });
});

describe("a statement asked for before the month's dividend is paid", () => {
  async function pdfText(pdf: Uint8Array) {
    return (await extractText(await getDocumentProxy(new Uint8Array(pdf)), { mergePages: true })).text;
  }

  it("has it: the member's download and the statement run each work the dividend out first", async () => {
    // $10,000.00 all of October 2026 (31 days): 1,000,000 x (1.035^(31/365) - 1) = 2,926.04 cents -> $29.26.
    const early = await openMember(db);
    await post(early.savings.id, 1_000_000, "2026-09-30");
    // 00:10 in New York on 1 November: the nightly dividend run (0:30) has not run yet.
    const download = await memberStatementPdf(
      db,
      early.member_id,
      String(early.savings.id),
      "2026-10",
      new Date("2026-11-01T04:10:00Z"),
    );
    expect(download.ok).toBe(true);
    expect(await rowOf(early.savings.id, "2026-10")).toMatchObject({ dividend_cents: 2_926 });
    const downloaded = await pdfText((await keptStatement(db, early.savings.id, "2026-10"))!.pdf);
    for (const expected of ["Dividend for October 2026", "$29.26"]) expect(downloaded).toContain(expected);

    // The statement run (first business day, Monday 2 November) with the dividend run not done.
    const late = await openMember(db);
    await post(late.savings.id, 1_000_000, "2026-09-30");
    await runMonthlyStatements(db, new Date("2026-11-02T12:00:00Z"));
    expect(await rowOf(late.savings.id, "2026-10")).toMatchObject({ dividend_cents: 2_926 });
    expect(await pdfText((await keptStatement(db, late.savings.id, "2026-10"))!.pdf)).toContain(
      "Dividend for October 2026",
    );
    expect(await dividendTransactions(early.savings.id, "2026-10")).toHaveLength(1);
  });
});
