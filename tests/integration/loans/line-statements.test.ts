import "../identity-support";
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { pino } from "pino";
import { parseSync } from "ofx-js";
import { extractText, getDocumentProxy } from "unpdf";
import type { Database, Db } from "~/server/db/client.server";
import { creditLineCycles, creditLineStatements, creditLines, notifications } from "~/server/db/schema";
import { verifyLedger } from "~/server/ledger/verify.server";
import { applyForLoan, decideApplication } from "~/server/loans/applications.server";
import { acceptOffer } from "~/server/loans/offer-acceptance.server";
import { drawOnLine, payLine } from "~/server/loans/lines-of-credit.server";
import { memberLines } from "~/server/loans/line-views.server";
import { changeLineRate } from "~/server/loans/line-staff-actions.server";
import { accrueInterest } from "~/domain/loans/servicing";
import {
  LINE_STATEMENT_CYCLE_MESSAGE,
  LINE_STATEMENT_NOT_FOUND,
  memberLineChoices,
  memberLineStatementPdf,
  memberLineStatements,
} from "~/server/statements/line-statements.server";
import { runMonthlyStatements } from "~/server/statements/monthly-run.server";
import { memberExport } from "~/server/statements/export.server";
import { seedConsent } from "~/server/electronic-delivery/electronic-delivery.server";
import { manualJobClock } from "~/server/jobs/clock.server";
import { JobRunner } from "~/server/jobs/runner.server";
import type { JobDefinition } from "~/server/jobs/job";
import { loanServicingJob, monthlyStatementsJob } from "~/server/jobs/registry.server";
import { institution } from "~/config/institution.server";
import { businessDate } from "~/domain/ledger-rules";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { openTestDatabase } from "../test-database";
import { fundedMember, staff as newStaff } from "../../factories";

/**
 * A line of credit's periodic statement (docs/product.md#line-statements, Regulation Z 1026.7(b))
 * and the line in the exports: two lines serviced night by night by the job clock from March to
 * July (draws, a payment, a minimum left unpaid and its late fee); the monthly statement job makes
 * each closed cycle's statement once, the member told; its figures are the servicing's balance at
 * the close and the ledger's own sums, read back from the PDF by an independent reader; a statement
 * downloaded before the job is not made again; another member is refused. The line's OFX export,
 * read back by ofx-js, has its draws, payment, interest and fee and its balance owed, negative.
 */
let database: Database;
let db: Db;
let staff: { id: string; email: string };
const origin = { request_id: "line-statements", ip: "198.51.100.36" };
const at = (day: string) => new Date(`${day}T15:00:00Z`);
const key = () => crypto.randomUUID();

beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
  staff = await newStaff(db);
});
afterAll(async () => {
  if (db) expect((await verifyLedger(db)).problems).toEqual([]);
  await database?.close();
});

async function pdfText(pdf: Uint8Array): Promise<string> {
  const document = await getDocumentProxy(new Uint8Array(pdf));
  const { text } = await extractText(document, { mergePages: true });
  return text;
}

/** A member with an open $5,000 line at 12.5% opened on `opened_on`, $1,000 drawn that day. */
async function openLine(opened_on: string) {
  const funded = await fundedMember(db, { checking_cents: 500_00 });
  const applied = await applyForLoan(
    db,
    funded.member,
    {
      product_slug: "line-of-credit",
      amount_cents: 5_000_00,
      term_months: null,
      purpose: "Repairs as they come",
      annual_income_cents: 70_000_00,
      employer: "Seacoast Boatworks",
      idempotency_key: key(),
    },
    origin,
    at(opened_on),
  );
  if (!applied.ok) throw new Error(applied.message);
  const decided = await decideApplication(
    db,
    {
      staff,
      origin,
      application_id: applied.application_id,
      decision: { outcome: "approve", rate_ppm: 125_000, term_months: null },
    },
    at(opened_on),
  );
  if (!decided.ok) throw new Error(decided.message);
  const accepted = await acceptOffer(db, funded.member, applied.application_id, origin, at(opened_on));
  if (!accepted.ok) throw new Error(accepted.message);
  const [line] = await db.select().from(creditLines).where(eq(creditLines.application_id, applied.application_id));
  const drew = await drawOnLine(
    db,
    funded.member,
    { line_id: line!.id, to_account_id: funded.checking.id, amount_cents: 1_000_00, idempotency_key: key() },
    origin,
    at(opened_on),
  );
  expect(drew).toMatchObject({ ok: true });
  return { ...funded, line: line! };
}

