/**
 * Bill Pay's forms and rules (docs/product.md#bill-pay), without I/O. The earliest payment date is
 * tomorrow, and "tomorrow" depends on the clock and the credit union's time zone, so the schemas
 * are built for a given `today`: the server passes its own date, the browser the same date from
 * the loader. Whether the amount is available and the account is the member's is the server's to
 * check.
 */
import { z } from "zod";
import { accountIdField, amountCentsField, idempotencyKeyField, optionalText, requiredText } from "./transfers";
import { isBusinessDay } from "./payment-dates";
import { addDays, isIsoDate, parseSeriesRule, type SeriesFrequency, type SeriesRule } from "./schedule";

export const BILL_PAY_MESSAGES = {
  missing: "Please fill in all required fields",
  payee: "Please choose a payee",
  amount: "Please enter a valid amount",
  payee_account_number: "Please enter a valid account number",
  payment_date: "Please enter a valid date",
  payment_date_early: "The earliest payment date is tomorrow",
  payment_date_late: "The payment date can be at most a year ahead",
  payment_date_business_day: "Please choose a business day (Monday to Friday, not a bank holiday)",
  frequency: "Please choose how often to pay",
  every_weeks: "Please enter a number of weeks from 1 to 52",
  ends: "Recurring payments need an end: choose a last date or a number of payments",
  end_date: "The last date must be a real date on or after the first payment",
  end_date_late: "The last date can be at most five years ahead",
  payment_count: "Please enter a number of payments from 1 to 120",
  payment: "This payment was not found.",
  failed: "Payment failed. Please try again.",
} as const;

/** How far ahead a payment may be scheduled: its money is held until then. */
export const PAYMENT_DATE_DAYS_MAX = 365;
export const PAYEE_NAME_MAX = 80;
export const PAYEE_ADDRESS_MAX = 200;

/** Account numbers at billers: letters, digits, spaces and dashes as printed on the bill. */
const PAYEE_ACCOUNT_NUMBER = /^[A-Za-z0-9][A-Za-z0-9 -]{0,33}$/;

export function isPayeeAccountNumber(text: string): boolean {
  return PAYEE_ACCOUNT_NUMBER.test(text);
}

/** "Electric Company ••7890": the last four letters or digits of the number at the payee. */
export function maskPayeeAccount(account_number: string): string {
  const plain = account_number.replace(/[\s-]/g, "");
  return `••${plain.slice(-4)}`;
}

/**
 * What the payment form's payee list posts: a saved payee (`payee:12`) or one of the six quick
 * picks of the institution profile by its place (`pick:0` to `pick:5`), never a typed name.
 */
export type PayeeChoice = { kind: "saved"; payee_id: number } | { kind: "quick_pick"; index: number };

export function parsePayeeChoice(value: string): PayeeChoice | null {
  const saved = /^payee:([1-9]\d{0,14})$/.exec(value);
  if (saved) return { kind: "saved", payee_id: Number(saved[1]) };
  const pick = /^pick:([0-5])$/.exec(value);
  if (pick) return { kind: "quick_pick", index: Number(pick[1]) };
  return null;
}

/** The rule of a date field that a payment may fall on, as of `today`. */
function paymentDateField(today: string) {
  const M = BILL_PAY_MESSAGES;
  const earliest = addDays(today, 1);
  const latest = addDays(today, PAYMENT_DATE_DAYS_MAX);
  // ISO dates compare correctly as strings, so no Date (and no time zone) is involved.
  return requiredText(M.missing, 10)
    .refine(isIsoDate, { message: M.payment_date, abort: true })
    .refine((date) => date >= earliest, { message: M.payment_date_early, abort: true })
    .refine((date) => date <= latest, { message: M.payment_date_late, abort: true })
    .refine(isBusinessDay, M.payment_date_business_day);
}

