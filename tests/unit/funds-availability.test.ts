import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  approveHoldFrom,
  availabilityPlan,
  availabilityPolicyText,
  bankingDayOfDeposit,
  holdNoticeText,
  isNewAccount,
  regCcAmounts,
  REG_CC_AMOUNT_RULES,
  REG_CC_DOLLAR_AMOUNTS,
  HOLD_MESSAGES,
  type DepositFacts,
} from "~/domain/funds-availability";
import { addBusinessDays } from "~/domain/payment-dates";

/**
 * Regulation CC funds availability (docs/product.md#funds-availability): the amounts in force on a
 * deposit's banking day, the schedule, the exceptions of 229.13, the hold notice of 229.13(g). The
 * worked examples follow the regulation and its commentary (appendix E), at the amounts in force
 * since July 1, 2025.
 */
const policy = { next_day_cents: 0, remaining_after_business_days: 2, new_account_hold_business_days: 7 };
const facts = (over: Partial<DepositFacts>): DepositFacts => ({
  amount_cents: 100_000,
  deposited_on: "2026-11-16", // a Monday
  same_day_before_cents: 0,
  new_account: false,
  staff_exception: null,
  ...over,
});

describe("Regulation CC's amounts", () => {
  it("since July 1, 2025: $275 next day (229.10(c)(1)(vii)), $6,725 large deposit (229.13(b)), new account and repeated overdrafts", () => {
    expect(regCcAmounts("2025-07-01")).toEqual({
      next_day_cents: 27_500,
      large_deposit_cents: 672_500,
      new_account_next_day_cents: 672_500,
      repeated_overdraft_cents: 672_500,
    });
    expect(regCcAmounts("2030-01-15").next_day_cents).toBe(27_500);
  });
  it("before July 1, 2025 the 2020 amounts ($225, $5,525): a deposit is held by the amounts of its banking day", () => {
    expect(regCcAmounts("2025-06-30")).toMatchObject({ next_day_cents: 22_500, large_deposit_cents: 552_500 });
  });
  it("names the rule of every amount, and every row has them all", () => {
    for (const row of REG_CC_DOLLAR_AMOUNTS)
      expect(
        Object.keys(row)
          .filter((k) => k !== "in_force_from")
          .sort(),
      ).toEqual(Object.keys(REG_CC_AMOUNT_RULES).sort());
    expect(REG_CC_AMOUNT_RULES.next_day_cents).toBe("12 CFR 229.10(c)(1)(vii)");
    expect(REG_CC_AMOUNT_RULES.large_deposit_cents).toBe("12 CFR 229.13(b)");
  });
});

describe("the schedule (229.10(c)(1)(vii), 229.12(b))", () => {
  it("a $1,000 check on Monday: $275 on Tuesday, the rest on Wednesday (the second business day)", () => {
    expect(availabilityPlan(facts({}), policy)).toEqual({
      next_day_cents: 27_500,
      next_day_available_on: "2026-11-17",
      later_cents: 72_500,
      later_available_on: "2026-11-18",
      exception_cents: 0,
      exception_available_on: "2026-11-25",
      exception: null,
    });
  });
  it("the lesser of $275 or the deposit: a $100 check is all available the next business day", () => {
    expect(availabilityPlan(facts({ amount_cents: 10_000 }), policy)).toMatchObject({
      next_day_cents: 10_000,
      later_cents: 0,
      exception_cents: 0,
    });
  });
  it("the $275 is of the day's checks together, not of each: a second check the same day gets what the first left", () => {
    expect(availabilityPlan(facts({ amount_cents: 50_000, same_day_before_cents: 20_000 }), policy)).toMatchObject({
      next_day_cents: 7_500,
      later_cents: 42_500,
    });
    expect(availabilityPlan(facts({ amount_cents: 50_000, same_day_before_cents: 30_000 }), policy)).toMatchObject({
      next_day_cents: 0,
      later_cents: 50_000,
    });
  });
  it("a credit union's more generous next-day amount applies; a lower one never does", () => {
    expect(availabilityPlan(facts({}), { ...policy, next_day_cents: 50_000 }).next_day_cents).toBe(50_000);
    expect(availabilityPlan(facts({}), { ...policy, next_day_cents: 10_000 }).next_day_cents).toBe(27_500);
  });
  it("a check sent on a Saturday counts from Monday, its banking day (229.19(a)(5)); Thanksgiving is skipped", () => {
    expect(bankingDayOfDeposit("2026-11-21")).toBe("2026-11-23");
    expect(availabilityPlan(facts({ deposited_on: "2026-11-25" }), policy)).toMatchObject({
      next_day_available_on: "2026-11-27",
      later_available_on: "2026-11-30",
    });
  });
  it("a deposit before July 1, 2025 keeps the $225 of its day", () => {
    expect(availabilityPlan(facts({ deposited_on: "2025-06-30" }), policy).next_day_cents).toBe(22_500);
  });
});

