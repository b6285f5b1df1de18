/**
 * A loan's monthly statement without I/O (docs/product.md#loan-statements): from the loan's ledger
 * lines up to the period's end, what was owed at the start and end by part, the period's lines with
 * the balance after each, what was charged and paid, the payments of the year by part, and what is
 * due next (with anything past due and the fees), as of the period's last day.
 *
 * Regulation Z has no periodic statement for a closed-end loan other than a mortgage
 * (12 CFR 1026.41); this statement gives what a member expects and 1026.41's useful parts: the
 * amount and date due, the late fee and when it is charged, the past payments by principal,
 * interest and fees, the period's transactions, the outstanding principal, the rate, what is past
 * due. Every figure is whole cents from the lines, so the statement adds up to the ledger.
 */

import { addCalendarDays } from "../payment-dates";
import type { ScheduledDue } from "./servicing";

/** What a line did to what the member owes, by part: positive owes more, negative owes less. */
export interface OwedChange {
  principal_cents: number;
  interest_cents: number;
  fees_cents: number;
}

/**
 * One ledger transaction of the loan. `kind` is the ledger's: `loan_payment` is a payment (its
 * parts, negated, are what it paid), `loan_interest` interest charged, `loan_fee` a fee charged;
 * any other kind (the loan paid out, a draw, a reversal) changes what is owed as it says.
 */
export interface LoanLedgerLine extends OwedChange {
  transaction_id: number;
  effective_date: string;
  kind: string;
  description: string;
}

export interface StatementLoanLine {
  effective_date: string;
  description: string;
  /** The change in what is owed (positive: owed more). */
  amount_cents: number;
  /** For a payment: how it was applied, each positive. */
  paid: OwedChange | null;
  /** What was owed after the line. */
  balance_cents: number;
  /** The ledger transactions the line stands for (several: the interest postings between two other lines). */
  transaction_ids: number[];
}

export interface PaymentsByPart {
  total_cents: number;
  principal_cents: number;
  interest_cents: number;
  fees_cents: number;
}

export interface AmountDue {
  /** The next scheduled due date after the period, or null when only past-due money and fees are due (due now). */
  due_on: string | null;
  /** The scheduled payment of that date not yet covered. */
  regular_cents: number;
  past_due_cents: number;
  fees_cents: number;
  /** regular + past due + fees, never more than the whole balance. */
  amount_cents: number;
}

export interface LoanStatementFigures {
  period: { start: string; end: string };
  opening: OwedChange & { total_cents: number };
  closing: OwedChange & { total_cents: number };
  lines: StatementLoanLine[];
  /** The period's sums: money paid out (or drawn), interest and fees charged, payments. */
  advanced_cents: number;
  interest_charged_cents: number;
  fees_charged_cents: number;
  paid: PaymentsByPart;
  /** Payments from the first of the period's calendar year to its end. */
  paid_year_to_date: PaymentsByPart;
  /** The last payment on or before the period's end, with its parts. */
  last_payment: (PaymentsByPart & { effective_date: string }) | null;
  amount_due: AmountDue | null;
  /** The late fee and the last day a payment is on time (due date + grace days), when the product charges one. */
  late_fee: { late_fee_cents: number; charged_after: string } | null;
}

export interface LoanStatementInput {
  period: { start: string; end: string };
  /** Every line of the loan dated on or before the period's end, in date order (ties by transaction). */
  lines: readonly LoanLedgerLine[];
  /** The scheduled payments (empty for a loan without a schedule, such as a line of credit). */
  schedule: readonly ScheduledDue[];
  late_fee: { late_fee_cents: number; grace_days: number } | null;
}

const ZERO: OwedChange = { principal_cents: 0, interest_cents: 0, fees_cents: 0 };

function add(a: OwedChange, b: OwedChange): OwedChange {
  return {
    principal_cents: a.principal_cents + b.principal_cents,
    interest_cents: a.interest_cents + b.interest_cents,
    fees_cents: a.fees_cents + b.fees_cents,
  };
}

const total = (c: OwedChange) => c.principal_cents + c.interest_cents + c.fees_cents;
const withTotal = (c: OwedChange) => ({ ...c, total_cents: total(c) });
const isPayment = (line: LoanLedgerLine) => line.kind === "loan_payment";
// `0 - x`, not `-x`: a part the payment did not touch is 0, never -0.
const paidBy = (line: LoanLedgerLine): OwedChange => ({
  principal_cents: 0 - line.principal_cents,
  interest_cents: 0 - line.interest_cents,
  fees_cents: 0 - line.fees_cents,
});

function paymentsByPart(lines: readonly LoanLedgerLine[]): PaymentsByPart {
  const sum = lines.filter(isPayment).map(paidBy).reduce(add, ZERO);
  return { total_cents: total(sum), ...sum };
}

