import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { InstitutionSchema } from "~/config/institution";
import { demoInstitution } from "~/config/demo-institution";
import {
  pledgeHoldAfterPayment,
  pledgeMaximumCents,
  securityInterestText,
  shareSecuredMaximumCents,
} from "~/domain/loans/share-secured";
import { applyPayment } from "~/domain/loans/servicing";

describe("share-secured loans: how much may be borrowed", () => {
  it("is the pledged available balance times the percent, rounded down to the cent", () => {
    expect(pledgeMaximumCents(10_000_00, 90)).toBe(9_000_00);
    expect(pledgeMaximumCents(1_001, 90)).toBe(900);
    expect(pledgeMaximumCents(0, 90)).toBe(0);
    expect(pledgeMaximumCents(-5_00, 90)).toBe(0);
    expect(pledgeMaximumCents(12_345, 100)).toBe(12_345);
  });

  it("never more than the product's own maximum", () => {
    expect(shareSecuredMaximumCents(500_000_00, { pledge_percent: 90, amount_max_cents: 100_000_00 })).toBe(100_000_00);
  });

  it("refuses a percent outside 1 to 100", () => {
    expect(() => pledgeMaximumCents(100, 0)).toThrow();
    expect(() => pledgeMaximumCents(100, 101)).toThrow();
  });

  it("is never more than the available balance (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000_00 }), fc.integer({ min: 1, max: 100 }), (available, pct) => {
        const max = pledgeMaximumCents(available, pct);
        expect(max).toBeLessThanOrEqual(available);
        expect(max).toBeGreaterThanOrEqual(0);
        // Rounded down: one more cent would be over the percent.
        expect((max + 1) * 100).toBeGreaterThan(available * pct);
      }),
    );
  });
});

describe("share-secured loans: the hold follows the principal", () => {
  it("is lowered to the principal owed, never raised, and released at payoff", () => {
    expect(pledgeHoldAfterPayment(5_000_00, 4_850_00, false)).toBe(4_850_00);
    expect(pledgeHoldAfterPayment(4_850_00, 4_900_00, false)).toBe(4_850_00);
    expect(pledgeHoldAfterPayment(4_850_00, 0, false)).toBe(0);
    expect(pledgeHoldAfterPayment(4_850_00, 1_00, true)).toBe(0);
  });

  it("over any run of payments: never rises, never above the principal owed, zero once paid off (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 500_00, max: 100_000_00 }),
        fc.array(
          fc.record({ interest: fc.integer({ min: 0, max: 500_00 }), pay: fc.integer({ min: 1, max: 20_000_00 }) }),
          { maxLength: 40 },
        ),
        (principal, steps) => {
          let owed = { fees_cents: 0, interest_cents: 0, principal_cents: principal };
          let hold = principal;
          for (const step of steps) {
            owed = { ...owed, interest_cents: owed.interest_cents + step.interest };
            const total = owed.fees_cents + owed.interest_cents + owed.principal_cents;
            const applied = applyPayment(Math.min(step.pay, total), owed);
            if (!applied) continue;
            owed = {
              fees_cents: owed.fees_cents - applied.fees_cents,
              interest_cents: owed.interest_cents - applied.interest_cents,
              principal_cents: owed.principal_cents - applied.principal_cents,
            };
            const paid_off = owed.fees_cents + owed.interest_cents + owed.principal_cents === 0;
            const next = pledgeHoldAfterPayment(hold, owed.principal_cents, paid_off);
            expect(next).toBeLessThanOrEqual(hold);
            expect(next).toBeLessThanOrEqual(owed.principal_cents);
            expect(next).toBeGreaterThanOrEqual(0);
            if (paid_off) expect(next).toBe(0);
            hold = next;
            if (paid_off) break;
          }
        },
      ),
    );
  });
});

describe("share-secured loans in the profile and the disclosure", () => {
  it("the demo offers one with the percent that may be borrowed", () => {
    const parsed = InstitutionSchema.parse(demoInstitution);
    expect(parsed.loan_products.find((p) => p.kind === "share_secured")).toMatchObject({ pledge_percent: 90 });
  });

  it("a share-secured product needs pledge_percent, and no other kind may have one", () => {
    const base = demoInstitution.loan_products!.find((p) => p.kind === "share_secured")!;
    const { pledge_percent: _omitted, ...without } = base;
    const result = InstitutionSchema.safeParse({
      ...demoInstitution,
      loan_products: [without, { ...demoInstitution.loan_products![0]!, pledge_percent: 50 }],
    });
    expect(result.success).toBe(false);
    const paths = result.error!.issues.map((i) => i.path.join("."));
    expect(paths).toContain("loan_products.0.pledge_percent");
    expect(paths).toContain("loan_products.1.pledge_percent");
  });

  it("names the pledged account by its last four digits", () => {
    expect(securityInterestText({ name: "Savings", account_number: "4000001234" })).toContain(
      "security interest in your Savings (account ending 1234)",
    );
  });
});
