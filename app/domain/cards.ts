/**
 * Card Services (docs/product.md#cards): the forms' schemas and messages, the PIN rules, and the
 * one rule that decides a card purchase before the ledger is asked for the money. Pure: the
 * browser runs the schemas, the server runs them again, and `decideCardPurchase` is unit-tested on
 * its own. What only the ledger knows (enough money, a frozen or closed account) is the ledger's
 * answer (`placeHold` in app/server/cards/authorization.server.ts).
 */
import { z } from "zod";
import { formatCents, parseDollarsToCents } from "./money";
import { REFUSAL_MESSAGES, refusalMessage, type RefusalCode } from "./refusals";
import { accountIdField, idempotencyKeyField, requiredText } from "./transfers";

/** A member's own daily purchase limit on a debit card: at least $10.00, at most $5,000.00. */
export const CARD_DAILY_LIMIT_MIN_CENTS = 1_000;
export const CARD_DAILY_LIMIT_MAX_CENTS = 500_000;
/** A purchase the card network may send us: at most $25,000.00 (far above any daily limit). */
export const CARD_PURCHASE_MAX_CENTS = 2_500_000;
export const MERCHANT_LENGTH_MAX = 60;
/**
 * An authorized purchase the card network has not settled after this many days is released (its
 * hold given back) by the nightly job: debit networks let an authorization lapse after a few days
 * (longer for hotels and car rentals), and a purchase that never completes must not hold the
 * member's money for ever. A settlement that comes later is posted by staff (Add Transactions).
 */
export const CARD_AUTHORIZATION_HOLD_DAYS = 7;
/** What a purchase's category may be: the history's spending categories a card purchase can have. */
export const CARD_PURCHASE_CATEGORIES = [
  "Groceries",
  "Dining",
  "Shopping",
  "Transportation",
  "Utilities",
  "Entertainment",
  "Health",
  "Other",
] as const;

export const CARD_MESSAGES = {
  failed: "This could not be done. Please reload the page and try again.",
  limit: `Please enter a daily limit between ${formatCents(CARD_DAILY_LIMIT_MIN_CENTS)} and ${formatCents(CARD_DAILY_LIMIT_MAX_CENTS)}`,
  code_missing: REFUSAL_MESSAGES.otp_missing,
  code_format: "The code is at most 6 digits",
  code_invalid: REFUSAL_MESSAGES.otp_invalid,
  pin_format: "Please enter a 4-digit PIN",
  pin_weak: "Please choose a PIN that is not a sequence such as 1234 or one digit repeated such as 1111",
  pin_mismatch: "The two PINs do not match",
  report_reason: "Please say whether the card was lost or stolen",
  report_confirm: "Please confirm that this card should stop working for good",
  merchant: "Please enter the merchant's name",
  amount: `Please enter an amount from $0.01 to ${formatCents(CARD_PURCHASE_MAX_CENTS)}`,
  category: "Please choose a category from the list",
  card: "Please choose one of the cards",
} as const;

export type CardStatus = "active" | "locked" | "blocked";

export const CARD_STATUS_LABELS: Record<CardStatus, string> = {
  active: "Active",
  locked: "Locked",
  blocked: "Blocked",
};

/**
 * A PIN anyone would try first is refused: the same digit four times (1111), or four digits in a
 * row up or down, wrapping past 9 (1234, 4321, 7890, 0987).
 */
export function isWeakPin(pin: string): boolean {
  if (!/^\d{4}$/.test(pin)) return false;
  const d = [...pin].map(Number);
  if (d.every((x) => x === d[0])) return true;
  const steps = d.slice(1).map((x, i) => (x - d[i]! + 10) % 10);
  return steps.every((s) => s === 1) || steps.every((s) => s === 9);
}

/** Why a PIN cannot be used (the message), or null when it can. */
export function pinProblem(pin: string, confirm: string): string | null {
  if (!/^\d{4}$/.test(pin)) return CARD_MESSAGES.pin_format;
  if (isWeakPin(pin)) return CARD_MESSAGES.pin_weak;
  if (pin !== confirm) return CARD_MESSAGES.pin_mismatch;
  return null;
}

/** A card picked on the page: its id is a bigserial, read as an account's id is. */
const cardIdField = accountIdField(CARD_MESSAGES.failed);

/** The emailed one-time code: digits only, at most 6 (a wrong one is the server's to say). */
const otpField = z
  .string({ error: CARD_MESSAGES.code_missing })
  .trim()
  .min(1, { error: CARD_MESSAGES.code_missing, abort: true })
  .regex(/^\d{1,6}$/, CARD_MESSAGES.code_format);

export const cardSchema = z.object({ card_id: cardIdField });

export const setLimitSchema = z.object({
  card_id: cardIdField,
  daily_limit: requiredText(CARD_MESSAGES.limit, 32).transform((text, ctx) => {
    const cents = parseDollarsToCents(text);
    if (cents === null || cents < CARD_DAILY_LIMIT_MIN_CENTS || cents > CARD_DAILY_LIMIT_MAX_CENTS) {
      ctx.addIssue({ code: "custom", message: CARD_MESSAGES.limit });
      return z.NEVER;
    }
    return cents;
  }),
});

