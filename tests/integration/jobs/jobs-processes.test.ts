import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { migrateDatabase, openDatabase, type Database } from "~/server/db/client.server";
import { jobRuns } from "~/server/db/schema";
import { defineJob } from "~/server/jobs/job";
import { enqueueJob } from "~/server/jobs/runner.server";
import { onPostgres, openTestDatabase } from "../test-database";

/**
 * The job runner across real processes (tests/integration/jobs/jobs-child.ts runs one per process):
 * a process killed (SIGKILL) while a job runs: after a restart the run is taken again and
 * finishes, once; a process told to stop (SIGTERM) finishes the run in hand first; and, on
 * PostgreSQL, two processes share 40 runs and each runs once. On PGlite the database is a folder
 * only one process opens at a time, so the test opens it between the children.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const repository = path.resolve(here, "../../..");

// The same names as the child's jobs, to enqueue from here.
const slow = defineJob({ name: "test-slow", title: "test", description: "test", run: async () => undefined });
const counted = defineJob({ name: "test-count", title: "test", description: "test", run: async () => undefined });

let database: (Database & { url?: string }) | undefined;
let folder: string | undefined;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (onPostgres) {
    database = await openTestDatabase();
    await prepare(database);
  } else {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-jobs-"));
    const db = await openDatabase({ kind: "pglite", dataDir: folder });
    await migrateDatabase(db);
    await prepare(db);
    await db.close();
  }
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await database?.close();
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
});

async function prepare(db: Database) {
  await db.db.execute(
    sql`create table job_test_executions (id bigserial primary key, run_id bigint not null, key text not null, worker text not null)`,
  );
}

/** Works on the database between children (PGlite) or beside them (PostgreSQL). */
async function withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T> {
  if (database) return work(database);
  const db = await openDatabase({ kind: "pglite", dataDir: folder! });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

interface Child {
  process: ChildProcess;
  lines: string[];
  /** Resolves with the first line that starts with `prefix`. */
  waitFor(prefix: string, timeout_ms?: number): Promise<string>;
  exited: Promise<NodeJS.Signals | number | null>;
}

function startChild(env: Record<string, string> = {}): Child {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(here, "jobs-child.ts")], {
    cwd: repository,
    env: { ...process.env, JOBS_CHILD_DATABASE: database?.url ?? `pglite:${folder}`, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const lines: string[] = [];
  const waiters: { prefix: string; resolve: (line: string) => void }[] = [];
  readline.createInterface({ input: child.stdout! }).on("line", (line) => {
    lines.push(line);
    for (const w of waiters.filter((w) => line.startsWith(w.prefix))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(line);
    }
  });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.on("exit", (code, signal) => resolve(signal ?? code)),
  );
  return {
    process: child,
    lines,
    exited,
    waitFor: (prefix, timeout_ms = 60_000) => {
      const seen = lines.find((l) => l.startsWith(prefix));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(`no "${prefix}" line in ${timeout_ms} ms; stdout: ${lines.join(" | ")}; stderr: ${stderr}`),
            ),
          timeout_ms,
        );
        waiters.push({ prefix, resolve: (line) => (clearTimeout(timer), resolve(line)) });
        void exited.then((how) => {
          clearTimeout(timer);
          reject(
            new Error(
              `child exited (${String(how)}) before "${prefix}"; stdout: ${lines.join(" | ")}; stderr: ${stderr}`,
            ),
          );
        });
      });
    },
  };
}

async function executions(key_prefix: string) {
  return withDatabase(async (db) => {
    const rows = await db.db.execute<{ key: string; n: number; workers: number }>(
      sql`select key, count(*)::int as n, count(distinct worker)::int as workers from job_test_executions where key like ${`${key_prefix}%`} group by key order by key`,
    );
    return rows.rows.map((r) => ({ key: r.key, n: Number(r.n), workers: Number(r.workers) }));
  });
}

