import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import type { TestProject } from "vitest/node";
import { migrateDatabase, openDatabase } from "~/server/db/client.server";

/**
 * Builds the compiled server (build/bin/server.js and the React Router build) once, before the
 * integration tests, for the tests that start it (app-server.ts): they run it as production
 * does, and a development start (Vite compiling on the fly) took 20-80 s each on a busy machine.
 * scripts/build-server.mjs rebuilds each part only when its sources changed. Here, once, so two
 * test files running side by side never build at the same time. Then the migrated database every
 * test file's PGlite database is copied from (migratedPgliteTemplate).
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const run = ((globalThis as RunHolder)[RUN] ??= { template: prepare(project), projects: 0 });
  run.projects += 1;
  const template = await run.template;
  project.provide("pgliteTemplate", template ?? "");
  return () => {
    if (--run.projects > 0) return;
    delete (globalThis as RunHolder)[RUN];
    if (template) fs.rmSync(path.dirname(template), { recursive: true, force: true });
  };
}

/**
 * Both integration projects (tests/integration/vitest.config.ts) name this set-up, and each loads
 * its own copy of this module: the build and the template are made once for the run, by the
 * first, kept on the process, and the template removed after the last project is done.
 */
const RUN = Symbol.for("mutual.integration.globalSetup");
type RunHolder = { [RUN]?: { template: Promise<string | undefined>; projects: number } };

async function prepare(project: TestProject): Promise<string | undefined> {
  if (startsServer(project)) buildServer(project);
  return migratedPgliteTemplate();
}

function buildServer(project: TestProject): void {
  const started_ms = performance.now();
  const build = spawnSync(process.execPath, ["scripts/build-server.mjs"], {
    cwd: project.config.root,
    stdio: "inherit",
  });
  if (build.status !== 0)
    throw new Error(
      `scripts/build-server.mjs failed (exit ${build.status ?? build.signal}): the tests that start the app server need its build`,
    );
  const took_s = (performance.now() - started_ms) / 1000;
  if (took_s > 5) console.info(`integration globalSetup: the server build took ${took_s.toFixed(1)} s`);
}

/**
 * One in-memory PGlite database, migrated, saved to a file that every test file's database is
 * loaded from (test-database.ts): a new PGlite database costs about 3 s of CPU (initdb in
 * WebAssembly) and its migrations 0.4 s more, against under 1 s to load the copy; with some 50
 * test files that was a minute of the suite on two cores. Made again on every run, from the
 * migrations as they are now. None when the tests run on PostgreSQL (TEST_DATABASE_URL).
 */
async function migratedPgliteTemplate(): Promise<string | undefined> {
  if (process.env.TEST_DATABASE_URL) return undefined;
  const database = await openDatabase({ kind: "pglite", dataDir: "memory" });
  try {
    await migrateDatabase(database);
    const client = (database.db as unknown as { $client: PGlite }).$client;
    const dump = await client.dumpDataDir("none");
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mutual-pglite-template-")), "migrated.tar");
    fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
    return file;
  } finally {
    await database.close();
  }
}

/**
 * Whether this run may include a test that starts the server (one importing ../app-server, or
 * spawning server.ts, which needs the build too): a run of other integration files only
 * (vitest run <filters>) skips the build, which takes a minute or more whenever app/ changed.
 */
function startsServer(project: TestProject): boolean {
  // The command line's file filters (not in vitest's typed API); none means every file.
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
  if (!filters?.length) return true;
  const folder = path.join(project.config.root, "tests/integration");
  return fs
    .readdirSync(folder, { recursive: true, encoding: "utf8" })
    .filter((file) => {
      if (!file.endsWith(".test.ts")) return false;
      const source = fs.readFileSync(path.join(folder, file), "utf8");
      return /from "(\.\.?\/)+app-server"/.test(source) || source.includes('"server.ts"');
    })
    .some((file) => filters.some((filter) => path.join(folder, file).includes(filter.replace(/^\.\//, ""))));
}
