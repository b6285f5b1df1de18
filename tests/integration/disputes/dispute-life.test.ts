import "../identity-support";
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, desc, eq, sql } from "drizzle-orm";
import type { Database, Db } from "~/server/db/client.server";
import {
  auditLog,
  disputeCases,
  disputeEvents,
  ledgerAccounts,
  ledgerTransactions,
  notifications,
  outbox,
} from "~/server/db/schema";
import { getBalances, institutionAccount } from "~/server/ledger/accounts.server";
import { postTransfer } from "~/server/ledger/ledger.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { disputeQueue, memberCase, memberCases, reportDispute } from "~/server/disputes/disputes.server";
import { addCaseNote, provisionallyCredit, resolveDispute } from "~/server/disputes/staff-steps.server";
import { flagDeadlines, runDisputeClocks } from "~/server/disputes/clocks.server";
import { APP_JOBS } from "~/server/jobs/registry.server";
import { caseNumber } from "~/domain/disputes";
import { openTestDatabase } from "../test-database";
import { fundedMember, staff as newStaff } from "../../factories";

/**
 * A Regulation E error resolution case's whole life (docs/product.md#disputes) on the ledger:
 * reported with its clocks, provisionally credited, resolved each way; when no error is found the
 * provisional credit is debited by the dispute-clocks job on the date the notice named (5 business
 * days), not before. Every step is audited, told to the member and emailed (read back from the
 * outbox); the deadline job tells staff once a day. The ledger verifies at the end.
 */
let database: Database;
let db: Db;
let staff: { id: string; email: string };
const origin = { request_id: "dispute-life", ip: "198.51.100.30" };
/** 10 am in New York on a business date. */
const at = (date: string) => new Date(`${date}T15:00:00Z`);

beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
  staff = await newStaff(db);
});
afterAll(async () => {
  if (db) {
    const report = await verifyLedger(db);
    expect(report.problems).toEqual([]);
  }
  await database?.close();
});

type Member = Awaited<ReturnType<typeof fundedMember>>;

async function member(options: { opened_long_ago: boolean; checking_cents?: number }): Promise<Member> {
  const m = await fundedMember(db, { checking_cents: options.checking_cents ?? 100_000 });
  if (options.opened_long_ago)
    await db
      .update(ledgerAccounts)
      .set({ opened_at: new Date("2026-01-05T15:00:00Z") })
      .where(eq(ledgerAccounts.member_id, m.member.id));
  return m;
}

/** A posted card purchase (or another kind) on the member's checking, dated `date`. */
async function purchase(m: Member, cents: number, date: string, kind: "card_payment" | "ach_out" = "card_payment") {
  const other = await institutionAccount(db, kind === "card_payment" ? "card_settlement" : "ach_settlement");
  const answer = await postTransfer(db, {
    idempotency_key: crypto.randomUUID(),
    initiator: `member:${m.member.id}`,
    kind,
    created_by: m.member.id,
    memo: kind === "card_payment" ? "HARBOR HARDWARE" : "ACH to Power Co",
    effective_date: date,
    entries: [
      { account_id: m.checking.id, amount_cents: -cents },
      { account_id: other.id, amount_cents: cents },
    ],
  });
  if (!answer.ok) throw new Error(answer.code);
  return answer.transaction.id;
}

const balance = async (m: Member) => (await getBalances(db, [m.checking.id]))[0]!.current_cents;
const mail = (email: string) =>
  db.select().from(outbox).where(eq(outbox.to_email, email.toLowerCase())).orderBy(desc(outbox.id));
const audits = (case_id: number) =>
  db
    .select({ action: auditLog.action, actor_id: auditLog.actor_id })
    .from(auditLog)
    .where(and(eq(auditLog.subject_type, "dispute_case"), eq(auditLog.subject_id, String(case_id))))
    .orderBy(auditLog.id);

