/**
 * The job runner's cost when nothing is due, on the embedded database (docs/decisions/0010):
 * the app's jobs registered, polling every 2 s (pg-boss's default, for the comparison in the
 * decision), for 20 s. Counts the statements it sends and the CPU it takes.
 * Run: node --import tsx bench/jobs-idle.ts
 */
import { pino } from "pino";
import { migrateDatabase, openDatabase } from "~/server/db/client.server";
import { systemJobClock } from "~/server/jobs/clock.server";
import { JobRunner } from "~/server/jobs/runner.server";
import { APP_JOBS } from "~/server/jobs/registry.server";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const database = await openDatabase({ kind: "pglite", dataDir: "memory" });
await migrateDatabase(database);
const client = (
  database.db as unknown as { $client: { query: (...a: unknown[]) => unknown; exec: (...a: unknown[]) => unknown } }
).$client;
let statements = 0;
for (const method of ["query", "exec"] as const) {
  const original = client[method].bind(client);
  client[method] = (...args: unknown[]) => {
    statements++;
    return original(...args);
  };
}
const started_ms = performance.now();
const runner = new JobRunner({
  db: database.db,
  kind: "pglite",
  clock: systemJobClock,
  jobs: APP_JOBS,
  time_zone: "America/New_York",
  logger: pino({ level: "silent" }),
  poll_ms: 2_000,
  lease_ms: 60_000,
});
await runner.start();
await new Promise((resolve) => setTimeout(resolve, 1_000));
const startup = { statements, ms: Math.round(performance.now() - started_ms) };
statements = 0;
const cpu = process.cpuUsage();
await new Promise((resolve) => setTimeout(resolve, SECONDS * 1_000));
const used = process.cpuUsage(cpu);
await runner.stop();
await database.close();
console.log(
  JSON.stringify({
    date: new Date().toISOString(),
    startup_statements: startup.statements,
    idle_seconds: SECONDS,
    idle_statements: statements,
    idle_cpu_ms: Math.round((used.user + used.system) / 1000),
  }),
);
