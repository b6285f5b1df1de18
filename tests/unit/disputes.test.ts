import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  addBusinessDays,
  addCalendarDays,
  businessDaysBetween,
  isBusinessDay,
  nextBusinessDay,
} from "~/domain/payment-dates";
import {
  caseNumber,
  clockState,
  currentDeadline,
  disputeClocks,
  DisputeReportSchema,
  isNewAccountTransfer,
  provisionalCreditNoticeBy,
  resultsNoticeBy,
  reversalDebitOn,
} from "~/domain/disputes";

/**
 * Regulation E error resolution clocks (12 CFR 1005.11(c), (d); docs/product.md#disputes). The
 * 10 and 20 are business days, the 45 and 90 calendar days, each counted from the day after the
 * notice was received. The expected dates are worked by hand on the 2026-2027 calendar with the
 * Federal Reserve's holidays. Comment 11(c) of the official interpretation states the rules
 * without dated examples; comment 11(d)(2)-1's procedure (debit 5 business days after the notice,
 * on the calendar date it names) is tested as `reversalDebitOn`.
 */
describe("addBusinessDays and addCalendarDays", () => {
  it("counts business days after the date, skipping weekends and holidays", () => {
    expect(addBusinessDays("2026-12-02", 0)).toBe("2026-12-02");
    expect(addBusinessDays("2026-12-04", 1)).toBe("2026-12-07"); // Friday -> Monday
    expect(addBusinessDays("2026-12-05", 1)).toBe("2026-12-07"); // Saturday -> Monday
    expect(addBusinessDays("2026-11-25", 1)).toBe("2026-11-27"); // over Thanksgiving
    expect(addBusinessDays("2026-11-10", 1)).toBe("2026-11-12"); // over Veterans Day
    expect(() => addBusinessDays("2026-12-02", -1)).toThrow();
  });

  it("counts calendar days across months and years", () => {
    expect(addCalendarDays("2026-12-02", 45)).toBe("2027-01-16");
    expect(addCalendarDays("2026-12-24", 90)).toBe("2027-03-24");
    expect(addCalendarDays("2028-02-28", 1)).toBe("2028-02-29");
    expect(addCalendarDays("2026-03-01", -1)).toBe("2026-02-28");
  });

  it("properties: the result is a business day, later than the start, and n steps of one day make n", () => {
    const day = fc
      .integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2035, 11, 31) })
      .map((ms) => new Date(ms).toISOString().slice(0, 10));
    fc.assert(
      fc.property(day, fc.integer({ min: 1, max: 40 }), (start, n) => {
        const end = addBusinessDays(start, n);
        expect(isBusinessDay(end)).toBe(true);
        expect(end > start).toBe(true);
        expect(businessDaysBetween(start, end)).toBe(n);
        let stepped = start;
        for (let i = 0; i < n; i++) stepped = nextBusinessDay(stepped);
        expect(stepped).toBe(end);
        // Monotone, and adding in two parts is adding once.
        expect(addBusinessDays(addBusinessDays(start, 1), n - 1) >= addBusinessDays(start, n - 1)).toBe(true);
        expect(addBusinessDays(addBusinessDays(start, n), 3)).toBe(addBusinessDays(start, n + 3));
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(day, fc.integer({ min: -400, max: 400 }), (start, n) => {
        expect(addCalendarDays(addCalendarDays(start, n), -n)).toBe(start);
        expect(Math.round((Date.parse(addCalendarDays(start, n)) - Date.parse(start)) / 86_400_000)).toBe(n);
      }),
      { numRuns: 300 },
    );
  });
});

