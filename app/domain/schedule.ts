/**
 * The one schedule module (docs/architecture.md#schedules): the rules of a series of payments that
 * Bill Pay's recurring payments and the scheduled transfers (Between Accounts, To Another Member, To US Bank)
 * share, without I/O. A series starts on a business day, repeats every N weeks or monthly on the
 * first date's day, and ends on a date or after a number of payments; a date that falls on a
 * weekend or a Federal Reserve holiday moves to the next business day (app/domain/payment-dates.ts).
 * Dates are ISO strings (YYYY-MM-DD), compared as strings, so no Date and no time zone is involved.
 */
import { addCalendarDays, businessDayOnOrAfter } from "./payment-dates";
import { isCalendarDate } from "./calendar-date";

export const SERIES_WEEKS_MAX = 52;
export const SERIES_COUNT_MAX = 120;
/** A series that ends on a date ends within five years of its first payment. */
export const SERIES_END_DAYS_MAX = 5 * 366;

export type SeriesFrequency = "monthly" | "weeks";

export interface SeriesRule {
  frequency: SeriesFrequency;
  /** For "weeks": every this many weeks (1 to 52); null when monthly. */
  interval_weeks: number | null;
  first_date: string;
  /** Exactly one of end_date and payment_count is set. */
  end_date: string | null;
  payment_count: number | null;
}

/** The words a form uses for a series' fields; each product names its own payments. */
export interface SeriesMessages {
  every_weeks: string;
  ends: string;
  end_date: string;
  end_date_late: string;
  payment_count: string;
}

/** The recurrence fields as a form posts them (strings), after the first date was checked. */
export interface SeriesFields {
  frequency: SeriesFrequency;
  every_weeks?: string;
  ends?: string;
  end_date?: string;
  payment_count?: string;
  first_date: string;
}

/** The recurrence fields as a rule, or each field's message (keyed by the field's name). */
export function parseSeriesRule(
  form: SeriesFields,
  messages: SeriesMessages,
): { rule: SeriesRule; errors: null } | { rule: null; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  let interval_weeks: number | null = null;
  if (form.frequency === "weeks") {
    interval_weeks = /^\d{1,2}$/.test(form.every_weeks ?? "") ? Number(form.every_weeks) : NaN;
    if (!(interval_weeks >= 1 && interval_weeks <= SERIES_WEEKS_MAX)) errors.every_weeks = messages.every_weeks;
  }
  let end_date: string | null = null;
  let payment_count: number | null = null;
  if (form.ends === "date") {
    end_date = form.end_date ?? "";
    if (!isIsoDate(end_date) || end_date < form.first_date) errors.end_date = messages.end_date;
    else if (end_date > addDays(form.first_date, SERIES_END_DAYS_MAX)) errors.end_date = messages.end_date_late;
  } else if (form.ends === "count") {
    payment_count = /^\d{1,3}$/.test(form.payment_count ?? "") ? Number(form.payment_count) : NaN;
    if (!(payment_count >= 1 && payment_count <= SERIES_COUNT_MAX)) errors.payment_count = messages.payment_count;
  } else {
    // No end ("never", or nothing chosen): a series that pays forever is not offered.
    errors.ends = messages.ends;
  }
  if (Object.keys(errors).length) return { rule: null, errors };
  return {
    rule: { frequency: form.frequency, interval_weeks, first_date: form.first_date, end_date, payment_count },
    errors: null,
  };
}

/**
 * The date of the series' payment number `sequence` (from 1): the first date plus whole months
 * (the same day of the month, or the month's last day when it has fewer days: Jan 31 -> Feb 28)
 * or whole periods of weeks, counted from the first date so the day never drifts; a weekend or
 * holiday moves it to the next business day.
 */
export function seriesPaymentDate(rule: SeriesRule, sequence: number): string {
  if (!Number.isSafeInteger(sequence) || sequence < 1) throw new RangeError("sequence counts from 1");
  const nominal =
    rule.frequency === "monthly"
      ? addMonthsClamped(rule.first_date, sequence - 1)
      : addDays(rule.first_date, 7 * (rule.interval_weeks ?? 1) * (sequence - 1));
  return businessDayOnOrAfter(nominal);
}

/** Whether the series has a payment number `sequence`: within its count, or on or before its last date. */
export function seriesHasPayment(rule: SeriesRule, sequence: number): boolean {
  if (sequence < 1) return false;
  if (rule.payment_count !== null) return sequence <= rule.payment_count;
  return rule.end_date !== null && seriesPaymentDate(rule, sequence) <= rule.end_date;
}

/** How many payments are left from number `next_sequence` on (that one included). */
export function seriesRemaining(rule: SeriesRule, next_sequence: number): number {
  let n = 0;
  // Bounded: a series has at most SERIES_COUNT_MAX payments, or five years of weekly ones.
  while (seriesHasPayment(rule, next_sequence + n) && n < 300) n++;
  return n;
}

/**
 * "Monthly, 12 payments" / "Every 2 weeks until Jun 30, 2027" (the date as given). `noun` names
 * the payments as the product does ("payment", "transfer").
 */
export function describeSeries(
  rule: Pick<SeriesRule, "frequency" | "interval_weeks" | "end_date" | "payment_count">,
  formatDate: (iso: string) => string = (d) => d,
  noun: { one: string; many: string } = { one: "payment", many: "payments" },
): string {
  const how =
    rule.frequency === "monthly"
      ? "Monthly"
      : rule.interval_weeks === 1
        ? "Every week"
        : `Every ${rule.interval_weeks} weeks`;
  if (rule.payment_count !== null)
    return `${how}, ${rule.payment_count} ${rule.payment_count === 1 ? noun.one : noun.many}`;
  return `${how} until ${formatDate(rule.end_date ?? "")}`;
}

/** A real calendar date written YYYY-MM-DD (no 2025-02-30): the one check, app/domain/calendar-date.ts. */
export const isIsoDate = isCalendarDate;

/** `addDays("2026-02-28", 1)` -> "2026-03-01": the one calendar arithmetic (payment-dates.ts), refusing a non-date. */
export function addDays(iso_date: string, days: number): string {
  if (!isCalendarDate(iso_date)) throw new RangeError(`Not an ISO date: ${iso_date}`);
  return addCalendarDays(iso_date, days);
}

/** `addMonthsClamped("2026-01-31", 1)` -> "2026-02-28": the same day, or the month's last. */
export function addMonthsClamped(iso_date: string, months: number): string {
  if (!isIsoDate(iso_date)) throw new RangeError(`Not an ISO date: ${iso_date}`);
  const [year, month, day] = iso_date.split("-").map(Number) as [number, number, number];
  const index = year * 12 + (month - 1) + months;
  const y = Math.floor(index / 12);
  const m = index - y * 12;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return `${String(y).padStart(4, "0")}-${String(m + 1).padStart(2, "0")}-${String(Math.min(day, last)).padStart(2, "0")}`;
}
