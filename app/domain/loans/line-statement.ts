/**
 * A line of credit's periodic statement without I/O (docs/product.md#line-statements; Regulation Z
 * 12 CFR 1026.7(b), open-end credit): from the line's ledger lines, one closed billing cycle's
 * previous balance, its transactions with the balance after each, its draws, payments, interest and
 * fees, the new balance, the year's interest and fees, and the balance interest was figured on.
 *
 * Which cycle a ledger line belongs to. The nightly servicing closes a cycle on its closing date D
 * after posting the interest of the days before D (dated D), and before anything the member does on
 * D. So a cycle that began on P (the previous closing date, or the day the line was opened) holds
 * the interest of the days P to D - 1 (posted dated P + 1 to D) and every other line dated P to
 * D - 1: an interest posting belongs to the day before its date (the last day it is for), every
 * other line to its date. That "billing day" puts each line in exactly one cycle, and the new
 * balance is what the servicing saw when it closed the cycle and set its minimum payment.
 *
 * Every figure is whole cents from the lines: new balance = previous balance + draws + interest +
 * fees - payments, exactly (the statement's table checks it again).
 *
 * Each periodic rate that applied in the cycle (1026.7(b)(4), (5), (7)): an APR change takes effect
 * on its day, and the accrual posts the days before it at the old rate and the rest at the new
 * (app/server/loans/line-term-changes.server.ts), so an interest posting never spans a change. The
 * cycle's days are split where the APR changed; each part has its rate, its days, the average
 * daily principal over its days and the interest posted for its days (whole postings, so the
 * parts add up to the cycle's interest exactly; the fraction of a cent carried from night to night
 * goes on with the posting that reaches a whole cent).
 */

import { addCalendarDays } from "../payment-dates";
import type { LoanLedgerLine, OwedChange } from "./statement";

export interface LineCycle {
  /** The first day of the cycle: the previous closing date, or the day the line was opened. */
  start: string;
  /** The closing date (1026.7(b)(8)): the cycle's days are `start` to the day before it. */
  closed_on: string;
}

/** The APR in effect from a day on (the rate at opening, then each change on its effective day). */
export interface RateFrom {
  from: string;
  rate_ppm: number;
}

/** The part of a cycle one APR applied to (1026.7(b)(4), (5), (7)). */
export interface LineRatePeriod {
  start: string;
  last_day: string;
  days: number;
  rate_ppm: number;
  /** The average of the principal owed at the end of each of this part's days. */
  average_daily_balance_cents: number;
  /** The interest posted for this part's days. */
  interest_cents: number;
}

export interface LineStatementLine {
  effective_date: string;
  description: string;
  /** The change in what is owed (positive: owed more). */
  amount_cents: number;
  /** For a payment: how it was applied, each part positive. */
  paid: OwedChange | null;
  /** What was owed after the line. */
  balance_cents: number;
}

export interface LineStatementFigures {
  /** The cycle's first and last day and its closing date. */
  period: { start: string; last_day: string; closed_on: string; days: number };
  /** 1026.7(b)(1): what was owed at the start of the cycle. */
  previous_balance_cents: number;
  /** 1026.7(b)(2): every transaction of the cycle (the nightly interest grouped between two other lines). */
  lines: LineStatementLine[];
  /** Draws (and any other change that owes more that is not interest or a fee). */
  draws_cents: number;
  /** 1026.7(b)(3): payments and other credits, as a positive amount. */
  payments_cents: number;
  /** 1026.7(b)(6)(i): interest charged in the cycle. */
  interest_cents: number;
  /** 1026.7(b)(6)(ii): fees charged in the cycle. */
  fees_cents: number;
  /** 1026.7(b)(6)(iii): interest and fees charged in the calendar year of the cycle's last day, through it. */
  year_to_date: { year: number; interest_cents: number; fees_cents: number };
  /** 1026.7(b)(5): the average of the principal owed at the end of each of the cycle's days. */
  average_daily_balance_cents: number;
  /** 1026.7(b)(4), (7): each APR that applied in the cycle, in date order (one when it did not change). */
  rate_periods: LineRatePeriod[];
  /** 1026.7(b)(8): what was owed on the closing date, by part. */
  new_balance: OwedChange & { total_cents: number };
}

const ZERO: OwedChange = { principal_cents: 0, interest_cents: 0, fees_cents: 0 };
const total = (c: OwedChange) => c.principal_cents + c.interest_cents + c.fees_cents;
const add = (a: OwedChange, b: OwedChange): OwedChange => ({
  principal_cents: a.principal_cents + b.principal_cents,
  interest_cents: a.interest_cents + b.interest_cents,
  fees_cents: a.fees_cents + b.fees_cents,
});

const INTEREST = "Interest charged";

/** The day a ledger line counts for: interest is for the days before its date, anything else its date. */
export function billingDay(line: Pick<LoanLedgerLine, "kind" | "effective_date">): string {
  return line.kind === "loan_interest" ? addCalendarDays(line.effective_date, -1) : line.effective_date;
}

