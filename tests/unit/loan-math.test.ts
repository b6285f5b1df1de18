import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  amortize,
  amortizes,
  formatPpmAsPercent,
  growSavings,
  LOAN_FORM_DEFAULTS,
  LoanFormSchema,
  monthlyPaymentCents,
  parsePercentToPpm,
  SAVINGS_FORM_DEFAULTS,
  SavingsFormSchema,
  type LoanInput,
} from "~/domain/loan-math";

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

function fieldErrors(result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) {
  const errors: Record<string, string> = {};
  for (const issue of result.error?.issues ?? []) errors[String(issue.path[0])] ??= issue.message;
  return errors;
}

describe("rates as parts per million", () => {
  it("parses percentages with up to four decimals exactly", () => {
    expect(parsePercentToPpm("6")).toBe(60_000);
    expect(parsePercentToPpm("6.5")).toBe(65_000);
    expect(parsePercentToPpm(" 6.125 % ")).toBe(61_250);
    expect(parsePercentToPpm("0.0001")).toBe(1);
    expect(parsePercentToPpm("0")).toBe(0);
    expect(parsePercentToPpm("7.")).toBe(70_000);
  });
  it("refuses anything else", () => {
    for (const text of ["", "abc", "-1", "6.12345", "1e2", "NaN", "6,5", "1000"])
      expect(parsePercentToPpm(text), text).toBeNull();
  });
  it("formats back without trailing zeros", () => {
    expect(formatPpmAsPercent(65_000)).toBe("6.5%");
    expect(formatPpmAsPercent(61_250)).toBe("6.125%");
    expect(formatPpmAsPercent(500_000)).toBe("50%");
    expect(formatPpmAsPercent(0)).toBe("0%");
  });
});

