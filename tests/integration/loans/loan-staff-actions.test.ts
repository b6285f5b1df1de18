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
  loanStaffActions,
  loans,
  notifications,
} from "~/server/db/schema";
import { verifyLedger } from "~/server/ledger/verify.server";
import { trialBalanceAsOf } from "~/server/books/books.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { reverseTransaction } from "~/server/ledger/ledger.server";
import { applyForLoan, decideApplication } from "~/server/loans/applications.server";
import { acceptOffer } from "~/server/loans/offer-acceptance.server";
import { payLoan, runLoanServicing } from "~/server/loans/servicing.server";
import { memberLoanDetail, memberLoanLines } from "~/server/loans/loan-views.server";
import { decideLoanAction, requestLoanAction, staffLoanView } from "~/server/loans/staff-actions.server";
import { addCalendarDays } from "~/domain/payment-dates";
import { openTestDatabase } from "../test-database";
import { fundedMember, staff as newStaff } from "../../factories";

/**
 * Staff's corrections of a booked loan (docs/product.md#booked-loans-staff): a late fee waived, an
 * interest accrual and a payment reversed, each by a new ledger transaction with the loan's
 * figures in step; above the second-approval amount it waits for a second staff member; the
 * general Reverse still refuses servicing entries. The ledger verified and the books in balance.
 */
let database: Database;
let db: Db;
let maker: { id: string; email: string };
let checker: { id: string; email: string };
const origin = { request_id: "loan-staff-actions", ip: "198.51.100.36" };
const at = (day: string) => new Date(`${day}T15:00:00Z`);

beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
  maker = await newStaff(db);
  checker = await newStaff(db);
});
afterAll(async () => {
  if (db) expect((await verifyLedger(db)).problems).toEqual([]);
  await database?.close();
});

async function bookedLoan(disbursed_on: string, amount_cents: number, checking_cents: number) {
  const funded = await fundedMember(db, { checking_cents, savings_cents: 100_00 });
  const applied = await applyForLoan(
    db,
    funded.member,
    {
      product_slug: "personal",
      amount_cents,
      term_months: 36,
      purpose: "Roof",
      annual_income_cents: 90_000_00,
      employer: "Seacoast Boatworks",
      idempotency_key: crypto.randomUUID(),
    },
    origin,
    at(disbursed_on),
  );
  if (!applied.ok) throw new Error(applied.message);
  await decideApplication(
    db,
    {
      staff: maker,
      origin,
      application_id: applied.application_id,
      decision: { outcome: "approve", rate_ppm: 89_900, term_months: 36 },
    },
    at(disbursed_on),
  );
  const accepted = await acceptOffer(db, funded.member, applied.application_id, origin, at(disbursed_on));
  if (!accepted.ok) throw new Error(accepted.message);
  const [loan] = await db.select().from(loans).where(eq(loans.application_id, applied.application_id));
  return { ...funded, loan: loan! };
}

const loanRow = async (id: number) => (await db.select().from(loans).where(eq(loans.id, id)))[0]!;
const balanceOf = async (id: number) =>
  (await db.select().from(ledgerAccounts).where(eq(ledgerAccounts.id, id)))[0]!.posted_cents;

