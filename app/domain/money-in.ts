/**
 * Move money in (docs/product.md#move-money-in): the member pulls money from a verified linked
 * account at another bank into their checking or savings, as an ACH debit the credit union
 * originates (Nacha WEB entry, transaction code 27 or 37). Pure: the form, the authorization the
 * member agrees to (Nacha's WEB rules ask it be shown, agreed to and kept), the limits per day and
 * month, and what a return code does to the link. The server keeps the state and moves the money.
 */
import { z } from "zod";
import { formatCents } from "./money";
import { accountIdField, amountCentsField, idempotencyKeyField, TRANSFER_MESSAGES } from "./transfers";

export const MONEY_IN_MESSAGES = {
  missing: "Please fill in all fields",
  amount: TRANSFER_MESSAGES.amount,
  link: "Please choose a verified linked account",
  account: "Please choose one of your open checking or savings accounts",
  agree: "Please agree to the authorization to continue",
  failed: TRANSFER_MESSAGES.failed,
} as const;

const M = MONEY_IN_MESSAGES;

const moneyInFields = {
  linked_account_id: accountIdField(M.link),
  to_account_id: accountIdField(M.account),
  amount: amountCentsField(M.missing),
  idempotency_key: idempotencyKeyField(M.failed),
};

/** The first step: where from, where to, how much. The account ids are checked against the member's own by the server. */
export const moneyInReviewSchema = z
  .object(moneyInFields)
  .transform(({ amount, ...rest }) => ({ ...rest, amount_cents: amount }));

/**
 * The second step: the same, and the box the member ticks under the authorization's words shown
 * to them (without it nothing is asked for).
 */
export const moneyInSchema = z
  .object({ ...moneyInFields, agree: z.literal("yes", { error: M.agree }) })
  .transform(({ amount, agree: _agree, ...rest }) => ({ ...rest, amount_cents: amount }));
export type MoneyInForm = z.output<typeof moneyInSchema>;

export interface AuthorizationParts {
  institution_name: string;
  member_name: string;
  amount_cents: number;
  /** "Home checking (Chase Bank, checking ••6789)". */
  from: string;
  /** "Checking ••4321". */
  to: string;
  /** The business date the member agrees on, YYYY-MM-DD. */
  date: string;
}

/**
 * The words the member agrees to, shown beside the form and stored with the pull exactly as shown
 * (Nacha WEB: the authorization must be readily identifiable as one, state its terms clearly,
 * name the amount and the accounts, and say how to revoke it). A single entry, so it ends with it.
 */
export function authorizationText(p: AuthorizationParts): string {
  return [
    `I, ${p.member_name}, authorize ${p.institution_name} to debit ${formatCents(p.amount_cents)} once`,
    `from my account ${p.from} by an ACH debit, and to credit it to my ${p.institution_name} account ${p.to},`,
    `on or after ${p.date}.`,
    `I confirm I own the account debited. The money is available after a hold; if the other bank returns the debit,`,
    `the credit is taken back. I may revoke this authorization by contacting ${p.institution_name}`,
    `before the debit is sent with the next ACH file.`,
  ].join(" ");
}

export interface MoneyInLimits {
  daily_max_cents: number;
  monthly_max_cents: number;
}

export interface MoneyInUsed {
  /** Pulls asked for on the business day, cancelled ones not counted. */
  today_cents: number;
  /** Pulls asked for in the calendar month, cancelled ones not counted. */
  month_cents: number;
}

/** What the member may still pull today: the smaller of the day's and the month's remaining amounts. */
export function remainingCents(limits: MoneyInLimits, used: MoneyInUsed): number {
  return Math.max(0, Math.min(limits.daily_max_cents - used.today_cents, limits.monthly_max_cents - used.month_cents));
}

/**
 * The limit a pull of `amount_cents` would pass, with the message shown beside the amount (the
 * remaining amount named), or null when it is within both.
 */
export function limitRefusal(
  limits: MoneyInLimits,
  used: MoneyInUsed,
  amount_cents: number,
): { limit: "daily" | "monthly"; message: string } | null {
  const today_left = Math.max(0, limits.daily_max_cents - used.today_cents);
  const month_left = Math.max(0, limits.monthly_max_cents - used.month_cents);
  if (amount_cents > month_left && month_left <= today_left)
    return {
      limit: "monthly",
      message: `That is more than you can move in this month. You can move up to ${formatCents(month_left)} more this month (the limit is ${formatCents(limits.monthly_max_cents)} a month).`,
    };
  if (amount_cents > today_left)
    return {
      limit: "daily",
      message: `That is more than you can move in today. You can move up to ${formatCents(today_left)} more today (the limit is ${formatCents(limits.daily_max_cents)} a day).`,
    };
  return null;
}

/**
 * Return codes that mean the account at the other bank cannot be pulled from again: it is closed
 * (R02), cannot be found (R03), the number is invalid (R04), it is frozen (R16), it is not a
 * transaction account (R20), or its owner says the debit was not authorized or the authorization
 * was revoked (R05, R07, R10, R11, R29, R51: Nacha forbids debiting again on these without a new
 * authorization). The link is marked failed; R01 (insufficient funds), R09 (uncollected funds)
 * and the others leave it verified.
 */
export const LINK_FAILING_RETURN_CODES: ReadonlySet<string> = new Set([
  "R02",
  "R03",
  "R04",
  "R05",
  "R07",
  "R10",
  "R11",
  "R16",
  "R20",
  "R29",
  "R51",
]);

export function returnFailsLink(return_code: string): boolean {
  return LINK_FAILING_RETURN_CODES.has(return_code);
}

/** The batch description the member's other bank shows beside the debit. */
export const MONEY_IN_ENTRY_DESCRIPTION = "TRANSFER";

/** The individual id written on a pull's entry ("MI00000042"): a return names the pull by it. */
export function pullIndividualId(pull_id: number): string {
  return `MI${String(pull_id).padStart(8, "0")}`;
}

/** The pull a return's individual id names, or null. */
export function pullIdOf(individual_id: string): number | null {
  const match = /^MI(\d{8})$/.exec(individual_id.trim());
  return match ? Number(match[1]) : null;
}

/** The link a micro-entry's individual id names ("LA00000012", as the export writes it), or null. */
export function linkIdOfMicroEntry(individual_id: string): number | null {
  const match = /^LA(\d{8})$/.exec(individual_id.trim());
  return match ? Number(match[1]) : null;
}

/**
 * Whether a return entry's transaction code says the original entry was a debit: Nacha returns a
 * debit (27, 37) as 26 or 36 and a credit (22, 32) as 21 or 31.
 */
export function returnedEntryWasDebit(transaction_code: string): boolean {
  return transaction_code === "26" || transaction_code === "36";
}