describe("a job runner process", () => {
  it("killed while a job runs: after a restart the run is taken again and finishes, once", async () => {
    await withDatabase((db) => enqueueJob(db.db, slow, { key: "killed-1" }));
    const first = startChild({ JOBS_CHILD_HANG: "1" });
    await first.waitFor("STARTED killed-1");
    first.process.kill("SIGKILL");
    expect(await first.exited).toBe("SIGKILL");

    const [interrupted] = await withDatabase((db) => db.db.select().from(jobRuns).where(eq(jobRuns.key, "killed-1")));
    expect(interrupted).toMatchObject({ state: "running", attempts: 1 });

    const second = startChild();
    await second.waitFor("DONE killed-1");
    second.process.kill("SIGTERM");
    expect(await second.exited).toBe(0);
    expect(second.lines.filter((l) => l === "STARTED killed-1")).toHaveLength(1);

    // Two executions in all: the one the kill cut off and the one that finished.
    expect(await executions("killed-")).toEqual([{ key: "killed-1", n: 2, workers: 2 }]);
    const [run] = await withDatabase((db) => db.db.select().from(jobRuns).where(eq(jobRuns.key, "killed-1")));
    expect(run).toMatchObject({ state: "succeeded", attempts: 2, claimed_by: null });
    // Two children start (tsx and PGlite each time) and the folder is opened three times between.
  }, 240_000);

  it("told to stop (SIGTERM) while a job runs: finishes it, then exits 0, claiming nothing more", async () => {
    await withDatabase(async (db) => {
      await enqueueJob(db.db, slow, { key: "stopping-1" });
      await enqueueJob(db.db, slow, { key: "stopping-2", run_at: new Date(Date.now() + 1_000) });
    });
    const child = startChild({ JOBS_CHILD_SLOW_MS: "1500" });
    await child.waitFor("STARTED stopping-1");
    child.process.kill("SIGTERM");
    expect(await child.exited).toBe(0);
    expect(child.lines).toContain("DONE stopping-1");
    expect(child.lines.some((l) => l.includes("stopping-2"))).toBe(false);
    const runs = await withDatabase((db) =>
      db.db
        .select({ key: jobRuns.key, state: jobRuns.state })
        .from(jobRuns)
        .where(sql`${jobRuns.key} like 'stopping-%'`)
        .orderBy(jobRuns.key),
    );
    expect(runs).toEqual([
      { key: "stopping-1", state: "succeeded" },
      { key: "stopping-2", state: "queued" },
    ]);
  }, 240_000);
});

describe("two job runner processes on one PostgreSQL", () => {
  it.skipIf(!onPostgres)(
    "share 40 runs and run each once",
    async () => {
      const a = startChild();
      const b = startChild();
      await Promise.all([a.waitFor("READY"), b.waitFor("READY")]);
      for (let i = 0; i < 40; i++)
        await enqueueJob(database!.db, counted, { key: `shared-${String(i).padStart(2, "0")}` });
      // Both poll every 100 ms; the runs are done when none is left queued or running.
      for (let tries = 0; ; tries++) {
        const [row] = await database!.db
          .execute<{ n: number }>(
            sql`select count(*)::int as n from job_runs where key like 'shared-%' and state <> 'succeeded'`,
          )
          .then((r) => r.rows);
        if (Number(row!.n) === 0) break;
        if (tries > 600) throw new Error("the 40 runs did not finish in 60 s");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      a.process.kill("SIGTERM");
      b.process.kill("SIGTERM");
      expect(await a.exited).toBe(0);
      expect(await b.exited).toBe(0);
      const counts = await executions("shared-");
      expect(counts).toHaveLength(40);
      expect(counts.every((c) => c.n === 1)).toBe(true);
      // Which process ran how many is up to the scheduler of a busy machine; the in-process test
      // (jobs-runner.test.ts) shows two runners sharing the work.
    },
    240_000,
  );
});
