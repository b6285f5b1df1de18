import { isCalendarDate } from "./calendar-date";

/**
 * The institution's books (docs/product.md#books): the pure rules of the trial balance, shared by
 * the pages, the CSV and the PDF.
 *
 * The ledger's sign (docs/decisions/0005-ledger-posting-path.md): an entry's positive amount
 * credits the account, a negative one debits it. So an account whose entries sum below zero has a
 * debit balance (the institution's cash and settlement accounts, the expense of dividends), and
 * one above zero a credit balance (what members hold, fees earned). Every transaction's entries
 * sum to zero, so all the accounts together sum to zero: total debits equal total credits.
 */

export interface BalanceLine {
  /** A stable code for the line: the institution account's type, or "members_<type>". */
  code: string;
  name: string;
  /** The sum of the account's (or the group's) posted entries up to the date, signed as stored. */
  balance_cents: number;
}

export interface TrialBalanceLine extends BalanceLine {
  debit_cents: number;
  credit_cents: number;
}

export interface TrialBalance {
  as_of: string;
  lines: TrialBalanceLine[];
  total_debit_cents: number;
  total_credit_cents: number;
  /** Debits equal credits: the books are in balance. */
  balanced: boolean;
}

export function trialBalance(as_of: string, balances: readonly BalanceLine[]): TrialBalance {
  let total_debit_cents = 0;
  let total_credit_cents = 0;
  const lines = balances.map((line) => {
    const debit_cents = line.balance_cents < 0 ? -line.balance_cents : 0;
    const credit_cents = line.balance_cents > 0 ? line.balance_cents : 0;
    total_debit_cents += debit_cents;
    total_credit_cents += credit_cents;
    return { ...line, debit_cents, credit_cents };
  });
  return {
    as_of,
    lines,
    total_debit_cents,
    total_credit_cents,
    balanced: total_debit_cents === total_credit_cents,
  };
}

export const BOOKS_MESSAGES = {
  bad_date: "Please enter a date as YYYY-MM-DD",
  future_date: "Please choose today or an earlier day",
  balanced: "In balance: total debits equal total credits.",
  out_of_balance: "Out of balance: total debits and total credits differ. Report this to the ledger's owners now.",
} as const;

export type BooksDate = { ok: true; date: string } | { ok: false; message: string };

/**
 * The day a books page is about (`?date=`): today when none is given; a real calendar day no
 * later than today (the books of a day still to come do not exist).
 */
export function booksDate(raw: string | null, today: string): BooksDate {
  if (raw === null || raw.trim() === "") return { ok: true, date: today };
  const date = raw.trim();
  if (!isCalendarDate(date)) {
    return { ok: false, message: BOOKS_MESSAGES.bad_date };
  }
  if (date > today) return { ok: false, message: BOOKS_MESSAGES.future_date };
  return { ok: true, date };
}
