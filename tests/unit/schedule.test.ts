import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  addDays,
  describeSeries,
  parseSeriesRule,
  seriesHasPayment,
  seriesPaymentDate,
  seriesRemaining,
  type SeriesRule,
} from "~/domain/schedule";
import { SCHEDULE_MESSAGES, whenSchema } from "~/domain/scheduled-transfers";
import { isBusinessDay } from "~/domain/payment-dates";

/**
 * The one schedule module (app/domain/schedule.ts), shared by Bill Pay's series and scheduled
 * transfers, and the transfer forms' When fields (app/domain/scheduled-transfers.ts).
 */
const M = SCHEDULE_MESSAGES;
// Wednesday, December 2, 2026: tomorrow (the 3rd) is a business day, the 5th a Saturday.
const TODAY = "2026-12-02";

describe("series rules", () => {
  it("every date is a business day after the one before, and a count ends the series exactly", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2000 }),
        fc.option(fc.integer({ min: 1, max: 52 }), { nil: null }),
        fc.integer({ min: 1, max: 40 }),
        (offset, weeks, count) => {
          const first_date = addDays("2025-01-06", offset);
          const rule: SeriesRule = {
            frequency: weeks === null ? "monthly" : "weeks",
            interval_weeks: weeks,
            first_date,
            end_date: null,
            payment_count: count,
          };
          const dates = Array.from({ length: count }, (_, i) => seriesPaymentDate(rule, i + 1));
          for (const [i, date] of dates.entries()) {
            expect(isBusinessDay(date)).toBe(true);
            if (i > 0) expect(date > dates[i - 1]!).toBe(true);
          }
          expect(seriesRemaining(rule, 1)).toBe(count);
          expect(seriesRemaining(rule, count)).toBe(1);
          expect(seriesRemaining(rule, count + 1)).toBe(0);
          expect(seriesHasPayment(rule, count + 1)).toBe(false);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("an end date keeps the dates on or before it", () => {
    const rule: SeriesRule = {
      frequency: "weeks",
      interval_weeks: 2,
      first_date: "2027-01-04",
      end_date: "2027-02-15",
      payment_count: null,
    };
    expect([1, 2, 3, 4].map((n) => seriesPaymentDate(rule, n))).toEqual([
      "2027-01-04",
      "2027-01-19", // Monday the 18th is Martin Luther King Jr. Day
      "2027-02-01",
      "2027-02-16", // Monday the 15th is Washington's Birthday: moved past the end date
    ]);
    expect(seriesRemaining(rule, 1)).toBe(3);
    expect(describeSeries(rule, (d) => d, { one: "transfer", many: "transfers" })).toBe(
      "Every 2 weeks until 2027-02-15",
    );
    expect(
      describeSeries({ ...rule, frequency: "monthly", payment_count: 1 }, (d) => d, {
        one: "transfer",
        many: "transfers",
      }),
    ).toBe("Monthly, 1 transfer");
  });

  it("parses the recurrence fields with the caller's words", () => {
    expect(parseSeriesRule({ frequency: "monthly", first_date: "2027-01-04" }, M).errors).toEqual({ ends: M.ends });
    expect(
      parseSeriesRule(
        { frequency: "weeks", every_weeks: "0", ends: "count", payment_count: "121", first_date: "2027-01-04" },
        M,
      ).errors,
    ).toEqual({ every_weeks: M.every_weeks, payment_count: M.payment_count });
    expect(
      parseSeriesRule({ frequency: "monthly", ends: "date", end_date: "2027-01-01", first_date: "2027-01-04" }, M)
        .errors,
    ).toEqual({ end_date: M.end_date });
    expect(
      parseSeriesRule({ frequency: "monthly", ends: "date", end_date: "2040-01-01", first_date: "2027-01-04" }, M)
        .errors,
    ).toEqual({ end_date: M.end_date_late });
    expect(
      parseSeriesRule(
        { frequency: "weeks", every_weeks: "2", ends: "count", payment_count: "6", first_date: "2027-01-04" },
        M,
      ).rule,
    ).toEqual({ frequency: "weeks", interval_weeks: 2, first_date: "2027-01-04", end_date: null, payment_count: 6 });
  });
});

describe("the When fields", () => {
  const schema = whenSchema(TODAY);
  const issues = (input: Record<string, string>) => {
    const r = schema.safeParse(input);
    return r.success ? {} : Object.fromEntries(r.error.issues.map((i) => [i.path.join("."), i.message]));
  };

  it("now (or no choice) sends now", () => {
    expect(schema.parse({})).toBeNull();
    expect(schema.parse({ when: "now", transfer_date: "garbage" })).toBeNull();
  });

  it("a date: a business day from tomorrow to a year ahead", () => {
    expect(schema.parse({ when: "date", transfer_date: "2026-12-03" })).toEqual({
      first_date: "2026-12-03",
      rule: null,
      on_failure: "continue",
    });
    expect(issues({ when: "date", transfer_date: TODAY })).toEqual({ transfer_date: M.transfer_date_early });
    expect(issues({ when: "date", transfer_date: "2026-12-05" })).toEqual({
      transfer_date: M.transfer_date_business_day,
    });
    expect(issues({ when: "date", transfer_date: "2028-01-03" })).toEqual({ transfer_date: M.transfer_date_late });
    expect(issues({ when: "date", transfer_date: "2026-02-30" })).toEqual({ transfer_date: M.transfer_date });
    expect(issues({ when: "later" })).toEqual({ when: M.when });
  });

  it("repeat: how often, an end, and what a failure does", () => {
    const ok = schema.parse({
      when: "repeat",
      transfer_date: "2026-12-03",
      frequency: "weeks",
      every_weeks: "1",
      ends: "count",
      payment_count: "4",
      on_failure: "stop",
    });
    expect(ok).toMatchObject({
      first_date: "2026-12-03",
      on_failure: "stop",
      rule: { interval_weeks: 1, payment_count: 4 },
    });
    expect(issues({ when: "repeat", transfer_date: "2026-12-03", on_failure: "continue" })).toEqual({
      frequency: M.frequency,
    });
    expect(
      issues({ when: "repeat", transfer_date: "2026-12-03", frequency: "monthly", ends: "count", payment_count: "2" }),
    ).toEqual({ on_failure: M.on_failure });
  });
});
