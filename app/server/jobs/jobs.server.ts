import type { Logger } from "pino";
import { ConfigurationError, env } from "~/config/env.server";
import { institution } from "~/config/institution.server";
import type { Database, Db } from "~/server/db/client.server";
import { adjustableJobClock, systemJobClock, type JobClock } from "./clock.server";
import { JobRunner } from "./runner.server";
import { APP_JOBS } from "./registry.server";

/**
 * Starts this process's job runner (called by server.ts once the database is open) and gives the
 * job clock to whoever needs it (the staff page).
 */
export function startJobs(database: Database, logger: Logger): Promise<JobRunner> {
  const e = env();
  // Thrown at once (not as a rejected promise): a bad setting stops start-up with its message.
  const clock = jobClock(database.db);
  const runner = new JobRunner({
    db: database.db,
    kind: database.kind,
    clock,
    jobs: APP_JOBS,
    time_zone: institution().time_zone,
    logger: logger.child({ component: "jobs" }),
    poll_ms: e.JOB_POLL_MS,
    lease_ms: e.JOB_LEASE_MS,
  });
  return runner.start().then(() => {
    logger.info(
      { jobs: APP_JOBS.map((j) => j.name), poll_ms: e.JOB_POLL_MS, clock: e.JOB_CLOCK },
      "job runner started",
    );
    return runner;
  });
}

/**
 * The job clock this deployment uses. An adjustable clock lets staff move the jobs' time forward
 * (a bill due next week paid now), which a real credit union must never allow: the demo only.
 */
export function jobClock(db: Db): JobClock {
  return chooseJobClock(env().JOB_CLOCK, { demo: institution().demo }, db);
}

export function chooseJobClock(setting: "system" | "adjustable", profile: { demo: boolean }, db: Db): JobClock {
  if (setting !== "adjustable") return systemJobClock;
  if (!profile.demo) {
    throw new ConfigurationError(
      "Invalid environment configuration:\n  JOB_CLOCK: adjustable is for the demo profile and tests only",
    );
  }
  return adjustableJobClock(db);
}
