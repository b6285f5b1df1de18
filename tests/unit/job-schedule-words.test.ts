import { describe, expect, it } from "vitest";
import { scheduleInWords, timeZoneName } from "~/domain/job-schedule";

/** The jobs page's schedules in words (app/domain/job-schedule.ts): every schedule of the app's jobs (registry.server.ts) has words. */
describe("a job's schedule in words", () => {
  it("says every schedule the app's jobs use in words, with the time zone the page's times show", () => {
    expect(scheduleInWords("*/5 * * * *", "EST")).toBe("Every 5 minutes");
    expect(scheduleInWords("* * * * *", "EST")).toBe("Every minute");
    expect(scheduleInWords("50 * * * 1-5", "EST")).toBe("Every hour at minute 50, Monday to Friday");
    expect(scheduleInWords("17 * * * *", "EST")).toBe("Every hour at minute 17");
    expect(scheduleInWords("30 0 * * *", "EST")).toBe("Every day at 12:30 AM EST");
    expect(scheduleInWords("0 6 * * 1-5", "MDT")).toBe("Monday to Friday at 6:00 AM MDT");
    expect(scheduleInWords("5 * * * *", "EST")).toBe("Every hour at minute 5");
    expect(scheduleInWords("50 * * * 1-5", "EST")).toBe("Every hour at minute 50, Monday to Friday");
  });

  it("a weekday, a day of the month, noon and evening; a job without a schedule runs when queued", () => {
    expect(scheduleInWords("0 12 * * 0", "UTC")).toBe("Every Sunday at 12:00 PM UTC");
    expect(scheduleInWords("5 18 * * 7", "UTC")).toBe("Every Sunday at 6:05 PM UTC");
    expect(scheduleInWords("0 6 1 * *", "EST")).toBe("On the 1st of every month at 6:00 AM EST");
    expect(scheduleInWords("45 23 22 * *", "EST")).toBe("On the 22nd of every month at 11:45 PM EST");
    expect(scheduleInWords("0 1 13 * *", "EST")).toBe("On the 13th of every month at 1:00 AM EST");
    expect(scheduleInWords(null, "EST")).toBe("When queued");
  });

  it("anything it has no words for is shown as its cron text", () => {
    for (const cron of ["0 6 1 1 *", "0 6 * * 1,3", "0 */2 * * *", "0 6 L * *", "61 * * * *", "0 6 * *"])
      expect(scheduleInWords(cron, "EST")).toBe(`Cron ${cron}`);
  });

  it("the time zone's short name follows summer time", () => {
    expect(timeZoneName("America/New_York", new Date("2026-01-15T12:00:00Z"))).toBe("EST");
    expect(timeZoneName("America/New_York", new Date("2026-07-15T12:00:00Z"))).toBe("EDT");
    expect(timeZoneName("UTC", new Date("2026-07-15T12:00:00Z"))).toBe("UTC");
  });
});
