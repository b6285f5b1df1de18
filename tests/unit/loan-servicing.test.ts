import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { addCalendarDays } from "~/domain/payment-dates";
import {
  ACCRUAL_DENOMINATOR,
  accrualRun,
  accrueInterest,
  applyPayment,
  firstUnpaidDue,
  lateDueDates,
  nextPaymentDue,
  payoffQuote,
  totalOwed,
} from "~/domain/loans/servicing";

/** Loan servicing's rules (docs/product.md#loan-servicing): accrual, payment application, due dates. */
describe("interest accrual", () => {
  it("is principal x rate x days / 365 in whole cents, the fraction carried", () => {
    // $10,000 at 7.30% for one day: 10,000 x 0.073 / 365 = $2.00 exactly.
    expect(accrueInterest(1_000_000, 73_000, 1, 0)).toEqual({ interest_cents: 200, carry: 0 });
    // $5,000 at 6% for a day: 82.19178... cents: 82 cents, the rest carried.
    const day = accrueInterest(500_000, 60_000, 1, 0);
    expect(day.interest_cents).toBe(82);
    expect(day.carry).toBe(500_000 * 60_000 - 82 * 365_000_000);
    // A leap year's 366 days are 366 days on a 365-day year.
    expect(accrueInterest(1_000_000, 73_000, 366, 0).interest_cents).toBe(73_200);
  });

  it("loses nothing: nightly runs sum to the whole stretch's interest, rounded down", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000_000 }),
        fc.integer({ min: 0, max: 180_000 }),
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 60 }),
        (principal, rate, runs) => {
          let carry = 0;
          let cents = 0;
          for (const days of runs) {
            const a = accrueInterest(principal, rate, days, carry);
            expect(a.carry).toBeGreaterThanOrEqual(0);
            expect(BigInt(a.carry) < ACCRUAL_DENOMINATOR).toBe(true);
            cents += a.interest_cents;
            carry = a.carry;
          }
          const total_days = runs.reduce((s, d) => s + d, 0);
          const exact = BigInt(principal) * BigInt(rate) * BigInt(total_days);
          expect(BigInt(cents)).toBe(exact / ACCRUAL_DENOMINATOR);
          expect(BigInt(cents) * ACCRUAL_DENOMINATOR + BigInt(carry)).toBe(exact);
        },
      ),
    );
  });

  it("refuses what is not a count", () => {
    expect(() => accrueInterest(-1, 1, 1, 0)).toThrow();
    expect(() => accrueInterest(1, 1, -1, 0)).toThrow();
    expect(() => accrueInterest(1, 1, 1, 365_000_000)).toThrow();
  });
});

describe("an accrual run (a booked loan's and a line of credit's, one rule)", () => {
  const start = { interest_accrued_to: "2026-03-01", accrued_interest_cents: 1_234, accrual_carry: 0 };

  it("accrues the days before `to` and keeps the figures after", () => {
    // $5,000 at 6% from March 1 to the day before March 3: two days, 164.38... cents.
    expect(accrualRun(start, 500_000, 60_000, "2026-03-03")).toEqual({
      days: 2,
      interest_cents: 164,
      after: {
        interest_accrued_to: "2026-03-03",
        accrued_interest_cents: 1_234 + 164,
        accrual_carry: 500_000 * 60_000 * 2 - 164 * 365_000_000,
      },
    });
  });

  it("has nothing to accrue on the day it was accrued to, or before", () => {
    expect(accrualRun(start, 500_000, 60_000, "2026-03-01")).toBeNull();
    expect(accrualRun(start, 500_000, 60_000, "2026-02-27")).toBeNull();
  });

  it("is accrueInterest over the days between, to the cent and the carry", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000_000 }),
        fc.integer({ min: 0, max: 180_000 }),
        fc.integer({ min: 1, max: 800 }),
        fc.integer({ min: 0, max: Number(ACCRUAL_DENOMINATOR) - 1 }),
        fc.integer({ min: 0, max: 10_000_000 }),
        (principal, rate, days, carry, accrued) => {
          const figures = { interest_accrued_to: "2024-02-20", accrued_interest_cents: accrued, accrual_carry: carry };
          const to = addCalendarDays("2024-02-20", days);
          const expected = accrueInterest(principal, rate, days, carry);
          expect(accrualRun(figures, principal, rate, to)).toEqual({
            days,
            interest_cents: expected.interest_cents,
            after: {
              interest_accrued_to: to,
              accrued_interest_cents: accrued + expected.interest_cents,
              accrual_carry: expected.carry,
            },
          });
        },
      ),
    );
  });

  it("nightly runs end where one run over the whole stretch does", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000_000 }),
        fc.integer({ min: 0, max: 180_000 }),
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 60 }),
        (principal, rate, steps) => {
          let figures = start;
          for (const step of steps) {
            const run = accrualRun(figures, principal, rate, addCalendarDays(figures.interest_accrued_to, step));
            figures = run!.after;
          }
          const whole = accrualRun(start, principal, rate, figures.interest_accrued_to);
          expect(whole!.after).toEqual(figures);
        },
      ),
    );
  });
});

