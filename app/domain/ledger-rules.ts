import { ledgerRefusal, type LedgerAnswer, type LedgerRefusal } from "~/domain/refusals";

/**
 * The ledger's rules as pure functions: given the locked accounts and a request, say what would
 * change, or refuse. A refusal is returned as a value (`{ ok: false, code }`, app/domain/refusals.ts);
 * a broken invariant (a bug in the caller) throws through `assert`. No I/O here, so every rule and
 * every refusal is unit-tested directly, and `app/server/ledger/ledger.server.ts` keeps the control flow (lock,
 * plan, write) in one place.
 *
 * Money is `number` cents in TypeScript, asserted to be safe integers wherever it enters (the
 * database's bigint arrives as a string from node-postgres and as a number or bigint from
 * PGlite: `toCents` is the one place it is normalized). Amounts are capped far below 2^53 so
 * that no sum the ledger computes can lose a cent.
 */

/** $100 billion: far beyond any credit union's single posting, far below 2^53 cents. */
export const AMOUNT_CENTS_MAX = 10_000_000_000_000;
export const ENTRIES_PER_TRANSACTION_MAX = 50;
export const BATCH_TRANSACTIONS_MAX = 10_000;
export const HISTORY_PAGE_LIMIT_MAX = 100;
export const TEXT_FIELD_LENGTH_MAX = 500;
export const KEY_LENGTH_MAX = 200;

export const TRANSACTION_KINDS = [
  "transfer", // between a member's own accounts
  "member_transfer", // to another member
  "ach_out",
  "ach_in",
  "wire_out",
  "bill_payment",
  "mobile_deposit",
  "deposit",
  "withdrawal",
  "card_payment",
  "fee",
  "interest",
  "adjustment",
  "opening_deposit",
  "import",
  // Regulation E error resolution (docs/product.md#disputes): a disputed amount credited to the
  // member (provisionally, or finally when the error is found), and the debit of a provisional
  // credit when no error was found. Each has its own kind, so statements and the audit read them apart.
  "dispute_credit",
  "dispute_credit_reversal",
  // A booked loan's money paid into the member's checking from its receivable (docs/product.md#loans).
  "loan_disbursement",
  // A line of credit's draw: the line's receivable debited, the member's account credited
  // (docs/product.md#lines-of-credit).
  "loan_draw",
  // Servicing (docs/product.md#loan-servicing): a night's interest accrued, a member's payment on
  // the loan, a late fee charged to it.
  "loan_interest",
  "loan_payment",
  "loan_fee",
  // A share-secured loan's hold on the pledged savings (docs/product.md#share-secured-loans): only
  // ever pending, lowered and released by the loan's servicing, never settled.
  "share_pledge",
  // Staff's corrections of a booked loan (docs/product.md#booked-loans-staff): a late fee waived,
  // an interest accrual or a payment reversed, each by the loan's own action, never by Reverse.
  "loan_fee_waiver",
  "loan_correction",
  "reversal", // written only by reverseTransaction
] as const;
export type TransactionKind = (typeof TRANSACTION_KINDS)[number];
/** A loan's servicing is kept in step with the loan (its interest, fees, what was paid): never reversed alone. */
const LOAN_SERVICING_KINDS: ReadonlySet<string> = new Set([
  "loan_interest",
  "loan_payment",
  "loan_fee",
  "loan_fee_waiver",
  "loan_correction",
]);
/** What a caller may post or hold: everything but a reversal. */
export type PostingKind = Exclude<TransactionKind, "reversal">;

/**
 * Transfers a member makes out of savings, counted per calendar month against the limit
 * (docs/product.md#transfer-limits, "Regulation D style"). Staff corrections, fees and
 * reversals are not the member's transfers. A hold counts when it is placed (the member asked
 * for the transfer then); releasing it or reversing a transfer does not give the count back:
 * staff can reset it (docs/product.md#reset-transfer-counts).
 */
export const SAVINGS_LIMITED_KINDS: ReadonlySet<TransactionKind> = new Set([
  "transfer",
  "member_transfer",
  "ach_out",
  "wire_out",
  "bill_payment",
]);

export type AccountOwner = "member" | "institution";
export type AccountStatus = "active" | "frozen" | "closed";

