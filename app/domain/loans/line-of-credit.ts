/**
 * A line of credit (open-end credit, Regulation Z subpart B; docs/product.md#lines-of-credit): the
 * member borrows any amount up to a credit limit, as often as they like, and pays back at least a
 * monthly minimum. Pure: no I/O, no clock.
 *
 * - Interest accrues day by day on the drawn principal exactly as on a loan (./servicing.ts,
 *   principal x rate / 365, the fraction of a cent carried). There is no grace period: interest
 *   runs from the day of each draw. No fee is a finance charge, so the APR is the note rate
 *   (1026.14(a): the periodic rate times the periods in a year) and the daily periodic rate is
 *   the rate / 365.
 * - Each month, on the day of the month the line was opened (the month's last day when shorter),
 *   the billing cycle closes: the balance then (principal, interest and fees owed) sets the
 *   minimum payment, due LINE_PAYMENT_DUE_DAYS later.
 * - The minimum payment: the greater of the product's percent of the balance (rounded up to the
 *   cent) and its floor amount, plus what is still unpaid of earlier minimums, never more than
 *   the balance.
 * - Available credit: the limit less everything owed, never below zero (interest or a fee can take
 *   the balance over the limit; then nothing more can be drawn).
 */

import { formatCents } from "../money";
import { formatBusinessDate } from "../calendar-date";
import { dueDate } from "./schedule";
import { formatRatePpm, type LoanProductTerms } from "./products";
import { paymentParts, type PaymentApplication } from "./servicing";

/** Days from a billing cycle's close to its payment due date (Reg Z 1026.5(b)(2)(ii) asks for at least 21). */
export const LINE_PAYMENT_DUE_DAYS = 25;

/** How the minimum payment is figured: a percent of the balance (ppm of a unit) with a floor. */
export interface MinimumPaymentRule {
  /** 30_000 = 3% of the balance. */
  percent_ppm: number;
  floor_cents: number;
}

/** The open-end terms of a line-of-credit product (the profile's), beside the loan product's own. */
export interface LineOfCreditTerms {
  minimum_payment: MinimumPaymentRule;
}

/**
 * The minimum payment on a cycle's closing balance: the greater of the percent (rounded up to the
 * cent, so the member is never asked for less than the stated percent) and the floor, never more
 * than the balance; zero on nothing owed.
 */
export function minimumPayment(balance_cents: number, rule: MinimumPaymentRule): number {
  if (!Number.isSafeInteger(balance_cents)) throw new Error("minimum payment: bad balance");
  if (balance_cents <= 0) return 0;
  const percent_cents = Number((BigInt(balance_cents) * BigInt(rule.percent_ppm) + 999_999n) / 1_000_000n);
  return Math.min(balance_cents, Math.max(percent_cents, rule.floor_cents));
}

/** A cycle's minimum due: the rule's minimum plus what is still unpaid of earlier minimums, capped at the balance. */
export function cycleMinimumDue(balance_cents: number, rule: MinimumPaymentRule, past_due_cents: number): number {
  if (balance_cents <= 0) return 0;
  return Math.min(balance_cents, minimumPayment(balance_cents, rule) + Math.max(0, past_due_cents));
}

/** What may still be drawn: the limit less everything owed, never below zero. */
export function availableCredit(credit_limit_cents: number, owed_cents: number): number {
  return Math.max(0, credit_limit_cents - owed_cents);
}

/** Why a draw cannot be made, or null: a whole positive number of cents within the available credit. */
export function drawProblem(amount_cents: number, available_cents: number): string | null {
  if (!Number.isSafeInteger(amount_cents) || amount_cents <= 0) return "Enter an amount of at least $0.01.";
  if (amount_cents > available_cents)
    return available_cents === 0
      ? "You have no credit available to draw: pay down the line first."
      : `That is more than your available credit of ${formatCents(available_cents)}.`;
  return null;
}

/** The close of the line's `n`th billing cycle (n >= 1): n months after it was opened, on the same day. */
export function cycleCloseOn(opened_on: string, n: number): string {
  return dueDate(opened_on, n);
}

/** What a member may not ask for: a credit limit within the product's. */
export function creditLimitProblem(product: LoanProductTerms, credit_limit_cents: number): string | null {
  if (credit_limit_cents < product.amount_min_cents || credit_limit_cents > product.amount_max_cents)
    return `Enter a credit limit from ${formatCents(product.amount_min_cents)} to ${formatCents(product.amount_max_cents)}.`;
  return null;
}

/** What staff may not offer: the limit within the product, the rate within its range. */
export function lineOfferProblems(
  product: LoanProductTerms,
  offer: { credit_limit_cents: number; rate_ppm: number },
): { field: "amount" | "rate"; message: string }[] {
  const problems: { field: "amount" | "rate"; message: string }[] = [];
  const limit = creditLimitProblem(product, offer.credit_limit_cents);
  if (limit) problems.push({ field: "amount", message: limit });
  if (offer.rate_ppm < product.rate_min_ppm || offer.rate_ppm > product.rate_max_ppm)
    problems.push({
      field: "rate",
      message: `The rate must be from ${formatRatePpm(product.rate_min_ppm)} to ${formatRatePpm(product.rate_max_ppm)} (the product's range).`,
    });
  return problems;
}

/**
 * The account-opening disclosure of a line of credit (Regulation Z 12 CFR 1026.6(b)): what the
 * member reads before accepting, kept with the acceptance and as a PDF. One function: the offer
 * page, the acceptance, the PDF and the email all take it from here.
 */