describe("a case that ends with no error found", () => {
  it("is reported, credited provisionally, noticed, and debited on the 5th business day after the notice", async () => {
    const m = await member({ opened_long_ago: true });
    const tx = await purchase(m, 4_250, "2026-11-30");
    const key = crypto.randomUUID();
    const report = await reportDispute(
      db,
      m.member,
      { transaction_id: tx, kind: "not_mine", details: "I never shopped at Harbor Hardware.", idempotency_key: key },
      origin,
      at("2026-12-02"),
    );
    expect(report).toMatchObject({ ok: true, replayed: false });
    if (!report.ok) throw new Error(report.message);
    const id = report.case_id;
    // The same form sent again is the same case; another report of the transaction is refused.
    expect(
      await reportDispute(
        db,
        m.member,
        { transaction_id: tx, kind: "not_mine", details: "I never shopped at Harbor Hardware.", idempotency_key: key },
        origin,
        at("2026-12-02"),
      ),
    ).toMatchObject({ ok: true, case_id: id, replayed: true });
    expect(
      await reportDispute(
        db,
        m.member,
        {
          transaction_id: tx,
          kind: "duplicate",
          details: "Charged again, I think.",
          idempotency_key: crypto.randomUUID(),
        },
        origin,
        at("2026-12-03"),
      ),
    ).toMatchObject({ ok: false, kind: "conflict", message: expect.stringContaining(caseNumber(id)) });

    // A point-of-sale card purchase: 10 business days, but 90 calendar days (1005.11(c)(3)(ii)).
    const [row] = await db.select().from(disputeCases).where(eq(disputeCases.id, id));
    expect(row).toMatchObject({
      status: "open",
      amount_cents: 4_250,
      received_on: "2026-12-02",
      investigate_by: "2026-12-16",
      complete_by: "2027-03-02",
      point_of_sale: true,
      new_account: false,
    });
    const [ack] = await mail(m.member.email);
    expect(ack!.subject).toBe(`We received your report: case ${caseNumber(id)}`);
    expect(ack!.text_body).toContain("by Dec 16, 2026");

    // Staff note (not the member's to read), then the provisional credit.
    expect(
      await addCaseNote(db, { staff, origin, case_id: id, text: "Asked the network for the receipt." }),
    ).toMatchObject({ ok: true });
    const before = await balance(m);
    expect(
      await provisionallyCredit(db, { staff, origin, case_id: id, amount_cents: 5_000, now: at("2026-12-09") }),
    ).toMatchObject({ ok: false, kind: "bad_input", field: "amount" });
    expect(await provisionallyCredit(db, { staff, origin, case_id: id, now: at("2026-12-09") })).toMatchObject({
      ok: true,
    });
    expect(await balance(m)).toBe(before + 4_250);
    expect(await provisionallyCredit(db, { staff, origin, case_id: id, now: at("2026-12-09") })).toMatchObject({
      ok: false,
      kind: "conflict",
    });
    const [credited] = await db.select().from(disputeCases).where(eq(disputeCases.id, id));
    const [credit] = await db
      .select()
      .from(ledgerTransactions)
      .where(eq(ledgerTransactions.id, credited!.provisional_transaction_id!));
    expect(credit).toMatchObject({ kind: "dispute_credit", status: "posted" });
    expect((await mail(m.member.email))[0]!.subject).toBe(`Provisional credit for case ${caseNumber(id)}`);

    // No error found on Monday Dec 21: debited 5 business days later (Christmas skipped): Tuesday Dec 29.
    expect(
      await resolveDispute(db, {
        staff,
        origin,
        case_id: id,
        outcome: "no_error",
        explanation: "The purchase was made with your card and PIN at the store.",
        now: at("2026-12-21"),
      }),
    ).toMatchObject({ ok: true });
    const [noticed] = await db.select().from(disputeCases).where(eq(disputeCases.id, id));
    expect(noticed).toMatchObject({
      status: "reversal_scheduled",
      reversal_notice_on: "2026-12-21",
      reversal_on: "2026-12-29",
    });
    const notice = (await mail(m.member.email))[0]!;
    expect(notice.subject).toBe(`Case ${caseNumber(id)}: what we found`);
    expect(notice.text_body).toContain("on Dec 29, 2026, 5 business days from this notice");
    expect(notice.text_body).toContain("The purchase was made with your card and PIN");
    expect(notice.text_body).toContain("documents we relied on");

    // The member's view: no staff note.
    const seen = await memberCase(db, m.member.id, id, at("2026-12-21"));
    expect(seen!.events.map((e) => e.kind)).toEqual(["reported", "provisional_credit", "no_error_notice"]);
    expect(JSON.stringify(seen)).not.toContain("Asked the network");
    expect(await memberCase(db, staff.id, id)).toBeNull();

    // Not before the date; on it, the job debits.
    expect(await runDisputeClocks(db, at("2026-12-28"))).toMatchObject({ reversed: 0 });
    expect(await balance(m)).toBe(before + 4_250);
    expect(await runDisputeClocks(db, at("2026-12-29"))).toMatchObject({ reversed: 1 });
    expect(await balance(m)).toBe(before);
    const [closed] = await db.select().from(disputeCases).where(eq(disputeCases.id, id));
    expect(closed!.status).toBe("resolved_no_error");
    const [debit] = await db
      .select()
      .from(ledgerTransactions)
      .where(eq(ledgerTransactions.id, closed!.reversal_transaction_id!));
    expect(debit).toMatchObject({ kind: "dispute_credit_reversal", status: "posted" });
    expect((await mail(m.member.email))[0]!.subject).toBe(`Case ${caseNumber(id)}: provisional credit debited`);
    // A second run does nothing more.
    expect(await runDisputeClocks(db, at("2026-12-30"))).toMatchObject({ reversed: 0 });

    expect((await audits(id)).map((a) => a.action)).toEqual([
      "dispute.report",
      "dispute.note",
      "dispute.provisional_credit",
      "dispute.resolve_no_error",
      "dispute.reverse_provisional_credit",
    ]);
    const told = await db.select().from(notifications).where(eq(notifications.member_id, m.member.id));
    expect(told.filter((n) => n.kind === "dispute_update")).toHaveLength(4);
  });
});

