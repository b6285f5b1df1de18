import { describe, expect, it } from "vitest";
import { institutionDates } from "~/components/institution-dates";

describe("dates in the credit union's time zone", () => {
  const at = new Date("2026-11-22T03:30:00Z"); // 10:30 pm on the 21st in New York, 8:30 pm in Denver

  it("formats in the institution profile's time zone, not the server's or New York's", () => {
    const denver = institutionDates("America/Denver");
    expect(denver.formatDate(at)).toBe("Nov 21, 2026");
    expect(denver.formatDateTime(at)).toBe("Nov 21, 2026, 8:30 PM MST");
    expect(denver.formatLongDate(at)).toBe("Saturday, November 21, 2026");
    expect(denver.formatClock(at)).toBe("8:30 PM MST");
    expect(institutionDates("America/New_York").formatClock(at)).toBe("10:30 PM EST");
    expect(institutionDates("Pacific/Honolulu").formatDate("2026-11-22T09:59:00Z")).toBe("Nov 21, 2026");
  });

  it("builds the formatters once per time zone", () => {
    expect(institutionDates("America/Chicago")).toBe(institutionDates("America/Chicago"));
  });
});
