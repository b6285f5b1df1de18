/**
 * How account and card numbers are shown (account cards, lists, Cards; card numbers
 * shown masked: docs/product.md#personal-data-guarded). Display only: these never decide whether a
 * number is valid for money to move, they only refuse input that is not a number at all so a bug
 * cannot print garbage.
 */

/** Four bullets and a space: wide enough to read as "hidden", the same for accounts and cards. */
const MASK = "•••• ";

/** "1234567890" -> "123 456 7890": grouped 3-3-4 for reading aloud and copying by eye. */
export function groupAccountNumber(account_number: string): string {
  if (!/^\d{10}$/.test(account_number)) throw new RangeError("groupAccountNumber needs a 10-digit account number");
  return `${account_number.slice(0, 3)} ${account_number.slice(3, 6)} ${account_number.slice(6)}`;
}

/** "1234567890" -> "•••• 7890". */
export function maskAccountNumber(account_number: string): string {
  if (!/^\d{10}$/.test(account_number)) throw new RangeError("maskAccountNumber needs a 10-digit account number");
  return MASK + account_number.slice(-4);
}

/**
 * "4111 1111 1111 1111" -> "•••• 1111". Spaces and dashes are ignored so that a number stored in
 * print form masks the same; card numbers (ISO/IEC 7812) are 12 to 19 digits.
 */
export function maskCardNumber(card_number: string): string {
  const digits = card_number.replace(/[\s-]/g, "");
  if (!/^\d{12,19}$/.test(digits)) throw new RangeError("maskCardNumber needs a 12- to 19-digit card number");
  return MASK + digits.slice(-4);
}

/** A member account named for a person: "Checking •••• 7890" (savings; anything else is the credit card). */
export function accountLabel(account: { type: string; account_number: string }): string {
  const type = account.type === "checking" ? "Checking" : account.type === "savings" ? "Savings" : "Credit card";
  return `${type} ${maskAccountNumber(account.account_number)}`;
}

/** An outside bank's account number (8 to 17 digits), masked to its last four. */
export function maskExternal(account_number: string): string {
  return `••${account_number.slice(-4)}`;
}

/** The reference a member and staff quote for a ledger transaction: "MU00000042". */
export function referenceNumber(transaction_id: number): string {
  return `MU${String(transaction_id).padStart(8, "0")}`;
}

/** The transaction id of a reference a person typed ("mu00000123" -> 123), or null. */
export function parseReferenceNumber(text: string): number | null {
  const match = /^MU(\d{1,15})$/i.exec(text.trim());
  return match ? Number(match[1]) : null;
}