export interface LineOfCreditDisclosure {
  credit_limit_cents: number;
  /** The annual percentage rate (1026.6(b)(2)(i)): the note rate, as no fee is a finance charge. */
  rate_ppm: number;
  /** The daily periodic rate, as text with its digits (1026.6(b)(4)(i)(B)): "0.024630%". */
  daily_periodic_rate: string;
  /** How the balance that interest is figured on is determined (1026.6(b)(4)(i)(D)). */
  balance_method: string;
  /** When interest begins (1026.6(b)(2)(v)): no grace period. */
  grace_period: string;
  minimum_payment: MinimumPaymentRule;
  /** How the minimum payment is figured, in words. */
  minimum_payment_text: string;
  payment_due_days: number;
  late_fee_cents: number;
  late_fee_grace_days: number;
  /** Fees charged to open or keep the line (1026.6(b)(2)(ii)): none. */
  annual_fee_cents: number;
  /** The payment order (the credit union's stated rule). */
  payment_application: string;
  opened_on: string;
  first_cycle_close_on: string;
}

export function lineOfCreditDisclosure(input: {
  credit_limit_cents: number;
  rate_ppm: number;
  minimum_payment: MinimumPaymentRule;
  late_fee_cents: number;
  grace_days: number;
  opened_on: string;
}): LineOfCreditDisclosure {
  return {
    credit_limit_cents: input.credit_limit_cents,
    rate_ppm: input.rate_ppm,
    daily_periodic_rate: dailyPeriodicRate(input.rate_ppm),
    balance_method:
      "Daily balance: each day's interest is the principal you owe that day times the annual percentage rate divided by 365.",
    grace_period: "There is no grace period: interest begins on the day of each draw.",
    minimum_payment: input.minimum_payment,
    minimum_payment_text: minimumPaymentText(input.minimum_payment),
    payment_due_days: LINE_PAYMENT_DUE_DAYS,
    late_fee_cents: input.late_fee_cents,
    late_fee_grace_days: input.grace_days,
    annual_fee_cents: 0,
    payment_application: "Each payment goes to fees first, then interest, then the principal drawn.",
    opened_on: input.opened_on,
    first_cycle_close_on: cycleCloseOn(input.opened_on, 1),
  };
}

/** "The greater of 3% of the balance and $25, or the whole balance when less, plus any minimum still unpaid." */
export function minimumPaymentText(rule: MinimumPaymentRule): string {
  return `The greater of ${formatRatePpm(rule.percent_ppm)} of the balance when the month's cycle closes (rounded up to the cent) and ${formatCents(rule.floor_cents)}, or the whole balance when it is less, plus any earlier minimum still unpaid.`;
}

/** The rate / 365 as a percent to six decimals, rounded half up: 8.99% -> "0.024630%". */
export function dailyPeriodicRate(rate_ppm: number): string {
  // rate_ppm / 365 is ppm of a unit a day; a percent with 6 decimals is 1e-8 of a unit: x 100 / 365.
  const hundred_millionths = Math.round((rate_ppm * 100) / 365);
  const whole = Math.floor(hundred_millionths / 1_000_000);
  return `${whole}.${String(hundred_millionths % 1_000_000).padStart(6, "0")}%`;
}

/**
 * A line of credit's account-opening disclosure (Regulation Z 12 CFR 1026.6(b)) as the member
 * reads it in the app, as the PDF kept with the acceptance (pdfkit, real text) and in the email:
 * one list of rows, so the three say the same.
 */
export function lineDisclosureRows(d: LineOfCreditDisclosure): [string, string][] {
  return [
    ["Credit limit", formatCents(d.credit_limit_cents)],
    ["Annual percentage rate (APR) for draws", `${formatRatePpm(d.rate_ppm)} (fixed)`],
    ["Daily periodic rate", d.daily_periodic_rate],
    ["How we figure interest", d.balance_method],
    ["When interest begins", d.grace_period],
    ["Minimum payment", d.minimum_payment_text],
    ["Payment due", `${d.payment_due_days} days after each monthly billing cycle closes`],
    [
      "Late payment fee",
      `${formatCents(d.late_fee_cents)} if the minimum is not paid within ${d.late_fee_grace_days} days of its due date`,
    ],
    ["Annual or opening fee", d.annual_fee_cents === 0 ? "None" : formatCents(d.annual_fee_cents)],
    ["How payments are applied", d.payment_application],
    ["First billing cycle closes", formatBusinessDate(d.first_cycle_close_on)],
  ];
}

/** The rule in a few words, for a product card: "3.00% of the balance or $25.00, whichever is more". */
export function minimumPaymentShort(rule: MinimumPaymentRule): string {
  return `${formatRatePpm(rule.percent_ppm)} of the balance or ${formatCents(rule.floor_cents)}, whichever is more`;
}

/** One draw or payment on a line, as the member and staff read it in its history. */
export interface LineActivityParts extends PaymentApplication {
  kind: "draw" | "payment" | "autopay";
  account_name: string;
}

/** "to Checking" for a draw; "from Checking: $1.00 fees, $2.50 interest, $46.50 principal" for a payment. */
export function lineActivityDetail(a: LineActivityParts): string {
  return a.kind === "draw" ? `to ${a.account_name}` : `from ${a.account_name}: ${paymentParts(a)}`;
}