describe("exceptions (229.13)", () => {
  it("large deposit (229.13(b)), the commentary's $9,000 check: $6,725 on the schedule, the $2,275 over it on the 7th business day (229.13(h)(4))", () => {
    expect(availabilityPlan(facts({ amount_cents: 900_000 }), policy)).toEqual({
      next_day_cents: 27_500,
      next_day_available_on: "2026-11-17",
      later_cents: 645_000,
      later_available_on: "2026-11-18",
      exception_cents: 227_500,
      exception_available_on: addBusinessDays("2026-11-16", 7),
      exception: "large_deposit",
    });
    expect(addBusinessDays("2026-11-16", 7)).toBe("2026-11-25");
  });
  it("exactly $6,725 is not a large deposit; a cent more is", () => {
    expect(availabilityPlan(facts({ amount_cents: 672_500 }), policy).exception).toBeNull();
    expect(availabilityPlan(facts({ amount_cents: 672_501 }), policy)).toMatchObject({
      exception: "large_deposit",
      exception_cents: 1,
    });
  });
  it("the day's checks aggregate: $5,000 then $4,000 the same day holds $2,275 of the second", () => {
    expect(availabilityPlan(facts({ amount_cents: 400_000, same_day_before_cents: 500_000 }), policy)).toMatchObject({
      next_day_cents: 0,
      later_cents: 172_500,
      exception_cents: 227_500,
      exception: "large_deposit",
    });
  });
  it("a new account (229.13(a)): the whole check on the policy's day, no $275 the next day", () => {
    expect(availabilityPlan(facts({ new_account: true }), policy)).toMatchObject({
      next_day_cents: 0,
      later_cents: 0,
      exception_cents: 100_000,
      exception_available_on: addBusinessDays("2026-11-16", 7),
      exception: "new_account",
    });
  });
  it("redeposited (229.13(c)) and reasonable cause (229.13(e)): the whole check 5 business days past the schedule", () => {
    for (const staff_exception of ["redeposited", "reasonable_cause"] as const)
      expect(availabilityPlan(facts({ staff_exception }), policy)).toMatchObject({
        next_day_cents: 0,
        exception_cents: 100_000,
        exception_available_on: "2026-11-25",
        exception: staff_exception,
      });
  });
  it("never holds more or less than the check: the parts add up to it (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.boolean(),
        fc.constantFrom(null, "redeposited" as const, "reasonable_cause" as const),
        (amount_cents, same_day_before_cents, new_account, staff_exception) => {
          const plan = availabilityPlan(
            facts({ amount_cents, same_day_before_cents, new_account, staff_exception }),
            policy,
          );
          expect(plan.next_day_cents + plan.later_cents + plan.exception_cents).toBe(amount_cents);
          expect(Math.min(plan.next_day_cents, plan.later_cents, plan.exception_cents)).toBeGreaterThanOrEqual(0);
          expect(plan.next_day_cents).toBeLessThanOrEqual(27_500);
          expect(plan.exception_cents > 0).toBe(plan.exception !== null);
          // Without an exception, the day's checks up to $6,725 are all on the schedule.
          if (!new_account && !staff_exception && same_day_before_cents + amount_cents <= 672_500)
            expect(plan.exception_cents).toBe(0);
        },
      ),
    );
  });
});

