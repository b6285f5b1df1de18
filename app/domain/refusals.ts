/**
 * The one vocabulary of refusals: a stable code for each reason the ledger or the transfer service
 * says no, and the one table from code to the message a member or staff member is shown. The
 * code keeps its name from the ledger to the screen (and to /metrics); callers branch on it, and
 * the words live only here. A message with `{name}` gets that detail filled in by
 * `refusalMessage`. Pure, so the ledger, the transfer service, the form schemas and the screens
 * all read the same words.
 *
 * A refusal is a value (`{ ok: false, code, message }`), not an exception: a transfer that "fails
 * for a real reason that is shown" (docs/product.md#members-see-the-truth) is an answer, not a
 * crash. Bugs (a broken invariant) still throw.
 */
export const REFUSAL_MESSAGES = {
  // The ledger's (app/server/ledger): every posting, hold and account change.
  invalid_amount: "Please enter a valid amount",
  insufficient_funds: "Insufficient funds",
  same_account: "Cannot transfer to the same account",
  account_not_found: "Account not found",
  account_frozen: "Transactions on this account are blocked for security reasons.",
  account_closed: "This account is closed.",
  transfer_limit: "You have reached the limit of {limit} transfers out of savings this month.",
  too_few_entries: "A transaction needs at least two entries.",
  too_many_entries: "A transaction has at most {limit} entries.",
  unbalanced: "The entries of a transaction must sum to zero.",
  transaction_not_found: "Transaction not found",
  not_pending: "This transaction is no longer pending.",
  not_posted: "Only a posted transaction can be reversed.",
  already_reversed: "This transaction has already been reversed.",
  reversal_not_reversible: "A reversal cannot itself be reversed.",
  // A booked loan's money (docs/product.md#loans): undoing it would leave the loan on the books.
  loan_disbursement_not_reversible: "A loan's disbursement cannot be reversed here: the loan is booked.",
  loan_servicing_not_reversible:
    "A loan's interest, payment or fee cannot be reversed here: the loan's balance follows from it. Correct it on the loan's page (Loans, in the back office).",
  batch_empty: "An import batch needs at least one transaction.",
  batch_too_large: "An import batch holds at most {limit} transactions.",
  balance_not_zero: "An account can be closed only with a zero balance and nothing pending.",
  overdraft_in_use: "The overdraft limit cannot be set below what the account already uses.",
  // The transfer service's (app/server/payments): what it checks before and around the ledger.
  not_your_account: "Please choose one of your accounts",
  own_account: "Cannot transfer to your own account",
  recipient_not_found: "Recipient not found",
  recipient_unavailable: "This recipient cannot receive transfers right now",
  // To US Bank to a linked account (docs/product.md#to-us-bank): not the member's, not verified, or removed.
  linked_account_unavailable: "Please choose one of your verified linked accounts",
  rate_limited: "Too many lookups. Please wait a few minutes and try again.",
  codes_rate_limited: "Too many codes requested. Please wait a few minutes and try again.",
  denied: "All transactions temporarily suspended",
  over_transfer_max: "The most you can send in one of your {what} is {max}",
  over_daily_limit: "This transfer would pass your daily limit of {max} for {what} ({left} left today)",
  no_rate: "Transfers in this currency are not available right now",
  otp_missing: "Please enter OTP",
  otp_invalid: "Invalid OTP",
  // The member's step-up codes, 10 wrong in 15 minutes (app/server/payments/step-up.server.ts).
  otp_locked:
    "Too many wrong codes. For your security, transfers and card services that need a code are locked for {wait}. We have emailed you.",
  // A card purchase's (app/server/cards/authorization.server.ts, docs/product.md#cards).
  card_not_found: "Card not found",
  card_locked: "The card is locked",
  card_blocked: "The card was reported lost or stolen and no longer works",
  card_expired: "The card has expired",
  over_card_daily_limit: "The purchase would pass the card's daily limit of {max} ({left} left today)",
  key_reused:
    "Your earlier transfer from this form went through (reference {reference}) with a different amount or recipient, so this one was not sent. Check your recent transactions, then send it again if you still need to.",
} as const;

