import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { AppProcess, appEnvironment, jobRunsSettled } from "../app-server";
import { onPostgres, openTestDatabase } from "../test-database";
import type { Database } from "~/server/db/client.server";

/**
 * Two compiled app servers on one PostgreSQL database, each with its job runner (started by
 * server.ts): the job clock is moved forward an hour at a time (JOB_CLOCK=adjustable, shared
 * through the database) and every hourly pruning run and every outbox run is executed once, by one
 * of the two processes: one audit row per pruning run, one "job run succeeded" log line per run
 * across both logs. Both stop on SIGTERM with exit 0. PostgreSQL only: several processes cannot
 * share one embedded database.
 */
let database: (Database & { url?: string }) | undefined;
const apps: AppProcess[] = [];
let dataDir: string | undefined;
afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop()));
  await database?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

const HOUR_MS = 3_600_000;
const SLOTS = 4;

describe("jobs with two app processes", () => {
  it.skipIf(!onPostgres)(
    "run once each, whichever process claims them",
    async () => {
      database = await openTestDatabase({ pool_max: 2 });
      const db = database.db;
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-jobs-apps-"));
      const environment = appEnvironment(database.url!, dataDir, {
        DATABASE_POOL_MAX: "6",
        JOB_CLOCK: "adjustable",
        JOB_POLL_MS: "100",
      });
      apps.push(new AppProcess(environment), new AppProcess(environment));
      await Promise.all(apps.map((app) => app.waitForLine(/job runner started/, "the job runner")));

      const pruneRuns = async () =>
        Number(
          (
            await db.execute<{ n: number }>(
              sql`select count(*)::int as n from job_runs where job = 'prune-expired' and state = 'succeeded'`,
            )
          ).rows[0]!.n,
        );
      for (let slot = 1; slot <= SLOTS; slot++) {
        await db.execute(
          sql`insert into job_clock (id, offset_ms) values (1, ${HOUR_MS}) on conflict (id) do update set offset_ms = job_clock.offset_ms + ${HOUR_MS}`,
        );
        for (let tries = 0; (await pruneRuns()) < slot; tries++) {
          if (tries > 300) throw new Error(`pruning slot ${slot} did not run in 30 s`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      // Let both runners settle (anything due now runs) before counting.
      await jobRunsSettled(db);

      const runs = (
        await db.execute<{ id: number; job: string; state: string; attempts: number }>(
          sql`select id, job, state, attempts from job_runs where state <> 'queued' order by id`,
        )
      ).rows;
      expect(runs.filter((r) => r.job === "prune-expired")).toHaveLength(SLOTS);
      expect(runs.every((r) => r.state === "succeeded" && Number(r.attempts) === 1)).toBe(true);
      // Each pruning run audited once: a run executed by both processes would have two rows. (Other
      // jobs that audit every run, such as the nightly card release, may fall in the hours moved.)
      const audits = (
        await db.execute<{ subject_id: string; n: number }>(
          sql`select subject_id, count(*)::int as n from audit_log where action = 'job.run.succeeded' and after->>'job' = 'prune-expired' group by subject_id`,
        )
      ).rows;
      expect(audits).toHaveLength(SLOTS);
      expect(audits.every((a) => Number(a.n) === 1)).toBe(true);
      // Each run's success was logged by exactly one of the two processes.
      const succeeded = apps.flatMap((app) =>
        app.lines
          .filter((line) => line.includes('"job run succeeded"'))
          .map((line) => Number((JSON.parse(line) as { job_run_id: number }).job_run_id)),
      );
      expect(succeeded.toSorted((a, b) => a - b)).toEqual(runs.map((r) => Number(r.id)));

      await Promise.all(apps.map((app) => app.stop("SIGTERM")));
      expect(apps.map((app) => app.exit)).toEqual(["0", "0"]);
    },
    240_000,
  );
});
