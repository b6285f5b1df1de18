import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { BOOKS_MESSAGES, booksDate, trialBalance } from "~/domain/books";

/** The trial balance's rules (docs/product.md#books). */
describe("trialBalance", () => {
  it("puts a debit balance (below zero) in the debit column and a credit balance in the credit column", () => {
    const tb = trialBalance("2026-11-30", [
      { code: "cash", name: "Cash", balance_cents: -1_500_00 },
      { code: "members_checking", name: "Members' checking", balance_cents: 1_450_00 },
      { code: "fees_income", name: "Fees income", balance_cents: 50_00 },
      { code: "wire_settlement", name: "Wire settlement", balance_cents: 0 },
    ]);
    expect(tb.lines.map((l) => [l.code, l.debit_cents, l.credit_cents])).toEqual([
      ["cash", 1_500_00, 0],
      ["members_checking", 0, 1_450_00],
      ["fees_income", 0, 50_00],
      ["wire_settlement", 0, 0],
    ]);
    expect(tb).toMatchObject({ total_debit_cents: 1_500_00, total_credit_cents: 1_500_00, balanced: true });
  });

  it("is balanced exactly when the balances sum to zero", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1e12, max: 1e12 }), { maxLength: 20 }), (amounts) => {
        const tb = trialBalance(
          "2026-11-30",
          amounts.map((balance_cents, i) => ({ code: `a${i}`, name: `A${i}`, balance_cents })),
        );
        const sum = amounts.reduce((a, b) => a + b, 0);
        expect(tb.balanced).toBe(sum === 0);
        expect(tb.total_credit_cents - tb.total_debit_cents).toBe(sum);
      }),
    );
  });

  it("says so when out of balance", () => {
    const tb = trialBalance("2026-11-30", [{ code: "cash", name: "Cash", balance_cents: -1 }]);
    expect(tb.balanced).toBe(false);
  });
});

describe("booksDate", () => {
  const today = "2026-11-30";
  it("is today when none is given", () => {
    expect(booksDate(null, today)).toEqual({ ok: true, date: today });
    expect(booksDate("  ", today)).toEqual({ ok: true, date: today });
  });
  it("takes a real day up to today", () => {
    expect(booksDate("2026-11-29", today)).toEqual({ ok: true, date: "2026-11-29" });
    expect(booksDate(" 2026-11-30 ", today)).toEqual({ ok: true, date: today });
  });
  it("refuses what is not a day, and days still to come", () => {
    for (const bad of ["2026-02-30", "30/11/2026", "yesterday", "2026-13-01"])
      expect(booksDate(bad, today), bad).toEqual({ ok: false, message: BOOKS_MESSAGES.bad_date });
    expect(booksDate("2026-12-01", today)).toEqual({ ok: false, message: BOOKS_MESSAGES.future_date });
  });
});
