import { describe, expect, it } from "vitest";
import { backupWithholdingFlag, dueFor1099Int, parseTaxYear, taxYearDueOn, taxYearMonths } from "~/domain/tax-forms";

describe("Form 1099-INT rules (docs/product.md#tax-forms)", () => {
  it("is due from $10.00 of dividends in the year, not at $9.99", () => {
    expect(dueFor1099Int(1_000)).toBe(true);
    expect(dueFor1099Int(999)).toBe(false);
    expect(dueFor1099Int(0)).toBe(false);
    expect(() => dueFor1099Int(10.5)).toThrow();
  });
  it("flags backup withholding without a US taxpayer number only", () => {
    expect(backupWithholdingFlag("ssn")).toBe(false);
    expect(backupWithholdingFlag("itin")).toBe(false);
    expect(backupWithholdingFlag("foreign")).toBe(true);
    expect(backupWithholdingFlag(null)).toBe(true);
  });
  it("January's forms are for the year before, its twelve dividend months", () => {
    expect(taxYearDueOn("2027-01-15")).toBe(2026);
    expect(taxYearMonths(2026)).toEqual({ first: "2026-01", last: "2026-12" });
  });
  it("reads a four-digit year from a path, nothing else", () => {
    expect(parseTaxYear("2026")).toBe(2026);
    for (const bad of ["", "26", "20x6", "1999", "12026", null, undefined]) expect(parseTaxYear(bad)).toBeNull();
  });
});
