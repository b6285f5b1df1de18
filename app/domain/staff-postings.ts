import { isCalendarDate } from "./calendar-date";
import { hasControlCharacters } from "./plain-text";

/**
 * Transactions staff add to a member's accounts by hand or from a CSV file
 * (docs/product.md#add-transactions). The rules are pure, so the draft-row table in the browser
 * and the server check a row the same way; the server also resolves the account against the
 * member's own accounts and posts.
 */

/** The CSV's header line, in this order and spelling (the template writes it). */
export const POSTING_CSV_HEADER = [
  "Account Type",
  "Transaction Type",
  "Amount",
  "Description",
  "Category",
  "Date",
  "Time",
  "Status",
] as const;

export const POSTING_CATEGORIES = [
  "Transfer",
  "Bill Pay",
  "Deposit",
  "Withdrawal",
  "Income",
  "Shopping",
  "Food",
  "Transportation",
  "Entertainment",
  "Other",
] as const;
export type PostingCategory = (typeof POSTING_CATEGORIES)[number];

/** At most this many rows in one file or table: one ledger batch holds them all. */
export const POSTING_ROWS_MAX = 10_000;
/** 2 MB: 10,000 rows of about 100 characters, with room to spare. */
export const POSTING_CSV_MAX_BYTES = 2 * 1024 * 1024;
/** $1,000,000.00 per row: a larger amount is a typing mistake or needs another way in. */
export const POSTING_AMOUNT_MAX_CENTS = 100_000_000;
export const POSTING_DESCRIPTION_MAX_CHARS = 200;

/** "1,000,000.00" / "2 MB": the limits as said in messages and on the page. */
export const POSTING_LIMITS_TEXT = `${POSTING_ROWS_MAX.toLocaleString("en-US")} rows and ${POSTING_CSV_MAX_BYTES / 1024 / 1024} MB`;

export const MEMBER_ACCOUNT_TYPE_LABELS = {
  checking: "Checking",
  savings: "Savings",
  credit_card: "Credit Card",
} as const;
export type MemberAccountTypeName = keyof typeof MEMBER_ACCOUNT_TYPE_LABELS;

/** One row as typed: every field text, as in the CSV (empty = the default where there is one). */
export interface DraftRow {
  account: string;
  type: string;
  amount: string;
  description: string;
  category: string;
  date: string;
  time: string;
  status: string;
}

export const DRAFT_FIELDS = [
  "account",
  "type",
  "amount",
  "description",
  "category",
  "date",
  "time",
  "status",
] as const satisfies readonly (keyof DraftRow)[];

/** Which account: one of the member's by type (Checking, Savings, Credit Card) or by its number. */
export type AccountChoice = { by: "type"; type: MemberAccountTypeName } | { by: "number"; account_number: string };

export interface PostingRow {
  account: AccountChoice;
  direction: "debit" | "credit";
  amount_cents: number;
  description: string;
  category: PostingCategory;
  /** YYYY-MM-DD: the ledger's effective date. */
  date: string;
  /** HH:MM:SS as stated (kept in the audit record; the ledger records the real posting time). */
  time: string;
  status: "completed" | "pending";
}

export type RowCheck = { ok: true; row: PostingRow } | { ok: false; errors: string[] };

/**
 * A spreadsheet runs a cell starting with = + - @ (or a tab or carriage return) as a formula; a
 * file meant for staff must never carry one, so such a cell is refused unless it is a number.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const NUMBER = /^[+-]?\d+(\.\d+)?$/;

export function isFormulaCell(value: string): boolean {
  return FORMULA_START.test(value) && !NUMBER.test(value.trim());
}

const AMOUNT = /^(?=\.?\d)(\d{0,15})(?:\.(\d{1,2}))?$/;
const TIME = /^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?$/;

/** Amount text to cents: digits with at most two decimals, above zero, at most the row limit. */
export function amountCents(text: string): { ok: true; cents: number } | { ok: false; message: string } {
  const value = text.trim();
  if (value === "") return { ok: false, message: "Amount is required" };
  if (/^-/.test(value))
    return { ok: false, message: "Amount must be greater than zero (choose debit or credit for the direction)" };
  if (/^\d*\.\d{3,}$/.test(value)) return { ok: false, message: "Amount may have at most two decimals" };
  const match = AMOUNT.exec(value);
  if (!match) return { ok: false, message: `Amount must be a number such as 125.50` };
  const cents = Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
  if (cents <= 0) return { ok: false, message: "Amount must be greater than zero" };
  if (cents > POSTING_AMOUNT_MAX_CENTS) return { ok: false, message: "Amount must be at most $1,000,000.00 per row" };
  return { ok: true, cents };
}