export function billPaySchema(today: string) {
  if (!isIsoDate(today)) throw new RangeError(`Not an ISO date: ${today}`);
  const M = BILL_PAY_MESSAGES;
  return z
    .object({
      payee: requiredText(M.missing, 30).refine((v) => parsePayeeChoice(v) !== null, M.payee),
      // Required for a quick pick; for a saved payee an empty field means its saved number.
      payee_account_number: optionalText(34).refine(
        (v) => v === undefined || isPayeeAccountNumber(v),
        M.payee_account_number,
      ),
      from_account_id: accountIdField(M.missing),
      amount: amountCentsField(M.missing, M.amount),
      payment_date: paymentDateField(today),
      memo: optionalText(),
      frequency: z.enum(["once", "monthly", "weeks"], { error: M.frequency }).default("once"),
      every_weeks: optionalText(3),
      ends: optionalText(10),
      end_date: optionalText(10),
      payment_count: optionalText(4),
      idempotency_key: idempotencyKeyField(M.failed),
    })
    .superRefine((form, ctx) => {
      const choice = parsePayeeChoice(form.payee);
      if (choice?.kind === "quick_pick" && form.payee_account_number === undefined)
        ctx.addIssue({ code: "custom", path: ["payee_account_number"], message: M.missing });
      if (form.frequency === "once") return;
      const rule = seriesRuleOf({ ...form, frequency: form.frequency });
      for (const [path, message] of Object.entries(rule.errors))
        ctx.addIssue({ code: "custom", path: [path], message });
    })
    .transform(({ amount, frequency, every_weeks: _w, ends: _e, end_date: _d, payment_count: _c, ...rest }) => {
      const rule =
        frequency === "once"
          ? null
          : seriesRuleOf({
              frequency,
              every_weeks: _w,
              ends: _e,
              end_date: _d,
              payment_count: _c,
              payment_date: rest.payment_date,
            }).rule;
      return { ...rest, amount_cents: amount, recurrence: rule };
    });
}

/** The recurrence fields as a rule (app/domain/schedule.ts), or each field's message in Bill Pay's words. */
function seriesRuleOf(form: {
  frequency: SeriesFrequency;
  every_weeks?: string;
  ends?: string;
  end_date?: string;
  payment_count?: string;
  payment_date: string;
}): { rule: SeriesRule | null; errors: Record<string, string> } {
  const parsed = parseSeriesRule({ ...form, first_date: form.payment_date }, BILL_PAY_MESSAGES);
  return { rule: parsed.rule, errors: parsed.errors ?? {} };
}

export type BillPayForm = z.output<ReturnType<typeof billPaySchema>>;

/** Saving a payee: name (a quick pick's or typed), the account number at the payee, an address if wanted. */
export const payeeSchema = z.object({
  name: requiredText(BILL_PAY_MESSAGES.missing, PAYEE_NAME_MAX),
  account_number: requiredText(BILL_PAY_MESSAGES.missing, 34).refine(
    isPayeeAccountNumber,
    BILL_PAY_MESSAGES.payee_account_number,
  ),
  address: optionalText(PAYEE_ADDRESS_MAX),
});
export type PayeeForm = z.output<typeof payeeSchema>;

/** A payment's id as posted by its Edit or Cancel form; anything else answers "not found". */
function paymentIdField() {
  return requiredText(BILL_PAY_MESSAGES.payment, 15)
    .regex(/^[1-9]\d*$/, BILL_PAY_MESSAGES.payment)
    .transform(Number);
}

/** Editing a scheduled payment: its amount, date and memo. */
export function editBillPaymentSchema(today: string) {
  const M = BILL_PAY_MESSAGES;
  return z
    .object({
      payment_id: paymentIdField(),
      amount: amountCentsField(M.missing, M.amount),
      payment_date: paymentDateField(today),
      memo: optionalText(),
      idempotency_key: idempotencyKeyField(M.failed),
    })
    .transform(({ amount, ...rest }) => ({ ...rest, amount_cents: amount }));
}
export type EditBillPaymentForm = z.output<ReturnType<typeof editBillPaymentSchema>>;

/** Cancelling a scheduled payment (and, for a recurring one, the payments after it). */
export const cancelBillPaymentSchema = z.object({
  payment_id: paymentIdField(),
});
