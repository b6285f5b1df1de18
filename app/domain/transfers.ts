/**
 * The four transfer forms (docs/product.md#transfers) as Zod schemas. The same schema runs in the
 * browser for fast feedback and in the action, which is the one that decides
 * (docs/product.md#the-server-decides). Input is what a form posts (strings); output is typed and
 * normalized: amounts as integer minor units, account ids as numbers, codes upper-cased.
 *
 * What a schema cannot know (balances, limits, frozen accounts, whether the recipient exists, a
 * configured rate for the currency) is the server's to check after parsing.
 */
import { z } from "zod";
import { REFUSAL_MESSAGES } from "./refusals";
import { parseDollarsToCents } from "./money";
import { plainText } from "./plain-text";
import { isValidRoutingNumber } from "./routing-number";
import { normalizeIban, isValidIban } from "./iban";
import { BIC_MESSAGE, normalizeBic, isValidBic } from "./bic";
import { findCountry } from "./countries";
import { findCurrency, parseCurrencyAmount } from "./currencies";
import {
  INTERNATIONAL_ACCOUNT_NUMBER_MESSAGE,
  US_ACCOUNT_NUMBER_MESSAGE,
  isValidInternationalAccountNumber,
  isValidUsAccountNumber,
  normalizeExternalAccountNumber,
} from "./external-account";
import { nachaLostCharacters, nachaText } from "./nacha/records";
import { xmlUnfitCharacters } from "./pain001/writer";

export const TRANSFER_MESSAGES = {
  missing: "Please fill in all fields",
  amount: REFUSAL_MESSAGES.invalid_amount,
  same_account: REFUSAL_MESSAGES.same_account,
  recipient: "Please enter a valid recipient",
  routing_number: "Please enter a valid routing number",
  us_account_number: US_ACCOUNT_NUMBER_MESSAGE,
  account_type: "Please choose checking or savings",
  linked_account: "Please choose an account to send to",
  bic: BIC_MESSAGE,
  international_account_number: INTERNATIONAL_ACCOUNT_NUMBER_MESSAGE,
  iban: "Invalid IBAN",
  country: "Please choose a country from the list",
  currency: "Please choose a currency from the list",
  // A missing or malformed key means a broken or stale page: retrying from a fresh page is the fix.
  failed: "Transfer failed. Please try again.",
} as const;

/** How many of the characters a bank file cannot carry a message names; "…" stands for the rest. */
const NAMED_CHARACTERS_MAX = 5;

function characterList(characters: readonly string[], quote: boolean): string {
  const named = characters.slice(0, NAMED_CHARACTERS_MAX).map((c) => (quote ? `"${c}"` : c));
  return characters.length > NAMED_CHARACTERS_MAX ? `${named.join(", ")}, …` : named.join(", ");
}

/**
 * To US Bank: the text goes into a NACHA file, which carries only upper-case ASCII
 * (docs/product.md#to-us-bank). Accents are dropped and other Latin letters, Greek, Cyrillic and
 * Arabic romanized (`nachaText`); a letter nothing is left of (Chinese, Japanese, Korean, Hebrew,
 * Thai...) is refused here, since the payee would get a blank name or reference.
 */
export function achTextMessage(what: "name" | "reference", lost: readonly string[]): string {
  return `Please write the ${what} in Latin letters: a US bank transfer cannot carry ${characterList(lost, true)}`;
}
export const ACH_NAME_NO_LETTER_MESSAGE = "Please enter a name with at least one letter or digit";

/**
 * International: the text goes into a pain.001 message, XML 1.0, which cannot carry a few
 * (usually invisible) characters; they are named by their code (docs/product.md#international).
 */
export function wireTextMessage(unfit: readonly string[]): string {
  return `This holds characters an international wire cannot carry (${characterList(unfit, false)}), perhaps invisible ones: please type it again`;
}

function achText(what: "name" | "reference") {
  return (text: string, ctx: z.RefinementCtx): void => {
    const lost = nachaLostCharacters(text);
    if (lost.length > 0) ctx.addIssue({ code: "custom", message: achTextMessage(what, lost) });
    else if (what === "name" && !/[A-Z0-9]/.test(nachaText(text)))
      ctx.addIssue({ code: "custom", message: ACH_NAME_NO_LETTER_MESSAGE });
  };
}