/** An account as read under its row lock: what the rules decide on. */
export interface AccountState {
  id: number;
  owner: AccountOwner;
  type: string;
  status: AccountStatus;
  posted_cents: number;
  held_cents: number;
  overdraft_limit_cents: number;
  transfer_count: number;
  transfer_count_month: string | null;
}

export interface EntryInput {
  account_id: number;
  /** Signed: positive credits the account, negative debits it. */
  amount_cents: number;
}

/** What one posting does to one account's cached figures. */
export interface AccountChange {
  account_id: number;
  posted_delta_cents: number;
  held_delta_cents: number;
  /** Set when the posting counts as a transfer out of savings. */
  transfer_count?: { count: number; month: string };
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`ledger assertion failed: ${message}`);
}

/** The one place database integers become TypeScript numbers. */
export function toCents(value: unknown): number {
  const cents =
    typeof value === "number"
      ? value
      : typeof value === "bigint"
        ? Number(value)
        : typeof value === "string" && /^-?\d+$/.test(value)
          ? Number(value)
          : Number.NaN;
  assert(Number.isSafeInteger(cents), `not a safe integer of cents: ${String(value)}`);
  return cents;
}

/** Ids are bigint in the database, numbers here (bigserial stays far below 2^53). */
export const toId = toCents;

/**
 * The business date (YYYY-MM-DD) at `now` in the institution's time zone: a transfer made at
 * 9 pm in New York on October 31 belongs to October, not to November as it would in UTC.
 */
export function businessDate(time_zone: string, now: Date = new Date()): string {
  let format = dateFormats.get(time_zone);
  // en-CA writes dates as YYYY-MM-DD. A formatter is costly to build: one per zone, kept.
  if (!format)
    dateFormats.set(
      time_zone,
      (format = new Intl.DateTimeFormat("en-CA", {
        timeZone: time_zone,
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
      })),
    );
  return format.format(now);
}
const dateFormats = new Map<string, Intl.DateTimeFormat>();

export function assertEffectiveDate(value: string): void {
  assert(
    /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)),
    `bad effective date ${value}`,
  );
}

/** "2026-11-22" -> "2026-11": the period the savings transfer count belongs to. */
export function monthOf(effective_date: string): string {
  return effective_date.slice(0, 7);
}

export function assertText(
  value: string | null | undefined,
  what: string,
  required: boolean,
  length_max: number = TEXT_FIELD_LENGTH_MAX,
): void {
  if (value === null || value === undefined) {
    assert(!required, `${what} is required`);
    return;
  }
  assert(typeof value === "string", `${what} must be text`);
  assert(!required || value.length > 0, `${what} must not be empty`);
  assert(value.length <= length_max, `${what} is longer than ${length_max} characters`);
}

/** Shape of a transaction's entries: two or more, whole cents, one per account, summing to zero. */
export function checkEntries(entries: readonly EntryInput[]): LedgerRefusal | null {
  if (entries.length < 2) return ledgerRefusal("too_few_entries");
  if (entries.length > ENTRIES_PER_TRANSACTION_MAX)
    return ledgerRefusal("too_many_entries", { limit: ENTRIES_PER_TRANSACTION_MAX });
  const seen = new Set<number>();
  let total_cents = 0;
  for (const entry of entries) {
    assert(Number.isSafeInteger(entry.account_id) && entry.account_id > 0, `bad account id ${entry.account_id}`);
    const amount = entry.amount_cents;
    if (!Number.isSafeInteger(amount) || amount === 0 || Math.abs(amount) > AMOUNT_CENTS_MAX)
      return ledgerRefusal("invalid_amount");
    if (seen.has(entry.account_id)) return ledgerRefusal("same_account", { subject_id: entry.account_id });
    seen.add(entry.account_id);
    total_cents += amount;
  }
  if (total_cents !== 0) return ledgerRefusal("unbalanced");
  return null;
}

/**
 * The two entries of a plain transfer of a positive amount from one account to another. The
 * caller has already refused a bad amount or the same account (the form schemas do, and
 * `checkEntries` does again when the entries are posted), so either here is a bug.
 */
