/**
 * The Truth in Lending disclosure of a closed-end loan (Regulation Z, 12 CFR 1026.18): the annual
 * percentage rate, finance charge, amount financed, total of payments and payment schedule, from
 * one schedule (./schedule.ts). Pure: no I/O, no clock.
 *
 * - Amount financed (1026.18(b)): the principal less prepaid finance charges (an origination fee
 *   kept from the money paid out).
 * - Finance charge (1026.18(d), 1026.4): the total of payments less the amount financed, so the
 *   fee and every cent of scheduled interest are in it.
 * - Annual percentage rate (1026.22, appendix J): the actuarial method with a unit period of one
 *   month. A payment is discounted over its full months counted back from its due date and, for
 *   what is left before the first due date, a fractional month of days / 30 at simple interest
 *   (appendix J (b)(5)(iii)-(iv)). The unit-period rate is found by bisection (the present value
 *   falls as the rate rises, so there is exactly one root) and the APR is 12 times it, disclosed to
 *   two decimals; 1026.22(a)(2) allows 1/8 of a percentage point either way.
 */

import {
  daysBetween,
  dueDate,
  loanPaymentSchedule,
  type LoanScheduleTerms,
  type ScheduledLoanPayment,
} from "./schedule";

export interface TruthInLendingTerms extends LoanScheduleTerms {
  /** Finance charges paid before or at consummation, kept from the money paid out (0 when none). */
  prepaid_finance_charge_cents: number;
}

export interface PaymentGroup {
  count: number;
  amount_cents: number;
  first_due_on: string;
}

export interface TruthInLendingDisclosure {
  /** Hundredths of a percent: 969 is 9.69%. */
  apr_bp: number;
  finance_charge_cents: number;
  amount_financed_cents: number;
  total_of_payments_cents: number;
  /** Number, amount and first due date of each run of equal payments (1026.18(g)). */
  payment_schedule: PaymentGroup[];
  payments: ScheduledLoanPayment[];
}

export function truthInLending(terms: TruthInLendingTerms): TruthInLendingDisclosure {
  const fee = terms.prepaid_finance_charge_cents;
  if (!Number.isSafeInteger(fee) || fee < 0 || fee >= terms.principal_cents)
    throw new Error("truth in lending: the prepaid finance charge must be 0 or more and less than the amount");
  const schedule = loanPaymentSchedule(terms);
  const amount_financed_cents = terms.principal_cents - fee;
  const apr = annualPercentageRate({
    amount_financed_cents,
    advanced_on: terms.disbursed_on,
    payments: schedule.payments.map((p) => ({ amount_cents: p.payment_cents, due_on: p.due_on })),
  });
  return {
    apr_bp: Math.round(apr * 10_000),
    finance_charge_cents: schedule.total_of_payments_cents - amount_financed_cents,
    amount_financed_cents,
    total_of_payments_cents: schedule.total_of_payments_cents,
    payment_schedule: paymentGroups(schedule.payments),
    payments: schedule.payments,
  };
}

/** Runs of equal consecutive payments, as the disclosure lists them. */
export function paymentGroups(payments: readonly { payment_cents: number; due_on: string }[]): PaymentGroup[] {
  const groups: PaymentGroup[] = [];
  for (const p of payments) {
    const last = groups.at(-1);
    if (last && last.amount_cents === p.payment_cents) last.count++;
    else groups.push({ count: 1, amount_cents: p.payment_cents, first_due_on: p.due_on });
  }
  return groups;
}

/**
 * The APR (a fraction: 0.0969 for 9.69%) at which the payments' present value, by appendix J's
 * general equation with a monthly unit period, equals the amount financed.
 */
export function annualPercentageRate(input: {
  amount_financed_cents: number;
  advanced_on: string;
  payments: readonly { amount_cents: number; due_on: string }[];
}): number {
  const periods = input.payments.map((p) => ({ amount: p.amount_cents, ...unitPeriods(input.advanced_on, p.due_on) }));
  const presentValue = (i: number) =>
    periods.reduce((sum, p) => sum + p.amount / ((1 + p.fraction * i) * Math.pow(1 + i, p.months)), 0);
  const target = input.amount_financed_cents;
  // At 0% the payments' sum; a schedule that pays back no more than was financed has no positive rate.
  if (presentValue(0) <= target) return 0;
  let low = 0;
  let high = 1; // 100% a month: far past any loan
  for (let step = 0; step < 200 && high - low > 1e-12; step++) {
    const middle = (low + high) / 2;
    if (presentValue(middle) > target) low = middle;
    else high = middle;
  }
  return ((low + high) / 2) * 12;
}

/**
 * Full months from `advanced_on` to `due_on`, counted back from the due date, and the days left
 * before them as a fraction of a 30-day month (appendix J (b)(5)).
 */
export function unitPeriods(advanced_on: string, due_on: string): { months: number; fraction: number } {
  let months = 0;
  while (daysBetween(advanced_on, dueDate(due_on, -(months + 1))) >= 0) months++;
  const start_of_full_months = dueDate(due_on, -months);
  return { months, fraction: daysBetween(advanced_on, start_of_full_months) / 30 };
}
