/**
 * Servicing an open line of credit (docs/product.md#line-of-credit-servicing): freezing its draws,
 * closing it, and a change in terms (its APR or a lower credit limit). Pure: no I/O, no clock.
 *
 * - A **frozen** line refuses draws until staff unfreeze it; payments, interest, cycles, autopay
 *   and the late fee go on.
 * - A **closed** line refuses draws for ever; the member repays what is owed under the line's
 *   terms, and when nothing is owed the line is closed and paid ("Closed, paid").
 * - An **APR increase** takes effect no sooner than 45 days after its notice is sent (Regulation Z
 *   12 CFR 1026.9(c)(2)(i)); a decrease may take effect at once (a reduction of a finance charge
 *   needs no advance notice, 1026.9(c)(2)(v)(A), though the member is told). The rate stays
 *   within the product's range.
 * - A **lower credit limit** takes effect at once but never below what is owed, so the change
 *   never takes the line over its limit; and no over-limit fee or penalty rate is charged for it
 *   (1026.9(c)(2)(vi): the line has no such fee at all).
 */

import { z } from "zod";
import { formatCents } from "../money";
import { formatBusinessDate } from "../calendar-date";
import { addCalendarDays } from "../payment-dates";
import { formatRatePpm, type LoanProductTerms } from "./products";

/** Regulation Z 12 CFR 1026.9(c)(2)(i): a significant change in terms is told at least 45 days ahead. */
export const RATE_INCREASE_NOTICE_DAYS = 45;

/** Why draws were stopped: the member is told this reason. */
export const LINE_STOP_REASONS = ["fraud", "delinquency", "member_request"] as const;
export type LineStopReason = (typeof LINE_STOP_REASONS)[number];

export const LINE_STOP_REASON_LABELS: Record<LineStopReason, string> = {
  fraud: "Suspected fraud",
  delinquency: "Payments past due",
  member_request: "The member asked",
};

/** The reason as the member reads it, after "because". */
const REASON_FOR_MEMBER: Record<LineStopReason, string> = {
  fraud: "we saw activity that may be fraud and are protecting your line",
  delinquency: "payments on the line are past due",
  member_request: "you asked us to",
};

/** What a line is, as staff and the member see it. */
export type LineState = "open" | "frozen" | "closing" | "closed";

export const LINE_STATE_LABELS: Record<LineState, string> = {
  open: "Open",
  frozen: "Frozen",
  closing: "Closed to draws",
  closed: "Closed, paid",
};

export interface LineStateFields {
  status: "active" | "closed";
  frozen_reason: string | null;
  closing_reason: string | null;
}

/** Closed outranks closing (draws stopped for ever), which outranks frozen. */
export function lineState(line: LineStateFields): LineState {
  if (line.status === "closed") return "closed";
  if (line.closing_reason) return "closing";
  if (line.frozen_reason) return "frozen";
  return "open";
}

export function isStopReason(value: unknown): value is LineStopReason {
  return typeof value === "string" && (LINE_STOP_REASONS as readonly string[]).includes(value);
}

/** Why the member cannot draw, or null when they can: said on their page and when a draw is refused. */
export function drawsStoppedMessage(line: LineStateFields): string | null {
  const state = lineState(line);
  if (state === "closed") return "This line of credit is closed.";
  if (state === "closing")
    return `This line is closed to new draws because ${reasonText(line.closing_reason)}. Payments still work: pay what you owe under the line's terms, and the line closes when it is paid.`;
  if (state === "frozen")
    return `Draws on this line are frozen because ${reasonText(line.frozen_reason)}. Payments still work, and interest goes on. Please contact us about it.`;
  return null;
}

function reasonText(reason: string | null): string {
  return isStopReason(reason) ? REASON_FOR_MEMBER[reason] : "of a decision about the line";
}

/**
 * Regulation B: a freeze, a closing, a lower limit or a higher APR for one member is adverse action
 * on an existing account (12 CFR 1002.2(c)(1)(ii): an account terminated, or its terms changed
 * unfavourably when the change does not reach all or substantially all of a class of accounts),
 * told in writing with its specific reasons and the ECOA notice (1002.9(a)(1)(iii), (a)(2)(i),
 * (b)(1)); not when taken because of delinquency or default (1002.2(c)(2)(ii)) or at the member's
 * own request (a change the member expressly agreed to, 1002.2(c)(2)(i)). We tell the reason
 * always; the ECOA notice goes with adverse action.
 */