/** What the ledger says was owed on the line when its cycle closed on `closed_on`, from the entries. */
async function ledgerOwedAtClose(line: { id: number; receivable_account_id: number }, closed_on: string) {
  const receivable = await db.execute(sql`
    select coalesce(sum(e.amount_cents), 0)::text as cents
      from ledger_entries e join ledger_transactions t on t.id = e.transaction_id
     where e.account_id = ${line.receivable_account_id} and t.effective_date < ${closed_on}::date`);
  // The interest posted through the closing date (the days before it), less the payments' interest before it.
  const interest = await db.execute(sql`
    select coalesce(sum(e.amount_cents), 0)::text as cents
      from ledger_entries e join ledger_transactions t on t.id = e.transaction_id
      join ledger_accounts a on a.id = e.account_id and a.type = 'interest_receivable'
     where (t.idempotency_key like ${`line:${line.id}:interest:%`} and t.effective_date <= ${closed_on}::date)
        or (t.id in (select transaction_id from credit_line_activity where line_id = ${line.id})
            and t.effective_date < ${closed_on}::date)`);
  return -Number(receivable.rows[0]!.cents) - Number(interest.rows[0]!.cents);
}

describe("a line of credit's periodic statement", () => {
  it("is made once per closed cycle by the monthly job, equal to the servicing's close and the ledger", async () => {
    // A consented to electronic delivery; B did not, and downloads the first statement before the job.
    const a = await openLine("2026-03-10");
    await seedConsent(db, a.member.id, at("2026-03-01"));
    const b = await openLine("2026-03-11");

    const clock = manualJobClock(new Date("2026-03-11T16:00:00Z"));
    const runner = new JobRunner({
      db,
      kind: database.kind,
      clock,
      jobs: [loanServicingJob, monthlyStatementsJob] as JobDefinition<never>[],
      time_zone: institution().time_zone,
      logger: pino({ level: "silent" }),
      poll_ms: 60_000,
      lease_ms: 60_000,
    });
    await runner.runDue();
    let downloaded: Buffer | null = null;
    for (let now = await clock.now(); now < new Date("2026-07-13T16:00:00Z");) {
      now = await clock.advance(24 * 60 * 60_000);
      const day = businessDate(institution().time_zone, now);
      const outcomes = await runner.runDue();
      expect(outcomes.every((o) => o.outcome === "succeeded")).toBe(true);
      if (day === "2026-04-15") {
        const drew = await drawOnLine(
          db,
          a.member,
          { line_id: a.line.id, to_account_id: a.checking.id, amount_cents: 200_00, idempotency_key: key() },
          origin,
          now,
        );
        expect(drew).toMatchObject({ ok: true });
      }
      if (day === "2026-04-20") {
        const paid = await payLine(
          db,
          a.member,
          {
            line_id: a.line.id,
            from_account_id: a.checking.id,
            amount: { kind: "amount", amount_cents: 100_00 },
            idempotency_key: key(),
          },
          origin,
          now,
        );
        expect(paid).toMatchObject({ ok: true });
      }
      // B's first cycle closes on Saturday 11 April: B downloads it before Monday's run.
      if (day === "2026-04-11") {
        const got = await memberLineStatementPdf(db, b.member.id, String(b.line.id), "2026-04-11", now);
        if (!got.ok) throw new Error(got.message);
        expect(got.file_name).toBe(`line-statement-LC-${String(b.line.id).padStart(6, "0")}-2026-04-11.pdf`);
        downloaded = got.pdf;
      }
    }

    const kept = await db
      .select()
      .from(creditLineStatements)
      .where(inArray(creditLineStatements.line_id, [a.line.id, b.line.id]))
      .orderBy(asc(creditLineStatements.line_id), asc(creditLineStatements.closed_on));
    expect(kept.map((s) => [s.line_id, s.closed_on, s.created_by, s.mail_paper_copy])).toEqual([
      [a.line.id, "2026-04-10", "system:statements", false],
      [a.line.id, "2026-05-10", "system:statements", false],
      [a.line.id, "2026-06-10", "system:statements", false],
      [a.line.id, "2026-07-10", "system:statements", false],
      [b.line.id, "2026-04-11", `member:${b.member.id}`, true],
      [b.line.id, "2026-05-11", "system:statements", true],
      [b.line.id, "2026-06-11", "system:statements", true],
      [b.line.id, "2026-07-11", "system:statements", true],
    ]);
    expect(Buffer.compare(kept[4]!.pdf, downloaded!)).toBe(0);
    // A second run makes none.
    expect(await runMonthlyStatements(db, new Date("2026-07-14T16:00:00Z"))).toMatchObject({ line_statements_made: 0 });

    const cycles = await db
      .select()
      .from(creditLineCycles)
      .where(eq(creditLineCycles.line_id, a.line.id))
      .orderBy(asc(creditLineCycles.closed_on));
    const mine = kept.filter((s) => s.line_id === a.line.id);
    let previous = 0;
    for (const [n, s] of mine.entries()) {
      // The servicing's balance when it closed the cycle, its minimum and due date; the ledger's own sums.
      expect(s.cycle_id).toBe(cycles[n]!.id);
      expect(s.new_balance_cents).toBe(cycles[n]!.balance_cents);
      expect(s.minimum_due_cents).toBe(cycles[n]!.minimum_due_cents);
      expect(s.due_on).toBe(cycles[n]!.due_on);
      expect(s.new_balance_cents).toBe(await ledgerOwedAtClose(a.line, s.closed_on));
      expect(s.previous_balance_cents).toBe(previous);
      previous = s.new_balance_cents;
    }
    const [april, may, , july] = mine;
    expect(april).toMatchObject({ draws_cents: 1_000_00, payments_cents: 0, fees_cents: 0 });
    expect(may).toMatchObject({ draws_cents: 200_00, payments_cents: 100_00, fees_cents: 0 });
    // May's minimum was left unpaid: the late fee after the grace days is on July's statement.
    expect(july).toMatchObject({ fees_cents: 25_00, draws_cents: 0, payments_cents: 0 });

    // Read back by an independent reader: July's statement.
    const text = await pdfText(july!.pdf);
    const number = `LC-${String(a.line.id).padStart(6, "0")}`;
    for (const expected of [
      "Line of credit statement",
      `Personal Line of Credit ${number}`,
      "Billing cycle 2026-06-10 to 2026-07-09 (30 days)",
      "Closing date 2026-07-10",
      "Previous balance",
      formatCents(july!.previous_balance_cents),
      `New balance on 2026-07-10`,
      formatCents(july!.new_balance_cents),
      "Minimum payment due",
      formatCents(july!.minimum_due_cents),
      formatBusinessDate(july!.due_on),
      `Late payment warning: if we do not receive your minimum payment by ${formatBusinessDate("2026-08-14")}, a late fee of $25.00 will be charged.`,
      "Credit limit",
      "$5,000.00",
      "Available credit",
      formatCents(5_000_00 - july!.new_balance_cents),
      "APR 12.50%, daily periodic rate 0.034247%",
      "Balance subject to interest rate",
      `Interest charged`,
      formatCents(july!.interest_cents),
      "Total interest charged this year",
      "Total fees charged this year",
      `${number}: late fee, minimum due 2026-06-04`,
      "Billing rights",
      "within 60 days",
    ])
      expect(text).toContain(expected);
    // May's: the draw and the payment with how it was applied.
    const mayText = await pdfText(may!.pdf);
    expect(mayText).toContain(`${number}: draw`);
    expect(mayText).toContain(`${number}: payment`);
    expect(mayText).toContain("-$100.00");
    expect(mayText).toMatch(/Applied: principal \$[\d.,]+, interest \$[\d.,]+, fees \$0\.00/);

    // The member told once per statement made by the job.
    const told = await db
      .select()
      .from(notifications)
      .where(and(eq(notifications.member_id, a.member.id), eq(notifications.kind, "statement_ready")));
    expect(told.filter((n) => n.title === "Your line of credit statement is ready")).toHaveLength(4);

    // The member's list, and the download's refusals: another member's line, a made-up one, a date not a cycle.
    const listed = await memberLineStatements(db, a.member.id);
    expect(listed[0]!.cycles.map((c) => c.closed_on)).toEqual(["2026-07-10", "2026-06-10", "2026-05-10", "2026-04-10"]);
    const now = new Date("2026-07-14T16:00:00Z");
    const mineNow = await memberLineStatementPdf(db, a.member.id, String(a.line.id), "2026-07-10", now);
    expect(mineNow.ok && Buffer.compare(mineNow.pdf, july!.pdf)).toBe(0);
    expect(await memberLineStatementPdf(db, b.member.id, String(a.line.id), "2026-07-10", now)).toEqual({
      ok: false,
      kind: "not_found",
      message: LINE_STATEMENT_NOT_FOUND,
    });
    expect(await memberLineStatementPdf(db, a.member.id, "99999999", "2026-07-10", now)).toMatchObject({
      kind: "not_found",
    });
    expect(await memberLineStatementPdf(db, a.member.id, "x", "2026-07-10", now)).toMatchObject({ kind: "not_found" });
    for (const bad of ["2026-07-11", "2026-08-10", "July"])
      expect(await memberLineStatementPdf(db, a.member.id, String(a.line.id), bad, now)).toEqual({
        ok: false,
        kind: "bad_input",
        message: LINE_STATEMENT_CYCLE_MESSAGE,
      });
    expect(
      await db.select().from(creditLineStatements).where(eq(creditLineStatements.line_id, a.line.id)),
    ).toHaveLength(4);

    // The line in the exports, as a credit line, read back by ofx-js.
    expect(await memberLineChoices(db, a.member.id)).toEqual([
      { value: `line-${a.line.id}`, label: `Personal Line of Credit ${number}` },
    ]);
    const exported = (to: string, format = "ofx", member_id = a.member.id) =>
      memberExport(
        db,
        member_id,
        new URLSearchParams({ account: `line-${a.line.id}`, from: "2026-03-10", to, format }),
        now,
      );
    const file = await exported("2026-07-14");
    if (!file.ok) throw new Error(JSON.stringify(file));
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed file, read field by field
    const rs = (parseSync(file.body) as { OFX: Record<string, any> }).OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS;
    expect(rs.BANKACCTFROM).toMatchObject({ ACCTTYPE: "CREDITLINE", ACCTID: number.replace("-", "") });
    const ofxLines = [rs.BANKTRANLIST.STMTTRN].flat() as Record<string, string>[];
    expect(ofxLines[0]).toMatchObject({ TRNTYPE: "DEBIT", DTPOSTED: "20260310", TRNAMT: "-1000.00" });
    expect(ofxLines.filter((l) => /draw/.test(l.NAME!)).map((l) => l.TRNAMT)).toEqual(["-1000.00", "-200.00"]);
    expect(ofxLines.filter((l) => l.TRNTYPE === "CREDIT").map((l) => l.TRNAMT)).toEqual(["100.00"]);
    expect(ofxLines.filter((l) => /late fee/.test(l.NAME!)).map((l) => l.TRNAMT)).toEqual(["-25.00"]);
    expect(ofxLines.filter((l) => /interest/.test(l.NAME!)).length).toBeGreaterThan(100);
    const [view] = await memberLines(db, a.member.id, now);
    expect(Math.round(Number(rs.LEDGERBAL.BALAMT) * 100)).toBe(-view!.balance_cents);
    expect(Math.round(Number(rs.AVAILBAL.BALAMT) * 100)).toBe(view!.available_cents);
    // At the close of July's cycle's last day: what was owed then, negative.
    const june = await exported("2026-07-09");
    if (!june.ok) throw new Error(JSON.stringify(june));
    const juneBalance =
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed file
      (parseSync(june.body) as { OFX: Record<string, any> }).OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS.LEDGERBAL.BALAMT;
    expect(Math.round(Number(juneBalance) * 100)).toBeLessThan(-july!.previous_balance_cents);
    const csv = await exported("2026-07-14", "csv");
    expect(csv.ok && csv.body.split("\n")[1]).toContain(`"${number}: draw"`);
    expect(await exported("2026-07-14", "ofx", b.member.id)).toMatchObject({ ok: false, status: 404 });
  });
});

