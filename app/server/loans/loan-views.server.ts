import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import {
  ledgerAccounts,
  ledgerTransactions,
  loanEvents,
  loanPayments,
  loanScheduledPayments,
  loanStaffActions,
  loans,
  type LoanStaffActionRow,
} from "~/server/db/schema";
import { today } from "~/server/ledger/ledger.server";
import { formatBusinessDate } from "~/domain/calendar-date";
import { daysBetween } from "~/domain/loans/schedule";
import { nextPaymentDue, paymentParts, payoffQuote, totalOwed, type LoanOwed } from "~/domain/loans/servicing";
import { loanNumber } from "~/domain/loans/products";
import { loanOwed } from "./servicing.server";

/**
 * What the member's loan pages read (docs/product.md#loan-servicing): the member's booked loans, a
 * loan's detail with what is owed by part, the payoff quote and the schedule; the accounts a
 * payment can come from; a loan's lines for the statement export. The money actions and the
 * nightly job are in servicing.server.ts.
 */

export interface MemberLoanView {
  id: number;
  number: string;
  application_id: number;
  product_name: string;
  status: "active" | "paid_off";
  /** What the member owes: principal, fees and the interest accrued, as a positive number. */
  balance_cents: number;
  rate_ppm: number;
  apr_bp: number;
  principal_cents: number;
  term_months: number;
  disbursed_on: string;
  next_payment: { due_on: string; payment_cents: number } | null;
}

/**
 * The member's booked loans (docs/product.md#loans, #loan-servicing): what is owed (the
 * receivable's principal and fees from the ledger, plus the interest accrued and unpaid), the
 * rate, and the next payment due (the first scheduled payment not yet covered, with any fees).
 */
export async function memberLoans(db: DbOrTx, member_id: string, _now: Date = new Date()): Promise<MemberLoanView[]> {
  const rows = await db
    .select({ loan: loans, posted_cents: ledgerAccounts.posted_cents })
    .from(loans)
    .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, loans.receivable_account_id))
    .where(eq(loans.member_id, member_id))
    .orderBy(desc(loans.id));
  const views: MemberLoanView[] = [];
  for (const { loan, posted_cents } of rows) {
    const schedule = await db
      .select({
        number: loanScheduledPayments.number,
        due_on: loanScheduledPayments.due_on,
        payment_cents: loanScheduledPayments.payment_cents,
      })
      .from(loanScheduledPayments)
      .where(eq(loanScheduledPayments.loan_id, loan.id))
      .orderBy(asc(loanScheduledPayments.number));
    const owed = {
      fees_cents: loan.fees_due_cents,
      interest_cents: loan.accrued_interest_cents,
      principal_cents: -posted_cents - loan.fees_due_cents,
    };
    const next = loan.status === "active" ? nextPaymentDue(schedule, loan.paid_toward_schedule_cents, owed) : null;
    views.push({
      id: loan.id,
      number: loanNumber(loan.id),
      application_id: loan.application_id,
      product_name: loan.product_name,
      status: loan.status,
      balance_cents: totalOwed(owed),
      rate_ppm: loan.rate_ppm,
      apr_bp: loan.apr_bp,
      principal_cents: loan.principal_cents,
      term_months: loan.term_months,
      disbursed_on: loan.disbursed_on,
      next_payment: next ? { due_on: next.due_on, payment_cents: next.amount_cents } : null,
    });
  }
  return views;
}

export interface LoanDetailView {
  id: number;
  number: string;
  product_name: string;
  status: "active" | "paid_off";
  closed_on: string | null;
  rate_ppm: number;
  apr_bp: number;
  principal_cents: number;
  disbursed_on: string;
  owed: LoanOwed;
  balance_cents: number;
  next_payment: { due_on: string; amount_cents: number } | null;
  payoff: ReturnType<typeof payoffQuote>;
  /** What pays the loan off if paid today. */
  payoff_today_cents: number;
  autopay_account_id: number | null;
  schedule: {
    number: number;
    due_on: string;
    payment_cents: number;
    interest_cents: number;
    principal_cents: number;
    balance_after_cents: number;
    paid: boolean;
  }[];
  history: {
    on: string;
    kind: "payment" | "autopay" | "interest" | "late_fee" | "autopay_failed" | "disbursement" | "correction";
    label: string;
    amount_cents: number;
    detail: string;
  }[];
}

