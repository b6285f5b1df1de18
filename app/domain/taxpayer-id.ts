import { z } from "zod";
import { findCountry } from "./countries";
import { MULTILINE_TEXT_MESSAGE, hasControlCharacters, plainText } from "./plain-text";

/**
 * The taxpayer identification number of the Customer Identification Program
 * (31 CFR 1020.220(a)(2)(i)(A)(4); docs/product.md#taxpayer-identification): for a US person an SSN
 * or an ITIN, for anyone else a passport number, alien identification card number or the number of
 * another government-issued photo ID, with its country of issuance. Only the form is checked here:
 * whether the number belongs to the applicant is staff's documentary or non-documentary verification.
 */
export { TIN_TYPES, TIN_TYPE_OPTIONS, type TinType } from "./taxpayer-id-kinds";
import type { TinType } from "./taxpayer-id-kinds";
import { TIN_TYPES } from "./taxpayer-id-kinds";

export const TIN_MESSAGES = {
  type_missing: "Please choose the kind of taxpayer number",
  missing: "Please enter the number",
  us_format: "Please enter 9 digits, for example 000-00-0000 with your own digits",
  ssn_area: "This is not a valid SSN: it cannot start with 000, 666 or 9",
  ssn_area_itin: "This is not a valid SSN: it cannot start with 9 (an ITIN does: choose ITIN)",
  group: "This is not a valid number: the middle two digits cannot be 00",
  serial: "This is not a valid number: the last four digits cannot be 0000",
  advertised: "This number was published as a sample and is never issued to anyone: please enter your own",
  itin_area: "An ITIN starts with 9 (an SSN does not: choose SSN)",
  itin_group: "This is not a valid ITIN: its middle two digits are 50–65, 70–88, 90–92 or 94–99",
  foreign_format: "Please enter the document number: 4 to 30 letters or digits (spaces and dashes allowed)",
  country_missing: "Please choose the country that issued the document",
} as const;

/**
 * Numbers the Social Security Administration says were printed in advertising or samples and are
 * never valid: 078-05-1120 (the wallet-insert card of 1938), 219-09-9999 (the SSA's own 1940
 * pamphlet), and 123-45-6789 (the usual sample in forms and advertising). The 987-65-4320 to
 * 987-65-4329 advertising block is already refused by its 9xx area.
 */
export const ADVERTISED_SSNS: readonly string[] = ["078051120", "219099999", "123456789"];

/** The digits of a US number as typed (spaces and dashes allowed), or null when it is not 9 digits. */
export function usTinDigits(typed: string): string | null {
  const compact = typed.replace(/[\s-]/g, "");
  return /^\d{9}$/.test(compact) ? compact : null;
}

/** The IRS's ITIN middle-digit ranges: 50–65, 70–88, 90–92, 94–99. */
export function isItinGroup(group: number): boolean {
  return (group >= 50 && group <= 65) || (group >= 70 && group <= 88) || (group >= 90 && group <= 92) || group >= 94;
}

/** Why 9 digits are not an SSN, or null when they are one in form. */
export function ssnProblem(digits: string): string | null {
  const area = Number(digits.slice(0, 3));
  if (digits.startsWith("9")) return TIN_MESSAGES.ssn_area_itin;
  if (area === 0 || area === 666) return TIN_MESSAGES.ssn_area;
  if (digits.slice(3, 5) === "00") return TIN_MESSAGES.group;
  if (digits.slice(5) === "0000") return TIN_MESSAGES.serial;
  if (ADVERTISED_SSNS.includes(digits)) return TIN_MESSAGES.advertised;
  return null;
}

/** Why 9 digits are not an ITIN, or null when they are one in form. */
export function itinProblem(digits: string): string | null {
  if (!digits.startsWith("9")) return TIN_MESSAGES.itin_area;
  if (!isItinGroup(Number(digits.slice(3, 5)))) return TIN_MESSAGES.itin_group;
  if (digits.slice(5) === "0000") return TIN_MESSAGES.serial;
  return null;
}

/** A foreign document number without its spaces and dashes, upper case. */
export function foreignIdCompact(typed: string): string {
  return typed.replace(/[\s-]/g, "").toUpperCase();
}

const FOREIGN_ID = /^[A-Za-z0-9](?:[A-Za-z0-9 -]{2,38})[A-Za-z0-9]$/;

export function foreignIdProblem(typed: string): string | null {
  const compact = foreignIdCompact(typed);
  if (!FOREIGN_ID.test(typed) || compact.length < 4 || compact.length > 30) return TIN_MESSAGES.foreign_format;
  return null;
}

export interface TaxpayerId {
  type: TinType;
  /** SSN and ITIN: the 9 digits; foreign: the number without spaces and dashes, upper case. */
  number: string;
  /** The issuing country (ISO 3166-1 alpha-2) of a foreign document; null for an SSN or ITIN. */
  country: string | null;
}

export type TinField = "type" | "number" | "country";

/**
 * Checks a taxpayer number as typed: the number in its stored form, or each problem with the
 * field it belongs next to.
 */