describe("loan payments", () => {
  it("$10,000 at 6% APR for 36 months is $304.22 a month", () => {
    const loan: LoanInput = { principal_cents: 10_000_00, apr_ppm: 60_000, term_months: 36 };
    expect(monthlyPaymentCents(loan)).toBe(304_22);
    const schedule = amortize(loan);
    expect(schedule.payments).toHaveLength(36);
    expect(schedule.monthly_payment_cents).toBe(304_22);
    // The first month's interest: $10,000 x 6% / 12 = $50.00.
    expect(schedule.payments[0]).toEqual({
      month: 1,
      payment_cents: 304_22,
      principal_cents: 254_22,
      interest_cents: 50_00,
      balance_cents: 9_745_78,
    });
    // The last payment clears the balance: 35 x $304.22 + $304.18.
    expect(schedule.final_payment_cents).toBe(304_18);
    expect(schedule.total_interest_cents).toBe(951_88);
    expect(schedule.total_paid_cents).toBe(10_951_88);
  });

  it("$200,000 at 6.5% APR for 30 years is $1,264.14 a month", () => {
    const schedule = amortize({ principal_cents: 200_000_00, apr_ppm: 65_000, term_months: 360 });
    expect(schedule.monthly_payment_cents).toBe(1_264_14);
    expect(schedule.payments).toHaveLength(360);
    expect(schedule.years).toHaveLength(30);
  });

  it("at 0% APR splits the amount evenly and the last payment takes the leftover cents", () => {
    const three = amortize({ principal_cents: 1_000_00, apr_ppm: 0, term_months: 3 });
    expect(three.payments.map((p) => p.payment_cents)).toEqual([333_33, 333_33, 333_34]);
    expect(three.total_interest_cents).toBe(0);

    const loan = amortize({ principal_cents: 10_000_00, apr_ppm: 0, term_months: 36 });
    expect(loan.monthly_payment_cents).toBe(277_78);
    expect(loan.final_payment_cents).toBe(10_000_00 - 35 * 277_78);
    expect(loan.total_paid_cents).toBe(10_000_00);
  });

  it("a one-month loan is repaid with one month's interest", () => {
    const schedule = amortize({ principal_cents: 1_200_00, apr_ppm: 120_000, term_months: 1 });
    expect(schedule.payments).toEqual([
      { month: 1, payment_cents: 1_212_00, principal_cents: 1_200_00, interest_cents: 12_00, balance_cents: 0 },
    ]);
  });

  it("rounds each month's interest to the cent, half up", () => {
    // At 1% APR: $1,002.00 -> 100,200 x 0.01 / 12 = 83.5 cents -> 84; $1,001.40 -> 83.45 cents -> 83.
    expect(amortize({ principal_cents: 1_002_00, apr_ppm: 10_000, term_months: 12 }).payments[0]!.interest_cents).toBe(
      84,
    );
    expect(amortize({ principal_cents: 1_001_40, apr_ppm: 10_000, term_months: 12 }).payments[0]!.interest_cents).toBe(
      83,
    );
  });

  it("repays exactly the amount borrowed, whatever the inputs (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100_00, max: 10_000_000_00 }),
        fc.integer({ min: 0, max: 500_000 }),
        fc.integer({ min: 1, max: 480 }),
        (principal_cents, apr_ppm, term_months) => {
          const loan = { principal_cents, apr_ppm, term_months };
          fc.pre(amortizes(loan));
          const schedule = amortize(loan);
          expect(sum(schedule.payments.map((p) => p.principal_cents))).toBe(principal_cents);
          expect(schedule.payments.at(-1)!.balance_cents).toBe(0);
          expect(schedule.payments.length).toBeLessThanOrEqual(term_months);
          for (const p of schedule.payments) {
            expect(p.payment_cents).toBe(p.principal_cents + p.interest_cents);
            expect(p.principal_cents).toBeGreaterThan(0);
            expect(Number.isSafeInteger(p.interest_cents)).toBe(true);
          }
          for (const p of schedule.payments.slice(0, -1)) expect(p.payment_cents).toBe(schedule.monthly_payment_cents);
          expect(schedule.total_interest_cents).toBe(sum(schedule.payments.map((p) => p.interest_cents)));
          expect(sum(schedule.years.map((y) => y.principal_cents))).toBe(principal_cents);
          expect(sum(schedule.years.map((y) => y.interest_cents))).toBe(schedule.total_interest_cents);
          expect(schedule.years.at(-1)!.balance_cents).toBe(0);
        },
      ),
      { numRuns: 200 },
    );
    // Each run builds up to two 480-month schedules: give a busy machine room.
  }, 30_000);

  it("ordinary loans end with a last payment within cents of the others", () => {
    for (const loan of [
      { principal_cents: 25_000_00, apr_ppm: 65_000, term_months: 60 },
      { principal_cents: 350_000_00, apr_ppm: 69_900, term_months: 360 },
      { principal_cents: 8_500_00, apr_ppm: 179_900, term_months: 48 },
    ]) {
      const schedule = amortize(loan);
      expect(
        Math.abs(schedule.final_payment_cents - schedule.monthly_payment_cents),
        JSON.stringify(loan),
      ).toBeLessThan(10_00);
    }
  });

  it("refuses a loan whose payments would barely cover the interest", () => {
    const loan = { principal_cents: 1_000_00, apr_ppm: 240_000, term_months: 480 };
    expect(amortizes(loan)).toBe(false);
    expect(() => amortize({ principal_cents: 100_00, apr_ppm: 500_000, term_months: 480 })).toThrow(
      /repays some principal/,
    );
    expect(fieldErrors(LoanFormSchema.safeParse({ amount: "1,000", apr: "24", term: "480" }))).toEqual({
      term: "At this rate, 480 monthly payments would go almost all to interest and could not repay the loan evenly. Choose a shorter term or a lower rate.",
    });
  });

  it("refuses inputs out of bounds rather than computing nonsense", () => {
    expect(() => amortize({ principal_cents: 0, apr_ppm: 60_000, term_months: 12 })).toThrow();
    expect(() => amortize({ principal_cents: 1_000_00, apr_ppm: 60_000, term_months: 0 })).toThrow();
    expect(() => amortize({ principal_cents: 1.5, apr_ppm: 60_000, term_months: 12 })).toThrow();
  });
});

