import { describe, expect, it } from "vitest";
import fc from "fast-check";
import crypto from "node:crypto";
import {
  formatAccountNumber,
  isValidAccountNumber,
  maskAccountNumber,
  randomAccountNumber,
} from "~/domain/account-number";

describe("account numbers", () => {
  it("are 10 digits with a first digit 1-9", () => {
    expect(isValidAccountNumber("1234567890")).toBe(true);
    expect(isValidAccountNumber("9000000000")).toBe(true);
    for (const bad of [
      "0123456789",
      "123456789",
      "12345678901",
      "12345678a0",
      " 1234567890",
      "1234567890\n",
      "",
      "１２３４５６７８９０",
    ]) {
      expect(isValidAccountNumber(bad)).toBe(false);
    }
  });

  it("generates only valid numbers, whatever the random source says", () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 10, maxLength: 10 }), (draws) => {
        let i = 0;
        const number = randomAccountNumber((max) => draws[i++]! % max);
        expect(isValidAccountNumber(number)).toBe(true);
      }),
    );
    expect(randomAccountNumber(() => 0)).toBe("1000000000");
    expect(randomAccountNumber((max) => max - 1)).toBe("9999999999");
    expect(() => randomAccountNumber(() => 10)).toThrow(/out-of-range/);
  });

  it("spreads over the whole range (no clustering that would make clashes likely)", () => {
    const firsts = new Set<string>();
    for (let i = 0; i < 500; i++) firsts.add(randomAccountNumber((max) => crypto.randomInt(max))[0]!);
    expect(firsts.size).toBe(9);
  });

  it("formats 3-3-4 and masks all but the last four", () => {
    expect(formatAccountNumber("1234567890")).toBe("123 456 7890");
    expect(maskAccountNumber("1234567890")).toBe("••••7890");
    expect(() => formatAccountNumber("0123456789")).toThrow();
    expect(() => maskAccountNumber("12")).toThrow();
  });
});
