/**
 * Staff's corrections of a booked loan (docs/product.md#booked-loans-staff, issue 33): waiving a
 * late fee, and reversing an interest accrual or a payment that was posted wrongly. Each is a new
 * ledger transaction with the opposite entries (never an edit or a deletion), and changes the
 * loan's own figures in step. Pure: what each correction posts and changes, or why it cannot.
 *
 * The rules, stated once:
 * - **A waived late fee** is taken off what the member owes: the loan's receivable credited, fees
 *   income debited. A fee still unpaid leaves the fees due; a fee already paid (a payment went to
 *   fees first) is credited to the principal instead, so the member's money is not lost.
 * - **A reversed interest accrual** is taken off the interest: the interest receivable credited
 *   with what of it is still unpaid, the rest (already paid) credited to the principal; loan
 *   interest income debited with all of it. The days stay accrued (no new accrual follows).
 * - **A reversed payment** gives the money back to the account it came from and owes again what it
 *   paid, by part: fees, interest and principal, and no longer counts toward the schedule.
 * - Nothing may take a part below zero; a loan paid off is not corrected here.
 */

export type CorrectionTarget =
  | { kind: "late_fee"; fee_cents: number }
  | { kind: "interest"; interest_cents: number }
  | { kind: "payment"; fees_cents: number; interest_cents: number; principal_cents: number };

export interface LoanFigures {
  fees_due_cents: number;
  accrued_interest_cents: number;
  paid_toward_schedule_cents: number;
  /** The principal owed now (the receivable less the fees due). */
  principal_owed_cents: number;
}

export interface CorrectionEffect {
  /** Signed credits (positive) and debits (negative), as the ledger takes them. */
  receivable_cents: number;
  interest_receivable_cents: number;
  fees_income_cents: number;
  interest_income_cents: number;
  /** Back to the account the payment came from. */
  member_cents: number;
  /** Changes of the loan's columns. */
  fees_due_delta: number;
  accrued_interest_delta: number;
  paid_toward_schedule_delta: number;
  /** How much less (negative: more) the member owes after. */
  owed_less_cents: number;
}

const NONE: CorrectionEffect = {
  receivable_cents: 0,
  interest_receivable_cents: 0,
  fees_income_cents: 0,
  interest_income_cents: 0,
  member_cents: 0,
  fees_due_delta: 0,
  accrued_interest_delta: 0,
  paid_toward_schedule_delta: 0,
  owed_less_cents: 0,
};

export const CORRECTION_TOO_LARGE =
  "The loan owes less than this would take off: it was paid since. Refund the member by a balance adjustment instead.";

export function correctionEffect(
  target: CorrectionTarget,
  loan: LoanFigures,
): { ok: true; effect: CorrectionEffect } | { ok: false; message: string } {
  if (target.kind === "late_fee") {
    const fee = target.fee_cents;
    const from_fees = Math.min(fee, loan.fees_due_cents);
    if (fee - from_fees > loan.principal_owed_cents) return { ok: false, message: CORRECTION_TOO_LARGE };
    return {
      ok: true,
      effect: {
        ...NONE,
        receivable_cents: fee,
        fees_income_cents: -fee,
        fees_due_delta: 0 - from_fees,
        owed_less_cents: fee,
      },
    };
  }
  if (target.kind === "interest") {
    const x = target.interest_cents;
    const from_accrued = Math.min(x, loan.accrued_interest_cents);
    const to_principal = x - from_accrued;
    if (to_principal > loan.principal_owed_cents) return { ok: false, message: CORRECTION_TOO_LARGE };
    return {
      ok: true,
      effect: {
        ...NONE,
        interest_receivable_cents: from_accrued,
        receivable_cents: to_principal,
        interest_income_cents: -x,
        accrued_interest_delta: 0 - from_accrued,
        owed_less_cents: x,
      },
    };
  }
  const toward = target.interest_cents + target.principal_cents;
  if (toward > loan.paid_toward_schedule_cents)
    return { ok: false, message: "This payment no longer counts toward the schedule: it cannot be reversed here." };
  const amount = target.fees_cents + toward;
  return {
    ok: true,
    effect: {
      ...NONE,
      member_cents: amount,
      interest_receivable_cents: -target.interest_cents,
      receivable_cents: -(target.fees_cents + target.principal_cents),
      fees_due_delta: target.fees_cents,
      accrued_interest_delta: target.interest_cents,
      paid_toward_schedule_delta: -toward,
      owed_less_cents: -amount,
    },
  };
}

/** The ledger lines of an effect sum to zero (a property the tests check). */
export function effectSum(effect: CorrectionEffect): number {
  return (
    effect.receivable_cents +
    effect.interest_receivable_cents +
    effect.fees_income_cents +
    effect.interest_income_cents +
    effect.member_cents
  );
}