/** One of the member's loans with its schedule, payments and the payoff quote good through `pay_on`. */
export async function memberLoanDetail(
  db: DbOrTx,
  member_id: string,
  loan_id: number,
  now: Date = new Date(),
  pay_on?: string,
): Promise<LoanDetailView | null> {
  const [loan] = await db
    .select()
    .from(loans)
    .where(and(eq(loans.id, loan_id), eq(loans.member_id, member_id)));
  if (!loan) return null;
  const day = today(now);
  const owed = await loanOwed(db, loan);
  const accrual = {
    principal_cents: owed.principal_cents,
    rate_ppm: loan.rate_ppm,
    accrued_to: loan.interest_accrued_to,
    carry: loan.accrual_carry,
  };
  const rows = await db
    .select()
    .from(loanScheduledPayments)
    .where(eq(loanScheduledPayments.loan_id, loan.id))
    .orderBy(asc(loanScheduledPayments.number));
  let through = 0;
  const schedule = rows.map((r) => {
    through += r.payment_cents;
    return {
      number: r.number,
      due_on: r.due_on,
      payment_cents: r.payment_cents,
      interest_cents: r.interest_cents,
      principal_cents: r.principal_cents,
      balance_after_cents: r.balance_after_cents,
      paid: loan.status === "paid_off" || loan.paid_toward_schedule_cents >= through,
    };
  });
  const payments = await db
    .select()
    .from(loanPayments)
    .where(eq(loanPayments.loan_id, loan.id))
    .orderBy(desc(loanPayments.id));
  const events = await db.select().from(loanEvents).where(eq(loanEvents.loan_id, loan.id)).orderBy(desc(loanEvents.id));
  const history: LoanDetailView["history"] = [
    ...payments.map((p) => ({
      on: p.paid_on,
      kind: p.kind === "autopay" ? ("autopay" as const) : ("payment" as const),
      label: p.kind === "autopay" ? "Autopay" : "Payment",
      amount_cents: p.amount_cents,
      detail: paymentParts(p),
    })),
    ...events
      .filter((e) => e.kind !== "interest" || e.amount_cents > 0)
      .map((e) => ({
        on: e.kind === "interest" ? e.on : e.kind === "late_fee" ? today(e.created_at) : e.on,
        kind: e.kind,
        label: e.kind === "interest" ? "Interest" : e.kind === "late_fee" ? "Late fee" : "Autopay not made",
        amount_cents: e.amount_cents,
        detail:
          e.kind === "interest"
            ? `${daysBetween(e.from_on!, e.on)} days from ${formatBusinessDate(e.from_on!)}`
            : `Payment due ${formatBusinessDate(e.on)}`,
      })),
    // Staff's corrections (docs/product.md#booked-loans-staff): a fee waived, an entry reversed.
    ...(await postedCorrections(db, loan.id)).map((c) => ({
      on: c.posted_on!,
      kind: "correction" as const,
      label: correctionLabel(c),
      amount_cents: c.amount_cents,
      detail: c.kind === "waive_fee" ? "Waived by the credit union" : "Corrected by the credit union",
    })),
    {
      on: loan.disbursed_on,
      kind: "disbursement" as const,
      label: "Paid out",
      amount_cents: loan.principal_cents,
      detail: "Into your checking account",
    },
  ].sort((a, b) => (a.on < b.on ? 1 : a.on > b.on ? -1 : 0));
  return {
    id: loan.id,
    number: loanNumber(loan.id),
    product_name: loan.product_name,
    status: loan.status,
    closed_on: loan.closed_on,
    rate_ppm: loan.rate_ppm,
    apr_bp: loan.apr_bp,
    principal_cents: loan.principal_cents,
    disbursed_on: loan.disbursed_on,
    owed,
    balance_cents: totalOwed(owed),
    next_payment: loan.status === "active" ? nextPaymentDue(schedule, loan.paid_toward_schedule_cents, owed) : null,
    payoff: payoffQuote(owed, accrual, pay_on && pay_on >= day ? pay_on : day),
    payoff_today_cents: payoffQuote(owed, accrual, day).payoff_cents,
    autopay_account_id: loan.autopay_account_id,
    schedule,
    history,
  };
}

/** The member's accounts a loan may be paid from: their open checking and savings. */
export async function loanPayingAccounts(db: DbOrTx, member_id: string) {
  const rows = await db
    .select({
      id: ledgerAccounts.id,
      type: ledgerAccounts.type,
      name: ledgerAccounts.name,
      account_number: ledgerAccounts.account_number,
      available_cents: sql<string>`${ledgerAccounts.posted_cents} - ${ledgerAccounts.held_cents}`,
    })
    .from(ledgerAccounts)
    .where(
      and(
        eq(ledgerAccounts.member_id, member_id),
        inArray(ledgerAccounts.type, ["checking", "savings"]),
        eq(ledgerAccounts.status, "active"),
      ),
    )
    .orderBy(asc(ledgerAccounts.id));
  return rows.map((r) => ({ ...r, available_cents: Number(r.available_cents) }));
}

