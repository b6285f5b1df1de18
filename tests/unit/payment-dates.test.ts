import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  businessDayOnOrAfter,
  businessDaysBefore,
  federalReserveHoliday,
  federalReserveHolidays,
  isBusinessDay,
  nextBusinessDay,
} from "~/domain/payment-dates";

/**
 * Business days for payment files, bill payments and deposit holds: Monday to Friday less the
 * Federal Reserve's holidays, observed as the Reserve Banks observe them (docs/product.md#payment-queues).
 * The expected dates are the Federal Reserve's published holiday schedules.
 */
describe("Federal Reserve holidays", () => {
  it("2026: ten days closed; Independence Day on a Saturday is not moved to the Friday", () => {
    expect(federalReserveHolidays(2026).map((h) => h.date)).toEqual([
      "2026-01-01",
      "2026-01-19",
      "2026-02-16",
      "2026-05-25",
      "2026-06-19",
      "2026-09-07",
      "2026-10-12",
      "2026-11-11",
      "2026-11-26",
      "2026-12-25",
    ]);
    expect(isBusinessDay("2026-07-03")).toBe(true);
  });

  it("a holiday on a Sunday is observed the Monday after", () => {
    expect(federalReserveHoliday("2022-06-20")?.name).toBe("Juneteenth National Independence Day");
    expect(federalReserveHoliday("2023-01-02")?.name).toBe("New Year's Day");
    expect(federalReserveHoliday("2027-07-05")?.name).toBe("Independence Day");
    expect(federalReserveHoliday("2022-12-26")?.name).toBe("Christmas Day");
    expect(federalReserveHoliday("2022-06-19")).toBeNull();
  });

  it("2027: nine days closed (Juneteenth and Christmas fall on Saturdays)", () => {
    expect(federalReserveHolidays(2027).map((h) => h.date)).toEqual([
      "2027-01-01",
      "2027-01-18",
      "2027-02-15",
      "2027-05-31",
      "2027-07-05",
      "2027-09-06",
      "2027-10-11",
      "2027-11-11",
      "2027-11-25",
    ]);
    expect(isBusinessDay("2027-12-24")).toBe(true);
    expect(isBusinessDay("2027-06-18")).toBe(true);
  });

  it("Juneteenth only from 2022; Veterans Day on a Saturday leaves the Friday open", () => {
    expect(federalReserveHoliday("2021-06-18")).toBeNull();
    expect(federalReserveHolidays(2021).some((h) => h.name.startsWith("Juneteenth"))).toBe(false);
    expect(isBusinessDay("2023-11-10")).toBe(true);
    expect(federalReserveHoliday("2023-11-23")?.name).toBe("Thanksgiving Day");
  });
});

describe("payment dates", () => {
  it("the next business day skips the weekend and the Federal Reserve's holidays", () => {
    expect(nextBusinessDay("2026-11-24")).toBe("2026-11-25"); // Tuesday -> Wednesday
    expect(nextBusinessDay("2026-11-25")).toBe("2026-11-27"); // Wednesday -> Friday (Thanksgiving)
    expect(nextBusinessDay("2026-11-27")).toBe("2026-11-30"); // Friday -> Monday
    expect(nextBusinessDay("2026-11-28")).toBe("2026-11-30"); // Saturday -> Monday
    expect(nextBusinessDay("2026-12-31")).toBe("2027-01-04"); // across the year and New Year's Day
    expect(nextBusinessDay("2027-01-15")).toBe("2027-01-19"); // Friday -> Tuesday (Martin Luther King Jr. Day)
    expect(nextBusinessDay("2028-02-28")).toBe("2028-02-29"); // leap day
  });

  it("a business day is itself, a weekend day or holiday the next business day", () => {
    expect(isBusinessDay("2026-11-24")).toBe(true);
    expect(isBusinessDay("2026-11-29")).toBe(false);
    expect(isBusinessDay("2026-12-25")).toBe(false);
    expect(businessDayOnOrAfter("2026-11-24")).toBe("2026-11-24");
    expect(businessDayOnOrAfter("2026-11-29")).toBe("2026-11-30");
    expect(businessDayOnOrAfter("2026-09-05")).toBe("2026-09-08"); // Saturday before Labor Day
    expect(businessDayOnOrAfter("2027-01-01")).toBe("2027-01-04");
  });

  it("refuses what is not a date", () => {
    expect(() => nextBusinessDay("24/11/2026")).toThrow(/YYYY-MM-DD/);
  });
});

const DAY_MS = 86_400_000;
const days = fc
  .integer({ min: Date.UTC(1990, 0, 1) / DAY_MS, max: Date.UTC(2200, 11, 31) / DAY_MS })
  .map((n) => new Date(n * DAY_MS).toISOString().slice(0, 10));
const plus = (date: string, n: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

describe("payment dates, properties", () => {
  it("the next business day is a business day after the date, with none skipped, at most four days on", () => {
    fc.assert(
      fc.property(days, (date) => {
        const next = nextBusinessDay(date);
        expect(next > date).toBe(true);
        expect(isBusinessDay(next)).toBe(true);
        const gap = (Date.parse(next) - Date.parse(date)) / DAY_MS;
        // Friday before a Monday holiday: Tuesday, four days on.
        expect(gap).toBeLessThanOrEqual(4);
        for (let i = 1; i < gap; i++) expect(isBusinessDay(plus(date, i))).toBe(false);
      }),
    );
  });

  it("business day on or after is the date itself exactly when it is a business day, and is idempotent", () => {
    fc.assert(
      fc.property(days, (date) => {
        const on = businessDayOnOrAfter(date);
        expect(on === date).toBe(isBusinessDay(date));
        expect(businessDayOnOrAfter(on)).toBe(on);
        expect(on <= nextBusinessDay(date)).toBe(true);
      }),
    );
  });

  it("every year: each closing is a weekday of that year, at most one a day, nine to eleven of them", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1990, max: 2200 }), (year) => {
        const holidays = federalReserveHolidays(year);
        expect(holidays.length).toBeGreaterThanOrEqual(year >= 2022 ? 9 : 8);
        expect(holidays.length).toBeLessThanOrEqual(year >= 2022 ? 11 : 10);
        expect(new Set(holidays.map((h) => h.date)).size).toBe(holidays.length);
        for (const h of holidays) {
          expect(h.date.startsWith(`${year}-`)).toBe(true);
          const weekday = new Date(`${h.date}T00:00:00Z`).getUTCDay();
          expect(weekday >= 1 && weekday <= 5).toBe(true);
          expect(isBusinessDay(h.date)).toBe(false);
        }
      }),
    );
  });
});

describe("businessDaysBefore (the duplicate window of ACH in)", () => {
  it("counts back business days, skipping weekends and Federal Reserve holidays", () => {
    expect(businessDaysBefore("2026-11-30", 5)).toBe("2026-11-20"); // Monday; Thanksgiving (26th) skipped
    expect(businessDaysBefore("2026-11-25", 1)).toBe("2026-11-24");
    expect(businessDaysBefore("2026-11-23", 1)).toBe("2026-11-20"); // Monday to Friday
  });
});
