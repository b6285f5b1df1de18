import { z } from "zod";
import { isCalendarDate } from "./calendar-date";
import { parseDollarsToCents } from "./money";
import { plainText } from "./plain-text";

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

/**
 * The payment rails whose money settles through an institution account (docs/product.md#books),
 * each with the account the ledger posts its settlement to and where its statement comes from.
 */
export const RAILS = {
  ach: { label: "ACH", account: "ach_settlement", statement: "Federal Reserve (FedACH) statement" },
  wire: { label: "Wires", account: "wire_settlement", statement: "Correspondent bank's statement" },
  bill_pay: { label: "Bill pay", account: "bill_pay_settlement", statement: "Bill payment processor's statement" },
  card: { label: "Cards", account: "card_settlement", statement: "Card network's settlement report" },
} as const;
export type Rail = keyof typeof RAILS;
export const RAIL_IDS = Object.keys(RAILS) as Rail[];

export const RECONCILE_MESSAGES = {
  rail: "Please choose a rail",
  amount_missing: "Please enter the statement's net amount for the day",
  amount_bad: "Please enter an amount in dollars and cents, such as 1250.00 or -1250.00",
  recorded_matched: "Recorded. The statement matches the ledger for this day.",
  recorded_difference: "Recorded. The statement and the ledger differ: look at the day's entries below.",
} as const;

/** "1,250.00", "-1250", "$-3.10": a signed amount in cents, or null. */
export function parseSignedDollars(text: string): number | null {
  const trimmed = text.trim().replace(/^\$/, "");
  const negative = trimmed.startsWith("-");
  const cents = parseDollarsToCents(negative ? trimmed.slice(1) : trimmed);
  if (cents === null) return null;
  return negative ? -cents : cents;
}

/** The reconciliation form (docs/product.md#books): the rail, the day and the statement's figure. */
export const ReconcileSchema = z.object({
  rail: z.enum(RAIL_IDS as [Rail, ...Rail[]], RECONCILE_MESSAGES.rail),
  date: z
    .string({ error: BOOKS_MESSAGES.bad_date })
    .trim()
    .refine((value) => isCalendarDate(value), BOOKS_MESSAGES.bad_date),
  statement_amount: z
    .string({ error: RECONCILE_MESSAGES.amount_missing })
    .trim()
    .min(1, RECONCILE_MESSAGES.amount_missing)
    .refine((value) => parseSignedDollars(value) !== null, RECONCILE_MESSAGES.amount_bad)
    .transform((value) => parseSignedDollars(value)!),
});

/** The statement's figure against the ledger's: matched, or how far apart (statement minus ledger). */
export function reconciliationOutcome(statement_cents: number, ledger_cents: number) {
  const difference_cents = statement_cents - ledger_cents;
  return { matched: difference_cents === 0, difference_cents };
}

/** The institution accounts a general-ledger entry may move money between (never a member's). */
export const GL_ACCOUNTS = [
  "cash",
  "ach_settlement",
  "wire_settlement",
  "bill_pay_settlement",
  "deposits_in_transit",
  "adjustments",
  "fees_income",
  "card_settlement",
  "dividends_paid",
] as const;
export type GlAccount = (typeof GL_ACCOUNTS)[number];

export const GL_MEMO_MAX = 200;
export const GL_REASON_MAX = 500;

export const GL_MESSAGES = {
  debit_account: "Please choose the account to debit",
  credit_account: "Please choose the account to credit",
  same_account: "Please choose two different accounts",
  amount_missing: "Please enter the amount",
  amount_bad: "Please enter an amount in dollars and cents greater than zero, such as 125.00",
  memo_missing: "Please say what the entry is for",
  memo_long: `Please keep the description under ${GL_MEMO_MAX} characters`,
  reason_missing: "Please give the reason for rejecting",
  proposed: "Proposed. Another accountant or staff member must approve it before it posts.",
  approved: "Approved and posted to the ledger.",
  rejected: "Rejected. Nothing was posted; the reason is kept with the entry.",
  not_found: "Failed: this entry was not found.",
  already_decided: "Failed: this entry was already decided.",
  own_entry: "Failed: you proposed this entry. Another accountant or staff member must approve or reject it.",
} as const;

export const ProposeGlEntrySchema = z
  .object({
    debit_account: z.enum(GL_ACCOUNTS, GL_MESSAGES.debit_account),
    credit_account: z.enum(GL_ACCOUNTS, GL_MESSAGES.credit_account),
    amount: z
      .string({ error: GL_MESSAGES.amount_missing })
      .trim()
      .min(1, GL_MESSAGES.amount_missing)
      .refine((value) => (parseDollarsToCents(value) ?? 0) > 0, GL_MESSAGES.amount_bad)
      .transform((value) => parseDollarsToCents(value)!),
    memo: plainText({ missing: GL_MESSAGES.memo_missing }).pipe(
      z.string().min(1, GL_MESSAGES.memo_missing).max(GL_MEMO_MAX, GL_MESSAGES.memo_long),
    ),
  })
  .refine((value) => value.debit_account !== value.credit_account, {
    message: GL_MESSAGES.same_account,
    path: ["credit_account"],
  });

const entryId = z
  .string({ error: GL_MESSAGES.not_found })
  .trim()
  .regex(/^[1-9]\d{0,15}$/, GL_MESSAGES.not_found)
  .transform(Number);

export const ApproveGlEntrySchema = z.object({ entry_id: entryId });
export const RejectGlEntrySchema = z.object({
  entry_id: entryId,
  reason: plainText({ missing: GL_MESSAGES.reason_missing }).pipe(
    z
      .string()
      .min(1, GL_MESSAGES.reason_missing)
      .max(GL_REASON_MAX, `Please keep the reason under ${GL_REASON_MAX} characters`),
  ),
});

export const GL_EXPORT_MESSAGES = {
  no_codes:
    "The institution profile maps no general-ledger account codes (gl_account_codes), so the export cannot be made. Ask whoever keeps the profile to add them.",
  some_missing: "The institution profile has no general-ledger account code (gl_account_codes) for:",
} as const;
