import { z } from "zod";
import { addCalendarDays } from "./payment-dates";

/**
 * Electronic delivery consent (E-SIGN, 15 U.S.C. 7001(c); docs/product.md#electronic-delivery):
 * the rules that need no database. The member shows they can open a PDF by typing the short code
 * printed in a sample PDF; a change to a disclosure is announced ahead of its effective date where
 * a regulation says so.
 */

/**
 * The sample code's letters: no 0/O, 1/I/L, 2/Z, 5/S or 8/B, so a code read off a screen is typed
 * right the first time.
 */
export const SAMPLE_CODE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679";
export const SAMPLE_CODE_LENGTH = 6;
/** How long one sample PDF's code is accepted: long enough to find the downloaded file. */
export const SAMPLE_CODE_MINUTES = 30;

/** A code from random bytes (one byte a letter; the small bias of 256 % 25 does not matter for a reading check). */
export function sampleCodeFrom(bytes: Uint8Array): string {
  if (bytes.length < SAMPLE_CODE_LENGTH) throw new Error("not enough random bytes for a sample code");
  let code = "";
  for (let i = 0; i < SAMPLE_CODE_LENGTH; i++) code += SAMPLE_CODE_ALPHABET[bytes[i]! % SAMPLE_CODE_ALPHABET.length];
  return code;
}

/** What the member typed, as a code: spaces and dashes dropped, upper case. */
export function normalizeSampleCode(typed: string): string {
  return typed.replace(/[\s-]/g, "").toUpperCase();
}

export const SAMPLE_CODE_MESSAGES = {
  empty: "Please type the code shown in the sample PDF.",
  shape: `The code is ${SAMPLE_CODE_LENGTH} letters and numbers, as printed in the sample PDF.`,
  wrong: "That is not the code in the sample PDF. Please open the sample again and type the code it shows.",
  expired: "That sample has expired. Please open the sample PDF again and type its new code.",
  agree: "Please tick the box to agree to electronic delivery.",
} as const;

/** The consent form: the code from the sample PDF and the agreement box. */
export const consentSchema = z.object({
  code: z
    .string({ error: SAMPLE_CODE_MESSAGES.empty })
    .transform(normalizeSampleCode)
    .pipe(
      z
        .string()
        // An empty field gets one message, not also the shape's.
        .min(1, { error: SAMPLE_CODE_MESSAGES.empty, abort: true })
        .regex(new RegExp(`^[${SAMPLE_CODE_ALPHABET}]{${SAMPLE_CODE_LENGTH}}$`), SAMPLE_CODE_MESSAGES.shape),
    ),
  agree: z.literal("yes", { error: SAMPLE_CODE_MESSAGES.agree }),
});

/** The disclosures the institution keeps as versioned documents in its profile. */
export const DISCLOSURE_KINDS = [
  "esign",
  "account_agreement",
  "truth_in_savings",
  "funds_availability",
  "reg_e",
  "privacy",
] as const;
export type DisclosureKind = (typeof DISCLOSURE_KINDS)[number];

/**
 * How many days before a change takes effect the member must be told:
 * - Regulation E, 12 CFR 1005.8(a): 21 days before a change in terms that increases fees, the
 *   consumer's liability, limits the types, amounts or frequency of transfers.
 * - Truth in Savings (NCUA 12 CFR 707.5(a), the CFPB's 12 CFR 1030.5(a)): 30 days before a change
 *   that may reduce the yield or adversely affect the member.
 * - Regulation CC, 12 CFR 229.18(e): 30 days before a change in the funds availability policy
 *   (a change that makes funds available sooner may be told within 30 days after).
 * - The others: no advance period is set by a rule, so the notice goes out when the version changes
 *   (the privacy notice's revised-notice rule, 12 CFR 1016.8, requires it before sharing changes).
 * We send every change this many days ahead, whether or not it is adverse, so no change is late.
 */
export const NOTICE_DAYS_AHEAD: Record<DisclosureKind, number> = {
  esign: 0,
  account_agreement: 0,
  truth_in_savings: 30,
  funds_availability: 30,
  reg_e: 21,
  privacy: 0,
};

/** The rule behind each notice period, named beside it. */
export const NOTICE_RULES: Record<DisclosureKind, string | null> = {
  esign: null,
  account_agreement: null,
  truth_in_savings: "12 CFR 1030.5(a)",
  funds_availability: "12 CFR 229.18(e)",
  reg_e: "12 CFR 1005.8(a)",
  privacy: null,
};

export { addCalendarDays };

/**
 * Whether a notice sent on `sent_on` tells the member in time for a version effective on
 * `effective_on`: at least the kind's days ahead.
 */
export function noticeInTime(kind: DisclosureKind, sent_on: string, effective_on: string): boolean {
  return addCalendarDays(sent_on, NOTICE_DAYS_AHEAD[kind]) <= effective_on;
}

/**
 * The day a new version first seen on `announced_on` takes effect: the profile's date, or the
 * first day the rule's notice period allows when the profile's is sooner.
 */
export function changeTakesEffectOn(kind: DisclosureKind, announced_on: string, profile_effective_on: string): string {
  const earliest = addCalendarDays(announced_on, NOTICE_DAYS_AHEAD[kind]);
  return profile_effective_on < earliest ? earliest : profile_effective_on;
}

export type DeliveryChoice = "consented" | "withdrawn" | "declined";

/**
 * How a member gets statements, notices and disclosures, from their latest choice: electronic only
 * after consent (7001(c)(1)); paper when they withdrew, declined or have not answered yet.
 */
export function deliveryOf(latest: DeliveryChoice | null): "electronic" | "paper" {
  return latest === "consented" ? "electronic" : "paper";
}
