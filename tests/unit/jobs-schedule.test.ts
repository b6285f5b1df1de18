import { describe, expect, it } from "vitest";
import {
  DEFAULT_BACKOFF,
  nextCronTime,
  retryDelayMs,
  safeErrorMessage,
  ScheduleError,
  slotKey,
} from "~/server/jobs/schedule";
import { defineJob } from "~/server/jobs/job";
import { chooseJobClock } from "~/server/jobs/jobs.server";
import { ConfigurationError } from "~/config/env.server";
import type { Db } from "~/server/db/client.server";

/** The rules of when a scheduled job runs (app/server/jobs/schedule.ts). */
describe("nextCronTime", () => {
  const ny = "America/New_York";

  it("is the first time strictly after the given one", () => {
    expect(
      nextCronTime({ cron: "*/5 * * * *", time_zone: "UTC" }, new Date("2026-03-02T10:00:00Z")).toISOString(),
    ).toBe("2026-03-02T10:05:00.000Z");
    expect(
      nextCronTime({ cron: "*/5 * * * *", time_zone: "UTC" }, new Date("2026-03-02T10:03:59Z")).toISOString(),
    ).toBe("2026-03-02T10:05:00.000Z");
  });

  it("reads the hours in the institution's time zone, across summer time", () => {
    // 6:00 in New York is 11:00 UTC in winter (EST) and 10:00 UTC in summer (EDT).
    expect(nextCronTime({ cron: "0 6 1 * *", time_zone: ny }, new Date("2026-01-15T00:00:00Z")).toISOString()).toBe(
      "2026-02-01T11:00:00.000Z",
    );
    expect(nextCronTime({ cron: "0 6 1 * *", time_zone: ny }, new Date("2026-03-31T12:00:00Z")).toISOString()).toBe(
      "2026-04-01T10:00:00.000Z",
    );
  });

  it("refuses a schedule that is not five valid fields", () => {
    expect(() => nextCronTime({ cron: "61 * * * *", time_zone: "UTC" }, new Date())).toThrow(ScheduleError);
    expect(() => nextCronTime({ cron: "* * * *", time_zone: "UTC" }, new Date())).toThrow(/five fields/);
    expect(() => nextCronTime({ cron: "0 0 * * * *", time_zone: "UTC" }, new Date())).toThrow(/five fields/);
  });
});

describe("retryDelayMs", () => {
  it("doubles from the first wait after each failed attempt, up to the cap", () => {
    const backoff = { first_ms: 30_000, max_ms: 300_000 };
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(backoff, n))).toEqual([
      30_000, 60_000, 120_000, 240_000, 300_000, 300_000,
    ]);
  });

  it("stays finite and capped however many attempts failed", () => {
    expect(retryDelayMs(DEFAULT_BACKOFF, 10_000)).toBe(DEFAULT_BACKOFF.max_ms);
  });

  it("refuses an attempt count below one", () => {
    expect(() => retryDelayMs(DEFAULT_BACKOFF, 0)).toThrow(RangeError);
    expect(() => retryDelayMs(DEFAULT_BACKOFF, 1.5)).toThrow(RangeError);
  });
});

describe("slotKey", () => {
  it("names a recurring run by its due time, so each slot runs once", () => {
    expect(slotKey(new Date("2026-04-01T10:00:00Z"))).toBe("at:2026-04-01T10:00:00.000Z");
  });
});

describe("safeErrorMessage", () => {
  it("keeps the first line only, without addresses, tokens or long numbers", () => {
    const message = safeErrorMessage(
      new Error("550 mailbox alex.morgan@harborview.example refused for account 123456789\n    at stack (file.js:1)"),
    );
    expect(message).toBe("550 mailbox [email] refused for account [number]");
    expect(safeErrorMessage(new Error(`bad token ${"a".repeat(40)}`))).toBe("bad token [token]");
  });

  it("gives a message for a throw without one, and caps the length", () => {
    expect(safeErrorMessage(undefined)).toBe("The job failed without a message.");
    expect(safeErrorMessage(new Error("x ".repeat(400))).length).toBeLessThanOrEqual(500);
  });
});

describe("defineJob", () => {
  it("refuses a name that is not lower case letters, digits and hyphens, and a bad attempt count", () => {
    const run = async () => undefined;
    expect(() => defineJob({ name: "Bill Pay", title: "t", description: "d", run })).toThrow(/lower case/);
    expect(() => defineJob({ name: "bill-pay", title: "t", description: "d", max_attempts: 0, run })).toThrow(
      /max_attempts/,
    );
    expect(defineJob({ name: "bill-pay", title: "t", description: "d", run }).name).toBe("bill-pay");
  });
});

describe("chooseJobClock", () => {
  const db = {} as Db;
  it("is the wall clock unless JOB_CLOCK=adjustable", () => {
    expect(chooseJobClock("system", { demo: true }, db).adjustable).toBe(false);
    expect(chooseJobClock("adjustable", { demo: true }, db).adjustable).toBe(true);
  });

  it("refuses an adjustable clock for a real credit union's profile: staff must never move its jobs' time", () => {
    expect(() => chooseJobClock("adjustable", { demo: false }, db)).toThrow(ConfigurationError);
    expect(() => chooseJobClock("adjustable", { demo: false }, db)).toThrow(
      /JOB_CLOCK: adjustable is for the demo profile and tests only/,
    );
  });
});
