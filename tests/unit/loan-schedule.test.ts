import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  daysBetween,
  dueDate,
  loanPaymentSchedule,
  periodInterestCents,
  scheduleProblem,
  type LoanScheduleTerms,
} from "~/domain/loans/schedule";
import { annualPercentageRate, paymentGroups, truthInLending, unitPeriods } from "~/domain/loans/truth-in-lending";

describe("due dates and days", () => {
  it("keep the first due date's day, or the month's last day when the month is shorter", () => {
    expect(dueDate("2026-01-31", 1)).toBe("2026-02-28");
    expect(dueDate("2026-01-31", 2)).toBe("2026-03-31");
    expect(dueDate("2027-12-31", 2)).toBe("2028-02-29");
    expect(dueDate("2026-03-15", -3)).toBe("2025-12-15");
    expect(daysBetween("2026-01-31", "2026-03-01")).toBe(29);
  });
});

describe("a period's interest: balance x rate x days / 365, to the cent half up", () => {
  it("is exact where the arithmetic is", () => {
    // $1,000.00 at 3.65% for one day is exactly 10 cents.
    expect(periodInterestCents(100_000, 36_500, 1)).toBe(10);
  });
  it("rounds a half cent up and less than a half down", () => {
    // $1,000.00 at 1.825% for one day is 5 cents; for half of that balance, 2.5 cents -> 3.
    expect(periodInterestCents(50_000, 36_500, 1)).toBe(5);
    expect(periodInterestCents(25_000, 36_500, 1)).toBe(3);
    expect(periodInterestCents(24_999, 36_500, 1)).toBe(2);
  });
  it("holds exact for a balance times rate times days past 2^53", () => {
    // $100,000,000.00 at 99.9999% for 45 days: the product is about 4.5e18.
    const cents = periodInterestCents(10_000_000_000, 999_999, 45);
    expect(cents).toBe(Number((10_000_000_000n * 999_999n * 45n + 182_500_000n) / 365_000_000n));
  });
});

