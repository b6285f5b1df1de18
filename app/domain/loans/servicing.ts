/**
 * A booked loan's servicing rules (docs/product.md#loan-servicing, issue 33): interest accrued day
 * by day, a payment's application, the payoff quote, what is due and when a due date is late.
 * Pure: no I/O, no clock.
 *
 * Accrual, stated once: each day's interest is principal x rate / 365 (actual days, a 365-day year
 * also in leap years). The cents are whole: a run accrues floor((principal x rate_ppm x days +
 * carry) / 365,000,000) cents and keeps what is left (the carry, under 365,000,000, a fraction of a
 * cent) for the next run, so no fraction is ever lost or counted twice: over any stretch of days at
 * one principal the cents accrued equal the exact interest rounded down, off by under one cent.
 */

import { addCalendarDays } from "../payment-dates";
import { formatCents } from "../money";
import { daysBetween } from "./schedule";

/** The carry's unit: one cent is this many (ppm of a unit rate x days of a 365-day year). */
export const ACCRUAL_DENOMINATOR = 365n * 1_000_000n;

export interface Accrual {
  interest_cents: number;
  /** What is carried to the next run: 0 <= carry < ACCRUAL_DENOMINATOR. */
  carry: number;
}

/** The interest on `principal_cents` for `days` days, with the carry of the run before. */
export function accrueInterest(principal_cents: number, rate_ppm: number, days: number, carry: number): Accrual {
  if (!Number.isSafeInteger(principal_cents) || principal_cents < 0) throw new Error("accrual: bad principal");
  if (!Number.isSafeInteger(rate_ppm) || rate_ppm < 0) throw new Error("accrual: bad rate");
  if (!Number.isSafeInteger(days) || days < 0) throw new Error("accrual: bad days");
  if (!Number.isSafeInteger(carry) || carry < 0 || BigInt(carry) >= ACCRUAL_DENOMINATOR)
    throw new Error("accrual: bad carry");
  const numerator = BigInt(principal_cents) * BigInt(rate_ppm) * BigInt(days) + BigInt(carry);
  return {
    interest_cents: Number(numerator / ACCRUAL_DENOMINATOR),
    carry: Number(numerator % ACCRUAL_DENOMINATOR),
  };
}

/** A loan's or a line's accrual, as its row keeps it. */
export interface AccruedFigures {
  /** Interest has been accrued for every day before this one. */
  interest_accrued_to: string;
  /** The interest accrued and not yet paid (whole cents). */
  accrued_interest_cents: number;
  /** The fraction of a cent carried to the next run, in 1/ACCRUAL_DENOMINATOR cent. */
  accrual_carry: number;
}

export interface AccrualRun {
  days: number;
  interest_cents: number;
  /** The figures to keep after the run. */
  after: AccruedFigures;
}

/**
 * One accrual run of a loan or a line (the nightly job's, or the one before a payment, a draw or a
 * rate change): the interest on `principal_cents` at `rate_ppm` for the days from the last accrual
 * to the day before `to`, by the rule stated above. Null when there is no day to accrue.
 */
export function accrualRun(
  figures: AccruedFigures,
  principal_cents: number,
  rate_ppm: number,
  to: string,
): AccrualRun | null {
  const days = daysBetween(figures.interest_accrued_to, to);
  if (days <= 0) return null;
  const accrual = accrueInterest(principal_cents, rate_ppm, days, figures.accrual_carry);
  return {
    days,
    interest_cents: accrual.interest_cents,
    after: {
      interest_accrued_to: to,
      accrued_interest_cents: figures.accrued_interest_cents + accrual.interest_cents,
      accrual_carry: accrual.carry,
    },
  };
}

/** What the member owes on a loan, by part, as the books hold it. */
export interface LoanOwed {
  fees_cents: number;
  /** Interest accrued and not yet paid (whole cents). */
  interest_cents: number;
  principal_cents: number;
}

export function totalOwed(owed: LoanOwed): number {
  return owed.fees_cents + owed.interest_cents + owed.principal_cents;
}

export interface PaymentApplication {
  fees_cents: number;
  interest_cents: number;
  principal_cents: number;
}

/**
 * A payment is applied to fees first, then accrued interest, then principal (stated in
 * docs/product.md#loan-servicing). Returns null when it is more than is owed: a payment never takes
 * a part below zero (the member is offered the payoff amount instead).
 */