describe("a payment's application", () => {
  const owed = { fees_cents: 2_500, interest_cents: 1_234, principal_cents: 100_000 };

  it("goes to fees, then interest, then principal", () => {
    expect(applyPayment(1_000, owed)).toEqual({ fees_cents: 1_000, interest_cents: 0, principal_cents: 0 });
    expect(applyPayment(3_000, owed)).toEqual({ fees_cents: 2_500, interest_cents: 500, principal_cents: 0 });
    expect(applyPayment(10_000, owed)).toEqual({ fees_cents: 2_500, interest_cents: 1_234, principal_cents: 6_266 });
    expect(applyPayment(totalOwed(owed), owed)).toEqual(owed);
  });

  it("is refused above what is owed and for nothing", () => {
    expect(applyPayment(totalOwed(owed) + 1, owed)).toBeNull();
    expect(applyPayment(0, owed)).toBeNull();
    expect(applyPayment(1.5, owed)).toBeNull();
  });

  it("sums to the payment and never takes a part below zero", () => {
    fc.assert(
      fc.property(
        fc.record({
          fees_cents: fc.integer({ min: 0, max: 100_000 }),
          interest_cents: fc.integer({ min: 0, max: 1_000_000 }),
          principal_cents: fc.integer({ min: 0, max: 100_000_000 }),
        }),
        fc.integer({ min: 1, max: 200_000_000 }),
        (o, amount) => {
          const applied = applyPayment(amount, o);
          if (amount > totalOwed(o)) {
            expect(applied).toBeNull();
            return;
          }
          expect(applied).not.toBeNull();
          const a = applied!;
          expect(a.fees_cents + a.interest_cents + a.principal_cents).toBe(amount);
          expect(a.fees_cents).toBeLessThanOrEqual(o.fees_cents);
          expect(a.interest_cents).toBeLessThanOrEqual(o.interest_cents);
          expect(a.principal_cents).toBeLessThanOrEqual(o.principal_cents);
          // Interest is paid only once the fees are; principal only once both are.
          if (a.interest_cents > 0) expect(a.fees_cents).toBe(o.fees_cents);
          if (a.principal_cents > 0) expect(a.interest_cents).toBe(o.interest_cents);
        },
      ),
    );
  });
});

describe("payoff quote", () => {
  it("adds the interest of the days to the payment day and states the per-diem", () => {
    const owed = { fees_cents: 0, interest_cents: 300, principal_cents: 1_000_000 };
    const state = { principal_cents: 1_000_000, rate_ppm: 73_000, accrued_to: "2026-03-10", carry: 0 };
    expect(payoffQuote(owed, state, "2026-03-10")).toMatchObject({ payoff_cents: 1_000_300, per_diem_cents: 200 });
    expect(payoffQuote(owed, state, "2026-03-20")).toMatchObject({
      good_through: "2026-03-20",
      payoff_cents: 1_000_300 + 10 * 200,
      interest_to_date_cents: 2_300,
    });
  });
});

describe("due dates", () => {
  const schedule = [
    { number: 1, due_on: "2026-04-10", payment_cents: 10_000 },
    { number: 2, due_on: "2026-05-10", payment_cents: 10_000 },
    { number: 3, due_on: "2026-06-10", payment_cents: 9_000 },
  ];
  const owed = { fees_cents: 0, interest_cents: 100, principal_cents: 28_000 };

  it("are covered in order by what was paid, an extra payment counting toward the next", () => {
    expect(firstUnpaidDue(schedule, 0)).toMatchObject({ number: 1, still_due_cents: 10_000 });
    expect(firstUnpaidDue(schedule, 15_000)).toMatchObject({ number: 2, still_due_cents: 5_000 });
    expect(firstUnpaidDue(schedule, 29_000)).toBeNull();
  });

  it("the next payment adds the fees and never passes the payoff", () => {
    expect(nextPaymentDue(schedule, 0, { ...owed, fees_cents: 2_500 })).toEqual({
      due_on: "2026-04-10",
      amount_cents: 12_500,
    });
    expect(nextPaymentDue(schedule, 25_000, { fees_cents: 0, interest_cents: 0, principal_cents: 1_000 })).toEqual({
      due_on: "2026-06-10",
      amount_cents: 1_000,
    });
  });

  it("are late after the grace days when not covered by then, each once", () => {
    const paid = (table: Record<string, number>) => (day: string) =>
      Object.entries(table)
        .filter(([on]) => on <= day)
        .reduce((s, [, c]) => s + c, 0);
    // Grace of 10 days: the April due date is late from the 21st.
    expect(lateDueDates(schedule, 10, "2026-04-20", paid({}))).toEqual([]);
    expect(lateDueDates(schedule, 10, "2026-04-21", paid({}))).toEqual(["2026-04-10"]);
    // Paid within grace: not late.
    expect(lateDueDates(schedule, 10, "2026-04-21", paid({ "2026-04-19": 10_000 }))).toEqual([]);
    // Paid after the grace: late all the same.
    expect(lateDueDates(schedule, 10, "2026-05-01", paid({ "2026-04-25": 10_000 }))).toEqual(["2026-04-10"]);
    expect(lateDueDates(schedule, 10, "2026-06-30", paid({}))).toEqual(["2026-04-10", "2026-05-10", "2026-06-10"]);
  });
});
