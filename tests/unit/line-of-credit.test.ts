import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { InstitutionSchema } from "~/config/institution";
import { demoInstitution } from "~/config/demo-institution";
import { loanProductTerms } from "~/server/loans/products.server";
import {
  LINE_PAYMENT_DUE_DAYS,
  availableCredit,
  creditLimitProblem,
  cycleCloseOn,
  cycleMinimumDue,
  dailyPeriodicRate,
  drawProblem,
  lineOfCreditDisclosure,
  lineOfferProblems,
  minimumPayment,
} from "~/domain/loans/line-of-credit";
import { LineDrawSchema, LineOfCreditApplicationSchema, LineOfCreditDecisionSchema } from "~/domain/loans/forms";

const rule = { percent_ppm: 30_000, floor_cents: 25_00 };
const demoLine = () => InstitutionSchema.parse(demoInstitution).loan_products.find((p) => p.kind === "line_of_credit")!;

describe("the minimum payment (docs/product.md#lines-of-credit)", () => {
  it("is the greater of 3% (rounded up to the cent) and the floor, never more than the balance", () => {
    expect(minimumPayment(0, rule)).toBe(0);
    expect(minimumPayment(10_00, rule)).toBe(10_00); // the whole balance, under the floor
    expect(minimumPayment(500_00, rule)).toBe(25_00); // 3% is $15: the floor
    expect(minimumPayment(2_000_00, rule)).toBe(60_00); // 3% is $60
    expect(minimumPayment(2_000_01, rule)).toBe(60_01); // $60.0003 rounded up
    expect(minimumPayment(-5, rule)).toBe(0);
  });

  it("adds a minimum left unpaid, still capped at the balance", () => {
    expect(cycleMinimumDue(2_000_00, rule, 40_00)).toBe(100_00);
    expect(cycleMinimumDue(50_00, rule, 40_00)).toBe(50_00);
    expect(cycleMinimumDue(0, rule, 40_00)).toBe(0);
  });

  it("property: between the stated rule and the balance", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000_000_00 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1, max: 100_000_00 }),
        fc.integer({ min: 0, max: 10_000_00 }),
        (balance, percent_ppm, floor_cents, past_due) => {
          const r = { percent_ppm, floor_cents };
          const m = minimumPayment(balance, r);
          expect(Number.isSafeInteger(m)).toBe(true);
          expect(m).toBeLessThanOrEqual(balance);
          expect(m).toBeGreaterThanOrEqual(Math.min(balance, floor_cents));
          // Never less than the percent: m x 1,000,000 >= balance x percent, unless the balance is less.
          if (m < balance) expect(BigInt(m) * 1_000_000n).toBeGreaterThanOrEqual(BigInt(balance) * BigInt(percent_ppm));
          const due = cycleMinimumDue(balance, r, past_due);
          expect(due).toBeGreaterThanOrEqual(m);
          expect(due).toBeLessThanOrEqual(balance);
        },
      ),
    );
  });
});

describe("available credit and draws", () => {
  it("is the limit less what is owed, never below zero", () => {
    expect(availableCredit(5_000_00, 0)).toBe(5_000_00);
    expect(availableCredit(5_000_00, 4_999_99)).toBe(1);
    expect(availableCredit(5_000_00, 5_010_00)).toBe(0);
  });

  it("refuses a draw over the available credit, or of nothing", () => {
    expect(drawProblem(100_00, 100_00)).toBeNull();
    expect(drawProblem(100_01, 100_00)).toBe("That is more than your available credit of $100.00.");
    expect(drawProblem(1, 0)).toBe("You have no credit available to draw: pay down the line first.");
    expect(drawProblem(0, 100_00)).toBe("Enter an amount of at least $0.01.");
  });

  it("property: draws allowed one after another never take what is owed past the limit, and available is never negative", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100_00, max: 100_000_00 }),
        fc.array(fc.integer({ min: -500_00, max: 50_000_00 }), { maxLength: 30 }),
        (limit, moves) => {
          let owed = 0;
          for (const move of moves) {
            // Negative: interest or a fee charged (it may take the balance over the limit); positive: a draw.
            if (move < 0) owed += -move;
            else if (drawProblem(move, availableCredit(limit, owed)) === null) {
              owed += move;
              expect(owed).toBeLessThanOrEqual(limit);
            }
            expect(availableCredit(limit, owed)).toBeGreaterThanOrEqual(0);
          }
        },
      ),
    );
  });
});

