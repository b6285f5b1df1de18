/**
 * The Mobile Deposit form's fields (docs/product.md#mobile-deposit): account and amount. The check
 * images are not here: they are files, checked by content on the server. The per-check maximum
 * is an argument because it comes from configuration ($10,000.00 by default), and the
 * message names whatever maximum is configured.
 */
import { z } from "zod";
import { formatCents } from "./money";
import { nextBusinessDay } from "./payment-dates";
import { accountIdField, amountCentsField, idempotencyKeyField } from "./transfers";

export const MOBILE_DEPOSIT_AMOUNT_CENTS_MAX_DEFAULT = 1_000_000;

export const MOBILE_DEPOSIT_MESSAGES = {
  missing: "Please fill in all fields",
  amount: "Please enter a valid amount",
  failed: "Deposit failed. Please try again.",
} as const;

/** "The maximum for one check is $10,000.00" for the default maximum. */
export function mobileDepositMaximumMessage(amount_cents_max: number): string {
  return `The maximum for one check is ${formatCents(amount_cents_max)}`;
}

export function mobileDepositSchema(amount_cents_max: number = MOBILE_DEPOSIT_AMOUNT_CENTS_MAX_DEFAULT) {
  if (!Number.isSafeInteger(amount_cents_max) || amount_cents_max < 1) {
    throw new RangeError(`mobileDepositSchema needs a positive whole number of cents, got ${amount_cents_max}`);
  }
  const M = MOBILE_DEPOSIT_MESSAGES;
  return z
    .object({
      account_id: accountIdField(M.missing),
      amount: amountCentsField(M.missing, M.amount).refine(
        (amount_cents) => amount_cents <= amount_cents_max,
        mobileDepositMaximumMessage(amount_cents_max),
      ),
      idempotency_key: idempotencyKeyField(M.failed),
    })
    .transform(({ amount, ...rest }) => ({ ...rest, amount_cents: amount }));
}

export type MobileDeposit = z.output<ReturnType<typeof mobileDepositSchema>>;

// ---------------------------------------------------------------------------------------------
// The check images: JPEG or PNG by their content, at most 10 MB each.

/** 10 MB: the most one photo of a check may weigh, as uploaded. */
export const MOBILE_DEPOSIT_IMAGE_MAX_BYTES = 10 * 1024 * 1024;
export const MOBILE_DEPOSIT_IMAGE_TYPES = ["image/jpeg", "image/png"] as const;
export type MobileDepositImageType = (typeof MOBILE_DEPOSIT_IMAGE_TYPES)[number];
export const MOBILE_DEPOSIT_SIDES = ["front", "back"] as const;
export type CheckSide = (typeof MOBILE_DEPOSIT_SIDES)[number];

export const MOBILE_DEPOSIT_IMAGE_MESSAGES = {
  missing: (side: CheckSide) => `Please add a photo of the ${side} of the check`,
  wrong_type: (side: CheckSide) => `The photo of the ${side} of the check must be a JPEG or PNG image`,
  too_large: (side: CheckSide) => `The photo of the ${side} of the check is larger than 10 MB`,
  unreadable: (side: CheckSide) => `The photo of the ${side} of the check could not be read. Please take it again`,
  /** The whole form's declared size already passes two full photos. */
  body_too_large: "The photos are larger than 10 MB each. Please take smaller photos and try again.",
} as const;

// ---------------------------------------------------------------------------------------------
// Funds availability: when an approved deposit's money may be spent.

export interface AvailabilityPolicy {
  /** Available from the next business day after approval (at most the deposit). */
  next_day_cents: number;
  /** The rest is available this many business days after approval. */
  remaining_after_business_days: number;
}

export interface AvailabilitySchedule {
  next_day_amount_cents: number;
  next_day_available_on: string;
  later_amount_cents: number;
  later_available_on: string;
}

/**
 * Splits an approved deposit by the institution's policy, counting business days (no weekends
 * or Federal Reserve holidays, as payment files do) from the approval's business date.
 */
export function availabilitySchedule(
  amount_cents: number,
  approved_on: string,
  policy: AvailabilityPolicy,
): AvailabilitySchedule {
  const next_day_amount_cents = Math.min(amount_cents, Math.max(0, policy.next_day_cents));
  return {
    next_day_amount_cents,
    next_day_available_on: addBusinessDays(approved_on, 1),
    later_amount_cents: amount_cents - next_day_amount_cents,
    later_available_on: addBusinessDays(approved_on, Math.max(1, policy.remaining_after_business_days)),
  };
}

/** `days` business days after `date`. */
export function addBusinessDays(date: string, days: number): string {
  let day = date;
  for (let i = 0; i < days; i++) day = nextBusinessDay(day);
  return day;
}

/** The policy in the member's words, for the deposit page. */
export function availabilityPolicyText(policy: AvailabilityPolicy): string {
  const days = Math.max(1, policy.remaining_after_business_days);
  if (policy.next_day_cents <= 0)
    return `Once approved, the deposit is available ${days} business ${days === 1 ? "day" : "days"} after approval.`;
  return `Once approved, the first ${formatCents(policy.next_day_cents)} is available the next business day and the rest ${days} business ${days === 1 ? "day" : "days"} after approval.`;
}
