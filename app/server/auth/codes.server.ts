import crypto from "node:crypto";
import { keyedHash, sameHash } from "~/server/security/crypto.server";

/**
 * One-time codes (docs/product.md#second-factors): 6 digits, from a cryptographic source, stored
 * only as keyed hashes. The hash is bound to its purpose and to the member, so a stored hash
 * matches one code for one person and nothing else.
 */
export const CODE_DIGITS = 6;
export const CODE_PATTERN = /^\d{6}$/;

/** A uniformly random 6-digit code, leading zeros kept. */
export function generateCode(): string {
  return crypto
    .randomInt(0, 10 ** CODE_DIGITS)
    .toString()
    .padStart(CODE_DIGITS, "0");
}

export type CodePurpose = "email-sign-in" | "staff-sign-in" | "totp-used";

export function hashCode(purpose: CodePurpose, subject: string, code: string, session_secret?: string): string {
  return keyedHash(`code:${purpose}`, `${subject}\u0000${code}`, session_secret);
}

export function codeMatches(
  stored_hash: string,
  purpose: CodePurpose,
  subject: string,
  code: string,
  session_secret?: string,
): boolean {
  if (!CODE_PATTERN.test(code)) return false;
  return sameHash(stored_hash, hashCode(purpose, subject, code, session_secret));
}
