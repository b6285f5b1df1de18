import type { Actor } from "~/domain/actor";
import { withDatabase } from "~/server/db/db.server";
import { APP_JOBS } from "~/server/jobs/registry.server";
import { jobClock } from "~/server/jobs/jobs.server";
import { advanceJobClock, jobsPage } from "~/server/jobs/status.server";
import type { AuditOrigin } from "~/server/audit/audit.server";

/** What /admin/jobs calls (its view-model): each opens the database itself. */

/** Every job of the application, read against the job clock. */
export const jobsOverview = withDatabase((database) => jobsPage(database, APP_JOBS, jobClock(database)));

/** Whether staff may move the job clock here (only the demo's adjustable clock). */
export const jobClockAdjustable = withDatabase(async (database) => jobClock(database).adjustable);

/** Moves the adjustable job clock forward (audited); the clock's new time. */
export const advanceJobClockBy = withDatabase((database, input: { hours: number; staff: Actor; origin: AuditOrigin }) =>
  advanceJobClock(database, jobClock(database), input),
);
