import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { isValidRoutingNumber, routingCheckDigit } from "~/domain/routing-number";

describe("ABA routing numbers", () => {
  it("accepts real routing numbers", () => {
    for (const n of ["021000021", "026009593", "121000248", "011000015"]) expect(isValidRoutingNumber(n)).toBe(true);
  });
  it("refuses wrong length, letters and bad checksums", () => {
    for (const n of ["02100002", "0210000211", "02100002a", "021000022", "", " 21000021"])
      expect(isValidRoutingNumber(n)).toBe(false);
  });
  it("catches every single-digit typo", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^\d{8}$/),
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: 1, max: 9 }),
        (first8, pos, delta) => {
          const valid = first8 + routingCheckDigit(first8);
          expect(isValidRoutingNumber(valid)).toBe(true);
          const digits = valid.split("");
          digits[pos] = String((Number(digits[pos]) + delta) % 10);
          expect(isValidRoutingNumber(digits.join(""))).toBe(false);
        },
      ),
    );
  });
});