/** Today's business date, the day a payment made now is dated (for the pages' date checks). */
export function servicingDay(now: Date = new Date()): string {
  return today(now);
}

/**
 * A loan's lines as the member's own statement of it (docs/product.md#statements: exports): each
 * money movement of the loan, signed for the member (the loan paid out, interest and late fees
 * owe more, a payment owes less), by its ledger transaction, and the balance (negative: owed) at
 * the end of `to`. Null when the loan is not the member's.
 */
export async function memberLoanLines(db: DbOrTx, member_id: string, loan_id: number, from: string, to: string) {
  const [loan] = await db
    .select()
    .from(loans)
    .where(and(eq(loans.id, loan_id), eq(loans.member_id, member_id)));
  if (!loan) return null;
  const number = loanNumber(loan.id);
  const payments = await db.select().from(loanPayments).where(eq(loanPayments.loan_id, loan.id));
  const events = await db
    .select({ event: loanEvents, effective_date: ledgerTransactions.effective_date })
    .from(loanEvents)
    .innerJoin(ledgerTransactions, eq(ledgerTransactions.id, loanEvents.transaction_id))
    .where(and(eq(loanEvents.loan_id, loan.id), inArray(loanEvents.kind, ["interest", "late_fee"])));
  const all = [
    {
      id: loan.disbursement_transaction_id,
      date: loan.disbursed_on,
      description: `${loan.product_name} ${number}: paid out`,
      amount_cents: -loan.principal_cents,
    },
    ...payments.map((p) => ({
      id: p.transaction_id,
      date: p.paid_on,
      description: `${number}: ${p.kind === "autopay" ? "autopay" : "payment"}`,
      amount_cents: p.amount_cents,
    })),
    ...events.map(({ event, effective_date }) => ({
      id: event.transaction_id!,
      date: effective_date,
      description: `${number}: ${event.kind === "interest" ? "interest" : `late fee, payment due ${event.on}`}`,
      amount_cents: -event.amount_cents,
    })),
    ...(await postedCorrections(db, loan.id)).map((c) => ({
      id: c.transaction_id!,
      date: c.posted_on!,
      description: `${number}: ${correctionLabel(c).toLowerCase()}`,
      amount_cents: correctionSign(c) * c.amount_cents,
    })),
  ].sort((a, b) => (a.date === b.date ? a.id - b.id : a.date < b.date ? -1 : 1));
  const owed_now = -all.reduce((sum, l) => sum + l.amount_cents, 0);
  return {
    number,
    product_name: loan.product_name,
    lines: all.filter((l) => l.date >= from && l.date <= to),
    closing_cents: all.filter((l) => l.date <= to).reduce((sum, l) => sum + l.amount_cents, 0),
    current_cents: -owed_now,
  };
}

/** The member's loans as the exports name them. */
export async function memberLoanChoices(db: DbOrTx, member_id: string) {
  const rows = await db
    .select({ id: loans.id, product_name: loans.product_name })
    .from(loans)
    .where(eq(loans.member_id, member_id))
    .orderBy(asc(loans.id));
  return rows.map((r) => ({ value: `loan-${r.id}`, label: `${r.product_name} ${loanNumber(r.id)}` }));
}

// ---------------------------------------------------------------------------------------------
// Staff's corrections as the member's history shows them (made in ./staff-actions.server.ts)

/** A loan's posted staff corrections, newest first, for the member's own pages and exports. */
export async function postedCorrections(db: DbOrTx, loan_id: number) {
  return db
    .select()
    .from(loanStaffActions)
    .where(and(eq(loanStaffActions.loan_id, loan_id), eq(loanStaffActions.status, "posted")))
    .orderBy(desc(loanStaffActions.id));
}

/** How a posted correction changes what the member owes (positive: owes less), for their history and exports. */
export function correctionSign(action: Pick<LoanStaffActionRow, "target_kind">): 1 | -1 {
  return action.target_kind === "payment" ? -1 : 1;
}

export function correctionLabel(action: Pick<LoanStaffActionRow, "kind" | "target_kind">): string {
  if (action.kind === "waive_fee") return "Late fee waived";
  return action.target_kind === "payment" ? "Payment reversed" : "Interest corrected";
}
