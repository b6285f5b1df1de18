/**
 * Account numbers at other banks (docs/product.md#limits). The rules are deliberately loose shapes:
 * only the receiving bank knows its own numbers, so we catch typing slips (a letter, a digit too
 * few) without refusing real accounts.
 */
export const US_ACCOUNT_NUMBER_MESSAGE = "Please enter a valid account number";
export const INTERNATIONAL_ACCOUNT_NUMBER_MESSAGE = "Invalid account number";

/**
 * White space removed: statements print account numbers in groups. Nothing else is removed, so a
 * dash or a dot still makes the number invalid instead of being silently dropped.
 */
export function normalizeExternalAccountNumber(text: string): string {
  return text.replace(/\s+/g, "");
}

/**
 * US (ACH) account numbers: 8 to 17 digits (docs/product.md#limits; NACHA's DFI account field holds
 * 17).
 */
export function isValidUsAccountNumber(text: string): boolean {
  return /^\d{8,17}$/.test(normalizeExternalAccountNumber(text));
}

/** International account numbers: 8 to 34 letters and digits (34 is the longest an IBAN can be). */
export function isValidInternationalAccountNumber(text: string): boolean {
  return /^[A-Za-z0-9]{8,34}$/.test(normalizeExternalAccountNumber(text));
}