function daysFrom(start: string, end: string): number {
  return Math.round((Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / 86_400_000) + 1;
}

/** The APR in effect on `day`: the latest that began on or before it (the first, before them all). */
export function rateOn(rates: readonly RateFrom[], day: string): number {
  let rate = rates[0]!.rate_ppm;
  for (const r of rates) if (r.from <= day) rate = r.rate_ppm;
  return rate;
}

/**
 * The statement's figures of one cycle, from the line's ledger lines in date order (any lines after
 * the cycle are left out, so the same ledger gives the same statement whenever it is made) and the
 * line's APRs by the day each took effect, in date order.
 */
export function lineStatementFigures(
  cycle: LineCycle,
  all: readonly LoanLedgerLine[],
  rates: readonly RateFrom[],
): LineStatementFigures {
  const last_day = addCalendarDays(cycle.closed_on, -1);
  if (last_day < cycle.start) throw new Error("line statement: a cycle without days");
  if (rates.length === 0) throw new Error("line statement: no APR");
  const before = all.filter((l) => billingDay(l) < cycle.start);
  const within = all.filter((l) => billingDay(l) >= cycle.start && billingDay(l) <= last_day);
  const previous = before.reduce(add, ZERO);
  const closing = within.reduce(add, previous);

  const lines: LineStatementLine[] = [];
  let balance = total(previous);
  for (const line of within) {
    const amount = total(line);
    balance += amount;
    const last = lines[lines.length - 1];
    if (line.kind === "loan_interest" && last?.description.startsWith(INTEREST)) {
      last.amount_cents += amount;
      last.balance_cents = balance;
      last.description = `${INTEREST}, posted ${last.effective_date} to ${line.effective_date}`;
      continue;
    }
    lines.push({
      effective_date: line.effective_date,
      description: line.kind === "loan_interest" ? INTEREST : line.description,
      amount_cents: amount,
      // `0 - x`: a part the payment did not touch is 0, never -0.
      paid:
        line.kind === "loan_payment"
          ? {
              principal_cents: 0 - line.principal_cents,
              interest_cents: 0 - line.interest_cents,
              fees_cents: 0 - line.fees_cents,
            }
          : null,
      balance_cents: balance,
    });
  }

  const sumOf = (lines_: readonly LoanLedgerLine[], kind: string) =>
    lines_.filter((l) => l.kind === kind).reduce((s, l) => s + total(l), 0);
  const year = Number(last_day.slice(0, 4));
  const this_year = all.filter((l) => billingDay(l) >= `${year}-01-01` && billingDay(l) <= last_day);

  // The principal owed at the end of each day of the cycle (interest is figured on it, day by day),
  // summed over the cycle and over each part of it one APR applied to.
  const days = daysFrom(cycle.start, last_day);
  let principal = previous.principal_cents;
  let principal_days = 0;
  let next = 0;
  const periods: (LineRatePeriod & { principal_days: number })[] = [];
  for (let day = cycle.start, n = 0; n < days; n++, day = addCalendarDays(day, 1)) {
    while (next < within.length && billingDay(within[next]!) <= day) principal += within[next++]!.principal_cents;
    principal_days += principal;
    const rate_ppm = rateOn(rates, day);
    let period = periods[periods.length - 1];
    if (!period || period.rate_ppm !== rate_ppm) {
      period = {
        start: day,
        last_day: day,
        days: 0,
        rate_ppm,
        average_daily_balance_cents: 0,
        interest_cents: 0,
        principal_days: 0,
      };
      periods.push(period);
    }
    period.last_day = day;
    period.days += 1;
    period.principal_days += principal;
  }
  const rate_periods: LineRatePeriod[] = periods.map(({ principal_days: sum, ...period }) => ({
    ...period,
    average_daily_balance_cents: Math.round(sum / period.days),
    interest_cents: within
      .filter((l) => l.kind === "loan_interest" && billingDay(l) >= period.start && billingDay(l) <= period.last_day)
      .reduce((s, l) => s + total(l), 0),
  }));

  return {
    period: { start: cycle.start, last_day, closed_on: cycle.closed_on, days },
    previous_balance_cents: total(previous),
    lines,
    draws_cents: within
      .filter((l) => !["loan_payment", "loan_interest", "loan_fee"].includes(l.kind))
      .reduce((s, l) => s + total(l), 0),
    payments_cents: 0 - sumOf(within, "loan_payment"),
    interest_cents: sumOf(within, "loan_interest"),
    fees_cents: sumOf(within, "loan_fee"),
    year_to_date: { year, interest_cents: sumOf(this_year, "loan_interest"), fees_cents: sumOf(this_year, "loan_fee") },
    average_daily_balance_cents: Math.round(principal_days / days),
    rate_periods,
    new_balance: { ...closing, total_cents: total(closing) },
  };
}
