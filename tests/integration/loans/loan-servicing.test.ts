import "../identity-support";
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import type { Database, Db } from "~/server/db/client.server";
import {
  auditLog,
  ledgerAccounts,
  ledgerTransactions,
  loanEvents,
  loanPayments,
  loanScheduledPayments,
  loans,
  notifications,
  outbox,
  type LoanRow,
} from "~/server/db/schema";
import { verifyLedger } from "~/server/ledger/verify.server";
import { glDayTotals, trialBalanceAsOf } from "~/server/books/books.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { postTransfer, reverseTransaction } from "~/server/ledger/ledger.server";
import { applyForLoan, decideApplication } from "~/server/loans/applications.server";
import { acceptOffer } from "~/server/loans/offer-acceptance.server";
import { payLoan, runLoanServicing, setAutopay, type PayLoanInput } from "~/server/loans/servicing.server";
import { memberLoanDetail } from "~/server/loans/loan-views.server";
import { accrueInterest } from "~/domain/loans/servicing";
import { memberExport } from "~/server/statements/export.server";
import { parseSync } from "ofx-js";
import { addCalendarDays } from "~/domain/payment-dates";
import { openTestDatabase } from "../test-database";
import { fundedMember, staff as newStaff } from "../../factories";

/**
 * A loan's life after booking (docs/product.md#loan-servicing, issue 33): interest accrued night by
 * night by the job, autopay on the due date (and its failure told), a late fee after the grace
 * days, one-time payments applied fees → interest → principal, the payoff that closes the loan;
 * the ledger verified and the books in balance after.
 */
let database: Database;
let db: Db;
let staff: { id: string; email: string };
const origin = { request_id: "loan-servicing", ip: "198.51.100.34" };
const at = (day: string) => new Date(`${day}T15:00:00Z`);

beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
  staff = await newStaff(db);
});
afterAll(async () => {
  if (db) expect((await verifyLedger(db)).problems).toEqual([]);
  await database?.close();
});

/** A member with a booked $5,000 personal loan at 8.99% for 36 months, paid out on `disbursed_on`. */
async function bookedLoan(disbursed_on: string, checking_cents = 1_000_00) {
  const funded = await fundedMember(db, { checking_cents, savings_cents: 200_00 });
  const applied = await applyForLoan(
    db,
    funded.member,
    {
      product_slug: "personal",
      amount_cents: 5_000_00,
      term_months: 36,
      purpose: "Roof",
      annual_income_cents: 70_000_00,
      employer: "Seacoast Boatworks",
      idempotency_key: crypto.randomUUID(),
    },
    origin,
    at(disbursed_on),
  );
  if (!applied.ok) throw new Error(applied.message);
  const decided = await decideApplication(
    db,
    {
      staff,
      origin,
      application_id: applied.application_id,
      decision: { outcome: "approve", rate_ppm: 89_900, term_months: 36 },
    },
    at(disbursed_on),
  );
  if (!decided.ok) throw new Error(decided.message);
  const accepted = await acceptOffer(db, funded.member, applied.application_id, origin, at(disbursed_on));
  if (!accepted.ok) throw new Error(accepted.message);
  const [loan] = await db.select().from(loans).where(eq(loans.application_id, applied.application_id));
  return { ...funded, loan: loan! };
}

const loanRow = async (id: number): Promise<LoanRow> => (await db.select().from(loans).where(eq(loans.id, id)))[0]!;
const balanceOf = async (account_id: number) =>
  (await db.select().from(ledgerAccounts).where(eq(ledgerAccounts.id, account_id)))[0]!.posted_cents;
const pay = (loan_id: number, from_account_id: number, amount: PayLoanInput["amount"]): PayLoanInput => ({
  loan_id,
  from_account_id,
  amount,
  idempotency_key: crypto.randomUUID(),
});

