import { z } from "zod";
import { plainText } from "./plain-text";
import { calendarDate } from "./calendar-date";
import { addCalendarDays } from "./payment-dates";
import { parseDollarsToCents } from "./money";

/**
 * Suspicious activity reports (31 CFR 1020.320, docs/product.md#suspicious-activity-reports): the
 * filing deadline and the case form. Pure.
 *
 * 1020.320(b)(3): a SAR is filed no later than 30 calendar days after the date of initial
 * detection of facts that may constitute a basis for filing; when no suspect is identified on
 * that date, filing may be delayed an additional 30 calendar days to identify one, but never
 * beyond 60 calendar days after the initial detection.
 */
export const SAR_DAYS_SUSPECT_IDENTIFIED = 30;
export const SAR_DAYS_NO_SUSPECT = 60;

export function sarFilingDeadline(detected_on: string, suspect_identified: boolean): string {
  return addCalendarDays(detected_on, suspect_identified ? SAR_DAYS_SUSPECT_IDENTIFIED : SAR_DAYS_NO_SUSPECT);
}

export const SAR_NARRATIVE_MIN_CHARS = 40;
export const SAR_NARRATIVE_MAX_CHARS = 10_000;

export const SAR_STATUS_LABELS = {
  open: "Waiting for a second staff member's approval",
  approved: "Approved: to be filed",
  filed: "Filed",
} as const;

/** The BSA E-Filing System's acknowledgement of a filed SAR: its BSA ID, 14 digits. */
export const BSA_ID = /^\d{14}$/;

/** The form that opens a case: the facts from the source are filled in by the server. */
export const OpenSarSchema = z
  .object({
    suspect_identified: z.enum(["yes", "no"], "Please say whether a suspect is identified"),
    amount: z
      .string({ error: "Enter the amount involved, such as 1250.00" })
      .trim()
      .refine((text) => parseDollarsToCents(text) !== null, "Enter the amount involved, such as 1250.00"),
    activity_from: calendarDate("Enter the date the activity began (YYYY-MM-DD)"),
    activity_to: calendarDate("Enter the date the activity ended (YYYY-MM-DD)"),
    narrative: plainText({
      missing: `Describe the activity: who, what, when, where and why it is suspicious (at least ${SAR_NARRATIVE_MIN_CHARS} characters)`,
      multiline: true,
    })
      .min(
        SAR_NARRATIVE_MIN_CHARS,
        `Describe the activity: who, what, when, where and why it is suspicious (at least ${SAR_NARRATIVE_MIN_CHARS} characters)`,
      )
      .max(SAR_NARRATIVE_MAX_CHARS, `Please use at most ${SAR_NARRATIVE_MAX_CHARS.toLocaleString("en-US")} characters`),
  })
  .refine((v) => v.activity_from <= v.activity_to, {
    message: "The activity cannot end before it began",
    path: ["activity_to"],
  });

export const FileSarSchema = z.object({
  bsa_acknowledgement: z
    .string({ error: "Enter the BSA ID the BSA E-Filing System acknowledged the filing with (14 digits)" })
    .trim()
    .regex(BSA_ID, "Enter the BSA ID the BSA E-Filing System acknowledged the filing with (14 digits)"),
});
