/**
 * Linked accounts at other banks (docs/product.md#linked-accounts): the rules of the form that
 * links one, and of the micro-deposits that verify it (Nacha's WEB rules ask the originator to
 * validate an account before its first debit; two small credits the member reads back are that
 * validation). Pure: the server keeps the state, draws the amounts and moves the money.
 */
import { z } from "zod";
import { isValidRoutingNumber } from "./routing-number";
import { isValidUsAccountNumber, normalizeExternalAccountNumber, US_ACCOUNT_NUMBER_MESSAGE } from "./external-account";
import { parseDollarsToCents } from "./money";
import { plainText } from "./plain-text";
import { US_ACCOUNT_TYPES } from "./transfers";

export const LINKED_ACCOUNT_STATUSES = ["pending", "verified", "failed", "removed"] as const;
export type LinkedAccountStatus = (typeof LINKED_ACCOUNT_STATUSES)[number];

/** Each micro-deposit is 1 to 99 cents: under a dollar, as members know them from other banks. */
export const MICRO_DEPOSIT_MIN_CENTS = 1;
export const MICRO_DEPOSIT_MAX_CENTS = 99;
/** Wrong confirmations before the link fails (the member links the account again to retry). */
export const MICRO_DEPOSIT_TRIES = 3;
/** The batch description Nacha asks of micro-entries, so the receiving bank and the member see what they are. */
export const MICRO_ENTRY_DESCRIPTION = "ACCTVERIFY";

export const LINKED_ACCOUNT_MESSAGES = {
  missing: "Please fill in all fields",
  routing_number: "Please enter a valid routing number",
  account_number: US_ACCOUNT_NUMBER_MESSAGE,
  account_type: "Please choose checking or savings",
  nickname: "Please enter a nickname of up to 40 characters",
  amount: "Please enter each amount in cents, from $0.01 to $0.99",
  wrong: "Those amounts do not match the deposits we sent.",
  failed: "Those amounts did not match three times, so this account cannot be used. You can link it again.",
  not_pending: "This account is not waiting for its deposits to be confirmed.",
} as const;

const M = LINKED_ACCOUNT_MESSAGES;

/** The link form: the routing number passes the ABA checksum, as To US Bank's does. */
export const linkAccountSchema = z.object({
  routing_number: z
    .string({ error: M.missing })
    .transform(normalizeExternalAccountNumber)
    .refine((v) => v !== "", M.missing)
    .refine(isValidRoutingNumber, M.routing_number),
  account_number: z
    .string({ error: M.missing })
    .transform(normalizeExternalAccountNumber)
    .refine((v) => v !== "", M.missing)
    .refine(isValidUsAccountNumber, M.account_number),
  account_type: z.enum(US_ACCOUNT_TYPES, { error: M.account_type }),
  nickname: plainText({ missing: M.missing }).min(1, M.missing).max(40, M.nickname),
});
export type LinkAccountForm = z.output<typeof linkAccountSchema>;

/** One micro-deposit amount as typed ("0.12", "$0.12" or ".12"), in cents, or null. */
export function parseMicroDeposit(text: string): number | null {
  const trimmed = text.trim().replace(/^\$/, "");
  const cents = parseDollarsToCents(trimmed.startsWith(".") ? `0${trimmed}` : trimmed);
  if (cents === null || cents < MICRO_DEPOSIT_MIN_CENTS || cents > MICRO_DEPOSIT_MAX_CENTS) return null;
  return cents;
}

export const confirmDepositsSchema = z.object({
  first: z.string({ error: M.amount }).refine((v) => parseMicroDeposit(v) !== null, M.amount),
  second: z.string({ error: M.amount }).refine((v) => parseMicroDeposit(v) !== null, M.amount),
});

/**
 * The two amounts, each drawn uniformly from 1 to 99 cents by `randomInt(min, max_exclusive)`
 * (node:crypto's on the server: the amounts are a secret the member proves they can read).
 */
export function drawMicroDeposits(randomInt: (min: number, max_exclusive: number) => number): [number, number] {
  const draw = () => randomInt(MICRO_DEPOSIT_MIN_CENTS, MICRO_DEPOSIT_MAX_CENTS + 1);
  return [draw(), draw()];
}

/** The debit that takes the micro-deposits back in the same file: their sum. */
export function microDepositOffset(amounts: readonly [number, number]): number {
  return amounts[0] + amounts[1];
}

/** The two typed amounts match the two sent, in either order. */
export function microDepositsMatch(sent: readonly [number, number], typed: readonly [number, number]): boolean {
  const a = [...sent].sort((x, y) => x - y);
  const b = [...typed].sort((x, y) => x - y);
  return a[0] === b[0] && a[1] === b[1];
}

export type Confirmation =
  | { outcome: "verified"; attempts: number }
  | { outcome: "wrong"; attempts: number; tries_left: number }
  | { outcome: "failed"; attempts: number }
  | { outcome: "not_pending" };

/**
 * A member's confirmation of the amounts: only a pending link can be confirmed; a match verifies
 * it; a miss counts, and the third miss fails the link for good.
 */
export function confirmMicroDeposits(
  link: { status: LinkedAccountStatus; attempts: number; amounts: readonly [number, number] },
  typed: readonly [number, number],
): Confirmation {
  if (link.status !== "pending" || link.attempts >= MICRO_DEPOSIT_TRIES) return { outcome: "not_pending" };
  const attempts = link.attempts + 1;
  if (microDepositsMatch(link.amounts, typed)) return { outcome: "verified", attempts };
  if (attempts >= MICRO_DEPOSIT_TRIES) return { outcome: "failed", attempts };
  return { outcome: "wrong", attempts, tries_left: MICRO_DEPOSIT_TRIES - attempts };
}

/** Only a verified link can be pulled from or paid to (a pending, failed or removed one cannot). */
export function canUseLinkedAccount(status: LinkedAccountStatus): boolean {
  return status === "verified";
}