function wireText(text: string, ctx: z.RefinementCtx): void {
  const unfit = xmlUnfitCharacters(text);
  if (unfit.length > 0) ctx.addIssue({ code: "custom", message: wireTextMessage(unfit) });
}

/** For the amount input's `min` and `step` attributes (docs/product.md#transfers). */
export const AMOUNT_MIN = "0.01";
export const AMOUNT_STEP = "0.01";
/** Names, bank names and references: SWIFT's remittance field holds 4 lines of 35. */
export const TEXT_LENGTH_MAX = 140;
/** RFC 5321: the longest usable email address. */
const EMAIL_LENGTH_MAX = 254;

/**
 * A required text field: trimmed; absent, blank or not a string counts as not filled in; control
 * characters are refused next to the field (`plainText`). Shared by every money form so that
 * "missing" means the same everywhere.
 */
export function requiredText(missing_message: string, length_max = TEXT_LENGTH_MAX) {
  return (
    plainText({ missing: missing_message })
      // Abort: a blank field is reported once as missing, not also as malformed by later checks.
      .min(1, { error: missing_message, abort: true })
      .max(length_max, { error: `Please use at most ${length_max} characters`, abort: true })
  );
}

/** An optional text field: blank becomes undefined so the server never stores ""; no control characters. */
export function optionalText(length_max = TEXT_LENGTH_MAX) {
  return plainText()
    .max(length_max, `Please use at most ${length_max} characters`)
    .optional()
    .transform((text) => (text ? text : undefined));
}

/** An account picked from a list: the ledger account id (a bigserial), as a positive number. */
export function accountIdField(missing_message: string) {
  return requiredText(missing_message, 15)
    .regex(/^[1-9]\d*$/, missing_message)
    .transform(Number);
}

/**
 * A US dollar amount (minimum 0.01, step 0.01: docs/product.md#transfers): parsed by
 * `parseDollarsToCents`, so more than two decimals is refused, never rounded. Output: integer
 * cents.
 */
export function amountCentsField(missing_message: string, invalid_message = TRANSFER_MESSAGES.amount) {
  return requiredText(missing_message, 32).transform((text, ctx) => {
    const amount_cents = parseDollarsToCents(text);
    if (amount_cents === null || amount_cents < 1) {
      ctx.addIssue({ code: "custom", message: invalid_message });
      return z.NEVER;
    }
    return amount_cents;
  });
}

/**
 * The key that makes a retry or a double click harmless (docs/product.md#idempotency): a UUID made
 * by the page. Lower-cased so that the same key in another case is still the same key.
 */
export function idempotencyKeyField(failed_message: string) {
  return z
    .string({ error: failed_message })
    .trim()
    .pipe(z.uuid({ error: failed_message }))
    .transform((key) => key.toLowerCase());
}

/**
 * "Please fill in all fields" first when anything is missing (as the forms show one message), else
 * the first problem. Takes the schema's error, or its messages (a form reply's, in the browser too).
 */
export function formErrorMessage(
  error: z.ZodError | readonly string[],
  missing_message: string = TRANSFER_MESSAGES.missing,
): string {
  const messages = Array.isArray(error)
    ? (error as readonly string[])
    : (error as z.ZodError).issues.map((issue) => issue.message);
  return messages.find((message) => message === missing_message) ?? messages[0] ?? missing_message;
}

const M = TRANSFER_MESSAGES;

/** Between Accounts: the member's own accounts; posts at once. */
export const betweenAccountsSchema = z
  .object({
    from_account_id: accountIdField(M.missing),
    to_account_id: accountIdField(M.missing),
    amount: amountCentsField(M.missing),
    reference: requiredText(M.missing),
    idempotency_key: idempotencyKeyField(M.failed),
  })
  .refine((form) => form.from_account_id !== form.to_account_id, {
    message: M.same_account,
    path: ["to_account_id"],
    // Runs even when another field is wrong, so the member sees every problem at once.
    when: (payload) => bothAccountsParsed(payload.value),
  })
  .transform(({ amount, ...rest }) => ({ ...rest, amount_cents: amount }));