export function transferEntries(from_account_id: number, to_account_id: number, amount_cents: number): EntryInput[] {
  assert(
    Number.isSafeInteger(amount_cents) && amount_cents > 0 && amount_cents <= AMOUNT_CENTS_MAX,
    `bad transfer amount ${amount_cents}`,
  );
  assert(from_account_id !== to_account_id, `transfer from account ${from_account_id} to itself`);
  return [
    { account_id: from_account_id, amount_cents: -amount_cents },
    { account_id: to_account_id, amount_cents },
  ];
}

/**
 * Frozen and closed accounts take part in no new posting ("Transaction Blocked",
 * docs/product.md#refusals), but for two that complete what was already owed before the freeze:
 * - a frozen account is still credited the dividend it earned (`interest`, which only the monthly
 *   dividend run posts): refused, a month the account spent frozen would never be paid (the run
 *   pays the month just ended) and its statement would lack the dividend (docs/product.md#dividends);
 * - a card purchase authorized before the freeze still settles (its held amount posts): the card
 *   network has paid the merchant and the credit union owes the network; refused, the hold would
 *   lapse and the money go back to the member (docs/product.md#cards).
 * A freeze stops what is done with the member's money from then on, not what was already done.
 */
export function checkAccountOpen(
  account: AccountState,
  posting?: { kind: TransactionKind; amount_cents: number; settles_hold?: boolean },
): LedgerRefusal | null {
  const earned_dividend = posting?.kind === "interest" && posting.amount_cents > 0;
  const card_settlement = posting?.kind === "card_payment" && posting.settles_hold === true;
  if (account.status === "frozen" && !earned_dividend && !card_settlement)
    return ledgerRefusal("account_frozen", { subject_id: account.id });
  if (account.status === "closed") return ledgerRefusal("account_closed", { subject_id: account.id });
  return null;
}

/** Available to spend: current minus held debits, plus any overdraft (docs/product.md#balances). */
export function spendableCents(account: AccountState): number {
  return account.posted_cents - account.held_cents + account.overdraft_limit_cents;
}

/** The invariant the database also checks: no member account below its overdraft limit. */
export function assertAccountState(account: AccountState): void {
  assert(account.held_cents >= 0, `account ${account.id} holds a negative amount`);
  assert(account.overdraft_limit_cents >= 0, `account ${account.id} has a negative overdraft limit`);
  assert(account.owner !== "member" || spendableCents(account) >= 0, `member account ${account.id} is below its limit`);
}

/** The locked accounts of `entries`, in entry order, or the refusal naming one that is missing. */
function accountsOf(
  entries: readonly EntryInput[],
  accounts: ReadonlyMap<number, AccountState>,
): Array<{ entry: EntryInput; account: AccountState }> | LedgerRefusal {
  const touched: Array<{ entry: EntryInput; account: AccountState }> = [];
  for (const entry of entries) {
    const account = accounts.get(entry.account_id);
    if (!account) return ledgerRefusal("account_not_found", { subject_id: entry.account_id });
    touched.push({ entry, account });
  }
  return touched;
}

/** What a planned posting does to the accounts' cached figures. */
export type Plan = LedgerAnswer<{ changes: AccountChange[] }>;

/**
 * A new transaction, posted at once or held (pending): checks every rule and returns the
 * changes to the accounts' cached figures. Order of refusals: a blocked account first (the
 * member must see why nothing can move), then the savings limit, then the money.
 */
export function planNewTransaction(
  request: {
    kind: TransactionKind;
    status: "posted" | "pending";
    entries: readonly EntryInput[];
    effective_date: string;
  },
  accounts: ReadonlyMap<number, AccountState>,
  savings_transfers_per_month: number,
): Plan {
  const malformed = checkEntries(request.entries);
  if (malformed) return malformed;
  const touched = accountsOf(request.entries, accounts);
  if (!Array.isArray(touched)) return touched;
  for (const { entry, account } of touched) {
    const blocked = checkAccountOpen(account, { kind: request.kind, amount_cents: entry.amount_cents });
    if (blocked) return blocked;
  }

  const changes: AccountChange[] = [];
  for (const { entry, account } of touched) {
    const change: AccountChange = { account_id: account.id, posted_delta_cents: 0, held_delta_cents: 0 };
    const debit = entry.amount_cents < 0;
    if (request.status === "posted") change.posted_delta_cents = entry.amount_cents;
    // A pending credit changes nothing yet: money on its way in is not available
    // (docs/product.md#balances).
    else if (debit) change.held_delta_cents = -entry.amount_cents;

    if (debit && account.type === "savings" && SAVINGS_LIMITED_KINDS.has(request.kind)) {
      const count = nextTransferCount(account, request.effective_date, savings_transfers_per_month);
      if (!count.ok) return count;
      change.transfer_count = { count: count.count, month: count.month };
    }
    if (change.posted_delta_cents !== 0 || change.held_delta_cents !== 0 || change.transfer_count) changes.push(change);
  }
  for (const { entry, account } of touched) {
    if (entry.amount_cents < 0 && account.owner === "member" && spendableCents(account) + entry.amount_cents < 0) {
      return ledgerRefusal("insufficient_funds", { subject_id: account.id });
    }
  }
  return { ok: true, changes };
}

