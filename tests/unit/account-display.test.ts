import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { groupAccountNumber, maskAccountNumber, maskCardNumber } from "~/domain/account-display";

const accountNumber = fc.stringMatching(/^[1-9]\d{9}$/);

describe("member account numbers", () => {
  it("are grouped 3-3-4 and masked to the last four", () => {
    expect(groupAccountNumber("1234567890")).toBe("123 456 7890");
    expect(maskAccountNumber("1234567890")).toBe("•••• 7890");
  });
  it("refuse anything that is not ten digits", () => {
    for (const bad of ["", "123456789", "12345678901", "123 456 7890", "12345678a0"]) {
      expect(() => groupAccountNumber(bad), bad).toThrow(RangeError);
      expect(() => maskAccountNumber(bad), bad).toThrow(RangeError);
    }
  });
  it("grouping only adds spaces, masking shows only the last four", () => {
    fc.assert(
      fc.property(accountNumber, (number) => {
        expect(groupAccountNumber(number).replace(/ /g, "")).toBe(number);
        expect(maskAccountNumber(number)).toBe(`•••• ${number.slice(6)}`);
        expect(maskAccountNumber(number)).not.toContain(number.slice(0, 6));
      }),
    );
  });
});

describe("card numbers", () => {
  it("are masked to the last four, whatever the print form", () => {
    expect(maskCardNumber("4111111111111111")).toBe("•••• 1111");
    expect(maskCardNumber("4111 1111 1111 4242")).toBe("•••• 4242");
    expect(maskCardNumber("5500-0000-0000-0004")).toBe("•••• 0004");
    expect(maskCardNumber("378282246310005")).toBe("•••• 0005");
  });
  it("refuse what is not a card number", () => {
    for (const bad of ["", "4242", "41111111111", "41111111111111111111", "4111x11111111111"])
      expect(() => maskCardNumber(bad), bad).toThrow(RangeError);
  });
  it("never show more than the last four digits", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{12,19}$/), (number) => {
        const masked = maskCardNumber(number);
        expect(masked).toBe(`•••• ${number.slice(-4)}`);
        expect(masked.replace(/\D/g, "")).toHaveLength(4);
      }),
    );
  });
});
