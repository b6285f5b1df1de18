import { z } from "zod";

/**
 * Text messages (docs/product.md#text-messages): the mobile number's form, the verification code's
 * rules and the words a text carries. The server enforces them; the page repeats them.
 */

/** E.164: a plus, a country code that does not start with 0, at most 15 digits in all. */
const E164 = /^\+[1-9]\d{7,14}$/;

export const SMS_MESSAGES = {
  number_invalid:
    "Please enter your mobile number in international format: + and the country code, then the number (+1 202 555 0143).",
  number_missing: "Please enter your mobile number",
  code_invalid: "Please enter the 6-digit code we texted you",
  code_wrong: "That code did not match. Check the text and try again.",
  code_expired: "That code has expired. Send a new code.",
  code_tries_used: "Too many wrong codes. Send a new code.",
  too_many_codes: "Too many codes requested. Please wait an hour and try again.",
  no_pending: "There is no number waiting to be confirmed. Add your number again.",
  not_offered: "Text messages are not offered.",
  members_only: "Only members get text messages.",
  demo: "The published demo sign-ins cannot add a mobile number: every visitor shares them.",
  no_number: "Add and confirm a mobile number first.",
} as const;

/** A verification code is valid this long, like the email codes (docs/product.md#second-factors). */
export const SMS_CODE_VALID_MS = 10 * 60_000;
/** Wrong codes allowed for one code; then it is void and a new one must be sent. */
export const SMS_CODE_TRIES = 5;
/** Codes texted to a member in an hour, at most: each costs money and could be abused to text a stranger. */
export const SMS_CODES_PER_HOUR = 3;
export const SMS_CODES_WINDOW_MS = 60 * 60_000;

/**
 * The number as typed ("+1 (202) 555-0143") in E.164 ("+12025550143"), or null. Spaces, dots,
 * dashes and brackets are allowed between the digits; the + and the country code are required, so
 * a number is never guessed to be American.
 */
export function parseE164(input: string): string | null {
  const trimmed = input.trim();
  if (!/^\+[0-9 ().-]+$/.test(trimmed)) return null;
  const compact = `+${trimmed.slice(1).replace(/[ ().-]/g, "")}`;
  return E164.test(compact) ? compact : null;
}

/** "+12025550143" -> "•••• 0143": all a page or the audit log shows of the number. */
export function maskPhoneNumber(e164: string): string {
  return `•••• ${e164.slice(-4)}`;
}

/** A notification's text message: who it is from, then the bell's title and body, cut to two SMS segments. */
export const SMS_TEXT_MAX = 306;
export function notificationText(from: string, title: string, body: string): string {
  const text = `${from}: ${title}. ${body}`;
  return text.length <= SMS_TEXT_MAX ? text : `${text.slice(0, SMS_TEXT_MAX - 1)}…`;
}

export function verificationText(from: string, code: string): string {
  return `${from}: ${code} is your code to confirm this number for text messages. It expires in 10 minutes. We never ask for it by phone.`;
}

/** The "Add a mobile number" form: the server checks it again (parseE164). */
export const smsNumberSchema = z.object({
  number: z
    .string({ error: SMS_MESSAGES.number_missing })
    .trim()
    .min(1, SMS_MESSAGES.number_missing)
    .max(30, SMS_MESSAGES.number_invalid)
    .refine((value) => parseE164(value) !== null, SMS_MESSAGES.number_invalid),
});

export const smsCodeSchema = z.object({
  code: z
    .string({ error: SMS_MESSAGES.code_invalid })
    .trim()
    .regex(/^\d{6}$/, SMS_MESSAGES.code_invalid),
});
