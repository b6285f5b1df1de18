import { z } from "zod";
import { plainText } from "./plain-text";
import { calendarDate, formatBusinessDate } from "./calendar-date";
import { addBusinessDays, addCalendarDays, businessDaysBetween } from "./payment-dates";

/**
 * Error resolution for electronic transfers (Regulation E, 12 CFR 1005.11; docs/product.md#disputes):
 * what a member may report, the case's statuses, and its clocks. Pure: every date is a business
 * date (YYYY-MM-DD) in the institution's time zone, and every business-day count goes through the
 * one business-day function (app/domain/payment-dates.ts: weekends and Federal Reserve holidays).
 *
 * The clocks, as 1005.11(c) counts them (the 10 and 20 in business days, the 45 and 90 in
 * calendar days, each from the day the notice of error was received, that day not counted):
 * - (c)(1): investigate and decide within 10 business days;
 * - (c)(2): or provisionally credit the amount within those 10 business days, tell the member
 *   within 2 business days of the credit ((c)(2)(ii)), and finish within 45 calendar days;
 * - (c)(3)(i): 20 business days instead of 10 when the transfer was made within 30 days after
 *   the account was opened (a new account);
 * - (c)(3)(ii): 90 calendar days instead of 45 for a new account, a point-of-sale debit card
 *   transaction, or a transfer not initiated within a State (foreign-initiated);
 * - (d)(2) with comment 11(d)(2)-1: when no error is found, the provisional credit is debited
 *   5 business days after the written notice that names the calendar date, and the account's
 *   payments are honoured up to that amount until then.
 */

/**
 * The ledger kinds a member may report a problem with: the electronic transfers of their history
 * (card purchases, ACH in and out, transfers, bill payments, deposits). Wires are not electronic
 * fund transfers under Regulation E (1005.3(c)(3)); fees, dividends, corrections and reversals are
 * the credit union's own postings, asked about through Contact.
 */
export const DISPUTABLE_KINDS = [
  "card_payment",
  "ach_in",
  "ach_out",
  "transfer",
  "member_transfer",
  "bill_payment",
  "mobile_deposit",
  "deposit",
] as const;

/** A completed (posted) electronic transfer may be reported; a pending one has moved nothing yet. */
export function isDisputable(kind: string, status: string): boolean {
  return status === "posted" && (DISPUTABLE_KINDS as readonly string[]).includes(kind);
}

/** How the member told us: their own report online, or to staff who entered it for them. */
export const DISPUTE_CHANNELS = ["online", "phone", "in_person", "mail"] as const;
export type DisputeChannel = (typeof DISPUTE_CHANNELS)[number];
export const DISPUTE_CHANNEL_LABELS: Record<DisputeChannel, string> = {
  online: "Online",
  phone: "By phone",
  in_person: "In person",
  mail: "By mail",
};

export const DISPUTE_KINDS = ["not_mine", "wrong_amount", "not_received", "duplicate", "other"] as const;
export type DisputeKind = (typeof DISPUTE_KINDS)[number];

/** The kinds of error in the member's words (the form's choices and the case's title). */
export const DISPUTE_KIND_LABELS: Record<DisputeKind, string> = {
  not_mine: "I did not make or authorize this transaction",
  wrong_amount: "The amount is wrong",
  not_received: "I did not receive the money or what I paid for",
  duplicate: "I was charged more than once",
  other: "Something else is wrong",
};

/** Short names of the kinds, for the staff queue. */
export const DISPUTE_KIND_SHORT: Record<DisputeKind, string> = {
  not_mine: "Not mine",
  wrong_amount: "Wrong amount",
  not_received: "Not received",
  duplicate: "Duplicate",
  other: "Other",
};

/**
 * A case's life: open (investigating) -> provisionally credited (optional) -> resolved. Resolved
 * with the error found (the credit is final, or credited then), or with none found: the provisional
 * credit waits 5 business days after the notice (reversal_scheduled), then is debited; without a
 * provisional credit the case is closed at once.
 */
export const DISPUTE_STATUSES = [
  "open",
  "provisionally_credited",
  "reversal_scheduled",
  "resolved_error",
  "resolved_no_error",
] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

export const DISPUTE_STATUS_LABELS: Record<DisputeStatus, string> = {
  open: "Under investigation",
  provisionally_credited: "Provisionally credited",
  reversal_scheduled: "No error found: credit to be debited",
  resolved_error: "Resolved: error corrected",
  resolved_no_error: "Resolved: no error found",
};

export function isResolved(status: DisputeStatus): boolean {
  return status === "resolved_error" || status === "resolved_no_error";
}

export const INVESTIGATION_BUSINESS_DAYS = 10;
export const NEW_ACCOUNT_INVESTIGATION_BUSINESS_DAYS = 20;
export const COMPLETION_CALENDAR_DAYS = 45;
export const EXTENDED_COMPLETION_CALENDAR_DAYS = 90;
export const PROVISIONAL_CREDIT_NOTICE_BUSINESS_DAYS = 2;
export const RESULTS_NOTICE_BUSINESS_DAYS = 3;
export const REVERSAL_NOTICE_BUSINESS_DAYS = 5;
export const NEW_ACCOUNT_CALENDAR_DAYS = 30;