describe("the case's clocks (1005.11(c))", () => {
  it("an ordinary case: 10 business days to investigate or provisionally credit, 45 calendar days to finish", () => {
    const clocks = disputeClocks({
      received_on: "2026-12-02",
      new_account: false,
      point_of_sale: false,
      foreign: false,
    });
    expect(clocks).toMatchObject({
      acknowledged_on: "2026-12-02",
      investigate_by: "2026-12-16",
      investigation_business_days: 10,
      complete_by: "2027-01-16",
      completion_calendar_days: 45,
      extended: [],
    });
  });

  it("a notice received the day before Thanksgiving: the holiday is not a business day", () => {
    const clocks = disputeClocks({
      received_on: "2026-11-25",
      new_account: false,
      point_of_sale: false,
      foreign: false,
    });
    expect(clocks.investigate_by).toBe("2026-12-10");
    expect(clocks.complete_by).toBe("2027-01-09");
  });

  it("a new account: 20 business days and 90 days (Christmas, New Year's Day and Martin Luther King Jr. Day skipped)", () => {
    const clocks = disputeClocks({
      received_on: "2026-12-24",
      new_account: true,
      point_of_sale: false,
      foreign: false,
    });
    expect(clocks.investigate_by).toBe("2027-01-26");
    expect(clocks.investigation_business_days).toBe(20);
    expect(clocks.complete_by).toBe("2027-03-24");
    expect(clocks.extended).toEqual(["new_account"]);
  });

  it("a point-of-sale debit card purchase or a foreign-initiated transfer: 10 business days, but 90 days", () => {
    for (const facts of [
      { point_of_sale: true, foreign: false },
      { point_of_sale: false, foreign: true },
    ]) {
      const clocks = disputeClocks({ received_on: "2026-12-24", new_account: false, ...facts });
      expect(clocks.investigate_by).toBe("2027-01-11");
      expect(clocks.complete_by).toBe("2027-03-24");
    }
  });

  it("a notice received on a Saturday counts from the next business day", () => {
    const clocks = disputeClocks({
      received_on: "2026-12-05",
      new_account: false,
      point_of_sale: false,
      foreign: false,
    });
    expect(clocks.investigate_by).toBe(addBusinessDays("2026-12-07", 9));
  });

  it("a new account is a transfer within 30 days after the account was opened", () => {
    expect(isNewAccountTransfer("2026-11-01", "2026-12-01")).toBe(true);
    expect(isNewAccountTransfer("2026-11-01", "2026-12-02")).toBe(false);
    expect(isNewAccountTransfer("2026-11-01", "2026-11-01")).toBe(true);
  });

  it("properties: the investigation is at least 10 business days (12 calendar days from a Sunday) and always ends before the completion", () => {
    const day = fc
      .integer({ min: Date.UTC(2022, 0, 1), max: Date.UTC(2032, 11, 31) })
      .map((ms) => new Date(ms).toISOString().slice(0, 10));
    fc.assert(
      fc.property(day, fc.boolean(), fc.boolean(), fc.boolean(), (received_on, new_account, point_of_sale, foreign) => {
        const c = disputeClocks({ received_on, new_account, point_of_sale, foreign });
        expect(businessDaysBetween(received_on, c.investigate_by)).toBe(new_account ? 20 : 10);
        expect(isBusinessDay(c.investigate_by)).toBe(true);
        expect(c.investigate_by >= addCalendarDays(received_on, new_account ? 26 : 12)).toBe(true);
        expect(c.investigate_by < c.complete_by).toBe(true);
        expect(c.completion_calendar_days).toBe(new_account || point_of_sale || foreign ? 90 : 45);
      }),
      { numRuns: 300 },
    );
  });
});

describe("the notices", () => {
  it("the provisional credit is told within 2 business days (a credit on Friday July 3, 2026: by Tuesday)", () => {
    expect(provisionalCreditNoticeBy("2026-07-03")).toBe("2026-07-07");
  });

  it("no error found: the provisional credit is debited 5 business days after the notice (comment 11(d)(2)-1)", () => {
    // Friday November 6, 2026: Veterans Day (Wednesday the 11th) is skipped.
    expect(reversalDebitOn("2026-11-06")).toBe("2026-11-16");
    expect(reversalDebitOn("2026-12-02")).toBe("2026-12-09");
  });

  it("the results within 3 business days of the end of the investigation", () => {
    expect(resultsNoticeBy("2026-12-31")).toBe("2027-01-06");
  });
});

describe("how a deadline stands", () => {
  it("overdue, due today, due the next business day, on track", () => {
    expect(clockState("2026-12-01", "2026-12-02")).toBe("overdue");
    expect(clockState("2026-12-02", "2026-12-02")).toBe("due_today");
    expect(clockState("2026-12-03", "2026-12-02")).toBe("due_soon");
    // From a Friday, the Monday after is the next business day.
    expect(clockState("2026-12-07", "2026-12-04")).toBe("due_soon");
    expect(clockState("2026-12-08", "2026-12-04")).toBe("on_track");
  });

  it("names the deadline and its rule for each status", () => {
    const base = {
      new_account: false,
      extended: false,
      investigate_by: "2026-12-16",
      complete_by: "2027-01-16",
      reversal_on: null,
    };
    expect(currentDeadline({ ...base, status: "open" })).toMatchObject({
      due_on: "2026-12-16",
      rule: "12 CFR 1005.11(c)(1): 10 business days",
    });
    expect(currentDeadline({ ...base, status: "open", new_account: true })?.rule).toContain("(c)(3)(i)");
    expect(currentDeadline({ ...base, status: "provisionally_credited" })).toMatchObject({
      due_on: "2027-01-16",
      rule: "12 CFR 1005.11(c)(2): 45 days",
    });
    expect(currentDeadline({ ...base, status: "provisionally_credited", extended: true })?.rule).toContain("90 days");
    expect(currentDeadline({ ...base, status: "reversal_scheduled", reversal_on: "2026-12-09" })?.due_on).toBe(
      "2026-12-09",
    );
    expect(currentDeadline({ ...base, status: "resolved_error" })).toBeNull();
    expect(currentDeadline({ ...base, status: "resolved_no_error" })).toBeNull();
  });
});

describe("the member's report", () => {
  it("accepts a kind and details; refuses the rest with messages", () => {
    expect(
      DisputeReportSchema.safeParse({ transaction_id: "12", kind: "duplicate", details: "Charged twice on the 3rd." })
        .success,
    ).toBe(true);
    const bad = DisputeReportSchema.safeParse({ transaction_id: "x", kind: "mine", details: "no" });
    expect(bad.success).toBe(false);
    const fields = new Set(bad.error!.issues.map((i) => i.path[0]));
    expect(fields).toEqual(new Set(["transaction_id", "kind", "details"]));
    expect(
      DisputeReportSchema.safeParse({ transaction_id: 1, kind: "other", details: "bad \u0000 char here" }).success,
    ).toBe(false);
  });

  it("case numbers", () => {
    expect(caseNumber(42)).toBe("D-000042");
  });
});
