import type { Logger } from "pino";
import type { Db } from "~/server/db/client.server";
import type { Backoff } from "./schedule";

/**
 * What a job is (docs/contributing.md#add-a-job): a name, what it does, when it runs, and how often
 * it is tried. A recurring job has a cron `schedule`; any job can also be enqueued with a key and a
 * payload (`enqueueJob`), for work that falls due at a stated time (a bill payment on its date).
 */
export interface JobDefinition<Payload extends Record<string, unknown> = Record<string, unknown>> {
  /** Lower case, digits and hyphens: `outbox-delivery`. Stored on every run; never rename one. */
  name: string;
  /** What staff read at /admin/jobs: "Outbox delivery retries". */
  title: string;
  /** One sentence for staff: what it does and why. */
  description: string;
  /** Five cron fields in the institution's time zone, for a recurring job. */
  schedule?: string;
  /** Attempts before a run is marked failed (default 5). A run must be safe to repeat. */
  max_attempts?: number;
  backoff?: Backoff;
  /**
   * For a recurring job that works only when something is configured (Web Push's keys, an SMS
   * provider): false means its schedule is not queued at all, so an installation without it pays
   * no run every minute. Read when a slot would be queued (at start-up, after each run).
   */
  configured?: () => boolean;
  /**
   * Also record each successful run in the audit log (a failure after the last attempt always
   * is): for a job whose every run staff may be asked about, such as one that removes rows.
   */
  audit_every_run?: boolean;
  /**
   * Does the work. It may run more than once for one run (a process stopped in the middle, a
   * retry), so it must be idempotent: write through transactions, skip what is done. What it
   * returns (counts, never personal data) is kept on the run and shown to staff.
   */
  run(context: JobContext<Payload>): Promise<JobResult | void>;
}

export type JobResult = Record<string, number | string | boolean | null>;

export interface JobContext<Payload> {
  db: Db;
  /** The job clock's time when the run started: use it, not `new Date()`, for "now". */
  now: Date;
  payload: Payload;
  run: { id: number; key: string; attempt: number; max_attempts: number };
  log: Logger;
}

export const DEFAULT_MAX_ATTEMPTS = 5;
export const JOB_NAME_PATTERN = /^[a-z][a-z0-9-]{1,62}$/;

/** Declares a job; checks its name once, where it is written. */
export function defineJob<Payload extends Record<string, unknown> = Record<string, unknown>>(
  definition: JobDefinition<Payload>,
): JobDefinition<Payload> {
  if (!JOB_NAME_PATTERN.test(definition.name))
    throw new Error(`job name "${definition.name}" must be lower case letters, digits and hyphens`);
  const attempts = definition.max_attempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!Number.isSafeInteger(attempts) || attempts < 1 || attempts > 100)
    throw new Error(`job "${definition.name}": max_attempts must be 1 to 100`);
  return definition;
}
