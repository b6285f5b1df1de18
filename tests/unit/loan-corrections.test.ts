import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { CORRECTION_TOO_LARGE, correctionEffect, effectSum, type CorrectionTarget } from "~/domain/loans/corrections";

const loan = {
  fees_due_cents: 25_00,
  accrued_interest_cents: 40_00,
  paid_toward_schedule_cents: 300_00,
  principal_owed_cents: 4_000_00,
};

describe("a booked loan's corrections (docs/product.md#booked-loans-staff)", () => {
  it("a waived unpaid fee: off the fees due, the receivable credited, fees income debited", () => {
    expect(correctionEffect({ kind: "late_fee", fee_cents: 25_00 }, loan)).toEqual({
      ok: true,
      effect: expect.objectContaining({
        receivable_cents: 25_00,
        fees_income_cents: -25_00,
        fees_due_delta: -25_00,
        owed_less_cents: 25_00,
      }),
    });
  });

  it("a waived fee already paid is credited to the principal", () => {
    const answer = correctionEffect({ kind: "late_fee", fee_cents: 25_00 }, { ...loan, fees_due_cents: 0 });
    expect(answer).toMatchObject({ ok: true, effect: { receivable_cents: 25_00, fees_due_delta: 0 } });
  });

  it("a reversed accrual: the unpaid part off the interest receivable, the paid part to principal", () => {
    expect(correctionEffect({ kind: "interest", interest_cents: 50_00 }, loan)).toMatchObject({
      ok: true,
      effect: {
        interest_receivable_cents: 40_00,
        receivable_cents: 10_00,
        interest_income_cents: -50_00,
        accrued_interest_delta: -40_00,
      },
    });
  });

  it("a reversed payment: the money back, each part owed again, no longer toward the schedule", () => {
    expect(
      correctionEffect({ kind: "payment", fees_cents: 5_00, interest_cents: 20_00, principal_cents: 100_00 }, loan),
    ).toMatchObject({
      ok: true,
      effect: {
        member_cents: 125_00,
        interest_receivable_cents: -20_00,
        receivable_cents: -105_00,
        fees_due_delta: 5_00,
        accrued_interest_delta: 20_00,
        paid_toward_schedule_delta: -120_00,
        owed_less_cents: -125_00,
      },
    });
  });

  it("refuses what would take a part below zero", () => {
    expect(
      correctionEffect(
        { kind: "late_fee", fee_cents: 25_00 },
        { ...loan, fees_due_cents: 0, principal_owed_cents: 10_00 },
      ),
    ).toEqual({
      ok: false,
      message: CORRECTION_TOO_LARGE,
    });
    expect(
      correctionEffect({ kind: "payment", fees_cents: 0, interest_cents: 0, principal_cents: 400_00 }, loan),
    ).toMatchObject({ ok: false });
  });

  it("every correction's entries sum to zero, and no loan figure goes below zero (property)", () => {
    const target = fc.oneof(
      fc.record({ kind: fc.constant("late_fee" as const), fee_cents: fc.integer({ min: 1, max: 100_00 }) }),
      fc.record({ kind: fc.constant("interest" as const), interest_cents: fc.integer({ min: 1, max: 500_00 }) }),
      fc.record({
        kind: fc.constant("payment" as const),
        fees_cents: fc.integer({ min: 0, max: 100_00 }),
        interest_cents: fc.integer({ min: 0, max: 500_00 }),
        principal_cents: fc.integer({ min: 1, max: 5_000_00 }),
      }),
    ) as fc.Arbitrary<CorrectionTarget>;
    const figures = fc.record({
      fees_due_cents: fc.integer({ min: 0, max: 200_00 }),
      accrued_interest_cents: fc.integer({ min: 0, max: 1_000_00 }),
      paid_toward_schedule_cents: fc.integer({ min: 0, max: 20_000_00 }),
      principal_owed_cents: fc.integer({ min: 0, max: 50_000_00 }),
    });
    fc.assert(
      fc.property(target, figures, (t, f) => {
        const answer = correctionEffect(t, f);
        if (!answer.ok) return;
        const e = answer.effect;
        expect(effectSum(e)).toBe(0);
        expect(f.fees_due_cents + e.fees_due_delta).toBeGreaterThanOrEqual(0);
        expect(f.accrued_interest_cents + e.accrued_interest_delta).toBeGreaterThanOrEqual(0);
        expect(f.paid_toward_schedule_cents + e.paid_toward_schedule_delta).toBeGreaterThanOrEqual(0);
        // The principal (receivable less fees due) never goes below zero.
        const principal_after = f.principal_owed_cents - e.receivable_cents - e.fees_due_delta;
        expect(principal_after).toBeGreaterThanOrEqual(0);
        // What is owed changes by exactly the stated amount.
        const owed_change = -e.receivable_cents - e.interest_receivable_cents;
        expect(owed_change).toBe(-e.owed_less_cents);
      }),
    );
  });
});