describe("the billing cycle and the account-opening disclosure (Regulation Z 1026.6(b))", () => {
  it("closes each month on the day the line was opened, the month's last day when shorter", () => {
    expect(cycleCloseOn("2026-01-31", 1)).toBe("2026-02-28");
    expect(cycleCloseOn("2026-01-31", 2)).toBe("2026-03-31");
    expect(cycleCloseOn("2026-03-15", 12)).toBe("2027-03-15");
  });

  it("states the rate, the daily periodic rate, how interest and the minimum are figured, and the fees", () => {
    const d = lineOfCreditDisclosure({
      credit_limit_cents: 5_000_00,
      rate_ppm: 89_900,
      minimum_payment: rule,
      late_fee_cents: 25_00,
      grace_days: 10,
      opened_on: "2026-03-15",
    });
    expect(d).toMatchObject({
      credit_limit_cents: 5_000_00,
      rate_ppm: 89_900,
      daily_periodic_rate: "0.024630%",
      payment_due_days: LINE_PAYMENT_DUE_DAYS,
      late_fee_cents: 25_00,
      late_fee_grace_days: 10,
      annual_fee_cents: 0,
      first_cycle_close_on: "2026-04-15",
    });
    expect(d.minimum_payment_text).toContain("The greater of 3.00% of the balance");
    expect(d.minimum_payment_text).toContain("$25.00");
    expect(d.grace_period).toMatch(/no grace period/);
    expect(dailyPeriodicRate(180_000)).toBe("0.049315%");
    expect(dailyPeriodicRate(0)).toBe("0.000000%");
  });
});

describe("the line-of-credit product in the institution profile", () => {
  it("the demo's line: a limit range and a minimum payment rule, no term", () => {
    const terms = loanProductTerms(demoLine());
    expect(terms).toMatchObject({
      kind: "line_of_credit",
      amount_min_cents: 1_000_00,
      amount_max_cents: 25_000_00,
      term_months_min: 0,
      minimum_payment: { percent_ppm: 30_000, floor_cents: 25_00 },
    });
    expect(creditLimitProblem(terms, 999_99)).toBe("Enter a credit limit from $1,000.00 to $25,000.00.");
    expect(creditLimitProblem(terms, 5_000_00)).toBeNull();
    expect(lineOfferProblems(terms, { credit_limit_cents: 5_000_00, rate_ppm: 200_000 })).toEqual([
      { field: "rate", message: "The rate must be from 9.99% to 17.99% (the product's range)." },
    ]);
  });

  it("refuses a line with a term or without its minimum payment, and a loan with a minimum payment", () => {
    const line = demoInstitution.loan_products!.find((p) => p.kind === "line_of_credit")!;
    const loan = demoInstitution.loan_products![0]!;
    const result = InstitutionSchema.safeParse({
      ...demoInstitution,
      loan_products: [
        { ...line, slug: "a", term_months_min: 12, term_months_max: 24 },
        { ...line, slug: "b", minimum_payment_percent: undefined, minimum_payment_floor_cents: undefined },
        { ...line, slug: "c", minimum_payment_percent: "0.5" },
        { ...loan, slug: "d", minimum_payment_percent: "3" },
        { ...loan, slug: "e", term_months_min: undefined },
      ],
    });
    expect(result.success).toBe(false);
    const issues = result.error!.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    expect(issues).toEqual(
      expect.arrayContaining([
        "loan_products.0.term_months_min: a line of credit has no term: leave term_months_min and term_months_max out",
        'loan_products.1.minimum_payment_percent: a line of credit needs its minimum payment percent, like "3"',
        "loan_products.1.minimum_payment_floor_cents: a line of credit needs its minimum payment floor, like 2500 ($25)",
        'loan_products.2.minimum_payment_percent: must be a percent from 1 to 100 with at most four decimals, like "3"',
        "loan_products.3.minimum_payment_percent: only a line of credit has a minimum payment: leave it out",
        "loan_products.4.term_months_min: required for a loan with a term",
      ]),
    );
  });
});

describe("the line-of-credit forms", () => {
  it("an application asks for a credit limit; a draw for an account and an amount", () => {
    const ok = LineOfCreditApplicationSchema.safeParse({
      credit_limit: "5,000",
      purpose: "Home repairs",
      annual_income: "70000",
      employer: "Seacoast Boatworks",
    });
    expect(ok.success && ok.data.credit_limit).toBe(5_000_00);
    const bad = LineOfCreditApplicationSchema.safeParse({
      credit_limit: "lots",
      purpose: "x",
      annual_income: "1",
      employer: "ab",
    });
    expect(bad.success).toBe(false);
    expect(LineDrawSchema.safeParse({ to: "12", amount: "250.50" }).data).toEqual({ to: 12, amount: 250_50 });
    expect(LineDrawSchema.safeParse({ to: "", amount: "0" }).error!.issues.map((i) => i.message)).toEqual([
      "Choose the account to put the money in.",
      "Enter an amount in dollars, like 500 or 500.00.",
    ]);
    expect(LineOfCreditDecisionSchema.safeParse({ outcome: "approve", rate: "12.5" }).data).toEqual({
      outcome: "approve",
      rate: 125_000,
    });
  });
});