describe("new account (229.13(a)(2))", () => {
  it("new during the first 30 calendar days after it is opened", () => {
    expect(isNewAccount("2026-11-01", "2026-12-01", null)).toBe(true);
    expect(isNewAccount("2026-11-01", "2026-12-02", null)).toBe(false);
  });
  it("not new when the member had another account for at least 30 days when it was opened", () => {
    expect(isNewAccount("2026-11-01", "2026-11-05", "2026-10-02")).toBe(false);
    expect(isNewAccount("2026-11-01", "2026-11-05", "2026-10-03")).toBe(true);
  });
});

describe("the hold notice (229.13(g)(1), model C-12)", () => {
  it("states the account, the date of deposit, the amount delayed, the exception and why, when it is available, and the fee refund", () => {
    const text = holdNoticeText({
      account_label: "Checking ••7890",
      deposited_on: "2026-11-16",
      deposit_cents: 900_000,
      held_cents: 227_500,
      available_on: "2026-11-25",
      exception: "large_deposit",
      reason: null,
      support_phone: "(555) 010-0100",
      support_email: "help@example.org",
    });
    expect(text).toContain("Account: Checking ••7890");
    expect(text).toContain("Date of deposit: Nov 16, 2026");
    expect(text).toContain("We are delaying the availability of $2,275.00 from this deposit.");
    expect(text).toContain("These funds will be available on Nov 25, 2026.");
    expect(text).toContain("The checks you deposited on this day exceed $6,725.00. (Regulation CC, 12 CFR 229.13(b).)");
    expect(text).toContain("we will refund any fees for overdrafts or returned checks");
  });
  it("a reasonable-cause hold states staff's reason (229.13(e)(1))", () => {
    const text = holdNoticeText({
      account_label: "Savings ••1234",
      deposited_on: "2026-11-16",
      deposit_cents: 50_000,
      held_cents: 50_000,
      available_on: "2026-11-25",
      exception: "reasonable_cause",
      reason: "The paying bank told us the check is being returned.",
      support_phone: "1",
      support_email: "a@b.c",
    });
    expect(text).toContain(
      "We believe a check you deposited will not be paid, for this reason: The paying bank told us the check is being returned.",
    );
  });
});

describe("staff's hold choice", () => {
  it("none, redeposited, or reasonable cause with a reason of at most 300 characters", () => {
    expect(approveHoldFrom("", "")).toEqual({ ok: true, hold: { exception: null, reason: "" } });
    expect(approveHoldFrom("redeposited", "ignored")).toEqual({
      ok: true,
      hold: { exception: "redeposited", reason: "" },
    });
    expect(approveHoldFrom("large_deposit", "")).toMatchObject({
      ok: false,
      message: HOLD_MESSAGES.exception,
      field: "hold_exception",
    });
    expect(approveHoldFrom("reasonable_cause", "  ")).toMatchObject({ ok: false, field: "hold_reason" });
    expect(approveHoldFrom("reasonable_cause", "x".repeat(301))).toMatchObject({ ok: false, field: "hold_reason" });
    expect(approveHoldFrom("reasonable_cause", " Stop  payment\nnotice ")).toEqual({
      ok: true,
      hold: { exception: "reasonable_cause", reason: "Stop payment notice" },
    });
  });
});

describe("the policy in words", () => {
  it("names today's amounts", () => {
    expect(availabilityPolicyText(policy, "2026-11-16")).toBe(
      "The first $275.00 of the checks you deposit on a business day is available the next business day, and the rest on the 2nd business day after the day of deposit. " +
        "We may hold a check longer: deposits over $6,725.00 in one day, checks to an account opened in the last 30 days, checks returned unpaid before, and checks we have reason to believe will not be paid. We tell you when we do.",
    );
  });
});