describe("a loan's life", () => {
  it("accrues 90 nights, pays by autopay, is told of a failed autopay, charges one late fee, and pays off", async () => {
    const { member, checking, savings, loan } = await bookedLoan("2026-03-12", 1_000_00);
    const schedule = await db
      .select()
      .from(loanScheduledPayments)
      .where(eq(loanScheduledPayments.loan_id, loan.id))
      .orderBy(loanScheduledPayments.number);
    const level = schedule[0]!.payment_cents;
    expect(schedule[0]!.due_on).toBe("2026-04-12");
    expect(await setAutopay(db, member, loan.id, checking.id, origin, at("2026-03-12"))).toEqual({
      ok: true,
      on: true,
    });

    // The first night: one day's interest, whole cents, the fraction carried. A second run the
    // same day accrues nothing more.
    const first = await runLoanServicing(db, at("2026-03-13"));
    expect(first).toMatchObject({ interest_cents: 123, failed: 0 });
    expect(await runLoanServicing(db, at("2026-03-13"))).toMatchObject({ interest_cents: 0 });
    expect(await loanRow(loan.id)).toMatchObject({
      interest_accrued_to: "2026-03-13",
      accrued_interest_cents: 123,
      accrual_carry: 5_000_00 * 89_900 - 123 * 365_000_000,
    });

    // April's due date: autopay takes the level payment from checking.
    let day = "2026-03-14";
    for (; day <= "2026-04-12"; day = addCalendarDays(day, 1)) await runLoanServicing(db, at(day));
    const [april] = await db.select().from(loanPayments).where(eq(loanPayments.loan_id, loan.id));
    expect(april).toMatchObject({ kind: "autopay", amount_cents: level, paid_on: "2026-04-12", fees_cents: 0 });
    // 31 days of interest on $5,000, then the rest to principal.
    expect(april!.interest_cents).toBe(accrueInterest(5_000_00, 89_900, 31, 0).interest_cents);
    expect(april!.principal_cents).toBe(level - april!.interest_cents);
    expect(await balanceOf(checking.id)).toBe(1_000_00 + 5_000_00 - level);

    // May: the money is gone from checking, the autopay fails and the member is told, once.
    const cash = await institutionAccount(db, "cash");
    const gone = await postTransfer(db, {
      idempotency_key: crypto.randomUUID(),
      initiator: `member:${member.id}`,
      kind: "withdrawal",
      created_by: member.id,
      effective_date: "2026-04-20",
      entries: [
        { account_id: checking.id, amount_cents: -(await balanceOf(checking.id)) },
        { account_id: cash.id, amount_cents: await balanceOf(checking.id) },
      ],
    });
    expect(gone.ok).toBe(true);
    for (; day <= "2026-05-22"; day = addCalendarDays(day, 1)) await runLoanServicing(db, at(day));
    const failures = await db
      .select()
      .from(loanEvents)
      .where(and(eq(loanEvents.loan_id, loan.id), eq(loanEvents.kind, "autopay_failed")));
    expect(failures.map((f) => f.on)).toEqual(["2026-05-12"]);
    const told = await db.select().from(notifications).where(eq(notifications.member_id, member.id));
    expect(told.filter((n) => n.title.includes("autopay could not be made"))).toHaveLength(1);
    expect(told.find((n) => n.title.includes("autopay could not be made"))!.body).toContain("Insufficient funds");
    const mail = await db.select().from(outbox).where(eq(outbox.to_email, member.email.toLowerCase()));
    expect(mail.filter((m) => m.subject === "Your personal loan autopay could not be made")).toHaveLength(1);
    // Within the 10 grace days: no fee yet.
    expect((await loanRow(loan.id)).fees_due_cents).toBe(0);

    // The 11th day after the due date: the late fee, once, to fees income.
    const feesIncome = await institutionAccount(db, "fees_income");
    const feesBefore = await balanceOf(feesIncome.id);
    expect(await runLoanServicing(db, at("2026-05-23"))).toMatchObject({ late_fees: 1 });
    expect(await runLoanServicing(db, at("2026-05-23"))).toMatchObject({ late_fees: 0 });
    day = "2026-05-24";
    expect((await loanRow(loan.id)).fees_due_cents).toBe(25_00);
    expect((await balanceOf(feesIncome.id)) - feesBefore).toBe(25_00);
    expect(told.length).toBeLessThan(
      (await db.select().from(notifications).where(eq(notifications.member_id, member.id))).length,
    );

    // Through June 10th: 90 nights since the money was paid out.
    for (; day <= "2026-06-10"; day = addCalendarDays(day, 1)) await runLoanServicing(db, at(day));
    const accrued = await loanRow(loan.id);
    expect(accrued.interest_accrued_to).toBe("2026-06-10");
    const interest = await db
      .select()
      .from(loanEvents)
      .where(and(eq(loanEvents.loan_id, loan.id), eq(loanEvents.kind, "interest")));
    // One accrual a day, each day once.
    expect(interest).toHaveLength(90);
    expect(new Set(interest.map((e) => e.on)).size).toBe(90);

    // A one-time payment from savings: more than is owed is refused, changing nothing.
    const detail = (await memberLoanDetail(db, member.id, loan.id, at("2026-06-10")))!;
    expect(detail.next_payment).toMatchObject({ due_on: "2026-05-12" });
    expect(
      await payLoan(
        db,
        member,
        pay(loan.id, savings.id, { kind: "amount", amount_cents: 10_000_00 }),
        origin,
        at("2026-06-10"),
      ),
    ).toMatchObject({ ok: false, field: "amount", message: expect.stringContaining("more than you owe") });
    // Savings holds $200: fees first ($25), then interest, then principal.
    const partial = await payLoan(
      db,
      member,
      pay(loan.id, savings.id, { kind: "amount", amount_cents: 200_00 }),
      origin,
      at("2026-06-10"),
    );
    expect(partial).toMatchObject({ ok: true, fees_cents: 25_00, interest_cents: accrued.accrued_interest_cents });
    expect((await loanRow(loan.id)).fees_due_cents).toBe(0);

    // The payoff, quoted and paid: the loan is closed at zero.
    await postTransfer(db, {
      idempotency_key: crypto.randomUUID(),
      initiator: `staff:${staff.id}`,
      kind: "deposit",
      created_by: staff.id,
      effective_date: "2026-06-10",
      entries: [
        { account_id: cash.id, amount_cents: -6_000_00 },
        { account_id: checking.id, amount_cents: 6_000_00 },
      ],
    });
    const quote = (await memberLoanDetail(db, member.id, loan.id, at("2026-06-10"), "2026-06-15"))!.payoff;
    const today = (await memberLoanDetail(db, member.id, loan.id, at("2026-06-10")))!.payoff;
    // Good through the 15th: five more days of interest, the per-diem rounded to the cent.
    expect(Math.abs(quote.payoff_cents - today.payoff_cents - 5 * today.per_diem_cents)).toBeLessThanOrEqual(3);
    expect(quote.good_through).toBe("2026-06-15");
    const paidOff = await payLoan(db, member, pay(loan.id, checking.id, { kind: "payoff" }), origin, at("2026-06-10"));
    expect(paidOff).toMatchObject({ ok: true, paid_off: true, amount_cents: today.payoff_cents });
    expect(await loanRow(loan.id)).toMatchObject({
      status: "paid_off",
      closed_on: "2026-06-10",
      accrued_interest_cents: 0,
      fees_due_cents: 0,
      autopay_account_id: null,
    });
    expect(await balanceOf(loan.receivable_account_id)).toBe(0);
    expect(
      await payLoan(db, member, pay(loan.id, checking.id, { kind: "payoff" }), origin, at("2026-06-11")),
    ).toMatchObject({
      ok: false,
      kind: "conflict",
    });
    // Nothing more accrues on a closed loan.
    expect((await runLoanServicing(db, at("2026-06-12"))).loans).toBe(0);

    // The books: the interest receivable is back to zero, the interest earned is in income,
    // every servicing transaction refuses a reversal, the trial balance balances.
    const interestReceivable = await institutionAccount(db, "interest_receivable");
    const interestIncome = await institutionAccount(db, "interest_income");
    const earned = (
      await db
        .select()
        .from(loanEvents)
        .where(and(eq(loanEvents.loan_id, loan.id), eq(loanEvents.kind, "interest")))
    ).reduce((s, e) => s + e.amount_cents, 0);
    expect(await balanceOf(interestReceivable.id)).toBe(0);
    expect(await balanceOf(interestIncome.id)).toBe(earned);
    const payments = await db.select().from(loanPayments).where(eq(loanPayments.loan_id, loan.id));
    expect(payments.reduce((s, p) => s + p.interest_cents, 0)).toBe(earned);
    expect(payments.reduce((s, p) => s + p.principal_cents, 0)).toBe(5_000_00);
    const [payment] = await db
      .select()
      .from(ledgerTransactions)
      .where(eq(ledgerTransactions.id, payments[0]!.transaction_id));
    expect(
      await reverseTransaction(db, {
        transaction_id: payment!.id,
        idempotency_key: crypto.randomUUID(),
        initiator: `staff:${staff.id}`,
        created_by: staff.id,
      }),
    ).toMatchObject({ ok: false, code: "loan_servicing_not_reversible" });
    const books = await trialBalanceAsOf(db, "2026-06-12");
    expect(books.balanced).toBe(true);
    expect(books.lines.map((l) => l.code)).toEqual(
      expect.arrayContaining(["interest_receivable", "interest_income", "loan_receivable"]),
    );
    const gl = await glDayTotals(db, "2026-06-10");
    expect(gl.reduce((s, l) => s + l.debits_cents, 0)).toBe(gl.reduce((s, l) => s + l.credits_cents, 0));
    expect((await db.select().from(auditLog).where(eq(auditLog.member_id, member.id))).map((a) => a.action)).toEqual(
      expect.arrayContaining(["loan.autopay_on", "loan.autopay", "loan.pay"]),
    );

    // The loan in the member's exports, as a credit line, read back by ofx-js: paid out, each
    // night's interest, the payments and the late fee; zero owed at the end.
    const exported = (to: string, format = "ofx", member_id = member.id) =>
      memberExport(
        db,
        member_id,
        new URLSearchParams({ account: `loan-${loan.id}`, from: "2026-03-12", to, format }),
        at("2026-06-12"),
      );
    const file = await exported("2026-06-12");
    if (!file.ok) throw new Error(JSON.stringify(file));
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed file, read field by field
    const rs = (parseSync(file.body) as { OFX: Record<string, any> }).OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS;
    expect(rs.BANKACCTFROM).toMatchObject({ ACCTTYPE: "CREDITLINE", ACCTID: `L${String(loan.id).padStart(6, "0")}` });
    const ofxLines = [rs.BANKTRANLIST.STMTTRN].flat() as Record<string, string>[];
    expect(ofxLines[0]).toMatchObject({ TRNTYPE: "DEBIT", DTPOSTED: "20260312", TRNAMT: "-5000.00" });
    expect(ofxLines.filter((l) => l.TRNTYPE === "CREDIT")).toHaveLength(payments.length);
    expect(ofxLines.filter((l) => /late fee/.test(l.NAME!))).toHaveLength(1);
    expect(ofxLines.filter((l) => /interest/.test(l.NAME!)).length).toBeGreaterThan(80);
    expect(rs.LEDGERBAL.BALAMT).toBe("0.00");
    // At the end of April: what was owed then, negative.
    const endOfApril = await exported("2026-04-30");
    if (!endOfApril.ok) throw new Error(JSON.stringify(endOfApril));
    const aprilBalance = Number(
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed file
      (parseSync(endOfApril.body) as { OFX: Record<string, any> }).OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS.LEDGERBAL.BALAMT,
    );
    expect(aprilBalance).toBeLessThan(-4_800);
    expect(aprilBalance).toBeGreaterThan(-5_000);
    const csv = await exported("2026-06-12", "csv");
    expect(csv.ok && csv.body.split("\n")[1]).toContain('"Personal Loan L-');
    const stranger = await fundedMember(db);
    expect(await exported("2026-06-12", "ofx", stranger.member.id)).toMatchObject({ ok: false, status: 404 });
  });
});

