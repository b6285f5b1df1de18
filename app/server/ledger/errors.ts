/**
 * A refusal is the ledger saying no for a reason a member or staff member can act on: a
 * transfer "fails for a real reason that is shown" (docs/product.md#members-see-the-truth). It
 * is not a crash: callers show `message` and branch on `code`, which is stable. Programming
 * errors (a bad kind, a malformed date) are plain Errors.
 */
export const REFUSAL_MESSAGES = {
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
  batch_empty: "An import batch needs at least one transaction.",
  batch_too_large: "An import batch holds at most {limit} transactions.",
  balance_not_zero: "An account can be closed only with a zero balance and nothing pending.",
  overdraft_in_use: "The overdraft limit cannot be set below what the account already uses.",
} as const;

export type RefusalCode = keyof typeof REFUSAL_MESSAGES;

export class LedgerRefusal extends Error {
  readonly code: RefusalCode;
  /** The account or transaction the refusal is about, when there is one. */
  readonly subject_id: number | undefined;
  /** In a bulk post: the position of the transaction that was refused (nothing was posted). */
  batch_index: number | undefined;

  constructor(code: RefusalCode, details: { limit?: number; subject_id?: number } = {}) {
    super(REFUSAL_MESSAGES[code].replace("{limit}", String(details.limit ?? "")));
    this.name = "LedgerRefusal";
    this.code = code;
    this.subject_id = details.subject_id;
  }
}

export function isLedgerRefusal(error: unknown): error is LedgerRefusal {
  return error instanceof LedgerRefusal;
}