/**
 * The statement's figures. Interest posted night by night would fill a page, so the interest
 * postings between two other lines are shown as one line ("Interest charged"), its balance the
 * one after the last of them: the running balance is unchanged by the grouping.
 */
export function loanStatementFigures(input: LoanStatementInput): LoanStatementFigures {
  const { start, end } = input.period;
  const before = input.lines.filter((l) => l.effective_date < start);
  const within = input.lines.filter((l) => l.effective_date >= start && l.effective_date <= end);
  if (input.lines.some((l) => l.effective_date > end)) throw new Error("loan statement: a line after the period");
  const opening = before.reduce<OwedChange>(add, ZERO);
  const closing = within.reduce<OwedChange>(add, opening);

  const lines: StatementLoanLine[] = [];
  let balance = total(opening);
  for (const line of within) {
    const amount = total(line);
    balance += amount;
    const last = lines[lines.length - 1];
    if (line.kind === "loan_interest" && last && last.description.startsWith(INTEREST)) {
      last.amount_cents += amount;
      last.balance_cents = balance;
      last.transaction_ids.push(line.transaction_id);
      last.description = interestDescription(last.effective_date, line.effective_date);
      continue;
    }
    lines.push({
      effective_date: line.effective_date,
      description: line.kind === "loan_interest" ? interestDescription(line.effective_date) : line.description,
      amount_cents: amount,
      paid: isPayment(line) ? paidBy(line) : null,
      balance_cents: balance,
      transaction_ids: [line.transaction_id],
    });
  }

  const sumOf = (kind: string) => within.filter((l) => l.kind === kind).reduce((s, l) => s + total(l), 0);
  const payments_before_end = input.lines.filter(isPayment);
  const last = payments_before_end[payments_before_end.length - 1];
  const amount_due = amountDue(input.schedule, payments_before_end, closing, end);
  return {
    period: { start, end },
    opening: withTotal(opening),
    closing: withTotal(closing),
    lines,
    advanced_cents: within
      .filter((l) => !["loan_payment", "loan_interest", "loan_fee"].includes(l.kind))
      .reduce((s, l) => s + total(l), 0),
    interest_charged_cents: sumOf("loan_interest"),
    fees_charged_cents: sumOf("loan_fee"),
    paid: paymentsByPart(within),
    paid_year_to_date: paymentsByPart(
      payments_before_end.filter((l) => l.effective_date >= `${end.slice(0, 4)}-01-01`),
    ),
    last_payment: last ? { effective_date: last.effective_date, ...paymentsByPart([last]) } : null,
    amount_due,
    late_fee: lateFeeNotice(amount_due, input.late_fee),
  };
}

const INTEREST = "Interest charged";

function interestDescription(first: string, last?: string): string {
  return last && last !== first ? `${INTEREST}, posted ${first} to ${last}` : INTEREST;
}

/**
 * What is due as of the period's last day, as the loan page reckons it (nextPaymentDue): payments
 * to interest and principal cover the scheduled payments in order (fees are charges of their
 * own); a scheduled payment dated by the period's end and not covered is past due; the next
 * due date is the first after the period not covered (an extra payment moves it on).
 */
function amountDue(
  schedule: readonly ScheduledDue[],
  payments: readonly LoanLedgerLine[],
  closing: OwedChange,
  end: string,
): AmountDue | null {
  const owed = total(closing);
  if (schedule.length === 0 || owed <= 0) return null;
  const paid_toward = payments.map(paidBy).reduce((s, p) => s + p.interest_cents + p.principal_cents, 0);
  let through = 0;
  let past_due_cents = 0;
  let next: { due_on: string; through: number } | null = null;
  for (const due of schedule) {
    through += due.payment_cents;
    if (due.due_on <= end) past_due_cents = Math.max(0, through - paid_toward);
    else if (through > paid_toward) {
      next = { due_on: due.due_on, through };
      break;
    }
  }
  const regular_cents = next ? next.through - paid_toward - past_due_cents : 0;
  const fees_cents = Math.max(0, closing.fees_cents);
  const amount_cents = Math.min(owed, regular_cents + past_due_cents + fees_cents);
  if (amount_cents <= 0) return null;
  return { due_on: next?.due_on ?? null, regular_cents, past_due_cents, fees_cents, amount_cents };
}

/** The late-fee notice: the fee and the last day of grace after the due date (docs/product.md#loan-servicing). */
export function lateFeeNotice(
  amount_due: AmountDue | null,
  late_fee: { late_fee_cents: number; grace_days: number } | null,
): LoanStatementFigures["late_fee"] {
  if (!amount_due?.due_on || !late_fee || late_fee.late_fee_cents <= 0) return null;
  return {
    late_fee_cents: late_fee.late_fee_cents,
    charged_after: addCalendarDays(amount_due.due_on, late_fee.grace_days),
  };
}
