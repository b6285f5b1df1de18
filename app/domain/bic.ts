/**
 * SWIFT/BIC codes (ISO 9362) for international wires (docs/product.md#international: 8 or 11
 * characters). A BIC has no check digit, so the best we can do is its shape: 4-letter bank
 * code, the country (a real ISO 3166 code, which catches most transposed letters), a 2-character
 * location and an optional 3-character branch ("XXX" is the head office).
 */
import { findCountry } from "./countries";

export const BIC_MESSAGE = "Invalid SWIFT/BIC code";

/**
 * Upper case with white space removed: people paste "deut de ff 500" from statements. Removing
 * inner spaces too is safe because a BIC never contains one.
 */
export function normalizeBic(text: string): string {
  return text.replace(/\s+/g, "").toUpperCase();
}

export function isValidBic(text: string): boolean {
  const match = /^[A-Z]{4}([A-Z]{2})[A-Z0-9]{2}(?:[A-Z0-9]{3})?$/.exec(normalizeBic(text));
  return match !== null && findCountry(match[1]!) !== undefined;
}
