/**
 * Remittance transfers (Regulation E subpart B, 12 CFR 1005.30-1005.36; docs/product.md#remittance-transfers):
 * the figures a member sees before paying for an international wire (1005.31(b)(1)) and again on
 * the receipt (1005.31(b)(2)), and the 30-minute cancellation clock (1005.34).
 *
 * Every figure is an integer: US cents for what the member pays, the currency's minor units for
 * what the recipient receives. Rounding is stated once: the US dollar amount is the foreign amount
 * at the rate, rounded half up to the cent (usdCentsForForeignAmount); nothing else is rounded.
 */
import { findCurrency, formatCurrencyAmount, usdCentsForForeignAmount } from "./currencies";
import { addBusinessDays } from "./payment-dates";

/** 1005.34(a): the sender may cancel within 30 minutes of paying (the recipient not yet paid). */
export const REMITTANCE_CANCEL_MINUTES = 30;
const CANCEL_WINDOW_MS = REMITTANCE_CANCEL_MINUTES * 60_000;

export interface RemittanceInput {
  /** What the recipient is sent, in the currency's minor units (before covered third-party fees). */
  amount_minor: number;
  currency: string;
  /** The rate used: US dollars per one unit of `currency`, a decimal string ("1.0850"). */
  usd_per_unit: string;
  /** The credit union's wire fee, in US cents. */
  fee_cents: number;
  /** Covered third-party fees (1005.31(b)(1)(vi)) the profile declares for this currency, in its minor units. */
  third_party_fee_minor: number;
  /** The credit union's business date of the payment (YYYY-MM-DD). */
  business_date: string;
  /** Business days after `business_date` by which the recipient has the money (the profile's promise). */
  availability_business_days: number;
}

export interface RemittanceFigures {
  currency: string;
  /** 1005.31(b)(1)(i): the amount transferred, in US cents (the foreign amount at the rate). */
  transfer_amount_cents: number;
  /** 1005.31(b)(1)(ii): fees imposed by the credit union, in US cents. */
  fee_cents: number;
  /** 1005.31(b)(1)(ii): taxes collected by the credit union: none, so always 0. */
  taxes_cents: 0;
  /** 1005.31(b)(1)(iii): what the member pays, transfer amount + fees + taxes, in US cents. */
  total_cents: number;
  /** 1005.31(b)(1)(iv): the exchange rate used, US dollars per one unit of the currency, as the back office set it. */
  usd_per_unit: string;
  /** The amount sent, in the currency's minor units. */
  sent_minor: number;
  /** 1005.31(b)(1)(vi): covered third-party fees, in the currency's minor units (0 when none are declared). */
  third_party_fee_minor: number;
  /** 1005.31(b)(1)(vii): what the recipient receives, in the currency's minor units. */
  received_minor: number;
  /** 1005.31(b)(2)(ii): the date the money is available to the recipient (YYYY-MM-DD). */
  available_on: string;
}

/** The pre-payment disclosure's and the receipt's figures, from the wire's amount, rate and fees. */
export function remittanceFigures(input: RemittanceInput): RemittanceFigures {
  const currency = findCurrency(input.currency);
  if (!currency) throw new RangeError(`not a currency: ${input.currency}`);
  if (!Number.isSafeInteger(input.amount_minor) || input.amount_minor <= 0)
    throw new RangeError(`not a positive whole amount: ${input.amount_minor}`);
  if (!Number.isSafeInteger(input.fee_cents) || input.fee_cents < 0)
    throw new RangeError(`not a fee: ${input.fee_cents}`);
  if (!Number.isSafeInteger(input.third_party_fee_minor) || input.third_party_fee_minor < 0)
    throw new RangeError(`not a third-party fee: ${input.third_party_fee_minor}`);
  const transfer_amount_cents = usdCentsForForeignAmount(input.amount_minor, currency.minor_units, input.usd_per_unit);
  // A declared fee larger than the amount cannot take more than was sent: the recipient gets 0.
  const third_party_fee_minor = Math.min(input.third_party_fee_minor, input.amount_minor);
  return {
    currency: currency.code,
    transfer_amount_cents,
    fee_cents: input.fee_cents,
    taxes_cents: 0,
    total_cents: transfer_amount_cents + input.fee_cents,
    usd_per_unit: input.usd_per_unit,
    sent_minor: input.amount_minor,
    third_party_fee_minor,
    received_minor: input.amount_minor - third_party_fee_minor,
    available_on: addBusinessDays(input.business_date, input.availability_business_days),
  };
}

/** "1 EUR = 1.0850 USD": the rate as the disclosure states it. */
export function rateText(figures: Pick<RemittanceFigures, "currency" | "usd_per_unit">): string {
  return `1 ${figures.currency} = ${figures.usd_per_unit} USD`;
}

/** An amount in the recipient's currency, as the disclosure writes it. */
export function foreignText(minor: number, currency: string): string {
  return formatCurrencyAmount(minor, currency);
}

/** When the member's cancellation right (1005.34) ends: 30 minutes after paying. */
export function cancelDeadline(paid_at: Date): Date {
  return new Date(paid_at.getTime() + CANCEL_WINDOW_MS);
}

/** Whether `now` is still inside the cancellation window that `cancel_until` closes (the deadline itself included). */
export function withinCancelWindow(cancel_until: Date, now: Date): boolean {
  return now.getTime() <= cancel_until.getTime();
}

/** The member's words when the window has passed. */
export const CANCEL_WINDOW_PASSED =
  "The 30 minutes to cancel this international transfer have passed, so it can no longer be cancelled online. If something is wrong with it, please contact us: you may have error-resolution rights.";