describe("correcting a booked loan", () => {
  it("waives a late fee, corrects an accrual, and refuses what is not the loan's or is done twice", async () => {
    const { member, loan } = await bookedLoan("2026-01-05", 5_000_00, 500_00);
    // No payment on Feb 5th: after the 10 grace days the late fee is charged.
    for (let day = "2026-01-06"; day <= "2026-02-16"; day = addCalendarDays(day, 1))
      await runLoanServicing(db, at(day));
    const [fee] = await db
      .select()
      .from(loanEvents)
      .where(and(eq(loanEvents.loan_id, loan.id), eq(loanEvents.kind, "late_fee")));
    expect(fee).toMatchObject({ amount_cents: 25_00 });
    const before = await loanRow(loan.id);
    expect(before.fees_due_cents).toBe(25_00);
    const feesIncome = await institutionAccount(db, "fees_income");
    const feesBefore = await balanceOf(feesIncome.id);

    // The reason is required; the entry must be this loan's late fee.
    expect(
      await requestLoanAction(db, {
        staff: maker,
        origin,
        loan_id: loan.id,
        kind: "waive_fee",
        transaction_id: fee!.transaction_id!,
        reason: "  ",
      }),
    ).toMatchObject({ ok: false, field: "reason" });
    expect(
      await requestLoanAction(db, {
        staff: maker,
        origin,
        loan_id: loan.id,
        kind: "waive_fee",
        transaction_id: loan.disbursement_transaction_id,
        reason: "Goodwill",
      }),
    ).toMatchObject({ ok: false, field: "transaction_id" });
    expect((await db.select().from(loanStaffActions)).length).toBe(0);

    // $25 is under the second-approval amount: posted at once.
    const waived = await requestLoanAction(
      db,
      {
        staff: maker,
        origin,
        loan_id: loan.id,
        kind: "waive_fee",
        transaction_id: fee!.transaction_id!,
        reason: "First late payment in ten years: goodwill",
      },
      at("2026-02-16"),
    );
    expect(waived).toMatchObject({ ok: true, status: "posted" });
    expect((await loanRow(loan.id)).fees_due_cents).toBe(0);
    expect((await balanceOf(feesIncome.id)) - feesBefore).toBe(-25_00);
    const [waiver] = await db.select().from(ledgerTransactions).where(eq(ledgerTransactions.kind, "loan_fee_waiver"));
    expect(waiver).toMatchObject({ status: "posted", initiator: `staff:${maker.id}` });
    // The original fee is still there, untouched; a second waiver is refused.
    expect(
      (await db.select().from(ledgerTransactions).where(eq(ledgerTransactions.id, fee!.transaction_id!)))[0]!.status,
    ).toBe("posted");
    expect(
      await requestLoanAction(db, {
        staff: maker,
        origin,
        loan_id: loan.id,
        kind: "waive_fee",
        transaction_id: fee!.transaction_id!,
        reason: "Again",
      }),
    ).toMatchObject({ ok: false, message: "This entry was already corrected." });
    // The general Reverse still refuses the servicing entries, the waiver too.
    for (const id of [fee!.transaction_id!, waiver!.id])
      expect(
        await reverseTransaction(db, {
          transaction_id: id,
          idempotency_key: crypto.randomUUID(),
          initiator: `staff:${maker.id}`,
          created_by: maker.id,
        } as never),
      ).toMatchObject({ ok: false, code: "loan_servicing_not_reversible" });

    // An interest accrual posted wrongly: reversed, the loan's unpaid interest lowered by it.
    const [accrual] = await db
      .select()
      .from(loanEvents)
      .where(and(eq(loanEvents.loan_id, loan.id), eq(loanEvents.kind, "interest"), eq(loanEvents.on, "2026-01-20")));
    const interestBefore = (await loanRow(loan.id)).accrued_interest_cents;
    expect(
      await requestLoanAction(
        db,
        {
          staff: maker,
          origin,
          loan_id: loan.id,
          kind: "correct_entry",
          transaction_id: accrual!.transaction_id!,
          reason: "Accrued twice after the outage",
        },
        at("2026-02-16"),
      ),
    ).toMatchObject({ ok: true, status: "posted" });
    expect((await loanRow(loan.id)).accrued_interest_cents).toBe(interestBefore - accrual!.amount_cents);

    // The member sees both in the loan's history and is told in the bell; the export's closing
    // balance is still what is owed.
    const detail = (await memberLoanDetail(db, member.id, loan.id, at("2026-02-16")))!;
    expect(detail.history.map((h) => h.label)).toEqual(
      expect.arrayContaining(["Late fee waived", "Interest corrected"]),
    );
    const told = await db.select().from(notifications).where(eq(notifications.member_id, member.id));
    expect(told.map((n) => n.title)).toContain("We waived a $25.00 late fee");
    const lines = (await memberLoanLines(db, member.id, loan.id, "2026-01-01", "2026-02-16"))!;
    expect(lines.closing_cents).toBe(-detail.balance_cents);
    expect((await db.select().from(auditLog).where(eq(auditLog.member_id, member.id))).map((a) => a.action)).toEqual(
      expect.arrayContaining(["loan.waive_fee.request", "loan.waive_fee", "loan.correct_entry"]),
    );
    const view = (await staffLoanView(db, loan.id, at("2026-02-16")))!;
    expect(view.entries.find((e) => e.transaction_id === fee!.transaction_id)!.correction).toEqual({
      status: "posted",
    });
    expect((await trialBalanceAsOf(db, "2026-02-16")).balanced).toBe(true);
  });

  it("a payment above the second-approval amount waits for a second staff member, who reverses it", async () => {
    const { member, checking, loan } = await bookedLoan("2026-03-02", 30_000_00, 20_000_00);
    const paid = await payLoan(
      db,
      member,
      {
        loan_id: loan.id,
        from_account_id: checking.id,
        amount: { kind: "amount", amount_cents: 12_000_00 },
        idempotency_key: crypto.randomUUID(),
      },
      origin,
      at("2026-03-10"),
    );
    expect(paid.ok).toBe(true);
    const [payment] = await db.select().from(loanPayments).where(eq(loanPayments.loan_id, loan.id));
    const checkingBefore = await balanceOf(checking.id);
    const loanBefore = await loanRow(loan.id);
    const asked = await requestLoanAction(
      db,
      {
        staff: maker,
        origin,
        loan_id: loan.id,
        kind: "correct_entry",
        transaction_id: payment!.transaction_id,
        reason: "Keyed $12,000 instead of $1,200",
      },
      at("2026-03-10"),
    );
    expect(asked).toMatchObject({ ok: true, status: "awaiting_approval" });
    if (!asked.ok) return;
    expect(await balanceOf(checking.id)).toBe(checkingBefore);
    // The maker cannot approve their own; a decline needs its reason.
    expect(
      await decideLoanAction(db, {
        staff: maker,
        origin,
        loan_id: loan.id,
        action_id: asked.action_id,
        decision: { approve: true },
      }),
    ).toMatchObject({ ok: false, kind: "forbidden" });
    expect(
      await decideLoanAction(db, {
        staff: checker,
        origin,
        loan_id: loan.id,
        action_id: asked.action_id,
        decision: { approve: false, reason: "" },
      }),
    ).toMatchObject({ ok: false, field: "decline_reason" });
    expect(
      await decideLoanAction(
        db,
        { staff: checker, origin, loan_id: loan.id, action_id: asked.action_id, decision: { approve: true } },
        at("2026-03-10"),
      ),
    ).toMatchObject({ ok: true, status: "posted" });
    // The money is back in checking; the loan owes the payment's parts again.
    expect(await balanceOf(checking.id)).toBe(checkingBefore + 12_000_00);
    const after = await loanRow(loan.id);
    expect(after.paid_toward_schedule_cents).toBe(
      loanBefore.paid_toward_schedule_cents - payment!.interest_cents - payment!.principal_cents,
    );
    expect(after.accrued_interest_cents).toBe(loanBefore.accrued_interest_cents + payment!.interest_cents);
    expect(
      await decideLoanAction(db, {
        staff: checker,
        origin,
        loan_id: loan.id,
        action_id: asked.action_id,
        decision: { approve: true },
      }),
    ).toMatchObject({ ok: false, message: "This correction was already decided." });
    const detail = (await memberLoanDetail(db, member.id, loan.id, at("2026-03-10")))!;
    expect(detail.history.map((h) => h.label)).toContain("Payment reversed");
    expect((await trialBalanceAsOf(db, "2026-03-10")).balanced).toBe(true);
  });
});
