import { formatCents } from "./money";
import { refusal, type Refusal } from "./refusals";
import { formatBusinessDate } from "./calendar-date";
import { addBusinessDays, addCalendarDays, businessDayOnOrAfter } from "./payment-dates";

/**
 * Funds availability for deposited checks (Regulation CC, 12 CFR 229 subpart B;
 * docs/product.md#funds-availability): when the money of a check becomes available, and when the
 * credit union may hold it longer (an exception) with the notice that says so. Pure: dates are
 * business dates (YYYY-MM-DD) in the institution's time zone, counted by the one business-day
 * function (app/domain/payment-dates.ts: weekends and Federal Reserve holidays).
 *
 * Mutual takes checks only by Mobile Deposit, and applies this schedule to them as the credit
 * union's policy, counting from the banking day the member sent the check.
 */

/**
 * Regulation CC's dollar amounts, the one place they live. 12 CFR 229.11 adjusts them for
 * inflation every five years on July 1 (2020, 2025, 2030...); add a row when the Board publishes
 * the next ones. A deposit is held by the amounts in force on its banking day of deposit.
 */
export const REG_CC_DOLLAR_AMOUNTS = [
  {
    in_force_from: "2020-07-01",
    next_day_cents: 22_500,
    large_deposit_cents: 552_500,
    new_account_next_day_cents: 552_500,
    repeated_overdraft_cents: 552_500,
  },
  {
    in_force_from: "2025-07-01",
    next_day_cents: 27_500,
    large_deposit_cents: 672_500,
    new_account_next_day_cents: 672_500,
    repeated_overdraft_cents: 672_500,
  },
] as const;

export type RegCcAmounts = Omit<(typeof REG_CC_DOLLAR_AMOUNTS)[number], "in_force_from">;

/** The rule each amount comes from, to name it beside the figure. */
export const REG_CC_AMOUNT_RULES: Record<keyof RegCcAmounts, string> = {
  next_day_cents: "12 CFR 229.10(c)(1)(vii)",
  large_deposit_cents: "12 CFR 229.13(b)",
  new_account_next_day_cents: "12 CFR 229.13(a)(1)(ii)",
  repeated_overdraft_cents: "12 CFR 229.13(d)(2)",
};

/** The amounts in force on `banking_day`. */
export function regCcAmounts(banking_day: string): RegCcAmounts {
  let found: (typeof REG_CC_DOLLAR_AMOUNTS)[number] = REG_CC_DOLLAR_AMOUNTS[0];
  for (const row of REG_CC_DOLLAR_AMOUNTS) if (row.in_force_from <= banking_day) found = row;
  const { in_force_from: _from, ...amounts } = found;
  return amounts;
}

/** 12 CFR 229.12(b): a check is available by the second business day after the banking day of deposit. */
export const CHECK_SCHEDULE_BUSINESS_DAYS_MAX = 2;
/**
 * 12 CFR 229.13(h)(4): an exception hold of 5 business days more than the schedule is reasonable
 * (a longer one the bank must justify). So an excepted check is available on the 7th business day.
 */
export const EXCEPTION_EXTRA_BUSINESS_DAYS = 5;
/** 12 CFR 229.13(a): an account is new during the first 30 calendar days after it is established. */
export const NEW_ACCOUNT_CALENDAR_DAYS = 30;
/** The longest new-account hold the profile may set: 229.13(a)(1)(ii)'s outer date, the 9th business day. */
export const NEW_ACCOUNT_HOLD_BUSINESS_DAYS_MAX = 9;

/**
 * The exceptions of 12 CFR 229.13 that Mutual applies: two by rule when the facts say so (a new
 * account, a large deposit), two chosen by staff who review the check (redeposited, reasonable
 * cause to doubt it will be paid, with the reason). Repeated overdrafts (229.13(d)) and emergency
 * conditions (229.13(f)) are not applied (docs/product.md#funds-availability).
 */
export const HOLD_EXCEPTIONS = ["new_account", "large_deposit", "redeposited", "reasonable_cause"] as const;
export type HoldException = (typeof HOLD_EXCEPTIONS)[number];
/** The exceptions staff may choose when approving a check. */
export const STAFF_HOLD_EXCEPTIONS = ["redeposited", "reasonable_cause"] as const;
export type StaffHoldException = (typeof STAFF_HOLD_EXCEPTIONS)[number];

export const HOLD_EXCEPTION_RULES: Record<HoldException, string> = {
  new_account: "12 CFR 229.13(a)",
  large_deposit: "12 CFR 229.13(b)",
  redeposited: "12 CFR 229.13(c)",
  reasonable_cause: "12 CFR 229.13(e)",
};

/** Staff's names for the exceptions (the queue's choice). */
export const HOLD_EXCEPTION_LABELS: Record<HoldException, string> = {
  new_account: "New account",
  large_deposit: "Large deposit",
  redeposited: "Redeposited check (returned unpaid before)",
  reasonable_cause: "Reasonable cause to doubt the check will be paid",
};

