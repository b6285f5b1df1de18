/**
 * A closed-end loan's payment schedule as the ledger will book it (docs/product.md#loans, issue 33):
 * simple interest on the unpaid principal for the actual days between due dates, on a 365-day year,
 * with level monthly payments and a last payment that absorbs what rounding and uneven months
 * leave. Pure: no I/O, no clock.
 *
 * Rounding, stated once: each period's interest is principal x rate x days / 365, rounded to the
 * cent half up (integer arithmetic, BigInt for the product). The level payment is the annuity
 * payment at rate / 12 (the calculators' `monthlyPaymentCents`), rounded to the nearest cent. The
 * last payment is the balance left plus its period's interest, so principal repaid sums exactly to
 * the amount borrowed and no balance is ever below zero.
 */

import { monthlyPaymentCents } from "../calculator-math";
import { isCalendarDate } from "../calendar-date";

const DAYS_PER_YEAR = 365n;
const PPM_PER_UNIT = 1_000_000n;
const MS_PER_DAY = 86_400_000;

export interface LoanScheduleTerms {
  principal_cents: number;
  /** The note rate, a year's simple interest in parts per million (5.99% = 59_900). */
  rate_ppm: number;
  term_months: number;
  /** The day the money reaches the member: interest runs from here. */
  disbursed_on: string;
  /** The first due date; every later one is the same day of the month (the month's last day when shorter). */
  first_payment_on: string;
}

export interface ScheduledLoanPayment {
  /** 1-based. */
  number: number;
  due_on: string;
  /** Days of interest this payment pays for (since disbursement, or the previous due date). */
  days: number;
  payment_cents: number;
  interest_cents: number;
  principal_cents: number;
  balance_after_cents: number;
}

export interface LoanPaymentSchedule {
  /** Every payment but the last. */
  level_payment_cents: number;
  payments: ScheduledLoanPayment[];
  total_interest_cents: number;
  total_of_payments_cents: number;
}

/** Why terms cannot be scheduled; null when they can. */
export function scheduleProblem(terms: LoanScheduleTerms): string | null {
  const { principal_cents, rate_ppm, term_months, disbursed_on, first_payment_on } = terms;
  if (!Number.isSafeInteger(principal_cents) || principal_cents <= 0)
    return "The amount must be a positive number of cents.";
  if (!Number.isSafeInteger(rate_ppm) || rate_ppm < 0 || rate_ppm > 1_000_000) return "The rate must be 0 to 100%.";
  if (!Number.isSafeInteger(term_months) || term_months < 1 || term_months > 480)
    return "The term must be 1 to 480 months.";
  if (!isCalendarDate(disbursed_on) || !isCalendarDate(first_payment_on)) return "The dates must be calendar dates.";
  const first_period_days = daysBetween(disbursed_on, first_payment_on);
  // Reg Z's regular first period is about a month; more than 45 days would need a disclosed odd
  // first payment, which these loans do not offer.
  if (first_period_days < 1 || first_period_days > 45)
    return "The first payment must be 1 to 45 days after the money is paid out.";
  if (!buildSchedule(terms))
    return "The monthly payment would not cover a month's interest: choose an earlier first payment, a longer term or a lower rate.";
  return null;
}

/**
 * The schedule. Throws for terms `scheduleProblem` refuses, among them a payment that would not
 * cover its period's interest (the balance would grow): not a schedule a member can be offered.
 */
export function loanPaymentSchedule(terms: LoanScheduleTerms): LoanPaymentSchedule {
  const problem = scheduleProblem(terms);
  if (problem) throw new Error(`loan schedule: ${problem}`);
  return buildSchedule(terms)!;
}

function buildSchedule(terms: LoanScheduleTerms): LoanPaymentSchedule | null {
  const level_payment_cents = monthlyPaymentCents({
    principal_cents: terms.principal_cents,
    apr_ppm: terms.rate_ppm,
    term_months: terms.term_months,
  });
  const payments: ScheduledLoanPayment[] = [];
  let balance_cents = terms.principal_cents;
  let from = terms.disbursed_on;
  for (let number = 1; number <= terms.term_months; number++) {
    const due_on = dueDate(terms.first_payment_on, number - 1);
    const days = daysBetween(from, due_on);
    const interest_cents = periodInterestCents(balance_cents, terms.rate_ppm, days);
    const last = number === terms.term_months;
    const payment_cents = last
      ? balance_cents + interest_cents
      : Math.min(level_payment_cents, balance_cents + interest_cents);
    const principal_cents = payment_cents - interest_cents;
    if (principal_cents < 0) return null;
    balance_cents -= principal_cents;
    payments.push({
      number,
      due_on,
      days,
      payment_cents,
      interest_cents,
      principal_cents,
      balance_after_cents: balance_cents,
    });
    from = due_on;
    if (balance_cents === 0) break;
  }
  const total_interest_cents = payments.reduce((sum, p) => sum + p.interest_cents, 0);
  return {
    level_payment_cents,
    payments,
    total_interest_cents,
    total_of_payments_cents: terms.principal_cents + total_interest_cents,
  };
}

/** Simple interest for `days` on `balance_cents`, rounded to the cent half up. */
export function periodInterestCents(balance_cents: number, rate_ppm: number, days: number): number {
  const numerator = BigInt(balance_cents) * BigInt(rate_ppm) * BigInt(days);
  const denominator = DAYS_PER_YEAR * PPM_PER_UNIT;
  const quotient = numerator / denominator;
  const remainder = numerator - quotient * denominator;
  return Number(remainder * 2n >= denominator ? quotient + 1n : quotient);
}

/** The due date `months` months after `first` on the same day of the month, or the month's last day when shorter. */
export function dueDate(first: string, months: number): string {
  const [year, month, day] = first.split("-").map(Number) as [number, number, number];
  const index = year * 12 + (month - 1) + months;
  const y = Math.floor(index / 12);
  const m = index % 12;
  const last_day = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return `${String(y).padStart(4, "0")}-${String(m + 1).padStart(2, "0")}-${String(Math.min(day, last_day)).padStart(2, "0")}`;
}

/** Calendar days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / MS_PER_DAY);
}
