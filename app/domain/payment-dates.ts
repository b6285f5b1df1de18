/**
 * Business days: the days the Federal Reserve settles payments (ACH, wires), so the days a
 * payment file can take effect, a bill can be paid and a deposit hold counts. Monday to Friday,
 * less the Federal Reserve's holidays, computed by rule for any year (no list to keep up to date):
 *
 * - New Year's Day (January 1), Juneteenth (June 19, from 2022, the first year the Reserve Banks
 *   closed for it), Independence Day (July 4), Veterans Day (November 11), Christmas (December 25);
 * - Martin Luther King Jr. Day and Washington's Birthday (the third Monday of January and of
 *   February), Memorial Day (the last Monday of May), Labor Day (the first Monday of September),
 *   Columbus Day (the second Monday of October), Thanksgiving (the fourth Thursday of November).
 *
 * A fixed-date holiday on a Sunday is observed the Monday after. One on a Saturday is not moved:
 * the Reserve Banks are open the Friday before (unlike federal offices), so that Friday is a
 * business day.
 */

export interface FederalReserveHoliday {
  /** The day the Reserve Banks are closed (YYYY-MM-DD): the observed date. */
  date: string;
  name: string;
}

function parts(date: string): Date {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) throw new Error(`not a YYYY-MM-DD date: ${JSON.stringify(date)}`);
  return new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
}

function format(day: Date): string {
  return day.toISOString().slice(0, 10);
}

/** The `n`-th (1-based) `weekday` (0 Sunday .. 6 Saturday) of a month (1-12); n = -1 is the last. */
function nthWeekday(year: number, month: number, weekday: number, n: number): Date {
  if (n === -1) {
    const last = new Date(Date.UTC(year, month, 0));
    last.setUTCDate(last.getUTCDate() - ((last.getUTCDay() - weekday + 7) % 7));
    return last;
  }
  const first = new Date(Date.UTC(year, month - 1, 1));
  first.setUTCDate(1 + ((weekday - first.getUTCDay() + 7) % 7) + (n - 1) * 7);
  return first;
}

/** A fixed-date holiday as the Reserve Banks observe it: Sunday moves to Monday, Saturday is not observed. */
function observedFixed(year: number, month: number, day: number): Date | null {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCDay() === 6) return null;
  if (date.getUTCDay() === 0) date.setUTCDate(date.getUTCDate() + 1);
  return date;
}

const cache = new Map<number, FederalReserveHoliday[]>();

/** The days of `year` the Federal Reserve Banks are closed for a holiday, in date order. */
export function federalReserveHolidays(year: number): FederalReserveHoliday[] {
  if (!Number.isSafeInteger(year) || year < 1 || year > 9999) throw new Error(`not a year: ${year}`);
  const kept = cache.get(year);
  if (kept) return kept;
  const days: [Date | null, string][] = [
    [observedFixed(year, 1, 1), "New Year's Day"],
    [nthWeekday(year, 1, 1, 3), "Martin Luther King Jr. Day"],
    [nthWeekday(year, 2, 1, 3), "Washington's Birthday"],
    [nthWeekday(year, 5, 1, -1), "Memorial Day"],
    [year >= 2022 ? observedFixed(year, 6, 19) : null, "Juneteenth National Independence Day"],
    [observedFixed(year, 7, 4), "Independence Day"],
    [nthWeekday(year, 9, 1, 1), "Labor Day"],
    [nthWeekday(year, 10, 1, 2), "Columbus Day"],
    [observedFixed(year, 11, 11), "Veterans Day"],
    [nthWeekday(year, 11, 4, 4), "Thanksgiving Day"],
    [observedFixed(year, 12, 25), "Christmas Day"],
  ];
  const holidays = days
    .filter((d): d is [Date, string] => d[0] !== null)
    .map(([date, name]) => ({ date: format(date), name }));
  holidays.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  cache.set(year, holidays);
  return holidays;
}

/** The holiday the Reserve Banks are closed for on `date`, or null. */
export function federalReserveHoliday(date: string): FederalReserveHoliday | null {
  const year = parts(date).getUTCFullYear();
  return federalReserveHolidays(year).find((h) => h.date === date) ?? null;
}

function businessDay(day: Date): boolean {
  const weekday = day.getUTCDay();
  return weekday !== 0 && weekday !== 6 && federalReserveHoliday(format(day)) === null;
}

/** Monday to Friday and not a Federal Reserve holiday. */
export function isBusinessDay(date: string): boolean {
  return businessDay(parts(date));
}

/** The first business day after `date`. */
export function nextBusinessDay(date: string): string {
  const day = parts(date);
  do day.setUTCDate(day.getUTCDate() + 1);
  while (!businessDay(day));
  return format(day);
}

/** `date` itself when it is a business day, else the next one. */
export function businessDayOnOrAfter(date: string): string {
  return isBusinessDay(date) ? date : nextBusinessDay(date);
}

/** The business day `count` business days before `date` (5 before a Monday is the Monday before, holidays skipped). */
export function businessDaysBefore(date: string, count: number): string {
  const day = parts(date);
  for (let left = count; left > 0;) {
    day.setUTCDate(day.getUTCDate() - 1);
    if (businessDay(day)) left--;
  }
  return format(day);
}

/**
 * The business day `count` business days after `date` (`date` itself not counted): 10 after a
 * Monday is the Monday two weeks on, holidays skipped. From a Saturday, 1 is the Monday. For the
 * clocks a regulation counts in business days (Regulation E error resolution, docs/product.md#disputes).
 */
export function addBusinessDays(date: string, count: number): string {
  if (!Number.isSafeInteger(count) || count < 0) throw new Error(`not a count of business days: ${count}`);
  const day = parts(date);
  for (let left = count; left > 0;) {
    day.setUTCDate(day.getUTCDate() + 1);
    if (businessDay(day)) left--;
  }
  return format(day);
}

/** The date `count` calendar days after `date` (negative: before), for clocks counted in calendar days. */
export function addCalendarDays(date: string, count: number): string {
  if (!Number.isSafeInteger(count)) throw new Error(`not a count of days: ${count}`);
  const day = parts(date);
  day.setUTCDate(day.getUTCDate() + count);
  return format(day);
}

/** Business days after `from` up to and including `to` (0 when `to` is not after `from`). */
export function businessDaysBetween(from: string, to: string): number {
  const day = parts(from);
  const end = parts(to).getTime();
  let count = 0;
  while (day.getTime() < end) {
    day.setUTCDate(day.getUTCDate() + 1);
    if (businessDay(day)) count++;
  }
  return count;
}
