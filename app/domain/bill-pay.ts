/**
 * Bill Pay's forms and rules (docs/product.md#bill-pay), without I/O. The earliest payment date is
 * tomorrow, and "tomorrow" depends on the clock and the credit union's time zone, so the schemas
 * are built for a given `today`: the server passes its own date, the browser the same date from
 * the loader. Whether the amount is available and the account is the member's is the server's to
 * check.
 */
import { z } from "zod";
import { accountIdField, amountCentsField, idempotencyKeyField, optionalText, requiredText } from "./transfers";
import { businessDayOnOrAfter, isBusinessDay } from "./payment-dates";

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
export const SERIES_WEEKS_MAX = 52;
export const SERIES_COUNT_MAX = 120;
/** A series that ends on a date ends within five years of its first payment. */
export const SERIES_END_DAYS_MAX = 5 * 366;
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

export interface SeriesRule {
  frequency: "monthly" | "weeks";
  /** For "weeks": every this many weeks (1 to 52); null when monthly. */
  interval_weeks: number | null;
  first_date: string;
  /** Exactly one of end_date and payment_count is set. */
  end_date: string | null;
  payment_count: number | null;
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

/** The recurrence fields as a rule, or each field's message. */
function seriesRuleOf(form: {
  frequency: "monthly" | "weeks";
  every_weeks?: string;
  ends?: string;
  end_date?: string;
  payment_count?: string;
  payment_date: string;
}): {
  rule: SeriesRule | null;
  errors: Record<string, string>;
} {
  const M = BILL_PAY_MESSAGES;
  const errors: Record<string, string> = {};
  let interval_weeks: number | null = null;
  if (form.frequency === "weeks") {
    interval_weeks = /^\d{1,2}$/.test(form.every_weeks ?? "") ? Number(form.every_weeks) : NaN;
    if (!(interval_weeks >= 1 && interval_weeks <= SERIES_WEEKS_MAX)) errors.every_weeks = M.every_weeks;
  }
  let end_date: string | null = null;
  let payment_count: number | null = null;
  if (form.ends === "date") {
    end_date = form.end_date ?? "";
    if (!isIsoDate(end_date) || end_date < form.payment_date) errors.end_date = M.end_date;
    else if (end_date > addDays(form.payment_date, SERIES_END_DAYS_MAX)) errors.end_date = M.end_date_late;
  } else if (form.ends === "count") {
    payment_count = /^\d{1,3}$/.test(form.payment_count ?? "") ? Number(form.payment_count) : NaN;
    if (!(payment_count >= 1 && payment_count <= SERIES_COUNT_MAX)) errors.payment_count = M.payment_count;
  } else {
    // No end ("never", or nothing chosen): a series that pays forever is not offered.
    errors.ends = M.ends;
  }
  if (Object.keys(errors).length) return { rule: null, errors };
  return {
    rule: { frequency: form.frequency, interval_weeks, first_date: form.payment_date, end_date, payment_count },
    errors,
  };
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

/**
 * The date of the series' payment number `sequence` (from 1): the first date plus whole months
 * (the same day of the month, or the month's last day when it has fewer days: Jan 31 -> Feb 28)
 * or whole periods of weeks, counted from the first date so the day never drifts; a weekend moves
 * it to the next business day.
 */
export function seriesPaymentDate(rule: SeriesRule, sequence: number): string {
  if (!Number.isSafeInteger(sequence) || sequence < 1) throw new RangeError("sequence counts from 1");
  const nominal =
    rule.frequency === "monthly"
      ? addMonthsClamped(rule.first_date, sequence - 1)
      : addDays(rule.first_date, 7 * (rule.interval_weeks ?? 1) * (sequence - 1));
  return businessDayOnOrAfter(nominal);
}

/** Whether the series has a payment number `sequence`: within its count, or on or before its last date. */
export function seriesHasPayment(rule: SeriesRule, sequence: number): boolean {
  if (sequence < 1) return false;
  if (rule.payment_count !== null) return sequence <= rule.payment_count;
  return rule.end_date !== null && seriesPaymentDate(rule, sequence) <= rule.end_date;
}

/** "Monthly, 12 payments" / "Every 2 weeks until Jun 30, 2027" (the date as given). */
export function describeSeries(
  rule: Pick<SeriesRule, "frequency" | "interval_weeks" | "end_date" | "payment_count">,
  formatDate: (iso: string) => string = (d) => d,
): string {
  const how =
    rule.frequency === "monthly"
      ? "Monthly"
      : rule.interval_weeks === 1
        ? "Every week"
        : `Every ${rule.interval_weeks} weeks`;
  if (rule.payment_count !== null)
    return `${how}, ${rule.payment_count} ${rule.payment_count === 1 ? "payment" : "payments"}`;
  return `${how} until ${formatDate(rule.end_date ?? "")}`;
}

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

/** `addMonthsClamped("2026-01-31", 1)` -> "2026-02-28": the same day, or the month's last. */
export function addMonthsClamped(iso_date: string, months: number): string {
  if (!isIsoDate(iso_date)) throw new RangeError(`Not an ISO date: ${iso_date}`);
  const [year, month, day] = iso_date.split("-").map(Number) as [number, number, number];
  const index = year * 12 + (month - 1) + months;
  const y = Math.floor(index / 12);
  const m = index - y * 12;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return `${String(y).padStart(4, "0")}-${String(m + 1).padStart(2, "0")}-${String(Math.min(day, last)).padStart(2, "0")}`;
}
