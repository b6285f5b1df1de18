import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  RATE_INCREASE_NOTICE_DAYS,
  drawsStoppedMessage,
  isAdverseAction,
  lineChangeSummary,
  lineState,
  lowerLimitProblem,
  rateChangeEffectiveOn,
  rateChangeProblem,
} from "~/domain/loans/line-changes";
import { addCalendarDays } from "~/domain/payment-dates";

/**
 * A line of credit's servicing rules (docs/product.md#line-of-credit-servicing): the day an APR
 * change takes effect (Regulation Z 1026.9(c)(2)(i): an increase 45 days after its notice), the
 * APR within the product's range, a lower limit never below what is owed, the line's state and
 * what the member is told.
 */
const product = { rate_min_ppm: 99_900, rate_max_ppm: 179_900 };
const day = fc.integer({ min: 0, max: 3_650 }).map((n) => addCalendarDays("2026-01-01", n));

describe("when an APR change takes effect", () => {
  it("an increase 45 calendar days after the notice, across a year's end and a leap day", () => {
    expect(rateChangeEffectiveOn(125_000, 150_000, "2026-03-10")).toBe("2026-04-24");
    expect(rateChangeEffectiveOn(125_000, 150_000, "2026-12-01")).toBe("2027-01-15");
    expect(rateChangeEffectiveOn(125_000, 150_000, "2028-02-01")).toBe("2028-03-17");
  });

  it("a decrease on the day of its notice", () => {
    expect(rateChangeEffectiveOn(150_000, 125_000, "2026-03-10")).toBe("2026-03-10");
  });

  it("property: an increase is never sooner than 45 days after the notice; a decrease is never later than it", () => {
    fc.assert(
      fc.property(day, fc.integer({ min: 0, max: 180_000 }), fc.integer({ min: 0, max: 180_000 }), (on, from, to) => {
        const effective = rateChangeEffectiveOn(from, to, on);
        if (to > from) {
          expect(effective >= addCalendarDays(on, RATE_INCREASE_NOTICE_DAYS)).toBe(true);
          expect(effective).toBe(addCalendarDays(on, 45));
        } else expect(effective).toBe(on);
      }),
    );
  });
});

describe("a new APR", () => {
  it("within the product's range and different from today's", () => {
    expect(rateChangeProblem(product, 125_000, 150_000)).toBeNull();
    expect(rateChangeProblem(product, 125_000, 99_900)).toBeNull();
    expect(rateChangeProblem(product, 125_000, 99_800)).toBe(
      "The APR must be from 9.99% to 17.99% (the product's range).",
    );
    expect(rateChangeProblem(product, 125_000, 180_000)).toContain("the product's range");
    expect(rateChangeProblem(product, 125_000, 125_000)).toBe("The line's APR is already 12.50%.");
  });
});

describe("a lower credit limit", () => {
  it("lower than today's, more than zero, never below what is owed", () => {
    expect(lowerLimitProblem(5_000_00, 1_200_00, 2_000_00)).toBeNull();
    expect(lowerLimitProblem(5_000_00, 1_200_00, 1_200_00)).toBeNull();
    expect(lowerLimitProblem(5_000_00, 1_200_00, 1_199_99)).toBe(
      "The limit cannot go below what is owed: $1,200.00 today.",
    );
    expect(lowerLimitProblem(5_000_00, 0, 5_000_00)).toContain("lower than today's $5,000.00");
    expect(lowerLimitProblem(5_000_00, 0, 0)).toBe("Enter the new credit limit in dollars.");
  });

  it("property: an accepted limit is below the old one and at least what is owed, so available credit never goes negative", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: -10, max: 10_000_000 }),
        (limit, owed, next) => {
          if (lowerLimitProblem(limit, owed, next) === null) {
            expect(next).toBeLessThan(limit);
            expect(next).toBeGreaterThanOrEqual(owed);
            expect(next).toBeGreaterThan(0);
          }
        },
      ),
    );
  });
});

describe("the line's state and what the member is told", () => {
  const line = (over: Partial<Parameters<typeof lineState>[0]>) => ({
    status: "active" as const,
    frozen_reason: null,
    closing_reason: null,
    ...over,
  });

  it("closed outranks closing, which outranks frozen", () => {
    expect(lineState(line({}))).toBe("open");
    expect(lineState(line({ frozen_reason: "fraud" }))).toBe("frozen");
    expect(lineState(line({ frozen_reason: "fraud", closing_reason: "delinquency" }))).toBe("closing");
    expect(lineState(line({ status: "closed", closing_reason: "member_request" }))).toBe("closed");
  });

  it("a stopped line says why and that payments still work", () => {
    expect(drawsStoppedMessage(line({}))).toBeNull();
    expect(drawsStoppedMessage(line({ frozen_reason: "delinquency" }))).toBe(
      "Draws on this line are frozen because payments on the line are past due. Payments still work, and interest goes on. Please contact us about it.",
    );
    expect(drawsStoppedMessage(line({ closing_reason: "member_request" }))).toContain("because you asked us to");
  });

  it("Regulation B adverse action: fraud, a lower limit and a higher APR; not delinquency, the member's request or a lower APR", () => {
    expect(isAdverseAction("freeze", "fraud")).toBe(true);
    expect(isAdverseAction("close", "delinquency")).toBe(false);
    expect(isAdverseAction("close", "member_request")).toBe(false);
    expect(isAdverseAction("limit", null)).toBe(true);
    expect(isAdverseAction("rate_increase", null)).toBe(true);
    expect(isAdverseAction("rate_decrease", null)).toBe(false);
  });

  it("each change in words", () => {
    const base = {
      reason: null,
      rate_from_ppm: null,
      rate_to_ppm: null,
      limit_from_cents: null,
      limit_to_cents: null,
      effective_on: "2026-04-24",
      status: "in_effect" as const,
    };
    expect(lineChangeSummary({ ...base, kind: "freeze", reason: "fraud" })).toBe("Draws frozen (suspected fraud)");
    expect(
      lineChangeSummary({ ...base, kind: "rate", rate_from_ppm: 125_000, rate_to_ppm: 150_000, status: "scheduled" }),
    ).toBe("APR 12.50% to 15.00%, takes effect Apr 24, 2026");
    expect(lineChangeSummary({ ...base, kind: "limit", limit_from_cents: 5_000_00, limit_to_cents: 2_500_00 })).toBe(
      "Credit limit lowered from $5,000.00 to $2,500.00",
    );
  });
});
