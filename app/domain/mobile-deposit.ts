/**
 * The Mobile Deposit form's fields (docs/product.md#mobile-deposit): account and amount. The check
 * images are not here: they are files, checked by content on the server. The per-check maximum
 * is an argument because it comes from configuration ($10,000.00 by default), and the
 * message names whatever maximum is configured.
 */
import { z } from "zod";
import { formatCents } from "./money";
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

// Funds availability (when an approved check's money may be spent) is Regulation CC's: app/domain/funds-availability.ts.
