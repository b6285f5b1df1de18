import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { InstitutionSchema } from "~/config/institution";
import { demoInstitution } from "~/config/demo-institution";
import {
  adverseActionReasonLines,
  formatAprBp,
  formatRatePpm,
  offerOpen,
  offerProblems,
  parseLoanRatePercent,
  requestProblems,
  withArticle,
  type LoanProductTerms,
} from "~/domain/loans/products";
import { loanProductTerms } from "~/server/loans/products.server";

const personal: LoanProductTerms = {
  slug: "personal",
  kind: "personal",
  name: "Personal Loan",
  rate_min_ppm: 59_900,
  rate_max_ppm: 179_900,
  term_months_min: 12,
  term_months_max: 60,
  amount_min_cents: 1_000_00,
  amount_max_cents: 50_000_00,
  payment_frequency: "monthly",
  grace_days: 10,
  late_fee_cents: 25_00,
  minimum_payment: null,
};

function profileWith(loan_products: unknown) {
  return InstitutionSchema.safeParse({ ...demoInstitution, loan_products });
}

describe("loan products in the institution profile", () => {
  it("the demo offers a personal, an auto and a share-secured loan and a line of credit, the personal one linked from its product page", () => {
    const parsed = InstitutionSchema.parse(demoInstitution);
    expect(parsed.loan_products.map((p) => p.kind)).toEqual(["personal", "auto", "line_of_credit", "share_secured"]);
    expect(parsed.loan_products[0]!.product_page).toBe("personal-loans");
    expect(loanProductTerms(parsed.loan_products[0]!)).toMatchObject({ rate_min_ppm: 59_900, rate_max_ppm: 179_900 });
  });

  it("a profile without loan products offers none", () => {
    const { loan_products: _omitted, ...rest } = demoInstitution;
    expect(InstitutionSchema.parse(rest).loan_products).toEqual([]);
  });

  it("refuses ranges upside down, kinds not built, a rate above 18% and a page that does not exist", () => {
    const base = demoInstitution.loan_products![0]!;
    const result = profileWith([
      { ...base, rate_min_percent: "9", rate_max_percent: "8" },
      {
        ...base,
        slug: "b",
        term_months_min: 60,
        term_months_max: 12,
        amount_min_cents: 900_00 * 100,
        amount_max_cents: 100_00 * 100,
      },
      { ...base, slug: "c", kind: "share_secured" },
      { ...base, slug: "d", rate_max_percent: "19" },
      { ...base, slug: "e", product_page: "no-such-page" },
      { ...base, slug: "e" },
    ]);
    expect(result.success).toBe(false);
    const issues = result.error!.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    expect(issues).toEqual(
      expect.arrayContaining([
        "loan_products.0.rate_max_percent: must be at least rate_min_percent",
        "loan_products.1.term_months_max: must be at least term_months_min",
        "loan_products.1.amount_max_cents: must be at least amount_min_cents",
        expect.stringMatching(/^loan_products\.2\.kind: Share-secured loan: not offered/),
        expect.stringMatching(/^loan_products\.3\.rate_max_percent: must be a percent from 0 to 18/),
        'loan_products.4.product_page: no product page has the slug "no-such-page"',
        "loan_products.5.slug: duplicate loan product slug",
      ]),
    );
  });
});

describe("what a member may ask for and staff may offer", () => {
  it("an amount and term within the product pass; outside, each names its field", () => {
    expect(requestProblems(personal, { amount_cents: 5_000_00, term_months: 36 })).toEqual([]);
    expect(requestProblems(personal, { amount_cents: 999_99, term_months: 61 })).toEqual([
      { field: "amount", message: "Enter an amount from $1,000 to $50,000." },
      { field: "term_months", message: "Choose a term from 12 to 60 months." },
    ]);
  });

  it("an offer's rate stays within the product's range", () => {
    const ok = { amount_cents: 5_000_00, term_months: 36, rate_ppm: 89_900 };
    expect(offerProblems(personal, ok)).toEqual([]);
    expect(offerProblems(personal, { ...ok, rate_ppm: 59_899 })[0]).toMatchObject({ field: "rate" });
    expect(offerProblems(personal, { ...ok, rate_ppm: 180_000 })[0]?.message).toBe(
      "The rate must be from 5.99% to 17.99% (the product's range).",
    );
  });

  it("any amount and term inside the ranges is accepted, any outside refused (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000_00 }),
        fc.integer({ min: 1, max: 120 }),
        (amount_cents, term_months) => {
          const inside =
            amount_cents >= personal.amount_min_cents &&
            amount_cents <= personal.amount_max_cents &&
            term_months >= personal.term_months_min &&
            term_months <= personal.term_months_max;
          expect(requestProblems(personal, { amount_cents, term_months }).length === 0).toBe(inside);
        },
      ),
    );
  });

  it("names a product with its article", () => {
    expect(withArticle("Auto Loan")).toBe("an auto loan");
    expect(withArticle("Personal Loan")).toBe("a personal loan");
  });

  it("rates read and print exactly", () => {
    expect(parseLoanRatePercent("5.99")).toBe(59_900);
    expect(parseLoanRatePercent("18")).toBe(180_000);
    expect(parseLoanRatePercent("18.01")).toBeNull();
    expect(parseLoanRatePercent("abc")).toBeNull();
    expect(formatRatePpm(59_900)).toBe("5.99%");
    expect(formatRatePpm(180_000)).toBe("18.00%");
    expect(formatAprBp(969)).toBe("9.69%");
    expect(formatAprBp(1_205)).toBe("12.05%");
  });

  it("adverse action reasons read as the notice lists them, Other in the staff member's words", () => {
    expect(adverseActionReasonLines(["income_insufficient", "other"], " Recent bankruptcy not discharged ")).toEqual([
      "Income insufficient for amount of credit requested",
      "Recent bankruptcy not discharged",
    ]);
  });

  it("an offer may be accepted through its last day, and only while it is an offer", () => {
    expect(offerOpen("approved", "2026-12-31", "2026-12-31")).toBe(true);
    expect(offerOpen("countered", "2026-12-31", "2027-01-01")).toBe(false);
    expect(offerOpen("declined", "2026-12-31", "2026-12-01")).toBe(false);
    expect(offerOpen("accepted", "2026-12-31", "2026-12-01")).toBe(false);
  });
});