export const viewDetailsSchema = z.object({ card_id: cardIdField, otp: otpField });

/** Field names carry "code": the form pipeline never sends such a field's value back to the page. */
export const changePinSchema = z
  .object({
    card_id: cardIdField,
    otp: otpField,
    pin_code: z.string({ error: CARD_MESSAGES.pin_format }).trim(),
    pin_code_confirm: z.string({ error: CARD_MESSAGES.pin_mismatch }).trim(),
  })
  .superRefine((value, ctx) => {
    const problem = pinProblem(value.pin_code, value.pin_code_confirm);
    if (problem)
      ctx.addIssue({
        code: "custom",
        message: problem,
        path: [problem === CARD_MESSAGES.pin_mismatch ? "pin_code_confirm" : "pin_code"],
      });
  });

export const reportLostSchema = z.object({
  card_id: cardIdField,
  reason: z.enum(["lost", "stolen"], { error: CARD_MESSAGES.report_reason }),
  confirm: z.literal("on", { error: CARD_MESSAGES.report_confirm }),
});

/** The back office's Post card transaction (a purchase as the card network would send it). */
export const cardPurchaseSchema = z.object({
  card_id: accountIdField(CARD_MESSAGES.card),
  merchant: requiredText(CARD_MESSAGES.merchant, MERCHANT_LENGTH_MAX),
  amount: requiredText(CARD_MESSAGES.amount, 32).transform((text, ctx) => {
    const cents = parseDollarsToCents(text);
    if (cents === null || cents < 1 || cents > CARD_PURCHASE_MAX_CENTS) {
      ctx.addIssue({ code: "custom", message: CARD_MESSAGES.amount });
      return z.NEVER;
    }
    return cents;
  }),
  category: z.enum(CARD_PURCHASE_CATEGORIES, { error: CARD_MESSAGES.category }),
  request_key: idempotencyKeyField(CARD_MESSAGES.failed),
});

/** Settle or Release one authorized purchase (the back office standing in for the card network). */
export const pendingPurchaseSchema = z.object({ authorization_id: accountIdField(CARD_MESSAGES.failed) });

/** The card as a purchase sees it. */
export interface CardForPurchase {
  status: CardStatus;
  expiry_month: number;
  expiry_year: number;
  daily_limit_cents: number;
}

export type CardDecision = { ok: true } | { ok: false; code: RefusalCode; message: string };

/** "2030-11": the last month a card works in. */
function expiryMonth(card: Pick<CardForPurchase, "expiry_month" | "expiry_year">): string {
  return `${card.expiry_year}-${String(card.expiry_month).padStart(2, "0")}`;
}

/** The card no longer works on the business day `today` (YYYY-MM-DD): its expiry month has ended. */
export function isCardExpired(card: Pick<CardForPurchase, "expiry_month" | "expiry_year">, today: string): boolean {
  return today.slice(0, 7) > expiryMonth(card);
}

/** "11/30": a card's expiry as printed on it. */
export function cardExpiryLabel(card: Pick<CardForPurchase, "expiry_month" | "expiry_year">): string {
  return `${String(card.expiry_month).padStart(2, "0")}/${String(card.expiry_year).slice(-2)}`;
}

/** A card that still works: not blocked, not past its expiry month (the cards page lists the others apart). */
export function cardWorks(card: { status: string; expired: boolean }): boolean {
  return card.status !== "blocked" && !card.expired;
}

/**
 * A card is renewed (a new card, new number, same account and limit) this many days before the
 * end of its expiry month, by the nightly job, so the member has the new one before the old one
 * stops working.
 */
export const CARD_RENEWAL_DAYS = 45;

/**
 * The card's own rules for one purchase, on the institution's business day `today`
 * (YYYY-MM-DD) with `spent_today_cents` already authorized on the card that day: a blocked
 * (lost or stolen) or locked card is refused, so is an expired one (a card works to the end of
 * its expiry month) and a purchase that would pass the card's daily limit. The account's money
 * and status are the ledger's to decide.
 */
export function decideCardPurchase(input: {
  card: CardForPurchase;
  amount_cents: number;
  spent_today_cents: number;
  today: string;
}): CardDecision {
  const { card, amount_cents, spent_today_cents, today } = input;
  if (!Number.isSafeInteger(amount_cents) || amount_cents < 1 || amount_cents > CARD_PURCHASE_MAX_CENTS)
    return refuse("invalid_amount");
  if (card.status === "blocked") return refuse("card_blocked");
  if (card.status === "locked") return refuse("card_locked");
  if (isCardExpired(card, today)) return refuse("card_expired");
  if (spent_today_cents + amount_cents > card.daily_limit_cents) {
    return refuse("over_card_daily_limit", {
      max: formatCents(card.daily_limit_cents),
      left: formatCents(Math.max(0, card.daily_limit_cents - spent_today_cents)),
    });
  }
  return { ok: true };
}

function refuse(code: RefusalCode, details: Record<string, string> = {}): CardDecision {
  return { ok: false, code, message: refusalMessage(code, details) };
}