/** Why a case has the longer clocks. */
export type ExtendedReason = "new_account" | "point_of_sale" | "foreign";

export const EXTENDED_REASON_LABELS: Record<ExtendedReason, string> = {
  new_account: "new account (transfer within 30 days of opening)",
  point_of_sale: "point-of-sale debit card transaction",
  foreign: "transfer initiated outside the United States",
};

/**
 * 1005.11(c)(3)(i): the transfer was made within 30 days after the first deposit to the account.
 * The account's opening day stands for its first deposit (an account is opened with its deposit).
 */
export function isNewAccountTransfer(account_opened_on: string, transaction_on: string): boolean {
  return transaction_on <= addCalendarDays(account_opened_on, NEW_ACCOUNT_CALENDAR_DAYS);
}

export interface DisputeFacts {
  /** The business date the member's notice of error was received. */
  received_on: string;
  new_account: boolean;
  point_of_sale: boolean;
  foreign: boolean;
}

export interface DisputeClocks {
  received_on: string;
  /** The case number and this date are given to the member at once, on the page and by email. */
  acknowledged_on: string;
  /** 10 business days (20 for a new account): decide, or provisionally credit, by this day. */
  investigate_by: string;
  investigation_business_days: number;
  /** 45 calendar days (90 when extended): finish a provisionally credited case by this day. */
  complete_by: string;
  completion_calendar_days: number;
  extended: ExtendedReason[];
}

/** The case's clocks from the day its notice was received (1005.11(c)(1)-(3)). */
export function disputeClocks(facts: DisputeFacts): DisputeClocks {
  const extended: ExtendedReason[] = [];
  if (facts.new_account) extended.push("new_account");
  if (facts.point_of_sale) extended.push("point_of_sale");
  if (facts.foreign) extended.push("foreign");
  const investigation_business_days = facts.new_account
    ? NEW_ACCOUNT_INVESTIGATION_BUSINESS_DAYS
    : INVESTIGATION_BUSINESS_DAYS;
  const completion_calendar_days = extended.length > 0 ? EXTENDED_COMPLETION_CALENDAR_DAYS : COMPLETION_CALENDAR_DAYS;
  return {
    received_on: facts.received_on,
    acknowledged_on: facts.received_on,
    investigate_by: addBusinessDays(facts.received_on, investigation_business_days),
    investigation_business_days,
    complete_by: addCalendarDays(facts.received_on, completion_calendar_days),
    completion_calendar_days,
    extended,
  };
}

/** 1005.11(c)(2)(ii): the member is told of a provisional credit within 2 business days of it. */
export function provisionalCreditNoticeBy(credited_on: string): string {
  return addBusinessDays(credited_on, PROVISIONAL_CREDIT_NOTICE_BUSINESS_DAYS);
}

/** 1005.11(c)(1), (d)(1): the results are reported within 3 business days after the investigation ends. */
export function resultsNoticeBy(concluded_on: string): string {
  return addBusinessDays(concluded_on, RESULTS_NOTICE_BUSINESS_DAYS);
}

/**
 * 1005.11(d)(2) and comment 11(d)(2)-1: notice sent on `notice_on` that the provisional credit will
 * be debited 5 business days later, on the calendar date it names; until then the account's
 * payments are honoured up to the amount.
 */
export function reversalDebitOn(notice_on: string): string {
  return addBusinessDays(notice_on, REVERSAL_NOTICE_BUSINESS_DAYS);
}

/** How a deadline stands on `today`: red when passed, amber when due today or the next business day. */
export type ClockState = "overdue" | "due_today" | "due_soon" | "on_track";

export function clockState(due_on: string, today: string): ClockState {
  if (due_on < today) return "overdue";
  if (due_on === today) return "due_today";
  return businessDaysBetween(today, due_on) <= 1 ? "due_soon" : "on_track";
}

export const CLOCK_STATE_LABELS: Record<ClockState, string> = {
  overdue: "Overdue",
  due_today: "Due today",
  due_soon: "Due next business day",
  on_track: "On track",
};

/** The case facts a deadline is read from. */
export interface CaseClock {
  status: DisputeStatus;
  new_account: boolean;
  extended: boolean;
  investigate_by: string;
  complete_by: string;
  reversal_on: string | null;
}

export interface Deadline {
  due_on: string;
  /** What must be done by then, for staff. */
  what: string;
  /** The rule, named beside the clock. */
  rule: string;
}