describe("a cycle in which the APR changed", () => {
  it("shows each rate with the days it applied, its balance and the interest posted for those days", async () => {
    // Opened Monday 3 August 2026 at 12.5% with $1,000 drawn; lowered to 9.99% on 17 August; the
    // cycle closes 3 September. Serviced night by night by the job clock, the statement by its job.
    const o = await openLine("2026-08-03");
    const clock = manualJobClock(new Date("2026-08-03T16:00:00Z"));
    const runner = new JobRunner({
      db,
      kind: database.kind,
      clock,
      jobs: [loanServicingJob, monthlyStatementsJob] as JobDefinition<never>[],
      time_zone: institution().time_zone,
      logger: pino({ level: "silent" }),
      poll_ms: 60_000,
      lease_ms: 60_000,
    });
    await runner.runDue();
    for (let now = await clock.now(); now < new Date("2026-09-08T16:00:00Z");) {
      now = await clock.advance(24 * 60 * 60_000);
      const outcomes = await runner.runDue();
      expect(outcomes.every((x) => x.outcome === "succeeded")).toBe(true);
      if (businessDate(institution().time_zone, now) === "2026-08-17")
        expect(
          await changeLineRate(
            db,
            { staff, origin, line_id: o.line.id, rate_ppm: 99_900, note: "Loyalty pricing" },
            now,
          ),
        ).toMatchObject({ ok: true });
    }
    const [statement] = await db
      .select()
      .from(creditLineStatements)
      .where(eq(creditLineStatements.line_id, o.line.id))
      .orderBy(asc(creditLineStatements.closed_on));
    expect(statement).toMatchObject({ closed_on: "2026-09-03", created_by: "system:statements" });
    // What the accrual owes for each part, figured independently: 14 days at 12.5%, 17 at 9.99%.
    const before = accrueInterest(1_000_00, 125_000, 14, 0);
    const after = accrueInterest(1_000_00, 99_900, 17, before.carry);
    expect(statement!.interest_cents).toBe(before.interest_cents + after.interest_cents);

    // One space for every break: the reader breaks the explanation where the page wraps it.
    const text = (await pdfText(statement!.pdf)).replace(/\s+/g, " ");
    for (const expected of [
      "Billing cycle 2026-08-03 to 2026-09-02 (31 days)",
      "Interest charge calculation",
      "14 days: APR 12.50%, daily periodic rate 0.034247%",
      "17 days: APR 9.99%, daily periodic rate 0.027370%",
      formatCents(before.interest_cents),
      formatCents(after.interest_cents),
      "Your APR changed during this cycle: 12.50% from 2026-08-03 to 2026-08-16, then 9.99% from 2026-08-17 to 2026-09-02.",
      "the average daily balance of the principal drawn over the days each rate applied",
    ])
      expect(text).toContain(expected);
    // Each rate's row in order: the day it began, its days and rate, its balance, its interest.
    const rows = text.slice(text.indexOf("Interest charge calculation"), text.indexOf("Your APR changed"));
    const order = (...parts: string[]) => parts.map((part) => rows.indexOf(part));
    const first = order("2026-08-03", "14 days: APR 12.50%", "$1,000.00", formatCents(before.interest_cents));
    const second = order("2026-08-17", "17 days: APR 9.99%", formatCents(after.interest_cents));
    expect(first.every((n, k) => n >= 0 && (k === 0 || n > first[k - 1]!))).toBe(true);
    expect(second.every((n, k) => n > first[3]! && (k === 0 || n > second[k - 1]!))).toBe(true);
  });
});