/**
 * The recipient of To Another Member, by their email: trimmed and lower-cased. The form's Verify
 * button (with or without JavaScript) checks the address with this same rule before looking it up.
 */
export const recipientEmailField = requiredText(M.missing, EMAIL_LENGTH_MAX)
  .toLowerCase()
  .pipe(z.email({ error: M.recipient }));

/** To Another Member: by email; the server looks the recipient up (and rate-limits lookups). */
export const toMemberSchema = z
  .object({
    from_account_id: accountIdField(M.missing),
    recipient_email: recipientEmailField,
    amount: amountCentsField(M.missing),
    reference: requiredText(M.missing),
    idempotency_key: idempotencyKeyField(M.failed),
  })
  .transform(({ amount, ...rest }) => ({ ...rest, amount_cents: amount }));

/** The kinds of account at another US bank a To US Bank transfer can go to. */
export const US_ACCOUNT_TYPES = ["checking", "savings"] as const;
export type UsAccountType = (typeof US_ACCOUNT_TYPES)[number];

/** The name on the account at the other bank, as a NACHA file can carry it. */
export const achNameField = requiredText(M.missing).superRefine(achText("name"));

/** To US Bank (ACH): routing number with the ABA checksum, 8-17 digit account number, checking or savings. */
export const toUsBankSchema = z
  .object({
    from_account_id: accountIdField(M.missing),
    routing_number: requiredText(M.missing, 32)
      .transform(normalizeExternalAccountNumber)
      .refine(isValidRoutingNumber, M.routing_number),
    account_number: requiredText(M.missing, 64)
      .transform(normalizeExternalAccountNumber)
      .refine(isValidUsAccountNumber, M.us_account_number),
    // The ACH entry's transaction code says which (22 checking, 32 savings): the other bank may
    // return a credit sent with the wrong one, or correct it with a notification of change (C05).
    account_type: z.enum(US_ACCOUNT_TYPES, { error: M.account_type }).default("checking"),
    // What the file can carry is checked here, next to the field, so that one payment can never
    // stop the export of everyone's (docs/product.md#payment-queues).
    account_name: achNameField,
    amount: amountCentsField(M.missing),
    reference: requiredText(M.missing).superRefine(achText("reference")),
    idempotency_key: idempotencyKeyField(M.failed),
  })
  .transform(({ amount, ...rest }) => ({ ...rest, amount_cents: amount }));

/**
 * To US Bank as its form posts it: the bank picker sends `bank`, a routing number from the list,
 * or "other" with the typed `routing_number`. The same schema runs in the browser and on the server.
 */
export const toUsBankFormSchema = z.preprocess((posted) => {
  if (typeof posted !== "object" || posted === null) return posted;
  const bank = (posted as Record<string, unknown>).bank;
  return typeof bank === "string" && bank !== "" && bank !== "other" ? { ...posted, routing_number: bank } : posted;
}, toUsBankSchema);

/** The To US Bank form's payee choice for typing an account (any other value is a linked account's id). */
export const NEW_US_PAYEE = "new";

/**
 * To US Bank to one of the member's verified linked accounts (docs/product.md#to-us-bank): the
 * form posts the link's id only; the server reads the routing and account numbers from the
 * member's own sealed link (never from the browser) and the name on the account is the member's.
 */
export const toLinkedUsBankSchema = z
  .object({
    from_account_id: accountIdField(M.missing),
    payee: accountIdField(M.linked_account),
    amount: amountCentsField(M.missing),
    reference: requiredText(M.missing).superRefine(achText("reference")),
    idempotency_key: idempotencyKeyField(M.failed),
  })
  .transform(({ amount, payee, ...rest }) => ({ ...rest, linked_account_id: payee, amount_cents: amount }));

export type ToLinkedUsBankTransfer = z.output<typeof toLinkedUsBankSchema>;