export interface AvailabilityPolicy {
  /** The credit union's next-day amount when more generous than 229.10(c)(1)(vii)'s (0: the rule's). */
  next_day_cents: number;
  /** The rest of a check is available this many business days after the banking day of deposit (1 or 2). */
  remaining_after_business_days: number;
  /** A check to a new account is available this many business days after its banking day of deposit. */
  new_account_hold_business_days: number;
}

/** The banking day a check sent at a business date counts from: that day, or the next business day (229.19(a)(5)). */
export function bankingDayOfDeposit(sent_on: string): string {
  return businessDayOnOrAfter(sent_on);
}

/**
 * 12 CFR 229.13(a)(2): an account is new during the first 30 calendar days after it is established,
 * unless the member already had another account with the credit union for at least 30 calendar
 * days then (`other_account_opened_on`: their oldest other account's opening date, if any).
 */
export function isNewAccount(
  account_opened_on: string,
  deposited_on: string,
  other_account_opened_on: string | null,
): boolean {
  if (deposited_on > addCalendarDays(account_opened_on, NEW_ACCOUNT_CALENDAR_DAYS)) return false;
  if (
    other_account_opened_on !== null &&
    addCalendarDays(other_account_opened_on, NEW_ACCOUNT_CALENDAR_DAYS) <= account_opened_on
  )
    return false;
  return true;
}

export interface DepositFacts {
  amount_cents: number;
  /** The banking day of deposit. */
  deposited_on: string;
  /** What the member's checks already approved for the same banking day came to, on any account: the amounts aggregate by day. */
  same_day_before_cents: number;
  new_account: boolean;
  /** An exception staff chose for this check. */
  staff_exception: StaffHoldException | null;
}

export interface AvailabilityPlan {
  /** Available the next business day (229.10(c)(1)(vii)'s amount, less what the day's earlier checks took). */
  next_day_cents: number;
  next_day_available_on: string;
  /** Available by the schedule's later day (229.12(b)). */
  later_cents: number;
  later_available_on: string;
  /** Held longer under an exception (229.13), or 0. */
  exception_cents: number;
  exception_available_on: string;
  exception: HoldException | null;
}

/**
 * When a check's money becomes available. Without an exception: the first `next_day` amount of the
 * day's checks the next business day, the rest by the schedule's later day. A large deposit
 * (229.13(b)): what the day's checks bring past $6,725 is held 5 business days more (229.13(h)(4)).
 * A redeposited check (229.13(c)) or one staff have reasonable cause to doubt (229.13(e)): the whole
 * check is held that long, the next-day amount included (229.13(c) and (e) set 229.10(c) aside). A new
 * account (229.13(a)): 229.10(c)(1)(vii) and 229.12 do not apply; the whole check is held for the
 * policy's new-account days.
 */
export function availabilityPlan(facts: DepositFacts, policy: AvailabilityPolicy): AvailabilityPlan {
  const { amount_cents, deposited_on } = facts;
  const amounts = regCcAmounts(deposited_on);
  const later_days = Math.min(Math.max(1, policy.remaining_after_business_days), CHECK_SCHEDULE_BUSINESS_DAYS_MAX);
  const next_day_available_on = addBusinessDays(deposited_on, 1);
  const later_available_on = addBusinessDays(deposited_on, later_days);
  const extended_on = addBusinessDays(deposited_on, later_days + EXCEPTION_EXTRA_BUSINESS_DAYS);
  const whole = (exception: HoldException, available_on: string): AvailabilityPlan => ({
    next_day_cents: 0,
    next_day_available_on,
    later_cents: 0,
    later_available_on,
    exception_cents: amount_cents,
    exception_available_on: available_on,
    exception,
  });
  if (facts.staff_exception) return whole(facts.staff_exception, extended_on);
  if (facts.new_account) {
    const days = Math.min(Math.max(1, policy.new_account_hold_business_days), NEW_ACCOUNT_HOLD_BUSINESS_DAYS_MAX);
    return whole("new_account", addBusinessDays(deposited_on, days));
  }
  const before = Math.max(0, facts.same_day_before_cents);
  const next_day_amount = Math.max(policy.next_day_cents, amounts.next_day_cents);
  const on_schedule = Math.min(amount_cents, Math.max(0, amounts.large_deposit_cents - before));
  const next_day_cents = Math.min(on_schedule, Math.max(0, next_day_amount - before));
  const exception_cents = amount_cents - on_schedule;
  return {
    next_day_cents,
    next_day_available_on,
    later_cents: on_schedule - next_day_cents,
    later_available_on,
    exception_cents,
    exception_available_on: extended_on,
    exception: exception_cents > 0 ? "large_deposit" : null,
  };
}