export function applyPayment(amount_cents: number, owed: LoanOwed): PaymentApplication | null {
  if (!Number.isSafeInteger(amount_cents) || amount_cents <= 0) return null;
  if (amount_cents > totalOwed(owed)) return null;
  const fees_cents = Math.min(amount_cents, owed.fees_cents);
  const interest_cents = Math.min(amount_cents - fees_cents, owed.interest_cents);
  const principal_cents = amount_cents - fees_cents - interest_cents;
  return { fees_cents, interest_cents, principal_cents };
}

/** Where a payment went, in the order it was applied: "$1.00 fees, $2.50 interest, $46.50 principal". */
export function paymentParts(applied: PaymentApplication): string {
  return `${formatCents(applied.fees_cents)} fees, ${formatCents(applied.interest_cents)} interest, ${formatCents(applied.principal_cents)} principal`;
}

export interface AccrualState {
  principal_cents: number;
  rate_ppm: number;
  /** Interest has been accrued for every day before this one. */
  accrued_to: string;
  carry: number;
}

/**
 * The payoff amount on `pay_on`: what is owed now plus the interest of the days from the last
 * accrual to the day before `pay_on` (interest runs through the day before the payment), and the
 * per-diem (a day's interest, rounded to the cent half up, for the member to read).
 */
export function payoffQuote(owed: LoanOwed, state: AccrualState, pay_on: string) {
  const days = Math.max(0, daysBetween(state.accrued_to, pay_on));
  const more = accrueInterest(state.principal_cents, state.rate_ppm, days, state.carry);
  const per_diem_exact = BigInt(state.principal_cents) * BigInt(state.rate_ppm);
  const per_diem_cents = Number((per_diem_exact * 2n + ACCRUAL_DENOMINATOR) / (2n * ACCRUAL_DENOMINATOR));
  return {
    good_through: pay_on,
    payoff_cents: totalOwed(owed) + more.interest_cents,
    interest_to_date_cents: owed.interest_cents + more.interest_cents,
    per_diem_cents,
  };
}

export interface ScheduledDue {
  number: number;
  due_on: string;
  payment_cents: number;
}

/**
 * How far the member's payments reach: the scheduled payments are covered in order by everything
 * paid to interest and principal (fees are charges of their own, not a payment toward the
 * schedule), so an extra payment counts toward the next due dates. A due date is paid when the
 * payments sum to at least every scheduled payment through it.
 */
export function firstUnpaidDue(schedule: readonly ScheduledDue[], paid_toward_schedule_cents: number) {
  let through = 0;
  for (const due of schedule) {
    through += due.payment_cents;
    if (paid_toward_schedule_cents < through) return { ...due, still_due_cents: through - paid_toward_schedule_cents };
  }
  return null;
}

/**
 * The next payment due as of `today`: the first scheduled payment not yet covered, with the fees
 * charged, never more than the payoff. Null when every scheduled payment is covered.
 */
export function nextPaymentDue(
  schedule: readonly ScheduledDue[],
  paid_toward_schedule_cents: number,
  owed: LoanOwed,
): { due_on: string; amount_cents: number } | null {
  const unpaid = firstUnpaidDue(schedule, paid_toward_schedule_cents);
  if (!unpaid || totalOwed(owed) === 0) return null;
  return { due_on: unpaid.due_on, amount_cents: Math.min(unpaid.still_due_cents + owed.fees_cents, totalOwed(owed)) };
}

/**
 * The due dates that are late on `today`: past their grace days (`due_on + grace_days < today`)
 * with the scheduled payments through them not covered by what was paid (`paid_by` says what had
 * been paid toward the schedule by the end of a given day). Each is charged one late fee, once.
 */
export function lateDueDates(
  schedule: readonly ScheduledDue[],
  grace_days: number,
  today: string,
  paid_by: (day: string) => number,
): string[] {
  const late: string[] = [];
  let through = 0;
  for (const due of schedule) {
    through += due.payment_cents;
    const grace_end = addCalendarDays(due.due_on, grace_days);
    if (grace_end >= today) break;
    if (paid_by(grace_end) < through) late.push(due.due_on);
  }
  return late;
}
