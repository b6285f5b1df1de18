import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";

/**
 * Builds the compiled server (build/bin/server.js and the React Router build) once, before the
 * integration tests, for the tests that start it (app-server.ts): they run it as production
 * does, and a development start (Vite compiling on the fly) took 20-80 s each on a busy machine.
 * scripts/build-server.mjs rebuilds each part only when its sources changed. Here, once, so two
 * test files running side by side never build at the same time.
 */
export default function setup(project: TestProject): void {
  if (!startsServer(project)) return;
  const started_ms = performance.now();
  const build = spawnSync(process.execPath, ["scripts/build-server.mjs"], { cwd: project.config.root, stdio: "inherit" });
  if (build.status !== 0) throw new Error(`scripts/build-server.mjs failed (exit ${build.status ?? build.signal}): the tests that start the app server need its build`);
  const took_s = (performance.now() - started_ms) / 1000;
  if (took_s > 5) console.info(`integration globalSetup: the server build took ${took_s.toFixed(1)} s`);
}

/**
 * Whether this run may include a test that starts the server (one importing ./app-server):
 * a run of other integration files only (vitest run <filters>) skips the build, which takes a
 * minute or more whenever app/ changed.
 */
function startsServer(project: TestProject): boolean {
  // The command line's file filters (not in vitest's typed API); none means every file.
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
  if (!filters?.length) return true;
  const folder = path.join(project.config.root, "tests/integration");
  return fs
    .readdirSync(folder)
    .filter((name) => name.endsWith(".test.ts") && fs.readFileSync(path.join(folder, name), "utf8").includes('from "./app-server"'))
    .some((name) => filters.some((filter) => path.join(folder, name).includes(filter.replace(/^\.\//, ""))));
}
