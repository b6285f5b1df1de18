import { describe, expect, it } from "vitest";
import { businessDayOnOrAfter, isBusinessDay, nextBusinessDay } from "~/domain/payment-dates";

/** Effective dates of payment files: the next business day, Monday to Friday (docs/product.md#payment-queues). */
describe("payment dates", () => {
  it("the next business day skips the weekend", () => {
    expect(nextBusinessDay("2026-11-24")).toBe("2026-11-25"); // Tuesday -> Wednesday
    expect(nextBusinessDay("2026-11-27")).toBe("2026-11-30"); // Friday -> Monday
    expect(nextBusinessDay("2026-11-28")).toBe("2026-11-30"); // Saturday -> Monday
    expect(nextBusinessDay("2026-12-31")).toBe("2027-01-01"); // across the year
    expect(nextBusinessDay("2028-02-28")).toBe("2028-02-29"); // leap day
  });

  it("a business day is itself, a weekend day the Monday after", () => {
    expect(isBusinessDay("2026-11-24")).toBe(true);
    expect(isBusinessDay("2026-11-29")).toBe(false);
    expect(businessDayOnOrAfter("2026-11-24")).toBe("2026-11-24");
    expect(businessDayOnOrAfter("2026-11-29")).toBe("2026-11-30");
  });

  it("refuses what is not a date", () => {
    expect(() => nextBusinessDay("24/11/2026")).toThrow(/YYYY-MM-DD/);
  });
});