/** The policy in the member's words, for the deposit page. */
export function availabilityPolicyText(policy: AvailabilityPolicy, today: string): string {
  const amounts = regCcAmounts(today);
  const next_day = Math.max(policy.next_day_cents, amounts.next_day_cents);
  const days = Math.min(Math.max(1, policy.remaining_after_business_days), CHECK_SCHEDULE_BUSINESS_DAYS_MAX);
  return (
    `The first ${formatCents(next_day)} of the checks you deposit on a business day is available the next business day, ` +
    `and the rest ${days === 1 ? "the next business day" : `on the ${ordinal(days)} business day`} after the day of deposit. ` +
    `We may hold a check longer: deposits over ${formatCents(amounts.large_deposit_cents)} in one day, checks to an account opened in the last 30 days, ` +
    `checks returned unpaid before, and checks we have reason to believe will not be paid. We tell you when we do.`
  );
}

export function ordinal(n: number): string {
  const s = ["th", "st", "nd", "rd"];
  const v = n % 100;
  return `${n}${s[(v - 20) % 10] ?? s[v] ?? s[0]}`;
}

export interface HoldNoticeFacts {
  account_label: string;
  deposited_on: string;
  deposit_cents: number;
  held_cents: number;
  available_on: string;
  exception: HoldException;
  /** Reasonable cause: why the credit union believes the check will not be paid (229.13(e)(1)). */
  reason: string | null;
  support_phone: string;
  support_email: string;
}

/** Why, in the words of the model notice (Regulation CC appendix C, model C-12). */
export function holdReasonText(exception: HoldException, reason: string | null, deposited_on: string): string {
  switch (exception) {
    case "new_account":
      return "Your account is new: it was opened in the last 30 days.";
    case "large_deposit":
      return `The checks you deposited on this day exceed ${formatCents(regCcAmounts(deposited_on).large_deposit_cents)}.`;
    case "redeposited":
      return "A check you deposited was previously returned unpaid.";
    case "reasonable_cause":
      return `We believe a check you deposited will not be paid, for this reason: ${reason ?? ""}`.trim();
  }
}

/**
 * The exception hold notice, 12 CFR 229.13(g)(1): the account, the date of deposit, the amount
 * delayed, the exception and why, and when the money will be available; since it is not given at
 * the moment of deposit, the promise to refund fees the delay alone caused (model C-12).
 */
export function holdNoticeText(n: HoldNoticeFacts): string {
  return (
    `Account: ${n.account_label}\n` +
    `Date of deposit: ${formatBusinessDate(n.deposited_on)}\n` +
    `Amount of the deposit: ${formatCents(n.deposit_cents)}\n\n` +
    `We are delaying the availability of ${formatCents(n.held_cents)} from this deposit. ` +
    `These funds will be available on ${formatBusinessDate(n.available_on)}.\n\n` +
    `We are taking this action because: ${holdReasonText(n.exception, n.reason, n.deposited_on)} ` +
    `(Regulation CC, ${HOLD_EXCEPTION_RULES[n.exception]}.)\n\n` +
    `If you did not receive this notice at the time you made the deposit and the check you deposited is paid, ` +
    `we will refund any fees for overdrafts or returned checks that result solely from the additional delay we are imposing. ` +
    `To ask for a refund of such fees, call us at ${n.support_phone} or write to ${n.support_email}.`
  );
}

/** The reason staff give for a reasonable-cause hold: required, at most 300 characters. */
export const HOLD_REASON_MAX_CHARS = 300;
export const HOLD_MESSAGES = {
  exception: "Please choose one of the holds listed.",
  reason_missing: "Please write why you believe the check will not be paid (the member is told).",
  reason_too_long: `The reason is at most ${HOLD_REASON_MAX_CHARS} characters.`,
} as const;

export interface ApproveHold {
  /** An exception staff chose on review (229.13(c) or (e)); none: the schedule, and the rule's own exceptions. */
  exception: StaffHoldException | null;
  /** For a reasonable-cause hold: why staff believe the check will not be paid (the member is told, 229.13(e)(1)). */
  reason: string;
}

/** What the approve form posted as a hold: a staff exception and its reason, or a refusal by its field. */
export function approveHoldFrom(
  exception_text: string,
  reason_text: string,
): { ok: true; hold: ApproveHold } | Refusal {
  const exception = exception_text.trim();
  if (exception === "") return { ok: true, hold: { exception: null, reason: "" } };
  if (!(STAFF_HOLD_EXCEPTIONS as readonly string[]).includes(exception))
    return refusal("bad_input", HOLD_MESSAGES.exception, { field: "hold_exception" });
  const reason = reason_text.replace(/\s+/g, " ").trim();
  if (exception === "reasonable_cause") {
    if (!reason) return refusal("bad_input", HOLD_MESSAGES.reason_missing, { field: "hold_reason" });
    if (reason.length > HOLD_REASON_MAX_CHARS)
      return refusal("bad_input", HOLD_MESSAGES.reason_too_long, { field: "hold_reason" });
  }
  return {
    ok: true,
    hold: { exception: exception as StaffHoldException, reason: exception === "reasonable_cause" ? reason : "" },
  };
}
