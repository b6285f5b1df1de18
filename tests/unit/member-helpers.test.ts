import { maskExternal, parseReferenceNumber, referenceNumber } from "~/domain/account-display";
import { describe, expect, it } from "vitest";
import { monthStart } from "~/server/accounts/overview.server";
import { spendingWindow } from "~/domain/member-transactions";
import { parseHistoryFilters } from "~/server/accounts/history.server";
import { relativeTime } from "~/components/member/top-bar";
import { institutionDates } from "~/components/institution-dates";
import type { AccountView } from "~/server/ledger/accounts.server";

describe("member app helpers", () => {
  it("reference numbers round-trip", () => {
    expect(referenceNumber(123)).toBe("MU00000123");
    expect(parseReferenceNumber("mu00000123")).toBe(123);
    expect(parseReferenceNumber("XX1")).toBeNull();
  });

  it("date ranges: calendar month start and the last 30 days (today included)", () => {
    expect(monthStart("2026-11-22")).toBe("2026-11-01");
    expect(spendingWindow("2026-11-22")).toEqual({ from: "2026-10-24", to: "2026-11-22" });
    expect(spendingWindow("2026-03-01")).toEqual({ from: "2026-01-31", to: "2026-03-01" });
    expect(spendingWindow("2028-03-01")).toEqual({ from: "2028-02-01", to: "2028-03-01" });
  });

  it("masks an outside account number to its last four", () => {
    expect(maskExternal("123456789")).toBe("••6789");
  });

  it("history filters keep only valid values and only the member's own accounts", () => {
    const accounts = [{ id: 7 }, { id: 9 }] as AccountView[];
    const f = parseHistoryFilters(
      new URLSearchParams(
        "account=8&type=sideways&category=Dining&status=pending&from=2026-13-45&to=2026-11-01&q=%20rent%20",
      ),
      accounts,
    );
    expect(f).toEqual({ category: "Dining", status: "pending", to: "2026-11-01", q: "rent" });
    expect(parseHistoryFilters(new URLSearchParams("account=9&type=debit"), accounts)).toEqual({
      account_id: 9,
      type: "debit",
    });
  });

  it("relative times, older ones as the day in the institution's time zone", () => {
    const now = Date.parse("2026-11-22T12:00:00Z");
    const newYork = institutionDates("America/New_York");
    expect(relativeTime("2026-11-22T11:59:30Z", newYork, now)).toBe("just now");
    expect(relativeTime("2026-11-22T11:15:00Z", newYork, now)).toBe("45 min ago");
    expect(relativeTime("2026-11-22T07:00:00Z", newYork, now)).toBe("5 h ago");
    expect(relativeTime("2026-11-10T07:00:00Z", newYork, now)).toBe("Nov 10");
    // 3 AM UTC on the 10th is still the 9th in New York.
    expect(relativeTime("2026-11-10T03:00:00Z", newYork, now)).toBe("Nov 9");
    expect(relativeTime("2026-11-10T03:00:00Z", institutionDates("UTC"), now)).toBe("Nov 10");
  });
});