/** The savings transfer count after one more transfer, or the limit refusal. */
export function nextTransferCount(
  account: AccountState,
  effective_date: string,
  savings_transfers_per_month: number,
): LedgerAnswer<{ count: number; month: string }> {
  // A back-dated posting counts in the account's latest month, so it cannot reset that month.
  const stored = account.transfer_count_month;
  const month = stored !== null && stored > monthOf(effective_date) ? stored : monthOf(effective_date);
  const used = stored === month ? account.transfer_count : 0;
  if (used >= savings_transfers_per_month) {
    return ledgerRefusal("transfer_limit", { limit: savings_transfers_per_month, subject_id: account.id });
  }
  return { ok: true, count: used + 1, month };
}

/** Settling a hold of `kind` posts it: held debits become posted, pending credits arrive. */
export function planSettle(
  entries: readonly EntryInput[],
  accounts: ReadonlyMap<number, AccountState>,
  kind?: TransactionKind,
): Plan {
  const touched = accountsOf(entries, accounts);
  if (!Array.isArray(touched)) return touched;
  for (const { account, entry } of touched) {
    const blocked = checkAccountOpen(
      account,
      kind ? { kind, amount_cents: entry.amount_cents, settles_hold: true } : undefined,
    );
    if (blocked) return blocked;
  }
  const changes = touched.map(({ entry }) => ({
    account_id: entry.account_id,
    posted_delta_cents: entry.amount_cents,
    held_delta_cents: entry.amount_cents < 0 ? entry.amount_cents : 0,
  }));
  return { ok: true, changes };
}

/**
 * Releasing a hold (it failed or was cancelled) gives the held money back. Allowed on a frozen
 * or closed account: it only returns money to its owner.
 */
export function planRelease(entries: readonly EntryInput[]): AccountChange[] {
  return entries
    .filter((entry) => entry.amount_cents < 0)
    .map((entry) => ({ account_id: entry.account_id, posted_delta_cents: 0, held_delta_cents: entry.amount_cents }));
}

/** Only a posted transaction that is not itself a reversal can be reversed, once. */
export function checkReversible(transaction: { kind: string; status: string }): LedgerRefusal | null {
  if (transaction.kind === "reversal") return ledgerRefusal("reversal_not_reversible");
  if (transaction.kind === "loan_disbursement" || transaction.kind === "loan_draw")
    return ledgerRefusal("loan_disbursement_not_reversible");
  if (LOAN_SERVICING_KINDS.has(transaction.kind)) return ledgerRefusal("loan_servicing_not_reversible");
  if (transaction.status === "reversed") return ledgerRefusal("already_reversed");
  if (transaction.status !== "posted") return ledgerRefusal("not_posted");
  return null;
}

export function reversedEntries(entries: readonly EntryInput[]): EntryInput[] {
  return entries.map((entry) => ({ account_id: entry.account_id, amount_cents: -entry.amount_cents }));
}

/** Applies changes to in-memory account states (a batch plans each posting on the last's result). */
export function applyChanges(accounts: Map<number, AccountState>, changes: readonly AccountChange[]): void {
  for (const change of changes) {
    const account = accounts.get(change.account_id);
    assert(account, `change for an unlocked account ${change.account_id}`);
    account.posted_cents += change.posted_delta_cents;
    account.held_cents += change.held_delta_cents;
    if (change.transfer_count) {
      account.transfer_count = change.transfer_count.count;
      account.transfer_count_month = change.transfer_count.month;
    }
    assertAccountState(account);
  }
}
