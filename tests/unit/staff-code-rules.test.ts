import { describe, expect, it } from "vitest";
import { isTrivialCode } from "~/domain/application-review";

describe("isTrivialCode (codes staff type for a member)", () => {
  it.each([
    "000000",
    "111111",
    "999999",
    "012345",
    "123456",
    "456789",
    "789012",
    "890123",
    "901234",
    "987654",
    "654321",
    "543210",
    "210987",
    "109876",
  ])("refuses %s", (code) => {
    expect(isTrivialCode(code)).toBe(true);
  });

  it.each(["424242", "135790", "120394", "000001", "123457", "112233", "987653", "580316"])("accepts %s", (code) => {
    expect(isTrivialCode(code)).toBe(false);
  });

  it("leaves the format to the format rule", () => {
    expect(isTrivialCode("12345")).toBe(false);
    expect(isTrivialCode("aaaaaa")).toBe(false);
  });
});
