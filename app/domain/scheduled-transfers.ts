/**
 * The "When" of a Between Accounts or To Another Member transfer (docs/product.md#scheduled-transfers):
 * now, on a later business day, or repeating by the series rules of app/domain/schedule.ts (the
 * ones Bill Pay uses). Built for a given `today` (the credit union's date): the server passes its
 * own, the browser the loader's. No I/O.
 */
import { z } from "zod";
import { isBusinessDay } from "./payment-dates";
import { optionalText, requiredText } from "./transfers";
import { addDays, isIsoDate, parseSeriesRule, type SeriesRule } from "./schedule";

export const SCHEDULE_MESSAGES = {
  when: "Please choose when to send it",
  transfer_date: "Please enter a valid date",
  transfer_date_early: "The earliest date is tomorrow",
  transfer_date_late: "The date can be at most a year ahead",
  transfer_date_business_day: "Please choose a business day (Monday to Friday, not a bank holiday)",
  frequency: "Please choose how often to send it",
  every_weeks: "Please enter a number of weeks from 1 to 52",
  ends: "Repeating transfers need an end: choose a last date or a number of transfers",
  end_date: "The last date must be a real date on or after the first transfer",
  end_date_late: "The last date can be at most five years ahead",
  payment_count: "Please enter a number of transfers from 1 to 120",
  on_failure: "Please choose what happens if a transfer cannot be sent",
  series: "This scheduled transfer was not found.",
  missing: "Please fill in all fields",
} as const;

/** How far ahead a transfer may be scheduled, as Bill Pay's payments. */
export const TRANSFER_DATE_DAYS_MAX = 365;

export type OnFailure = "continue" | "stop";

/** A transfer to send later: once (`rule` null) on `first_date`, or a series. */
export interface TransferSchedule {
  first_date: string;
  rule: SeriesRule | null;
  on_failure: OnFailure;
}

/** The rule of a date a scheduled transfer may fall on, as of `today`: tomorrow to a year ahead, a business day. */
export function transferDateField(today: string) {
  const M = SCHEDULE_MESSAGES;
  const earliest = addDays(today, 1);
  const latest = addDays(today, TRANSFER_DATE_DAYS_MAX);
  return requiredText(M.missing, 10)
    .refine(isIsoDate, { message: M.transfer_date, abort: true })
    .refine((date) => date >= earliest, { message: M.transfer_date_early, abort: true })
    .refine((date) => date <= latest, { message: M.transfer_date_late, abort: true })
    .refine(isBusinessDay, M.transfer_date_business_day);
}

/**
 * The When fields of a transfer form. `when` "now" (or absent: forms without the choice) sends
 * now; "date" once on `transfer_date`; "repeat" a series from `transfer_date`.
 */
export function whenSchema(today: string) {
  if (!isIsoDate(today)) throw new RangeError(`Not an ISO date: ${today}`);
  const M = SCHEDULE_MESSAGES;
  return z
    .object({
      when: z.enum(["now", "date", "repeat"], { error: M.when }).default("now"),
      transfer_date: optionalText(10),
      frequency: optionalText(10),
      every_weeks: optionalText(3),
      ends: optionalText(10),
      end_date: optionalText(10),
      payment_count: optionalText(4),
      on_failure: optionalText(10),
    })
    .transform((form, ctx): TransferSchedule | null => {
      if (form.when === "now") return null;
      const date = transferDateField(today).safeParse(form.transfer_date ?? "");
      if (!date.success) {
        ctx.addIssue({ code: "custom", path: ["transfer_date"], message: date.error.issues[0]!.message });
        return z.NEVER;
      }
      const on_failure = form.when === "repeat" ? form.on_failure : "continue";
      if (on_failure !== "continue" && on_failure !== "stop") {
        ctx.addIssue({ code: "custom", path: ["on_failure"], message: M.on_failure });
        return z.NEVER;
      }
      if (form.when === "date") return { first_date: date.data, rule: null, on_failure };
      if (form.frequency !== "monthly" && form.frequency !== "weeks") {
        ctx.addIssue({ code: "custom", path: ["frequency"], message: M.frequency });
        return z.NEVER;
      }
      const parsed = parseSeriesRule({ ...form, frequency: form.frequency, first_date: date.data }, M);
      if (parsed.errors) {
        for (const [path, message] of Object.entries(parsed.errors))
          ctx.addIssue({ code: "custom", path: [path], message });
        return z.NEVER;
      }
      return { first_date: date.data, rule: parsed.rule, on_failure };
    });
}

/** Editing a scheduled transfer: the amount and the next date (a series' later dates follow the new one). */
export function editScheduledTransferSchema(today: string, amountField: z.ZodType<number>) {
  const M = SCHEDULE_MESSAGES;
  return z.object({
    series_id: requiredText(M.series, 15)
      .regex(/^[1-9]\d*$/, M.series)
      .transform(Number),
    amount: amountField,
    next_date: transferDateField(today),
  });
}

/** Skipping the next transfer of a series, or cancelling a scheduled transfer. */
export const scheduledTransferIdSchema = z.object({
  series_id: requiredText(SCHEDULE_MESSAGES.series, 15)
    .regex(/^[1-9]\d*$/, SCHEDULE_MESSAGES.series)
    .transform(Number),
});

/** "Every 2 weeks, 6 transfers" / "Once" in the list's words. */
export const TRANSFER_NOUN = { one: "transfer", many: "transfers" } as const;