describe("cases that end with the error found", () => {
  it("without a provisional credit, the amount is credited at resolution (a new account's clocks: 20 business days)", async () => {
    const m = await member({ opened_long_ago: false });
    const tx = await purchase(m, 1_999, "2026-12-01", "ach_out");
    const report = await reportDispute(
      db,
      m.member,
      {
        transaction_id: tx,
        kind: "wrong_amount",
        details: "The bill was $19.99 too much.",
        idempotency_key: crypto.randomUUID(),
      },
      origin,
      at("2026-12-02"),
    );
    if (!report.ok) throw new Error(report.message);
    const [row] = await db.select().from(disputeCases).where(eq(disputeCases.id, report.case_id));
    expect(row).toMatchObject({ new_account: true, investigate_by: "2026-12-31", complete_by: "2027-03-02" });
    const before = await balance(m);
    expect(
      await resolveDispute(db, {
        staff,
        origin,
        case_id: report.case_id,
        outcome: "error",
        explanation: "The payee took the amount twice.",
        now: at("2026-12-04"),
      }),
    ).toMatchObject({ ok: true });
    expect(await balance(m)).toBe(before + 1_999);
    const [done] = await db.select().from(disputeCases).where(eq(disputeCases.id, report.case_id));
    expect(done!.status).toBe("resolved_error");
    expect(done!.final_credit_transaction_id).not.toBeNull();
    const letter = (await mail(m.member.email))[0]!;
    expect(letter.text_body).toContain("We credited $19.99 to your account on Dec 4, 2026.");
    // Resolved once only.
    expect(
      await resolveDispute(db, { staff, origin, case_id: report.case_id, outcome: "no_error", explanation: "x" }),
    ).toMatchObject({ ok: false, kind: "conflict" });
  });

  it("with a provisional credit, the credit becomes final and nothing more moves", async () => {
    const m = await member({ opened_long_ago: true });
    const tx = await purchase(m, 800, "2026-12-01");
    const report = await reportDispute(
      db,
      m.member,
      {
        transaction_id: tx,
        kind: "duplicate",
        details: "Charged twice for one coffee.",
        idempotency_key: crypto.randomUUID(),
      },
      origin,
      at("2026-12-02"),
    );
    if (!report.ok) throw new Error(report.message);
    await provisionallyCredit(db, { staff, origin, case_id: report.case_id, amount_cents: 500, now: at("2026-12-03") });
    const before = await balance(m);
    await resolveDispute(db, {
      staff,
      origin,
      case_id: report.case_id,
      outcome: "error",
      explanation: "The merchant confirmed a duplicate.",
      now: at("2026-12-10"),
    });
    expect(await balance(m)).toBe(before);
    expect((await mail(m.member.email))[0]!.text_body).toContain("The provisional credit of $5.00 is now final");
    expect(await runDisputeClocks(db, at("2027-01-20"))).toMatchObject({ reversed: 0 });
    expect(await balance(m)).toBe(before);
  });
});