describe("the schedule", () => {
  const terms: LoanScheduleTerms = {
    principal_cents: 1_000_000,
    rate_ppm: 59_900,
    term_months: 36,
    disbursed_on: "2026-12-01",
    first_payment_on: "2027-01-01",
  };

  it("pays the amount back in level payments, the last absorbing what is left", () => {
    const schedule = loanPaymentSchedule(terms);
    expect(schedule.payments).toHaveLength(36);
    expect(schedule.level_payment_cents).toBe(30_417); // $10,000 at 5.99% over 36 months
    expect(schedule.payments.slice(0, -1).every((p) => p.payment_cents === 30_417)).toBe(true);
    expect(schedule.payments.at(-1)!.balance_after_cents).toBe(0);
    expect(schedule.payments[0]).toMatchObject({ due_on: "2027-01-01", days: 31, interest_cents: 5_087 });
    expect(schedule.total_of_payments_cents).toBe(schedule.payments.reduce((sum, p) => sum + p.payment_cents, 0));
  });

  it("refuses terms it cannot offer, saying why", () => {
    expect(scheduleProblem({ ...terms, rate_ppm: 240_000, term_months: 84, first_payment_on: "2027-01-15" })).toMatch(
      /would not cover/,
    );
    expect(scheduleProblem({ ...terms, principal_cents: 0 })).toMatch(/amount/);
    expect(scheduleProblem({ ...terms, term_months: 0 })).toMatch(/term/);
    expect(scheduleProblem({ ...terms, first_payment_on: "2027-02-15" })).toMatch(/45 days/);
    expect(scheduleProblem({ ...terms, first_payment_on: "2026-12-01" })).toMatch(/45 days/);
    expect(() => loanPaymentSchedule({ ...terms, rate_ppm: -1 })).toThrow(/rate/);
  });

  const anyTerms = fc.record({
    principal_cents: fc.integer({ min: 100_00, max: 500_000_00 }),
    rate_ppm: fc.integer({ min: 0, max: 240_000 }),
    term_months: fc.integer({ min: 1, max: 84 }),
    disbursed_on: fc
      .integer({ min: 0, max: 3_650 })
      .map((n) => new Date(Date.UTC(2025, 0, 1) + n * 86_400_000).toISOString().slice(0, 10)),
    first_period_days: fc.integer({ min: 15, max: 45 }),
  });
  const toTerms = (
    t: { disbursed_on: string; first_period_days: number } & Omit<
      LoanScheduleTerms,
      "disbursed_on" | "first_payment_on"
    >,
  ): LoanScheduleTerms => ({
    principal_cents: t.principal_cents,
    rate_ppm: t.rate_ppm,
    term_months: t.term_months,
    disbursed_on: t.disbursed_on,
    first_payment_on: new Date(Date.parse(`${t.disbursed_on}T00:00:00Z`) + t.first_period_days * 86_400_000)
      .toISOString()
      .slice(0, 10),
  });

  it("principal repaid sums to the amount, payments to principal plus interest, and no balance is below zero (property)", () => {
    fc.assert(
      fc.property(anyTerms, (raw) => {
        const terms = toTerms(raw);
        fc.pre(scheduleProblem(terms) === null);
        const schedule = loanPaymentSchedule(terms);
        const principal = schedule.payments.reduce((sum, p) => sum + p.principal_cents, 0);
        const paid = schedule.payments.reduce((sum, p) => sum + p.payment_cents, 0);
        expect(principal).toBe(terms.principal_cents);
        expect(paid).toBe(terms.principal_cents + schedule.total_interest_cents);
        expect(schedule.payments.length).toBeLessThanOrEqual(terms.term_months);
        expect(schedule.payments.at(-1)!.balance_after_cents).toBe(0);
        for (const p of schedule.payments) {
          expect(p.balance_after_cents).toBeGreaterThanOrEqual(0);
          expect(p.interest_cents).toBeGreaterThanOrEqual(0);
          expect(p.payment_cents).toBe(p.interest_cents + p.principal_cents);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe("the annual percentage rate (Regulation Z appendix J, actuarial method)", () => {
  it("appendix J (c)(1)(i): $5,000 advanced, 24 monthly payments of $230 from a regular first period, is 9.69%", () => {
    const payments = Array.from({ length: 24 }, (_, k) => ({ amount_cents: 23_000, due_on: dueDate("1978-02-10", k) }));
    const apr = annualPercentageRate({ amount_financed_cents: 500_000, advanced_on: "1978-01-10", payments });
    expect(Math.round(apr * 10_000)).toBe(969);
  });

  it("counts full months back from a due date and the rest as days / 30", () => {
    expect(unitPeriods("2026-01-10", "2026-02-10")).toEqual({ months: 1, fraction: 0 });
    expect(unitPeriods("2026-01-10", "2026-03-01")).toEqual({ months: 1, fraction: 22 / 30 });
    expect(unitPeriods("2026-01-10", "2026-01-25")).toEqual({ months: 0, fraction: 15 / 30 });
  });

  it("is 0 when the payments repay no more than was financed", () => {
    const payments = [{ amount_cents: 50_000, due_on: "2026-02-01" }];
    expect(annualPercentageRate({ amount_financed_cents: 50_000, advanced_on: "2026-01-01", payments })).toBe(0);
  });

  it("solves appendix J's equation to within 1/8 of a point (1026.22(a)(2)), and without a fee stays near the note rate (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100_00, max: 200_000_00 }),
        fc.integer({ min: 10_000, max: 240_000 }),
        fc.integer({ min: 6, max: 84 }),
        fc.integer({ min: 0, max: 365 }),
        (principal_cents, rate_ppm, term_months, offset) => {
          const start = new Date(Date.UTC(2026, 0, 1) + offset * 86_400_000).toISOString().slice(0, 10);
          const disclosure = truthInLending({
            principal_cents,
            rate_ppm,
            term_months,
            disbursed_on: start,
            first_payment_on: dueDate(start, 1),
            prepaid_finance_charge_cents: 0,
          });
          // The amount financed lies between the payments' present values 1/8 point either side.
          const periods = disclosure.payments.map((p) => ({
            amount: p.payment_cents,
            ...unitPeriods(start, p.due_on),
          }));
          const presentValue = (apr_bp: number) => {
            const i = apr_bp / 10_000 / 12;
            return periods.reduce((sum, p) => sum + p.amount / ((1 + p.fraction * i) * Math.pow(1 + i, p.months)), 0);
          };
          expect(presentValue(disclosure.apr_bp + 12.5)).toBeLessThanOrEqual(principal_cents);
          expect(presentValue(Math.max(0, disclosure.apr_bp - 12.5))).toBeGreaterThanOrEqual(principal_cents);
          // Actual days / 365 against twelfths of a year: short loans over uneven months move it most.
          // In proportion to the rate, not a fixed quarter point (which this property passed: 25.01
          // hundredths of a point at 13%, 6 months from January 29th): the day count moved it by
          // up to 2.2% of the rate in 20,000 random loans (6 months from early February), and each
          // period's interest rounded to the cent by up to half a cent of the finance charge
          // (a $100.11 loan at 1% over 9 months: 4.87 hundredths of a point).
          const rate_bp = rate_ppm / 100;
          const rounding = (term_months * 0.5 + 1) / disclosure.finance_charge_cents;
          expect(Math.abs(disclosure.apr_bp - rate_bp)).toBeLessThanOrEqual(rate_bp * (0.025 + rounding) + 1);
        },
      ),
      { numRuns: 100 },
    );
  }, 30_000);

  it("with an origination fee: the amount financed is less, the finance charge holds the fee, the APR is higher", () => {
    const base = {
      principal_cents: 1_000_000,
      rate_ppm: 59_900,
      term_months: 36,
      disbursed_on: "2026-12-01",
      first_payment_on: "2027-01-01",
    };
    const without = truthInLending({ ...base, prepaid_finance_charge_cents: 0 });
    const withFee = truthInLending({ ...base, prepaid_finance_charge_cents: 20_000 });
    expect(withFee.amount_financed_cents).toBe(980_000);
    expect(withFee.total_of_payments_cents).toBe(without.total_of_payments_cents);
    expect(withFee.finance_charge_cents).toBe(without.finance_charge_cents + 20_000);
    expect(withFee.finance_charge_cents).toBe(withFee.total_of_payments_cents - withFee.amount_financed_cents);
    expect(withFee.apr_bp).toBeGreaterThan(without.apr_bp + 100);
    expect(withFee.payment_schedule).toEqual(paymentGroups(withFee.payments));
    expect(withFee.payment_schedule[0]).toMatchObject({ count: 35, amount_cents: 30_417, first_due_on: "2027-01-01" });
    expect(withFee.payment_schedule).toHaveLength(2);
  });
});
