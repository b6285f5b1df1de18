import { formatCents } from "./money";

/**
 * Dual control of money staff create for a member (docs/security.md#dual-control,
 * docs/product.md#limits): the ONE rule that every staff posting crediting a member goes through
 * (a balance adjustment up, the credit rows of an Add Transactions table or CSV file, a booked
 * loan's correction or late-fee waiver, and any later one). Pure, so it is tested on its own and the services only gather its inputs.
 *
 * A request posts at once only when none of these is passed; otherwise the whole request waits
 * for a second staff member, with every reason said:
 * - one credit above `posting_above_cents` (the profile's `adjustment_second_approval_above_cents`);
 * - the request's credits together above `request_above_cents` (a file is one request);
 * - what this staff member credited to this member over the last 24 hours, with this request,
 *   above `member_24h_above_cents` (two $10,000.00 adjustments in a row are one $20,000.00);
 * - what this staff member credited to all members this business day, with this request, above
 *   `business_day_above_cents`.
 * "Above" is strict: an amount equal to a limit posts. The reasons say why, once: a total that this
 * request passes on its own, with nothing credited before, is not said again beside the reason
 * about the request itself (a $12,000.00 adjustment is "above $10,000.00", not also "would bring
 * … in 24 hours to $12,000.00").
 */
export interface DualControlLimits {
  posting_above_cents: number;
  request_above_cents: number;
  member_24h_above_cents: number;
  business_day_above_cents: number;
}

export interface DualControlInput {
  /** Each credit the request would post to the member, in cents (debits are not counted). */
  credits_cents: readonly number[];
  /** What this staff member already credited to this member in the 24 hours before now. */
  member_24h_cents: number;
  /** What this staff member already credited to all members this business day. */
  business_day_cents: number;
  limits: DualControlLimits;
}

export type DualControlReason =
  | { code: "posting"; amount_cents: number; limit_cents: number }
  | { code: "request"; amount_cents: number; limit_cents: number }
  | { code: "member_24h"; amount_cents: number; limit_cents: number }
  | { code: "business_day"; amount_cents: number; limit_cents: number };

export type DualControlDecision =
  { decision: "post"; credit_cents: number } | { decision: "wait"; credit_cents: number; reasons: DualControlReason[] };

export function dualControlDecision(input: DualControlInput): DualControlDecision {
  const { credits_cents, limits } = input;
  for (const cents of credits_cents) {
    if (!Number.isSafeInteger(cents) || cents <= 0)
      throw new RangeError(`a credit must be a positive whole number of cents, not ${cents}`);
  }
  const credit_cents = credits_cents.reduce((sum, cents) => sum + cents, 0);
  const reasons: DualControlReason[] = [];
  if (credit_cents === 0) return { decision: "post", credit_cents };
  const largest = Math.max(...credits_cents);
  if (largest > limits.posting_above_cents)
    reasons.push({ code: "posting", amount_cents: largest, limit_cents: limits.posting_above_cents });
  // One posting's total is the posting itself: said once.
  if (credits_cents.length > 1 && credit_cents > limits.request_above_cents)
    reasons.push({ code: "request", amount_cents: credit_cents, limit_cents: limits.request_above_cents });
  // A total passed by this request alone, with nothing credited before, says again what a reason
  // about the request itself already says: it is left out of the words, never out of the decision.
  const about_request = reasons.length > 0;
  const member_total = input.member_24h_cents + credit_cents;
  const day_total = input.business_day_cents + credit_cents;
  const totals: DualControlReason[] = [];
  if (member_total > limits.member_24h_above_cents)
    totals.push({ code: "member_24h", amount_cents: member_total, limit_cents: limits.member_24h_above_cents });
  if (day_total > limits.business_day_above_cents)
    totals.push({ code: "business_day", amount_cents: day_total, limit_cents: limits.business_day_above_cents });
  const earlier = {
    member_24h: input.member_24h_cents,
    business_day: input.business_day_cents,
    posting: 0,
    request: 0,
  };
  const said = about_request ? totals.filter((r) => earlier[r.code] > 0) : totals;
  if (!about_request && totals.length === 0) return { decision: "post", credit_cents };
  return { decision: "wait", credit_cents, reasons: [...reasons, ...said] };
}

/** One reason in words, to follow "it waits for a second staff member's approval: ". */
/** What the staff member asked for, for the words: one amount ("adjustment", "correction") or rows. */
export type DualControlSubject = "adjustment" | "correction" | "file" | "table";

export function dualControlReasonText(reason: DualControlReason, subject: DualControlSubject): string {
  const amount = formatCents(reason.amount_cents);
  const limit = formatCents(reason.limit_cents);
  switch (reason.code) {
    case "posting":
      return subject === "adjustment" || subject === "correction"
        ? `${amount} is above ${limit}`
        : `a row credits ${amount}, above ${limit} per row`;
    case "request":
      return `the ${subject} credits ${amount} in all, above ${limit}`;
    case "member_24h":
      return `it would bring what you credited to this member in 24 hours to ${amount}, above ${limit}`;
    case "business_day":
      return `it would bring what you credited to all members this business day to ${amount}, above ${limit}`;
  }
}

/** Every reason, joined: "a row credits $50,000.00, above $10,000.00 per row; the file credits …". */
export function dualControlReasonsText(reasons: readonly DualControlReason[], subject: DualControlSubject): string {
  return reasons.map((r) => dualControlReasonText(r, subject)).join("; ");
}
