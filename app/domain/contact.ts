import { z } from "zod";
import { plainText } from "./plain-text";

/**
 * The public contact form (docs/product.md#contact): one schema, checked by the server on every
 * post and repeated in the browser for quick feedback. Messages are written for the visitor, next
 * to the field they are about.
 */

export const CONTACT_SUBJECTS = [
  { value: "general", label: "General Inquiry" },
  { value: "account", label: "Account Support" },
  { value: "loan", label: "Loans" },
  { value: "technical", label: "Technical Support" },
] as const;

export type ContactSubject = (typeof CONTACT_SUBJECTS)[number]["value"];
const SUBJECT_VALUES = CONTACT_SUBJECTS.map((s) => s.value) as [ContactSubject, ...ContactSubject[]];

export const PREFERRED_CONTACTS = [
  { value: "email", label: "Email" },
  { value: "phone", label: "Phone" },
] as const;
export type PreferredContact = (typeof PREFERRED_CONTACTS)[number]["value"];

export const CONTACT_NAME_MAX_CHARS = 100;
/** RFC 5321 limits a forward path to 256 octets, so an address is at most 254 characters. */
export const CONTACT_EMAIL_MAX_CHARS = 254;
/** Room for "+1 (555) 010-4400 ext. 1234"; E.164 numbers have at most 15 digits. */
export const CONTACT_PHONE_MAX_CHARS = 30;
export const CONTACT_MESSAGE_MAX_CHARS = 5000;

/** The name of the honeypot field: hidden from people, filled in by careless bots. */
export const CONTACT_HONEYPOT_FIELD = "website";

/** The refusal's words when an address sent its quota; the page adds how long to wait and how else to reach us. */
export const CONTACT_RATE_LIMITED = "Too many messages from your connection";

/** Opening words for a meeting request (`/schedule` -> `/contact?subject=general&meeting=1`). */
export const MEETING_MESSAGE_START = "I would like to schedule a meeting with an advisor to discuss: ";

// Control characters (other than the line breaks a message may have) have no business in a
// name or an address, and would only make the back office harder to read (plainText, shared by
// every form that stores text; the contact form words its own messages). Spaces only in a phone
// number: a tab or line break is a control character too.
const PHONE_CHARS = /^[0-9+(). -]*(?:(?:ext\.?|x) *\d{1,6})?$/i;

const requiredText = (empty: string, control_message?: string, multiline = false) =>
  plainText({ missing: empty, message: control_message, multiline }).min(1, empty);

export const ContactMessageSchema = z
  .object({
    name: requiredText("Enter your name.", "Your name can only contain letters, spaces and punctuation.").max(
      CONTACT_NAME_MAX_CHARS,
      `Your name must be ${CONTACT_NAME_MAX_CHARS} characters or fewer.`,
    ),
    email: requiredText("Enter your email address.")
      .max(CONTACT_EMAIL_MAX_CHARS, `Your email address must be ${CONTACT_EMAIL_MAX_CHARS} characters or fewer.`)
      .pipe(z.email({ error: "Enter a valid email address, like name@example.com." })),
    phone: z
      .string()
      .trim()
      .max(CONTACT_PHONE_MAX_CHARS, `Your phone number must be ${CONTACT_PHONE_MAX_CHARS} characters or fewer.`)
      .refine(
        (v) => v === "" || (PHONE_CHARS.test(v) && countDigits(v) >= 7 && countDigits(v) <= 15),
        "Enter a valid phone number, like (555) 010-4400, or leave it empty.",
      )
      .optional()
      .transform((v) => (v ? v : undefined)),
    subject: z.enum(SUBJECT_VALUES, { error: "Choose a subject." }),
    message: requiredText("Enter your message.", "Your message contains characters we cannot accept.", true).max(
      CONTACT_MESSAGE_MAX_CHARS,
      "Your message must be 5,000 characters or fewer.",
    ),
    preferred_contact: z.enum(["email", "phone"], { error: "Choose email or phone." }).default("email"),
  })
  .refine((value) => value.preferred_contact !== "phone" || Boolean(value.phone), {
    path: ["phone"],
    message: "Enter a phone number so we can call you, or choose email.",
    // Checked even when other fields are still wrong, so every problem shows at once.
    when: (payload) => {
      const raw = payload.value as { preferred_contact?: unknown; phone?: unknown } | undefined;
      return raw?.preferred_contact === "phone" && !payload.issues.some((issue) => issue.path?.[0] === "phone");
    },
  });

export type ContactMessage = z.infer<typeof ContactMessageSchema>;

function countDigits(text: string): number {
  return text.replace(/\D/g, "").length;
}

/** A subject from a query string (`?subject=loan`), or undefined when it is not one of ours. */
export function subjectFromQuery(value: string | null): ContactSubject | undefined {
  return SUBJECT_VALUES.find((s) => s === value);
}

export function subjectLabel(value: ContactSubject): string {
  return CONTACT_SUBJECTS.find((s) => s.value === value)!.label;
}

export { telephoneHref } from "./telephone";