function accountChoice(text: string): AccountChoice | null {
  const value = text.trim();
  const digits = value.replace(/[\s-]/g, "");
  if (/^[1-9]\d{9}$/.test(digits)) return { by: "number", account_number: digits };
  const key = value.toLowerCase().replace(/[\s_]+/g, "_");
  if (key in MEMBER_ACCOUNT_TYPE_LABELS) return { by: "type", type: key as MemberAccountTypeName };
  return null;
}

function category(text: string): PostingCategory | null {
  const key = text.trim().toLowerCase().replace(/\s+/g, " ");
  return POSTING_CATEGORIES.find((c) => c.toLowerCase() === key) ?? null;
}

/**
 * Checks one row. `today` is the institution's business date and `now_time` its clock (HH:MM:SS),
 * the defaults for an empty date and time; a date after today is refused.
 */
export function checkRow(raw: DraftRow, context: { today: string; now_time: string }): RowCheck {
  const errors: string[] = [];
  for (const field of DRAFT_FIELDS) {
    const value = raw[field] ?? "";
    if (isFormulaCell(value))
      errors.push(`${LABELS[field]} starts with = + - or @ (a spreadsheet formula), which is not accepted`);
    else if (hasControlCharacters(value, { multiline: field === "description" }))
      errors.push(`${LABELS[field]} holds a control character`);
  }
  if (errors.length) return { ok: false, errors };

  const account = accountChoice(raw.account);
  if (!raw.account.trim())
    errors.push("Account Type is required (Checking, Savings, Credit Card or an account number)");
  else if (!account)
    errors.push(
      `Account Type "${clip(raw.account)}" is not Checking, Savings, Credit Card or a 10-digit account number`,
    );

  const type = raw.type.trim().toLowerCase() || "debit";
  if (type !== "debit" && type !== "credit")
    errors.push(`Transaction Type "${clip(raw.type)}" must be debit or credit`);

  const amount = amountCents(raw.amount);
  if (!amount.ok) errors.push(amount.message);

  const description = raw.description.replace(/\s+/g, " ").trim();
  if (!description) errors.push("Description is required");
  else if (description.length > POSTING_DESCRIPTION_MAX_CHARS)
    errors.push(`Description must be at most ${POSTING_DESCRIPTION_MAX_CHARS} characters`);

  const chosen = category(raw.category);
  if (!raw.category.trim()) errors.push(`Category is required (${POSTING_CATEGORIES.join(", ")})`);
  else if (!chosen) errors.push(`Category "${clip(raw.category)}" is not one of ${POSTING_CATEGORIES.join(", ")}`);

  const date = raw.date.trim() || context.today;
  if (!isCalendarDate(date)) errors.push(`Date "${clip(raw.date)}" is not a real date (YYYY-MM-DD)`);
  else if (date > context.today) errors.push(`Date ${date} is in the future`);
  else if (date < "1900-01-01") errors.push(`Date ${date} is before 1900`);

  const time_text = raw.time.trim() || context.now_time;
  const time = TIME.exec(time_text);
  if (!time) errors.push(`Time "${clip(raw.time)}" must be HH:MM or HH:MM:SS (24-hour)`);

  const status = raw.status.trim().toLowerCase() || "completed";
  if (status !== "completed" && status !== "pending")
    errors.push(`Status "${clip(raw.status)}" must be Completed or Pending`);

  if (errors.length || !account || !amount.ok || !chosen || !time) return { ok: false, errors };
  return {
    ok: true,
    row: {
      account,
      direction: type as "debit" | "credit",
      amount_cents: amount.cents,
      description,
      category: chosen,
      date,
      time: `${time[1]}:${time[2]}:${time[3] ?? "00"}`,
      status: status as "completed" | "pending",
    },
  };
}

const LABELS: Record<keyof DraftRow, string> = {
  account: "Account Type",
  type: "Transaction Type",
  amount: "Amount",
  description: "Description",
  category: "Category",
  date: "Date",
  time: "Time",
  status: "Status",
};

/** Quoted back in a message: short, and on one line. */
function clip(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 40 ? `${line.slice(0, 40)}…` : line;
}

export interface LineError {
  line: number;
  message: string;
}

/** "2 lines have errors: line 3: ...; line 7: ..." (the first ten), and how many more. */
export function errorsMessage(errors: readonly LineError[], where: "line" | "row"): string {
  const shown = errors.slice(0, 10).map((e) => `${where} ${e.line}: ${e.message}`);
  const more = errors.length > 10 ? `; and ${errors.length - 10} more` : "";
  const count = errors.length === 1 ? `1 ${where} has an error` : `${errors.length} ${where}s have errors`;
  return `${count}: ${shown.join("; ")}${more}`;
}

/** The template's example row (a deposit to checking, dated today). */
export function templateExampleRow(today: string): string[] {
  return ["Checking", "credit", "125.50", "Payroll deposit, ACME Corp", "Income", today, "09:30", "Completed"];
}
