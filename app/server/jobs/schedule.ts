import { CronExpressionParser } from "cron-parser";

/**
 * The rules of when a job runs, without I/O (unit-tested in tests/unit/jobs-schedule.test.ts):
 * the next time of a cron schedule, the wait before a retry, and the key of a recurring slot.
 */

/**
 * A recurring job's schedule: five cron fields (minute hour day-of-month month day-of-week), read
 * in the institution's time zone, so "0 6 1 * *" is 6:00 on the 1st where the credit union is,
 * summer time or not.
 */
export interface CronSchedule {
  cron: string;
  time_zone: string;
}

export class ScheduleError extends Error {}

/** The first time strictly after `after` that the schedule names. Throws ScheduleError for a bad one. */
export function nextCronTime(schedule: CronSchedule, after: Date): Date {
  if (schedule.cron.trim().split(/\s+/).length !== 5) {
    throw new ScheduleError(
      `schedule "${schedule.cron}" must have five fields: minute hour day-of-month month day-of-week`,
    );
  }
  try {
    return CronExpressionParser.parse(schedule.cron, { currentDate: after, tz: schedule.time_zone }).next().toDate();
  } catch (error) {
    throw new ScheduleError(`schedule "${schedule.cron}" is not valid: ${(error as Error).message}`);
  }
}

/** Retries wait longer each time: `first_ms`, then doubled each attempt, at most `max_ms`. */
export interface Backoff {
  first_ms: number;
  max_ms: number;
}

export const DEFAULT_BACKOFF: Backoff = { first_ms: 30_000, max_ms: 60 * 60_000 };

/**
 * How long to wait before the next attempt, after `attempts_made` attempts have failed (1 after
 * the first): first_ms x 2^(attempts_made - 1), capped at max_ms.
 */
export function retryDelayMs(backoff: Backoff, attempts_made: number): number {
  if (!Number.isSafeInteger(attempts_made) || attempts_made < 1)
    throw new RangeError("attempts_made must be a whole number of at least 1");
  // 2^30 x any sane first_ms is already past every cap; the exponent stops there so it stays finite.
  const delay = backoff.first_ms * 2 ** Math.min(attempts_made - 1, 30);
  return Math.min(delay, backoff.max_ms);
}

/** The idempotency key of a recurring job's run for the slot due at `due`: one run per slot. */
export function slotKey(due: Date): string {
  return `at:${due.toISOString()}`;
}

/**
 * A job's error message as staff may see it and the log may keep: its first line, at most 500
 * characters, with anything that looks like an email address, a long number or a token replaced
 * (a handler's error may quote what it worked on).
 */
export function safeErrorMessage(error: unknown): string {
  const raw =
    error instanceof Error ? error.message : typeof error === "string" ? error : "The job failed without a message.";
  const firstLine = raw.split("\n")[0]!.trim() || "The job failed without a message.";
  return firstLine
    .replace(/[^\s@<>"']+@[^\s@<>"']+/g, "[email]")
    .replace(/\b[A-Za-z0-9_-]{32,}\b/g, "[token]")
    .replace(/\d{6,}/g, "[number]")
    .slice(0, 500);
}
