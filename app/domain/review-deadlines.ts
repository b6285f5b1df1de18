import { addBusinessDays, businessDayOnOrAfter, businessDaysBetween } from "./payment-dates";
import { clockState, type ClockState } from "./disputes";

/**
 * How long the compliance queues may keep an item waiting (docs/product.md#review-deadlines): the
 * credit union's stated policy, each period counted in business days by the one business-day
 * function (`addBusinessDays`, Federal Reserve holidays skipped) from the business day the item
 * arrived (an item arriving on a weekend or holiday counts from the next business day). Pure.
 */
export type ReviewQueue = "credit_review" | "screening_money" | "screening_person";

export interface ReviewPolicy {
  business_days: number;
  /** Why, in a banker's words, with the rule it serves. */
  rule: string;
}

export const REVIEW_POLICIES: Record<ReviewQueue, ReviewPolicy> = {
  // Nacha Operating Rules, subsection 3.8.3.1: a return (R17, R23) must reach the ODFI's operator by the
  // opening of the second banking day after the settlement date. Decided by the next business day, it
  // goes out in that day's return file, in time.
  credit_review: {
    business_days: 1,
    rule: "Decide by the next business day: a return (R17, R23) must reach the operator by the second banking day after settlement (Nacha 3.8.3.1)",
  },
  // A held payment or an incoming IAT entry waits on the decision with the member's money; an IAT
  // entry cleared but unpostable is returned, within the same timeframe.
  screening_money: {
    business_days: 1,
    rule: "Decide by the next business day: money waits on it, and an IAT entry that cannot post must still be returned in time (Nacha 3.8.3.1)",
  },
  // An applicant or a re-screened member: nothing is held, but a confirmed match must be blocked and
  // reported within 10 business days of the blocking (31 CFR 501.603); two days leaves room for the
  // second staff member's approval.
  screening_person: {
    business_days: 2,
    rule: "Decide within 2 business days, so that a confirmed match is blocked and its report (31 CFR 501.603) started at once",
  },
};

/** The screening queue's policy for what was screened. */
export function screeningPolicy(subject_type: string): ReviewQueue {
  return subject_type === "payment" || subject_type === "ach_entry" ? "screening_money" : "screening_person";
}

export interface ReviewDeadline {
  /** YYYY-MM-DD the item arrived (the institution's date). */
  received_on: string;
  due_on: string;
  /** Calendar days since it arrived: 0 today. */
  age_days: number;
  /** Business days since it arrived (what the policy counts). */
  age_business_days: number;
  state: ClockState;
  rule: string;
}

/** An item's deadline and age on `today` under its queue's policy. */
export function reviewDeadline(queue: ReviewQueue, received_on: string, today: string): ReviewDeadline {
  const policy = REVIEW_POLICIES[queue];
  const due_on = addBusinessDays(businessDayOnOrAfter(received_on), policy.business_days);
  return {
    received_on,
    due_on,
    age_days: Math.max(
      0,
      Math.round((Date.parse(`${today}T00:00:00Z`) - Date.parse(`${received_on}T00:00:00Z`)) / 86_400_000),
    ),
    age_business_days: businessDaysBetween(received_on, today),
    state: clockState(due_on, today),
    rule: policy.rule,
  };
}

/** "today", "1 day", "4 days": how long an item has waited. */
export function ageLabel(age_days: number): string {
  return age_days === 0 ? "today" : age_days === 1 ? "1 day" : `${age_days} days`;
}

/** Items by due date, soonest (most overdue) first, then in the order they arrived. */
export function byDueDate<T extends { id: number; deadline: { due_on: string } }>(rows: readonly T[]): T[] {
  return [...rows].sort((a, b) => a.deadline.due_on.localeCompare(b.deadline.due_on) || a.id - b.id);
}
