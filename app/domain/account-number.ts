/**
 * Member account numbers (docs/product.md#account-numbers): ten digits, the first 1-9 so that the
 * number never loses a digit when someone's spreadsheet treats it as a number. Uniqueness is the
 * ledger's job (`generateAccountNumber` checks the database); this file only knows the shape.
 */
export const ACCOUNT_NUMBER_DIGITS = 10;

export function isValidAccountNumber(value: string): boolean {
  return /^[1-9][0-9]{9}$/.test(value);
}

/** A candidate number from a source of random integers in [0, max). */
export function randomAccountNumber(randomInt: (max: number) => number): string {
  let text = String(1 + randomInt(9));
  for (let i = 1; i < ACCOUNT_NUMBER_DIGITS; i++) text += String(randomInt(10));
  if (!isValidAccountNumber(text)) throw new Error(`randomInt produced an out-of-range digit: ${text}`);
  return text;
}

/**
 * Grouped 3-3-4 for reading aloud and copying by eye: "123 456 7890" (docs/product.md#dashboard).
 */
export function formatAccountNumber(value: string): string {
  if (!isValidAccountNumber(value)) throw new Error("formatAccountNumber needs a valid account number");
  return `${value.slice(0, 3)} ${value.slice(3, 6)} ${value.slice(6)}`;
}

/** Only the last four digits, for lists and notifications: "••••7890". */
export function maskAccountNumber(value: string): string {
  if (!isValidAccountNumber(value)) throw new Error("maskAccountNumber needs a valid account number");
  return `••••${value.slice(-4)}`;
}
