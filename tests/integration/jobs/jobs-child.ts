/**
 * Child process of jobs-processes.test.ts: one app process's job runner (the real JobRunner, the
 * system clock) on the database named by JOBS_CHILD_DATABASE ("pglite:<folder>" or a PostgreSQL
 * address), with two test jobs:
 * - `test-slow`: records its execution, says "STARTED <key>", then, when JOBS_CHILD_HANG=1, never
 *   ends (the test kills the process there); otherwise it finishes after JOBS_CHILD_SLOW_MS and
 *   says "DONE <key>";
 * - `test-count`: records its execution and finishes after a short pause.
 * Every execution is a row in `job_test_executions` (made by the test), written before the job's
 * work ends, so an execution cut off by a kill is counted too. SIGTERM stops the runner the way
 * server.ts does (the run in hand finishes), closes the database and exits 0.
 */
import { sql } from "drizzle-orm";
import { pino } from "pino";
import { openDatabase } from "~/server/db/client.server";
import { systemJobClock } from "~/server/jobs/clock.server";
import { defineJob } from "~/server/jobs/job";
import { JobRunner } from "~/server/jobs/runner.server";

const target = process.env.JOBS_CHILD_DATABASE ?? "";
const hang = process.env.JOBS_CHILD_HANG === "1";
const database = target.startsWith("pglite:")
  ? await openDatabase({ kind: "pglite", dataDir: target.slice("pglite:".length) })
  : await openDatabase({ kind: "postgres", url: target, pool_max: 4 });

async function record(run: { id: number; key: string }, worker: string) {
  await database.db.execute(
    sql`insert into job_test_executions (run_id, key, worker) values (${run.id}, ${run.key}, ${worker})`,
  );
}

const slow = defineJob({
  name: "test-slow",
  title: "test",
  description: "test",
  run: async ({ run }) => {
    await record(run, runner.worker_id);
    process.stdout.write(`STARTED ${run.key}\n`);
    if (hang) await new Promise(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, Number(process.env.JOBS_CHILD_SLOW_MS ?? 50)));
    process.stdout.write(`DONE ${run.key}\n`);
  },
});

const counted = defineJob({
  name: "test-count",
  title: "test",
  description: "test",
  run: async ({ run }) => {
    await record(run, runner.worker_id);
    await new Promise((resolve) => setTimeout(resolve, 5 + Math.floor(Math.random() * 20)));
  },
});

const runner = new JobRunner({
  db: database.db,
  kind: database.kind,
  clock: systemJobClock,
  jobs: [slow, counted],
  time_zone: "UTC",
  logger: pino({ level: "warn" }, process.stderr),
  poll_ms: 100,
  lease_ms: Number(process.env.JOBS_CHILD_LEASE_MS ?? 2_000),
});
await runner.start();
// The runner's poll timer never keeps a process alive (server.ts's HTTP server does); this does.
const alive = setInterval(() => undefined, 60_000);
process.stdout.write(`READY ${runner.worker_id}\n`);

process.on("SIGTERM", () => {
  clearInterval(alive);
  void runner
    .stop()
    .then(() => database.close())
    .then(() => process.exit(0));
});
