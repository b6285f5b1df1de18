/**
 * Monthly statements without I/O (docs/product.md#statements): which months an account has a
 * statement for, a month's first and last day, and the statement's figures from its rows.
 *
 * A statement covers one calendar month in the institution's time zone. A member may have the
 * last 13 months that have ended, none before the month the account's history starts (the
 * month it was opened, or of its first posting if that is dated earlier, as the demo's
 * back-dated history is) and never the month in progress or a later one.
 */

/** How many monthly statements a member can get: the last 13 months that have ended. */
export const STATEMENT_MONTHS = 13;

/** The longest range of days one export of transactions may cover. */
export const EXPORT_DAYS_MAX = 366;

export const STATEMENT_MONTH_MESSAGE = "Please choose one of the statement months offered for this account";

/** "2026-10" */
export type StatementMonth = string;

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;
const MONTH_NAMES = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

export function isStatementMonth(text: string): boolean {
  const match = MONTH.exec(text);
  return match !== null && Number(match[1]) >= 1;
}

/** The month of a YYYY-MM-DD date. */
export function monthOfDate(date: string): StatementMonth {
  return date.slice(0, 7);
}

/** The month before (or `-n` months before) a month. */
export function addMonths(month: StatementMonth, n: number): StatementMonth {
  const [year, mon] = month.split("-").map(Number) as [number, number];
  const index = year * 12 + (mon - 1) + n;
  return `${String(Math.floor(index / 12)).padStart(4, "0")}-${String((index % 12) + 1).padStart(2, "0")}`;
}

/** A month's first and last day, YYYY-MM-DD. */
export function monthBounds(month: StatementMonth): { start: string; end: string } {
  const [year, mon] = month.split("-").map(Number) as [number, number];
  // Leap years repeat every 400 years: a year in 2000-2399 with the same remainder has the same February.
  const days = new Date(Date.UTC(2000 + (year % 400), mon, 0)).getUTCDate();
  return { start: `${month}-01`, end: `${month}-${String(days).padStart(2, "0")}` };
}

/** "October 2026" */
export function monthLabel(month: StatementMonth): string {
  const [year, mon] = month.split("-").map(Number) as [number, number];
  return `${MONTH_NAMES[mon - 1]} ${year}`;
}

/**
 * The months an account has a statement for, newest first: the last 13 months that ended before
 * `today`'s month, none before `history_start`'s month (both YYYY-MM-DD in the institution's
 * time zone).
 */
export function statementMonths(history_start: string, today: string): StatementMonth[] {
  const first = monthOfDate(history_start);
  const months: StatementMonth[] = [];
  for (let n = 1; n <= STATEMENT_MONTHS; n++) {
    const month = addMonths(monthOfDate(today), -n);
    if (month < first) break;
    months.push(month);
  }
  return months;
}

/** Whether a statement may be asked for this month (the refusal's message is STATEMENT_MONTH_MESSAGE). */
export function isStatementMonthAllowed(month: string, history_start: string, today: string): boolean {
  return isStatementMonth(month) && statementMonths(history_start, today).includes(month);
}

/** One line of a statement: a posted transaction (with the balance after it) or a pending one. */
export interface StatementLine {
  transaction_id: number;
  effective_date: string;
  description: string;
  /** Signed for the account: positive money in. */
  amount_cents: number;
  status: "posted" | "reversed" | "pending";
}

export interface PostedLine extends StatementLine {
  balance_cents: number;
}

export interface StatementFigures {
  opening_cents: number;
  closing_cents: number;
  /** Money in (sum of the posted credits), positive. */
  credits_cents: number;
  /** Money out (sum of the posted debits), positive. */
  debits_cents: number;
  posted: PostedLine[];
  pending: StatementLine[];
}

/**
 * A statement's figures from its opening balance and its lines in date order: the running
 * balance after each posted line, the totals in and out, and the closing balance
 * (opening + in - out). Pending lines are listed apart and change no balance.
 */
export function statementFigures(opening_cents: number, lines: readonly StatementLine[]): StatementFigures {
  let balance = opening_cents;
  let credits_cents = 0;
  let debits_cents = 0;
  const posted: PostedLine[] = [];
  const pending: StatementLine[] = [];
  for (const line of lines) {
    if (line.status === "pending") {
      pending.push(line);
      continue;
    }
    balance += line.amount_cents;
    if (line.amount_cents > 0) credits_cents += line.amount_cents;
    else debits_cents -= line.amount_cents;
    posted.push({ ...line, balance_cents: balance });
  }
  return { opening_cents, closing_cents: balance, credits_cents, debits_cents, posted, pending };
}