describe("savings growth", () => {
  it("$10,000 at 5% APY for a year earns $500.00", () => {
    const growth = growSavings({
      initial_deposit_cents: 10_000_00,
      monthly_deposit_cents: 0,
      apy_ppm: 50_000,
      years: 1,
    });
    expect(growth.final_balance_cents).toBe(10_500_00);
    expect(growth.total_dividends_cents).toBe(500_00);
    expect(growth.total_deposits_cents).toBe(10_000_00);
  });

  it("at 0% APY the balance is just the deposits", () => {
    const growth = growSavings({
      initial_deposit_cents: 1_000_00,
      monthly_deposit_cents: 100_00,
      apy_ppm: 0,
      years: 2,
    });
    expect(growth.final_balance_cents).toBe(3_400_00);
    expect(growth.total_dividends_cents).toBe(0);
    expect(growth.years.map((y) => [y.deposits_cents, y.balance_cents])).toEqual([
      [2_200_00, 2_200_00],
      [1_200_00, 3_400_00],
    ]);
  });

  it("monthly deposits grow like an annuity paid at the end of each month", () => {
    // $100 a month for 10 years at 5% APY: 100 x ((1 + m)^120 - 1) / m with m = 1.05^(1/12) - 1.
    const m = Math.pow(1.05, 1 / 12) - 1;
    const expected_cents = Math.round((100_00 * (Math.pow(1 + m, 120) - 1)) / m);
    const growth = growSavings({ initial_deposit_cents: 0, monthly_deposit_cents: 100_00, apy_ppm: 50_000, years: 10 });
    // Each monthly credit is rounded to the cent: at most half a cent off per month.
    expect(Math.abs(growth.final_balance_cents - expected_cents)).toBeLessThanOrEqual(60);
    expect(growth.total_deposits_cents).toBe(12_000_00);
  });

  it("the balance is always deposits plus dividends, year by year (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000_00 }),
        fc.integer({ min: 0, max: 1_000_000_00 }),
        fc.integer({ min: 0, max: 250_000 }),
        fc.integer({ min: 1, max: 50 }),
        (initial_deposit_cents, monthly_deposit_cents, apy_ppm, years) => {
          const growth = growSavings({ initial_deposit_cents, monthly_deposit_cents, apy_ppm, years });
          expect(growth.years).toHaveLength(years);
          expect(growth.final_balance_cents).toBe(growth.total_deposits_cents + growth.total_dividends_cents);
          expect(growth.total_deposits_cents).toBe(initial_deposit_cents + monthly_deposit_cents * 12 * years);
          expect(sum(growth.years.map((y) => y.dividends_cents))).toBe(growth.total_dividends_cents);
          for (const y of growth.years) {
            expect(y.balance_cents).toBe(y.total_deposits_cents + y.total_dividends_cents);
            expect(y.dividends_cents).toBeGreaterThanOrEqual(0);
          }
        },
      ),
      { numRuns: 200 },
    );
  }, 30_000);
});

describe("calculator form schemas", () => {
  it("read the defaults", () => {
    expect(LoanFormSchema.parse(LOAN_FORM_DEFAULTS)).toEqual({
      principal_cents: 25_000_00,
      apr_ppm: 65_000,
      term_months: 60,
    });
    expect(SavingsFormSchema.parse(SAVINGS_FORM_DEFAULTS)).toEqual({
      initial_deposit_cents: 5_000_00,
      monthly_deposit_cents: 200_00,
      apy_ppm: 35_000,
      years: 10,
    });
  });

  it("accept amounts as people type them", () => {
    expect(LoanFormSchema.parse({ amount: "$12,500.50", apr: "7.25%", term: " 48 " })).toEqual({
      principal_cents: 12_500_50,
      apr_ppm: 72_500,
      term_months: 48,
    });
  });

  it("say what is wrong with each loan field", () => {
    expect(fieldErrors(LoanFormSchema.safeParse({ amount: "", apr: "", term: "" }))).toEqual({
      amount: "Enter a loan amount.",
      apr: "Enter an interest rate (APR).",
      term: "Enter a term.",
    });
    expect(fieldErrors(LoanFormSchema.safeParse({ amount: "-1e308", apr: "NaN", term: "\u0000" }))).toEqual({
      amount: "Enter a loan amount in dollars, like 1,250.00.",
      apr: "Enter an interest rate (APR) from 0 to 50%, like 6.5.",
      term: "Enter a term in whole months, from 1 to 480.",
    });
    expect(fieldErrors(LoanFormSchema.safeParse({ amount: "50", apr: "51", term: "481" }))).toEqual({
      amount: "Enter a loan amount from $100.00 to $10,000,000.00.",
      apr: "Enter an interest rate (APR) from 0 to 50%, like 6.5.",
      term: "Enter a term in whole months, from 1 to 480.",
    });
    expect(fieldErrors(LoanFormSchema.safeParse({ amount: "1000.001", apr: "5", term: "12.5" }))).toEqual({
      amount: "Enter a loan amount in dollars, like 1,250.00.",
      term: "Enter a term in whole months, from 1 to 480.",
    });
  });

  it("say what is wrong with each savings field", () => {
    expect(fieldErrors(SavingsFormSchema.safeParse({}))).toEqual({
      deposit: "Enter an initial deposit.",
      monthly: "Enter a monthly deposit.",
      apy: "Enter a dividend rate (APY).",
      years: "Enter a number of years.",
    });
    expect(
      fieldErrors(
        SavingsFormSchema.safeParse({ deposit: "10,000,000.01", monthly: "1,000,000.01", apy: "26", years: "0" }),
      ),
    ).toEqual({
      deposit: "Enter an initial deposit from $0.00 to $10,000,000.00.",
      monthly: "Enter a monthly deposit from $0.00 to $1,000,000.00.",
      apy: "Enter a dividend rate (APY) from 0 to 25%, like 6.5.",
      years: "Enter a whole number of years, from 1 to 50.",
    });
  });
});