export type RefusalCode = keyof typeof REFUSAL_MESSAGES;

/** What a message's `{name}` placeholders are filled with (a limit, an amount, a reference). */
export type RefusalDetails = Readonly<Record<string, string | number | undefined>>;

/** The message for a code, with its details filled in where the message names them. */
export function refusalMessage(code: RefusalCode, details: number | RefusalDetails = {}): string {
  const values: RefusalDetails = typeof details === "number" ? { limit: details } : details;
  return REFUSAL_MESSAGES[code].replace(/\{(\w+)\}/g, (_, name: string) => String(values[name] ?? ""));
}

/**
 * The ledger's answer when it says no: nothing was written. `subject_id` names the account or
 * transaction the refusal is about, `limit` the limit the message names, `batch_index` (a bulk
 * post) the transaction of the batch that was refused.
 */
export interface LedgerRefusal {
  ok: false;
  code: RefusalCode;
  message: string;
  subject_id?: number;
  limit?: number;
  batch_index?: number;
}

export function ledgerRefusal(code: RefusalCode, details: { limit?: number; subject_id?: number } = {}): LedgerRefusal {
  const refusal: LedgerRefusal = { ok: false, code, message: refusalMessage(code, details.limit) };
  if (details.subject_id !== undefined) refusal.subject_id = details.subject_id;
  if (details.limit !== undefined) refusal.limit = details.limit;
  return refusal;
}

/** What a ledger operation answers: its result (`ok: true`) or the refusal. */
export type LedgerAnswer<T> = (T & { ok: true }) | LedgerRefusal;

/**
 * What kind of "no" a service's refusal is. The service says what happened; the route chooses the
 * HTTP status for it (`refusalStatus`, app/server/http/form.server.ts), so no service speaks HTTP.
 */
export type RefusalKind =
  | "bad_input"
  /** Who is asking was not shown: a wrong password, code or passkey at sign-in. */
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "conflict"
  /** Well formed and allowed, but it cannot be done as asked (a change the system cannot apply itself). */
  | "unprocessable"
  | "too_large"
  /** Too many tries: `retry_after_s`, when the refusal has it, says how long until the next one may work. */
  | "too_many"
  /** Nothing wrong with the request, but it could not be done just now (a store failed): try again. */
  | "unavailable";

/**
 * A service's refusal as a value (docs/architecture.md#refusals). `ok: false` is the one marker
 * every answer uses, refusal or not; `field` names the form field the message belongs next to
 * (none: the whole form), `code` the reason a caller may branch on, `retry_after_s` (a `too_many`
 * refusal) the seconds until trying again may work.
 */
export interface Refusal<Code extends string = string> {
  ok: false;
  kind: RefusalKind;
  message: string;
  field?: string;
  code?: Code;
  retry_after_s?: number;
}

export function refusal<Code extends string = string>(
  kind: RefusalKind,
  message: string,
  extra: { field?: string; code?: Code; retry_after_s?: number } = {},
): Refusal<Code> {
  const answer: Refusal<Code> = { ok: false, kind, message };
  if (extra.field !== undefined) answer.field = extra.field;
  if (extra.code !== undefined) answer.code = extra.code;
  if (extra.retry_after_s !== undefined) answer.retry_after_s = extra.retry_after_s;
  return answer;
}

/** A refusal whose `code` is always there: for callers (an audit action, a page) that branch on it. */
export type CodedRefusal<Code extends string> = Refusal<Code> & { code: Code };

export function codedRefusal<Code extends string>(
  kind: RefusalKind,
  message: string,
  code: Code,
  extra: { field?: string; retry_after_s?: number } = {},
): CodedRefusal<Code> {
  return { ...refusal<Code>(kind, message, extra), code };
}
