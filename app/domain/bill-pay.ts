/**
 * The Bill Pay form (docs/product.md#bill-pay). The earliest payment date is tomorrow, and
 * "tomorrow" depends on the clock and the credit union's time zone, so the schema is built for a
 * given `today`: the server passes its own date, the browser the same date from the loader.
 * Whether the amount is available and the account is the member's is the server's to check.
 */
import { z } from "zod";
import { accountIdField, amountCentsField, idempotencyKeyField, optionalText, requiredText } from "./transfers";

export const BILL_PAY_MESSAGES = {
  missing: "Please fill in all required fields",
  amount: "Please enter a valid amount",
  payee_account_number: "Please enter a valid account number",
  payment_date: "Please enter a valid date",
  payment_date_early: "The earliest payment date is tomorrow",
  failed: "Payment failed. Please try again.",
} as const;

/** Account numbers at billers: letters, digits, spaces and dashes as printed on the bill. */
const PAYEE_ACCOUNT_NUMBER = /^[A-Za-z0-9][A-Za-z0-9 -]{0,33}$/;

export function billPaySchema(today: string) {
  const earliest_date = addDays(today, 1);
  const M = BILL_PAY_MESSAGES;
  return z
    .object({
      payee: requiredText(M.missing),
      payee_account_number: requiredText(M.missing).regex(PAYEE_ACCOUNT_NUMBER, M.payee_account_number),
      from_account_id: accountIdField(M.missing),
      amount: amountCentsField(M.missing, M.amount),
      // ISO dates compare correctly as strings, so no Date (and no time zone) is involved.
      payment_date: requiredText(M.missing, 10)
        .refine(isIsoDate, M.payment_date)
        .refine((date) => !isIsoDate(date) || date >= earliest_date, M.payment_date_early),
      memo: optionalText(),
      idempotency_key: idempotencyKeyField(M.failed),
    })
    .transform(({ amount, ...rest }) => ({ ...rest, amount_cents: amount }));
}

export type BillPayment = z.output<ReturnType<typeof billPaySchema>>;

/** A real calendar date written YYYY-MM-DD (no 2025-02-30). */
export function isIsoDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

/** `addDays("2026-02-28", 1)` -> "2026-03-01". Calendar arithmetic in UTC, where days are always 24 h. */
export function addDays(iso_date: string, days: number): string {
  if (!isIsoDate(iso_date)) throw new RangeError(`Not an ISO date: ${iso_date}`);
  const date = new Date(`${iso_date}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}
