/**
 * The one vocabulary of refusals: a stable code for each reason the ledger says no, and the one
 * table from code to the message a member or staff member is shown. Callers branch on the code;
 * the words live only here (a message with `{limit}` gets the limit filled in by
 * `refusalMessage`). Pure, so the ledger, the transfer service, the form schemas and the screens
 * all read the same words.
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

/** The message for a code, with its limit filled in where the message names one. */
export function refusalMessage(code: RefusalCode, limit?: number): string {
  return REFUSAL_MESSAGES[code].replace("{limit}", String(limit ?? ""));
}