export function isAdverseAction(
  kind: "freeze" | "close" | "limit" | "rate_increase" | "rate_decrease",
  reason: LineStopReason | null,
): boolean {
  if (kind === "rate_decrease") return false;
  if (kind === "limit" || kind === "rate_increase") return true;
  return reason === "fraud";
}

/**
 * The day a new APR takes effect when its notice is sent on `notice_on`: an increase no sooner than
 * RATE_INCREASE_NOTICE_DAYS later (1026.9(c)(2)(i)), a decrease at once. Calendar days, by the one
 * date function (app/domain/payment-dates.ts).
 */
export function rateChangeEffectiveOn(from_ppm: number, to_ppm: number, notice_on: string): string {
  return to_ppm > from_ppm ? addCalendarDays(notice_on, RATE_INCREASE_NOTICE_DAYS) : notice_on;
}

/** Why a new APR cannot be set, or null: a whole ppm, different, within the product's range. */
export function rateChangeProblem(
  product: Pick<LoanProductTerms, "rate_min_ppm" | "rate_max_ppm">,
  current_ppm: number,
  new_ppm: number,
): string | null {
  if (!Number.isSafeInteger(new_ppm) || new_ppm < 0) return "Enter the new APR as a percent, like 13.99.";
  if (new_ppm < product.rate_min_ppm || new_ppm > product.rate_max_ppm)
    return `The APR must be from ${formatRatePpm(product.rate_min_ppm)} to ${formatRatePpm(product.rate_max_ppm)} (the product's range).`;
  if (new_ppm === current_ppm) return `The line's APR is already ${formatRatePpm(current_ppm)}.`;
  return null;
}

/**
 * Why the credit limit cannot be lowered to `new_limit_cents`, or null: lower than today's, more
 * than zero, and never below what is owed now (principal drawn, interest and fees), so the change
 * itself never takes the line over its limit.
 */
export function lowerLimitProblem(current_limit_cents: number, owed_cents: number, new_limit_cents: number) {
  if (!Number.isSafeInteger(new_limit_cents) || new_limit_cents <= 0) return "Enter the new credit limit in dollars.";
  if (new_limit_cents >= current_limit_cents)
    return `Enter a limit lower than today's ${formatCents(current_limit_cents)}: a limit is only lowered here.`;
  if (new_limit_cents < owed_cents) return `The limit cannot go below what is owed: ${formatCents(owed_cents)} today.`;
  return null;
}

/** The member's words for an APR change: when it takes effect and why the date. */
export function rateChangeText(from_ppm: number, to_ppm: number, effective_on: string): string {
  const when = formatBusinessDate(effective_on);
  return to_ppm > from_ppm
    ? `The annual percentage rate for draws on your line goes up from ${formatRatePpm(from_ppm)} to ${formatRatePpm(to_ppm)} on ${when}. We tell you at least ${RATE_INCREASE_NOTICE_DAYS} days ahead (Regulation Z 12 CFR 1026.9(c)(2)). Interest up to the day before uses the current rate.`
    : `The annual percentage rate for draws on your line goes down from ${formatRatePpm(from_ppm)} to ${formatRatePpm(to_ppm)} from ${when}.`;
}

/** The member's close of their own line: they confirm that no more draws can be made. */
export const LineCloseSchema = z.object({
  confirm: z.literal("yes", { error: "Tick the box to confirm: a closed line cannot be drawn on again." }),
});

export interface LineChangeFacts {
  kind: "freeze" | "unfreeze" | "close" | "rate" | "limit";
  reason: string | null;
  rate_from_ppm: number | null;
  rate_to_ppm: number | null;
  limit_from_cents: number | null;
  limit_to_cents: number | null;
  effective_on: string;
  status: "scheduled" | "in_effect";
}

/** One change in a line's history, in words staff and the member both read. */
export function lineChangeSummary(c: LineChangeFacts): string {
  const why = isStopReason(c.reason) ? LINE_STOP_REASON_LABELS[c.reason].toLowerCase() : "";
  switch (c.kind) {
    case "freeze":
      return `Draws frozen (${why})`;
    case "unfreeze":
      return "Draws unfrozen";
    case "close":
      return `Closed to new draws (${why})`;
    case "limit":
      return `Credit limit lowered from ${formatCents(c.limit_from_cents ?? 0)} to ${formatCents(c.limit_to_cents ?? 0)}`;
    case "rate":
      return `APR ${formatRatePpm(c.rate_from_ppm ?? 0)} to ${formatRatePpm(c.rate_to_ppm ?? 0)}, ${c.status === "scheduled" ? "takes effect" : "in effect from"} ${formatBusinessDate(c.effective_on)}`;
  }
}
