import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { centsAsDecimal, formatCents, parseDollarsToCents } from "~/domain/money";

describe("formatCents", () => {
  it("shows US dollars with two decimals and thousands separators", () => {
    expect(formatCents(123456)).toBe("$1,234.56");
    expect(formatCents(0)).toBe("$0.00");
    expect(formatCents(5)).toBe("$0.05");
    expect(formatCents(100_000_000_00)).toBe("$100,000,000.00");
  });
  it("puts a minus sign before negative amounts", () => {
    expect(formatCents(-5)).toBe("-$0.05");
    expect(formatCents(-123456)).toBe("-$1,234.56");
  });
  it("accepts bigint cents beyond 2^53", () => {
    expect(formatCents(900719925474099312n)).toBe("$9,007,199,254,740,993.12");
  });
  it("refuses fractional cents", () => {
    expect(() => formatCents(1.5)).toThrow(RangeError);
  });
});

describe("parseDollarsToCents", () => {
  it("reads what people type", () => {
    expect(parseDollarsToCents("1,234.5")).toBe(123450);
    expect(parseDollarsToCents("$10")).toBe(1000);
    expect(parseDollarsToCents(" 0.01 ")).toBe(1);
  });
  it("refuses fractional cents, negatives and words", () => {
    for (const bad of ["0.001", "-1", "1e3", "abc", "", "1.2.3", "NaN", "Infinity"])
      expect(parseDollarsToCents(bad)).toBeNull();
  });
  it("round-trips every amount through its formatted text", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 14 }), (cents) => {
        expect(parseDollarsToCents(formatCents(cents))).toBe(cents);
      }),
    );
  });
});

describe("centsAsDecimal", () => {
  it("writes cents as a plain decimal: no sign for dollars, no grouping, two decimals", () => {
    expect(centsAsDecimal(123456)).toBe("1234.56");
    expect(centsAsDecimal(0)).toBe("0.00");
    expect(centsAsDecimal(5)).toBe("0.05");
    expect(centsAsDecimal(100)).toBe("1.00");
    expect(centsAsDecimal(100_000_000_00)).toBe("100000000.00");
  });
  it("puts the minus before negative amounts, including those under a dollar", () => {
    expect(centsAsDecimal(-5)).toBe("-0.05");
    expect(centsAsDecimal(-100)).toBe("-1.00");
    expect(centsAsDecimal(-123456)).toBe("-1234.56");
  });
  it("is exact beyond 2^53 (bigint) and refuses fractional cents", () => {
    expect(centsAsDecimal(900719925474099312n)).toBe("9007199254740993.12");
    expect(() => centsAsDecimal(1.5)).toThrow(RangeError);
  });
  it("reads back through parseDollarsToCents, and matches formatCents without its $ and commas", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999_999_999_99 }), (cents) => {
        expect(parseDollarsToCents(centsAsDecimal(cents))).toBe(cents);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), (cents) => {
        expect(centsAsDecimal(cents)).toBe(formatCents(cents).replace("$", "").replace(/,/g, ""));
      }),
    );
  });
});
