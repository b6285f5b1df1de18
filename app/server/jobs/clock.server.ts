import { sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { jobClock } from "~/server/db/schema";

/**
 * The job clock: the time the job runner compares due times with. It is the wall clock in a real
 * deployment. Tests, and the demo with JOB_CLOCK=adjustable, move it forward instead of waiting
 * (a bill due tomorrow is paid now), and every app process on the database sees the same move.
 */
export interface JobClock {
  /** The jobs' current time. Read once per poll. */
  now(): Promise<Date>;
  /** Whether staff or a test may move it forward (the adjustable and manual clocks). */
  readonly adjustable: boolean;
  /** Moves the clock forward by `ms`; refused on the system clock. */
  advance(ms: number): Promise<Date>;
}

export class ClockNotAdjustableError extends Error {
  constructor() {
    super("The job clock follows the wall clock here and cannot be moved.");
  }
}

/** The wall clock. */
export const systemJobClock: JobClock = {
  now: async () => new Date(),
  adjustable: false,
  advance: async () => {
    throw new ClockNotAdjustableError();
  },
};

/** A clock kept in memory, for tests that run the runner in their own process. */
export function manualJobClock(start: Date): JobClock & { set(at: Date): void } {
  let now_ms = start.getTime();
  return {
    now: async () => new Date(now_ms),
    adjustable: true,
    advance: async (ms) => {
      checkForward(ms);
      now_ms += ms;
      return new Date(now_ms);
    },
    set: (at) => {
      now_ms = at.getTime();
    },
  };
}

/**
 * The wall clock plus the offset kept in `job_clock` (JOB_CLOCK=adjustable): shared by every
 * process on the database, so a test that advances it through one process sees jobs run in any.
 */
export function adjustableJobClock(db: DbOrTx): JobClock {
  const offset = async () => {
    const rows = await db.select({ offset_ms: jobClock.offset_ms }).from(jobClock);
    return rows[0]?.offset_ms ?? 0;
  };
  return {
    now: async () => new Date(Date.now() + (await offset())),
    adjustable: true,
    advance: async (ms) => {
      checkForward(ms);
      const [row] = await db
        .insert(jobClock)
        .values({ id: 1, offset_ms: ms })
        .onConflictDoUpdate({
          target: jobClock.id,
          set: { offset_ms: sql`${jobClock.offset_ms} + ${ms}`, updated_at: sql`now()` },
        })
        .returning({ offset_ms: jobClock.offset_ms });
      return new Date(Date.now() + row!.offset_ms);
    },
  };
}

/** At most a year at a time, forward only: the clock never runs back, so no due run is undone. */
export const ADVANCE_MAX_MS = 366 * 24 * 60 * 60_000;

function checkForward(ms: number): void {
  if (!Number.isSafeInteger(ms) || ms <= 0 || ms > ADVANCE_MAX_MS)
    throw new RangeError("the job clock moves forward by a whole number of milliseconds, at most a year");
}