/** The deadline the case must meet next, or null once resolved. */
export function currentDeadline(c: CaseClock): Deadline | null {
  switch (c.status) {
    case "open":
      return {
        due_on: c.investigate_by,
        what: "Resolve, or provisionally credit",
        rule: c.new_account ? "12 CFR 1005.11(c)(3)(i): 20 business days" : "12 CFR 1005.11(c)(1): 10 business days",
      };
    case "provisionally_credited":
      return {
        due_on: c.complete_by,
        what: "Finish the investigation",
        rule: c.extended ? "12 CFR 1005.11(c)(3)(ii): 90 days" : "12 CFR 1005.11(c)(2): 45 days",
      };
    case "reversal_scheduled":
      return {
        due_on: c.reversal_on!,
        what: "Provisional credit debited",
        rule: "12 CFR 1005.11(d)(2), comment 11(d)(2)-1: 5 business days' notice",
      };
    default:
      return null;
  }
}

export const DISPUTE_DETAILS_MAX_CHARS = 2000;
export const DISPUTE_NOTE_MAX_CHARS = 2000;

/** The member's report: the kind of error and what happened in their words. */
export const DisputeReportSchema = z.object({
  transaction_id: z.coerce
    .number({ error: "Choose the transaction." })
    .int("Choose the transaction.")
    .positive("Choose the transaction."),
  kind: z.enum(DISPUTE_KINDS, { error: "Choose what is wrong." }),
  details: plainText({
    missing: "Tell us what happened.",
    message: "Please use only letters, numbers, spaces, punctuation and line breaks.",
    multiline: true,
  })
    .min(10, "Tell us what happened in a sentence or two (at least 10 characters).")
    .max(
      DISPUTE_DETAILS_MAX_CHARS,
      `Please keep it to ${DISPUTE_DETAILS_MAX_CHARS.toLocaleString("en-US")} characters.`,
    ),
});
export type DisputeReport = z.infer<typeof DisputeReportSchema>;

/**
 * A report staff enter for a member who told us by phone, in person or by mail: the same report,
 * how and when the member told us (the clocks run from that day, 1005.11(b)(1)).
 */
export const StaffDisputeReportSchema = DisputeReportSchema.extend({
  member_id: z.string({ error: "Find the member first." }).regex(/^[A-Za-z0-9_-]{1,64}$/, "Find the member first."),
  reported_via: z.enum(["phone", "in_person", "mail"], { error: "Choose how the member told us." }),
  received_on: calendarDate("Enter the date the member told us (YYYY-MM-DD)."),
});
export type StaffDisputeReport = z.infer<typeof StaffDisputeReportSchema>;

export const STAFF_REPORT_MESSAGES = {
  future: "The date the member told us cannot be after today.",
  before_transaction: (date: string) =>
    `The member cannot have told us before the transaction's date (${formatBusinessDate(date)}).`,
} as const;

/**
 * Attachments to a member's report (a receipt, a screenshot, a letter): at most 2, each a PDF, JPEG
 * or PNG of at most 10 MB, the type read from the content. Two fit the 21 MB a multipart post may be.
 */
export const DISPUTE_ATTACHMENT_FIELDS = ["attachment_1", "attachment_2"] as const;
export type DisputeAttachmentField = (typeof DISPUTE_ATTACHMENT_FIELDS)[number];
export const DISPUTE_ATTACHMENT_MAX_BYTES = 10 * 1024 * 1024;
export const DISPUTE_ATTACHMENT_TYPES = ["application/pdf", "image/jpeg", "image/png"] as const;
export const DISPUTE_ATTACHMENT_MESSAGES = {
  wrong_type: "Attach a PDF, JPEG or PNG file.",
  too_large: "The file is larger than 10 MB.",
  unreadable: "The file could not be read. Please attach it again.",
  missing: "Attach a file.",
} as const;
export const DISPUTE_ATTACHMENT_TYPE_LABELS: Record<string, string> = {
  "application/pdf": "PDF",
  "image/jpeg": "JPEG",
  "image/png": "PNG",
};

/** "PDF, 120 KB": an attachment as listed on the case. */
export function attachmentLabel(mime: string, bytes: number): string {
  const size =
    bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`;
  return `${DISPUTE_ATTACHMENT_TYPE_LABELS[mime] ?? "File"}, ${size}`;
}

/** A staff note on a case. */
export const DisputeNoteSchema = plainText({
  missing: "Write the note.",
  message: "Please use only letters, numbers, spaces, punctuation and line breaks.",
  multiline: true,
})
  .min(1, "Write the note.")
  .max(DISPUTE_NOTE_MAX_CHARS, `Please keep the note to ${DISPUTE_NOTE_MAX_CHARS.toLocaleString("en-US")} characters.`);

/** Staff's explanation when resolving: what the member is told in writing. */
export const DisputeResolutionSchema = z.object({
  outcome: z.enum(["error", "no_error"], { error: "Choose whether an error was found." }),
  explanation: DisputeNoteSchema,
});

/** The case number the member is given: D- and six digits of the case's id. */
export function caseNumber(id: number): string {
  return `D-${String(id).padStart(6, "0")}`;
}