describe("one-time payments", () => {
  it("next payment due, extra principal, a repeat of the key, and refusals that change nothing", async () => {
    const { member, checking, savings, loan } = await bookedLoan("2026-03-12", 2_000_00);
    const other = await fundedMember(db, { checking_cents: 9_000_00 });
    const key = crypto.randomUUID();
    const input = {
      loan_id: loan.id,
      from_account_id: checking.id,
      amount: { kind: "next_due" as const },
      idempotency_key: key,
    };
    const first = await payLoan(db, member, input, origin, at("2026-03-20"));
    const again = await payLoan(db, member, input, origin, at("2026-03-20"));
    expect(first).toMatchObject({ ok: true, replayed: false });
    expect(again).toMatchObject({ ok: true, replayed: true });
    expect(await db.select().from(loanPayments).where(eq(loanPayments.loan_id, loan.id))).toHaveLength(1);
    // 8 days of interest were accrued first, then the rest of the payment to principal.
    expect(first).toMatchObject({ interest_cents: accrueInterest(5_000_00, 89_900, 8, 0).interest_cents });
    // Paid early: April is covered, the next due is May.
    const detail = (await memberLoanDetail(db, member.id, loan.id, at("2026-03-20")))!;
    expect(detail.next_payment!.due_on).toBe("2026-05-12");
    expect(detail.schedule[0]!.paid).toBe(true);

    // Extra principal: all of it goes to principal (no interest has accrued since today's payment).
    const extra = await payLoan(
      db,
      member,
      pay(loan.id, checking.id, { kind: "amount", amount_cents: 500_00 }),
      origin,
      at("2026-03-20"),
    );
    expect(extra).toMatchObject({ ok: true, fees_cents: 0, interest_cents: 0, principal_cents: 500_00 });

    const before = await loanRow(loan.id);
    const checkingBefore = await balanceOf(checking.id);
    // Another member's account, the member's own loan from an account not theirs: refused.
    expect(
      await payLoan(
        db,
        member,
        pay(loan.id, other.checking.id, { kind: "amount", amount_cents: 100 }),
        origin,
        at("2026-03-21"),
      ),
    ).toMatchObject({ ok: false, field: "from" });
    // Another member paying this member's loan: not found.
    expect(
      await payLoan(
        db,
        other.member,
        pay(loan.id, other.checking.id, { kind: "amount", amount_cents: 100 }),
        origin,
        at("2026-03-21"),
      ),
    ).toMatchObject({ ok: false, kind: "not_found" });
    // More than the account holds (savings has $200): the ledger's refusal, next to the account.
    expect(
      await payLoan(
        db,
        member,
        pay(loan.id, savings.id, { kind: "amount", amount_cents: 300_00 }),
        origin,
        at("2026-03-21"),
      ),
    ).toMatchObject({ ok: false, field: "from", message: "Insufficient funds" });
    const after = await loanRow(loan.id);
    // Refusals change nothing (not even the accrual, which was in the refused transaction).
    expect(after).toEqual(before);
    expect(await balanceOf(checking.id)).toBe(checkingBefore);
    expect(await setAutopay(db, other.member, loan.id, other.checking.id, origin)).toMatchObject({ ok: false });
  });
});
