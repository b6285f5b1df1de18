/**
 * Start-up benchmark (issue 17): time from starting the compiled production server
 * (`node BUILD/bin/server.js`, after scripts/build-server.mjs) to its first `/readyz` 200, N times
 * each: on an existing data folder, on a fresh one (institution profile without the demo, as a
 * deployment runs: migrations only), and, as a reference measured in the same run, a Node process
 * that only serves 200 on /readyz. Also the process's CPU time at ready (less sensitive to other
 * load on the machine than the wall-clock time), and the stop (SIGTERM) to exit.
 *
 *   node --import tsx bench/startup.ts [runs=5]        (npm run bench:startup; BENCH_PORT, default 3390)
 *
 * Also interleaved: the existing folder with V8's compile cache off (NODE_DISABLE_COMPILE_CACHE=1),
 * and, with BENCH_BEFORE_BUILD_DIR set to an older build folder inside the repository (built from
 * an earlier commit), the existing folder on that build, for a before/after on the same load.
 *
 * Results: bench/results/startup.json.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { demoInstitution } from "~/config/demo-institution";

const root = path.resolve(import.meta.dirname, "..");
const runs = Number(process.argv[2] ?? 5);
const port = Number(process.env.BENCH_PORT ?? 3390);
const buildDir = path.resolve(root, process.env.MUTUAL_BUILD_DIR ?? "build");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-startup-"));
const CLOCK_TICKS_PER_S = 100;

interface Sample {
  ready_ms: number;
  cpu_ms: number;
  stop_ms: number;
  exit: number | string | null;
}

/** user + system CPU time of a live process, from /proc (Linux). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
}

async function ready(): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return response.status === 200;
  } catch {
    return false;
  }
}

async function startOnce(args: string[], env: Record<string, string>): Promise<Sample> {
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const exited = new Promise<number | string | null>((resolve) =>
    child.once("exit", (code, signal) => resolve(signal ?? code)),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  while (!(await ready())) {
    if (gone) throw new Error(`${args.join(" ")} exited before it was ready`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const ready_ms = performance.now() - started;
  const cpu_ms = cpuMs(child.pid!);
  const stopping = performance.now();
  child.kill("SIGTERM");
  const exit = await exited;
  return { ready_ms, cpu_ms, stop_ms: performance.now() - stopping, exit };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const summary = (samples: Sample[]) => ({
  runs: samples.length,
  ready_ms_median: Math.round(median(samples.map((s) => s.ready_ms))),
  ready_ms_min: Math.round(Math.min(...samples.map((s) => s.ready_ms))),
  ready_ms_max: Math.round(Math.max(...samples.map((s) => s.ready_ms))),
  cpu_ms_median: Math.round(median(samples.map((s) => s.cpu_ms))),
  stop_ms_median: Math.round(median(samples.map((s) => s.stop_ms))),
  exits: [...new Set(samples.map((s) => String(s.exit)))],
});

async function main() {
  console.log("Building (only what changed)...");
  if (spawnSync(process.execPath, ["scripts/build-server.mjs"], { cwd: root, stdio: "inherit" }).status !== 0)
    throw new Error("build failed");

  const institutionFile = path.join(work, "institution.json");
  fs.writeFileSync(institutionFile, JSON.stringify({ ...demoInstitution, demo: false }));
  const server = ["--enable-source-maps", path.join(buildDir, "bin/server.js")];
  const production = {
    NODE_ENV: "production",
    MUTUAL_TEST_INSTALL: "1",
    MUTUAL_EMBEDDED_DATABASE: "1",
    LOG_LEVEL: "warn",
    INSTITUTION_CONFIG: institutionFile,
    MUTUAL_BUILD_DIR: buildDir,
  };
  const reference = ["-e", `require("node:http").createServer((q, s) => s.end("ready")).listen(${port})`];
  const load_before = os.loadavg();

  const beforeDir = process.env.BENCH_BEFORE_BUILD_DIR
    ? path.resolve(root, process.env.BENCH_BEFORE_BUILD_DIR)
    : undefined;
  const results: Record<string, Sample[]> = {
    reference: [],
    fresh: [],
    existing: [],
    existing_no_compile_cache: [],
    ...(beforeDir ? { existing_before: [] } : {}),
  };
  const existingDir = path.join(work, "existing");
  // The existing folder is created (migrated) once, not timed.
  await startOnce(server, { ...production, DATA_DIR: existingDir });
  // Interleaved, so that a change in the machine's load touches every kind alike.
  for (let i = 0; i < runs; i++) {
    results.reference!.push(await startOnce(reference, {}));
    results.existing!.push(await startOnce(server, { ...production, DATA_DIR: existingDir }));
    results.existing_no_compile_cache!.push(
      await startOnce(server, { ...production, DATA_DIR: existingDir, NODE_DISABLE_COMPILE_CACHE: "1" }),
    );
    if (beforeDir)
      results.existing_before!.push(
        await startOnce(["--enable-source-maps", path.join(beforeDir, "bin/server.js")], {
          ...production,
          DATA_DIR: existingDir,
          MUTUAL_BUILD_DIR: beforeDir,
        }),
      );
    results.fresh!.push(await startOnce(server, { ...production, DATA_DIR: path.join(work, `fresh-${i}`) }));
    console.log(
      `run ${i + 1}/${runs}: ${Object.entries(results)
        .map(
          ([kind, samples]) => `${kind} ${Math.round(samples.at(-1)!.ready_ms)} ms (CPU ${samples.at(-1)!.cpu_ms} ms)`,
        )
        .join(", ")}, load ${os.loadavg()[0]!.toFixed(1)}`,
    );
  }

  const report = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    load_average_before: load_before.map((l) => Number(l.toFixed(2))),
    load_average_after: os.loadavg().map((l) => Number(l.toFixed(2))),
    database: "PGlite (embedded), institution profile without the demo",
    reference: summary(results.reference!),
    existing_data_folder: summary(results.existing!),
    fresh_data_folder: summary(results.fresh!),
    existing_data_folder_no_compile_cache: summary(results.existing_no_compile_cache!),
    ...(beforeDir
      ? { existing_data_folder_before: { build: path.relative(root, beforeDir), ...summary(results.existing_before!) } }
      : {}),
    samples: results,
  };
  console.table(Object.fromEntries(Object.entries(results).map(([kind, samples]) => [kind, summary(samples)])));
  console.log(
    `load average before ${report.load_average_before.join(" ")}, after ${report.load_average_after.join(" ")}`,
  );
  fs.mkdirSync(path.join(root, "bench/results"), { recursive: true });
  fs.writeFileSync(path.join(root, "bench/results/startup.json"), JSON.stringify(report, null, 2) + "\n");
}

try {
  await main();
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
