import { describe, expect, it } from "vitest";
import {
  addMonths,
  isStatementMonth,
  isStatementMonthAllowed,
  monthBounds,
  monthLabel,
  statementFigures,
  statementMonths,
} from "~/domain/statements";

describe("statement months", () => {
  it("are the last 13 months that have ended, newest first, none before the history began", () => {
    expect(statementMonths("2020-01-15", "2026-11-24")).toEqual([
      "2026-10",
      "2026-09",
      "2026-08",
      "2026-07",
      "2026-06",
      "2026-05",
      "2026-04",
      "2026-03",
      "2026-02",
      "2026-01",
      "2025-12",
      "2025-11",
      "2025-10",
    ]);
    expect(statementMonths("2026-09-30", "2026-11-01")).toEqual(["2026-10", "2026-09"]);
    // Opened this month: nothing has ended yet.
    expect(statementMonths("2026-11-01", "2026-11-24")).toEqual([]);
    expect(statementMonths("2026-01-31", "2026-02-01")).toEqual(["2026-01"]);
  });

  it("refuse a month before the history, the month in progress, a later one and anything not YYYY-MM", () => {
    for (const month of ["2026-08", "2026-11", "2026-12", "2025-10", "2026-13", "2026-1", "26-10", "2026-10-01", ""]) {
      expect(isStatementMonthAllowed(month, "2026-09-15", "2026-11-24")).toBe(false);
    }
    expect(isStatementMonthAllowed("2026-09", "2026-09-15", "2026-11-24")).toBe(true);
    expect(isStatementMonth("2026-00")).toBe(false);
  });

  it("have their first and last day, leap years included, and a name", () => {
    expect(monthBounds("2024-02")).toEqual({ start: "2024-02-01", end: "2024-02-29" });
    expect(monthBounds("2100-02")).toEqual({ start: "2100-02-01", end: "2100-02-28" });
    expect(monthBounds("2000-02").end).toBe("2000-02-29");
    expect(monthBounds("2026-12").end).toBe("2026-12-31");
    expect(addMonths("2026-01", -1)).toBe("2025-12");
    expect(addMonths("2025-12", 1)).toBe("2026-01");
    expect(monthLabel("2026-10")).toBe("October 2026");
  });
});

describe("statement figures", () => {
  it("run the balance through posted lines, total in and out, and keep pending apart", () => {
    const f = statementFigures(1_000, [
      { transaction_id: 1, effective_date: "2026-10-01", description: "Pay", amount_cents: 5_000, status: "posted" },
      { transaction_id: 2, effective_date: "2026-10-02", description: "Hold", amount_cents: -700, status: "pending" },
      {
        transaction_id: 3,
        effective_date: "2026-10-03",
        description: "Shop",
        amount_cents: -2_000,
        status: "reversed",
      },
      { transaction_id: 4, effective_date: "2026-10-04", description: "Refund", amount_cents: 2_000, status: "posted" },
    ]);
    expect(f.posted.map((l) => l.balance_cents)).toEqual([6_000, 4_000, 6_000]);
    expect(f).toMatchObject({ opening_cents: 1_000, credits_cents: 7_000, debits_cents: 2_000, closing_cents: 6_000 });
    expect(f.pending.map((l) => l.transaction_id)).toEqual([2]);
    expect(statementFigures(-50, [])).toMatchObject({
      opening_cents: -50,
      closing_cents: -50,
      posted: [],
      pending: [],
    });
  });
});