export function checkTaxpayerId(input: {
  type: unknown;
  number: unknown;
  country: unknown;
}): { ok: true; value: TaxpayerId } | { ok: false; problems: { field: TinField; message: string }[] } {
  const type = typeof input.type === "string" ? input.type : "";
  const typed = typeof input.number === "string" ? input.number.trim() : "";
  const country = typeof input.country === "string" ? input.country.trim().toUpperCase() : "";
  const problems: { field: TinField; message: string }[] = [];
  if (!(TIN_TYPES as readonly string[]).includes(type)) {
    problems.push({ field: "type", message: TIN_MESSAGES.type_missing });
    if (!typed) problems.push({ field: "number", message: TIN_MESSAGES.missing });
    return { ok: false, problems };
  }
  if (!typed) return { ok: false, problems: [{ field: "number", message: TIN_MESSAGES.missing }] };
  if (type === "foreign") {
    const problem = foreignIdProblem(typed);
    if (problem) problems.push({ field: "number", message: problem });
    if (!country || !findCountry(country)) problems.push({ field: "country", message: TIN_MESSAGES.country_missing });
    if (problems.length) return { ok: false, problems };
    return { ok: true, value: { type: "foreign", number: foreignIdCompact(typed), country } };
  }
  const digits = usTinDigits(typed);
  if (!digits) return { ok: false, problems: [{ field: "number", message: TIN_MESSAGES.us_format }] };
  const problem = type === "ssn" ? ssnProblem(digits) : itinProblem(digits);
  if (problem) return { ok: false, problems: [{ field: "number", message: problem }] };
  return { ok: true, value: { type: type as TinType, number: digits, country: null } };
}

/** The last four characters, kept beside the encrypted number for the masked display. */
export function tinLastFour(number: string): string {
  return number.slice(-4);
}

/** "•••-••-1234" for an SSN or ITIN, "••••1234" for a foreign document: never more than four characters. */
export function maskTin(type: TinType, last_four: string): string {
  return type === "foreign" ? `••••${last_four}` : `•••-••-${last_four}`;
}

/** The full number as staff read it once revealed: "123-45-6789" for an SSN or ITIN. */
export function formatTin(type: TinType, number: string): string {
  return type === "foreign" ? number : `${number.slice(0, 3)}-${number.slice(3, 5)}-${number.slice(5)}`;
}

export function tinTypeLabel(type: TinType): string {
  return type === "ssn" ? "SSN" : type === "itin" ? "ITIN" : "Government ID";
}

/** How staff verified the applicant's identity (31 CFR 1020.220(a)(2)(ii)), recorded with an approval. */
export const IDENTITY_METHODS = ["documentary", "non_documentary"] as const;
export type IdentityMethod = (typeof IDENTITY_METHODS)[number];
export const IDENTITY_METHOD_OPTIONS = [
  { value: "documentary", label: "Documentary: an unexpired government photo ID was examined" },
  {
    value: "non_documentary",
    label: "Non-documentary: checked against an independent source (credit bureau, public database, references)",
  },
] as const satisfies readonly { value: IdentityMethod; label: string }[];

export const DISCREPANCY_NOTE_MAX_CHARS = 1000;
export const IDENTITY_MESSAGES = {
  method_missing: "Record how identity was verified (documentary or non-documentary) before approving.",
  discrepancy_missing: "Say whether a discrepancy was found, and describe how it was resolved.",
  discrepancy_note_missing: "Describe the discrepancy and how it was resolved.",
  discrepancy_note_long: `Please use at most ${DISCREPANCY_NOTE_MAX_CHARS} characters`,
} as const;

/** The identity-verification record of an approval (31 CFR 1020.220(a)(3)(i)(B), (D)). */
export interface IdentityVerification {
  method: IdentityMethod;
  /** Null when no discrepancy was found; otherwise what it was and how it was resolved. */
  discrepancy: string | null;
}

/**
 * The review form's identity-verification part: `identity_method`, `discrepancy` ("none" or
 * "resolved") and `discrepancy_note`. Problems come with the field they belong next to.
 */
export function identityVerificationFromForm(
  read: (name: string) => unknown,
): { ok: true; value: IdentityVerification } | { ok: false; problems: { field: string; message: string }[] } {
  const method = read("identity_method");
  const discrepancy = read("discrepancy");
  const note = typeof read("discrepancy_note") === "string" ? (read("discrepancy_note") as string).trim() : "";
  const problems: { field: string; message: string }[] = [];
  if (method !== "documentary" && method !== "non_documentary")
    problems.push({ field: "identity_method", message: IDENTITY_MESSAGES.method_missing });
  if (discrepancy !== "none" && discrepancy !== "resolved")
    problems.push({ field: "discrepancy", message: IDENTITY_MESSAGES.discrepancy_missing });
  else if (discrepancy === "resolved" && !note)
    problems.push({ field: "discrepancy_note", message: IDENTITY_MESSAGES.discrepancy_note_missing });
  if (hasControlCharacters(note, { multiline: true }))
    problems.push({ field: "discrepancy_note", message: MULTILINE_TEXT_MESSAGE });
  else if (note.length > DISCREPANCY_NOTE_MAX_CHARS)
    problems.push({ field: "discrepancy_note", message: IDENTITY_MESSAGES.discrepancy_note_long });
  if (problems.length) return { ok: false, problems };
  return {
    ok: true,
    value: { method: method as IdentityMethod, discrepancy: discrepancy === "resolved" ? note : null },
  };
}

/** Staff revealing a full taxpayer number must say why (docs/product.md#taxpayer-identification). */
export const REVEAL_REASON_MIN_CHARS = 10;
export const REVEAL_REASON_MAX_CHARS = 500;
export const REVEAL_REASON_MESSAGE = `Please state why you need the full number (at least ${REVEAL_REASON_MIN_CHARS} characters)`;

/** The reveal form: which party's number, and the reason that goes into the audit log. */
export const RevealTinSchema = z.object({
  party: z.enum(["member", "joint"], "Please choose whose number to reveal"),
  reason: plainText({ missing: REVEAL_REASON_MESSAGE, multiline: true })
    .min(REVEAL_REASON_MIN_CHARS, REVEAL_REASON_MESSAGE)
    .max(REVEAL_REASON_MAX_CHARS, `Please use at most ${REVEAL_REASON_MAX_CHARS} characters`),
});
