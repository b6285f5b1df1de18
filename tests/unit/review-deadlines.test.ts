import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ageLabel, byDueDate, reviewDeadline, screeningPolicy } from "~/domain/review-deadlines";
import { isBusinessDay } from "~/domain/payment-dates";

/**
 * The compliance queues' deadlines (app/domain/review-deadlines.ts, docs/product.md#review-deadlines):
 * counted in business days from the business day an item arrived, Federal Reserve holidays skipped.
 */
describe("review deadlines", () => {
  it("an incoming credit to review is due the next business day", () => {
    // Thursday 3 December 2026.
    expect(reviewDeadline("credit_review", "2026-12-03", "2026-12-03")).toMatchObject({
      due_on: "2026-12-04",
      age_days: 0,
      state: "due_soon",
    });
    expect(reviewDeadline("credit_review", "2026-12-03", "2026-12-04").state).toBe("due_today");
    expect(reviewDeadline("credit_review", "2026-12-03", "2026-12-07")).toMatchObject({
      state: "overdue",
      age_days: 4,
      age_business_days: 2,
    });
  });

  it("an item arriving on a weekend counts from Monday; holidays are skipped", () => {
    expect(reviewDeadline("credit_review", "2026-12-05", "2026-12-05").due_on).toBe("2026-12-08");
    // Christmas Day, Friday 25 December 2026, is a Federal Reserve holiday.
    expect(reviewDeadline("credit_review", "2026-12-24", "2026-12-24").due_on).toBe("2026-12-28");
    expect(reviewDeadline("screening_person", "2026-12-24", "2026-12-24").due_on).toBe("2026-12-29");
  });

  it("the screening queue: money waits one business day, a person two", () => {
    expect(screeningPolicy("payment")).toBe("screening_money");
    expect(screeningPolicy("ach_entry")).toBe("screening_money");
    expect(screeningPolicy("application")).toBe("screening_person");
    expect(screeningPolicy("member")).toBe("screening_person");
    expect(reviewDeadline("screening_money", "2026-12-03", "2026-12-03").due_on).toBe("2026-12-04");
    expect(reviewDeadline("screening_person", "2026-12-03", "2026-12-03").due_on).toBe("2026-12-07");
  });

  it("every due date is a business day after the arrival, never before it", () => {
    const day = fc
      .integer({ min: 0, max: 3 * 365 })
      .map((n) => new Date(Date.UTC(2026, 0, 1) + n * 86_400_000).toISOString().slice(0, 10));
    fc.assert(
      fc.property(
        day,
        fc.constantFrom("credit_review", "screening_money", "screening_person" as const),
        (received, queue) => {
          const { due_on } = reviewDeadline(queue, received, received);
          expect(isBusinessDay(due_on)).toBe(true);
          expect(due_on > received).toBe(true);
        },
      ),
    );
  });

  it("orders by due date, the most overdue first, then by arrival", () => {
    const row = (id: number, due_on: string) => ({ id, deadline: { due_on } });
    expect(byDueDate([row(3, "2026-12-04"), row(1, "2026-12-07"), row(2, "2026-12-04")]).map((r) => r.id)).toEqual([
      2, 3, 1,
    ]);
  });

  it("says how long an item waited", () => {
    expect([0, 1, 4].map(ageLabel)).toEqual(["today", "1 day", "4 days"]);
  });
});