describe("what may be reported, by whom", () => {
  it("another member's transaction reads as none; a fee is not an electronic transfer", async () => {
    const m = await member({ opened_long_ago: true });
    const other = await member({ opened_long_ago: true });
    const tx = await purchase(m, 1_000, "2026-12-01");
    const count = async () => Number((await db.execute(sql`select count(*) as n from dispute_cases`)).rows[0]!.n);
    const n = await count();
    expect(
      await reportDispute(
        db,
        other.member,
        {
          transaction_id: tx,
          kind: "not_mine",
          details: "Not my purchase at all.",
          idempotency_key: crypto.randomUUID(),
        },
        origin,
      ),
    ).toMatchObject({ ok: false, kind: "not_found" });
    const fees = await institutionAccount(db, "fees_income");
    const fee = await postTransfer(db, {
      idempotency_key: crypto.randomUUID(),
      initiator: `staff:${staff.id}`,
      kind: "fee",
      created_by: staff.id,
      entries: [
        { account_id: m.checking.id, amount_cents: -300 },
        { account_id: fees.id, amount_cents: 300 },
      ],
    });
    if (!fee.ok) throw new Error(fee.code);
    expect(
      await reportDispute(
        db,
        m.member,
        {
          transaction_id: fee.transaction.id,
          kind: "other",
          details: "Why this fee here?",
          idempotency_key: crypto.randomUUID(),
        },
        origin,
      ),
    ).toMatchObject({ ok: false, kind: "conflict" });
    expect(await count()).toBe(n);
    expect(await memberCases(db, other.member.id)).toEqual([]);
  });
});

describe("the dispute-clocks job", () => {
  it("tells staff once a business day of the cases due within one business day, and flags a refused debit", async () => {
    expect(APP_JOBS.some((job) => job.name === "dispute-clocks")).toBe(true);
    const m = await member({ opened_long_ago: true, checking_cents: 10_000 });
    const tx = await purchase(m, 2_000, "2026-12-01");
    const report = await reportDispute(
      db,
      m.member,
      {
        transaction_id: tx,
        kind: "not_received",
        details: "The order never came.",
        idempotency_key: crypto.randomUUID(),
      },
      origin,
      at("2026-12-02"),
    );
    if (!report.ok) throw new Error(report.message);
    // Due Dec 16: on Dec 14 it is two business days away, on Dec 15 one.
    const flagged = await flagDeadlines(db, at("2026-12-14"));
    expect(
      flagged.flagged === 0 || !(await staffMail()).some((m) => m.text_body.includes(caseNumber(report.case_id))),
    ).toBe(true);
    const first = await flagDeadlines(db, at("2026-12-15"));
    expect(first.flagged).toBeGreaterThanOrEqual(1);
    expect(first.told).toBeGreaterThanOrEqual(1);
    const letter = (await staffMail())[0]!;
    expect(letter.kind).toBe("dispute_deadline");
    expect(letter.text_body).toContain(
      `${caseNumber(report.case_id)}: Resolve, or provisionally credit by Dec 16, 2026 (Due next business day)`,
    );
    expect(await flagDeadlines(db, at("2026-12-15"))).toMatchObject({ flagged: 0 });

    // The queue puts it first among the cases due, with its clock.
    const queue = await disputeQueue(db, at("2026-12-17"));
    const mine = queue.open.find((c) => c.id === report.case_id)!;
    expect(mine.deadline).toMatchObject({ due_on: "2026-12-16", state: "overdue" });
    const dues = queue.open.map((c) => c.deadline!.due_on);
    expect(dues).toEqual([...dues].sort());

    // Provisional credit, spent; no error found; the debit is refused and flagged, not forced.
    await provisionallyCredit(db, { staff, origin, case_id: report.case_id, now: at("2026-12-15") });
    const card = await institutionAccount(db, "card_settlement");
    const spend = await postTransfer(db, {
      idempotency_key: crypto.randomUUID(),
      initiator: `member:${m.member.id}`,
      kind: "card_payment",
      created_by: m.member.id,
      entries: [
        { account_id: m.checking.id, amount_cents: -(await balance(m)) },
        { account_id: card.id, amount_cents: await balance(m) },
      ],
    });
    expect(spend.ok).toBe(true);
    await resolveDispute(db, {
      staff,
      origin,
      case_id: report.case_id,
      outcome: "no_error",
      explanation: "The carrier shows the parcel delivered.",
      now: at("2026-12-16"),
    });
    const run = await runDisputeClocks(db, at("2026-12-23"));
    expect(run).toMatchObject({ reversed: 0, refused: 1 });
    const [row] = await db.select().from(disputeCases).where(eq(disputeCases.id, report.case_id));
    expect(row!.status).toBe("reversal_scheduled");
    expect(row!.reversal_problem).not.toBeNull();
    const events = await db.select().from(disputeEvents).where(eq(disputeEvents.case_id, report.case_id));
    expect(events.map((e) => e.kind)).toContain("reversal_refused");
    expect((await staffMail())[0]!.text_body).toContain("The debit could not post");
  });
});

async function staffMail() {
  return mail(staff.email);
}