/** What the To US Bank form asks for: an account typed in, or one of the member's linked accounts. */
export type UsBankFormValue = ({ payee: "typed" } & ToUsBankTransfer) | ({ payee: "linked" } & ToLinkedUsBankTransfer);

function linkedPayee(posted: unknown): boolean {
  if (typeof posted !== "object" || posted === null) return false;
  const payee = (posted as Record<string, unknown>).payee;
  return typeof payee === "string" && payee !== "" && payee !== NEW_US_PAYEE;
}

/**
 * The To US Bank form as it posts: `payee` is a linked account's id, or "new" (or absent, a form
 * without linked accounts) for the typed fields of `toUsBankFormSchema`. Each branch's messages
 * stay on their fields. The same schema runs in the browser and on the server.
 */
export const usBankFormSchema = z.unknown().transform((posted, ctx): UsBankFormValue => {
  const linked = linkedPayee(posted);
  const parsed = linked ? toLinkedUsBankSchema.safeParse(posted) : toUsBankFormSchema.safeParse(posted);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
    return z.NEVER;
  }
  return linked
    ? { payee: "linked", ...(parsed.data as ToLinkedUsBankTransfer) }
    : { payee: "typed", ...(parsed.data as ToUsBankTransfer) };
});

/**
 * International (wire). The amount is in the chosen currency, so it is parsed with that
 * currency's minor units (no decimals for JPY, three for BHD) and comes out as
 * `amount_minor_units`; the USD debit is `usdCentsForForeignAmount` at the back office's rate.
 */
export const internationalSchema = z
  .object({
    from_account_id: accountIdField(M.missing),
    recipient_name: requiredText(M.missing).superRefine(wireText),
    bank_name: requiredText(M.missing).superRefine(wireText),
    bic: requiredText(M.missing, 32).transform(normalizeBic).refine(isValidBic, M.bic),
    account_number: requiredText(M.missing, 64)
      .transform(normalizeExternalAccountNumber)
      .refine(isValidInternationalAccountNumber, M.international_account_number)
      .transform((text) => text.toUpperCase()),
    iban: optionalText(64)
      .transform((text) => (text === undefined ? undefined : normalizeIban(text)))
      .refine((iban) => iban === undefined || isValidIban(iban), M.iban),
    country: requiredText(M.missing, 8)
      .toUpperCase()
      .refine((code) => findCountry(code) !== undefined, M.country),
    currency: requiredText(M.missing, 8)
      .toUpperCase()
      .refine((code) => findCurrency(code) !== undefined, M.currency),
    amount: requiredText(M.missing, 32),
    reference: requiredText(M.missing).superRefine(wireText),
    idempotency_key: idempotencyKeyField(M.failed),
  })
  .refine((form) => (parseCurrencyAmount(form.amount, form.currency) ?? 0) >= 1, {
    message: M.amount,
    path: ["amount"],
    when: (payload) => amountAndCurrencyParsed(payload.value),
  })
  .transform(({ amount, ...rest }) => ({
    ...rest,
    // Checked just above: the refinement refused every amount this could be null for.
    amount_minor_units: parseCurrencyAmount(amount, rest.currency)!,
  }));

export type BetweenAccountsTransfer = z.output<typeof betweenAccountsSchema>;
export type ToMemberTransfer = z.output<typeof toMemberSchema>;
/** A To US Bank payment; `linked_account_id` when the server filled it in from the member's linked account. */
export type ToUsBankTransfer = z.output<typeof toUsBankSchema> & { linked_account_id?: number };
export type InternationalTransfer = z.output<typeof internationalSchema>;

function bothAccountsParsed(value: unknown): boolean {
  const form = value as { from_account_id?: unknown; to_account_id?: unknown };
  return typeof form.from_account_id === "number" && typeof form.to_account_id === "number";
}

function amountAndCurrencyParsed(value: unknown): boolean {
  const form = value as { amount?: unknown; currency?: unknown };
  return (
    typeof form.amount === "string" &&
    form.amount !== "" &&
    typeof form.currency === "string" &&
    findCurrency(form.currency) !== undefined
  );
}
