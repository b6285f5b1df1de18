/**
 * Lighthouse benchmark (issue 18): what a visitor on a phone feels on every public page. Builds
 * what changed (scripts/build-server.mjs), starts the compiled production server on a fresh data
 * folder (institution profile without the demo, as a deployment runs), and runs Lighthouse's
 * default mobile configuration (simulated slow 4G and a 4x slower CPU) in Debian's headless
 * Chromium, N times per page. Records each page's median category scores (performance,
 * accessibility, best practices, SEO) and the median largest contentful paint, total blocking time
 * and cumulative layout shift, with the JavaScript each page asks for before it can paint
 * (compressed bytes and files, which the machine's load does not change), and prints them as a table.
 *
 *   node --import tsx bench/lighthouse.ts [--runs 3] [--pages /,/login] [--out lighthouse] [--no-build] [--reports]
 *   (npm run bench:lighthouse; BENCH_PORT, default 3395; MUTUAL_BUILD_DIR for another build folder;
 *   CHROME_PATH, default /usr/bin/chromium; BENCH_DEMO=1 for the demo profile with its banner;
 *   BENCH_BEFORE_BUILD_DIR=<an older build folder> to measure that build too, page by page in turn,
 *   for a before/after under the same load; BENCH_NICE=-10, as root, runs Chromium and the servers
 *   at that scheduling priority, so that other work on a shared machine inflates the measured
 *   main-thread time, and so the total blocking time, less)
 *
 * The pages are the visitor pages of app/routes.ts (the public layout's routes without a
 * parameter, less the ones a visitor only reaches mid-way through a task), with one page per
 * product of the profile. Results: bench/results/<out>.json (medians, every run's figures, and the
 * audits that cost points in the median run); with --reports, every run's whole Lighthouse report
 * too, in bench/results/tmp/lighthouse/ (not kept in git), to open in a viewer or read.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import type { RouteConfigEntry } from "@react-router/dev/routes";
import routes from "~/routes";
import { demoInstitution } from "~/config/demo-institution";

const root = path.resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const runs = Number(option("runs") ?? 3);
const out = option("out") ?? "lighthouse";
const port = Number(process.env.BENCH_PORT ?? 3395);
const buildDir = path.resolve(root, process.env.MUTUAL_BUILD_DIR ?? "build");
const chromePath = process.env.CHROME_PATH ?? "/usr/bin/chromium";
const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"] as const;

/**
 * Public-layout pages a visitor does not open on their own: they need a token, a session or an
 * application in progress (or sign out, or are the demo's inbox).
 */
const NOT_VISITOR_PAGES = new Set([
  "registration-success",
  "logout",
  "reset-password",
  "change-password",
  "pending-approval",
  "not-approved",
  "demo/inbox",
  "settings/profile",
  "settings/account",
]);

function publicPages(): string[] {
  const layout = (routes as RouteConfigEntry[]).find((entry) => entry.file === "routes/public/layout.tsx");
  const pages: string[] = [];
  for (const child of layout?.children ?? []) {
    if (child.index) pages.push("/");
    else if (child.path === "products/:slug")
      pages.push(...demoInstitution.products.map((product) => `/products/${product.slug}`));
    else if (child.path && !child.path.includes(":") && child.path !== "*" && !NOT_VISITOR_PAGES.has(child.path))
      pages.push(`/${child.path}`);
  }
  return pages;
}

interface Run {
  scores: Record<(typeof CATEGORIES)[number], number>;
  lcp_ms: number;
  tbt_ms: number;
  cls: number;
  fcp_ms: number;
  /** The server's time to the page's first byte, as Lighthouse observed it (not simulated). */
  ttfb_ms: number;
  /** Lighthouse's measure of the machine's speed during the run (higher is faster; a loaded machine scores lower). */
  benchmark_index: number;
  /** Audits that cost points (score below 1, not informative), by category. */
  failing: Record<string, string[]>;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function ready(serverPort: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${serverPort}/readyz`, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return response.status === 200;
  } catch {
    return false;
  }
}

const reportsDir = args.includes("--reports") ? path.join(root, "bench/results/tmp/lighthouse") : undefined;

async function audit(url: string, chromePort: number): Promise<Run> {
  const result = await lighthouse(url, {
    port: chromePort,
    output: "json",
    logLevel: "error",
    onlyCategories: [...CATEGORIES],
  });
  const lhr = result?.lhr;
  if (!lhr) throw new Error(`Lighthouse returned nothing for ${url}`);
  if (lhr.runtimeError) throw new Error(`${url}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
  if (reportsDir) {
    fs.mkdirSync(reportsDir, { recursive: true });
    const name = `${new URL(url).pathname.replace(/\W+/g, "_")}-${Date.now()}.json`;
    fs.writeFileSync(path.join(reportsDir, name), JSON.stringify(lhr));
  }
  const numeric = (id: string) => lhr.audits[id]?.numericValue ?? NaN;
  const failing: Record<string, string[]> = {};
  for (const id of CATEGORIES) {
    const category = lhr.categories[id]!;
    failing[id] = category.auditRefs
      .map((ref) => lhr.audits[ref.id]!)
      .filter(
        (a) =>
          a.score !== null &&
          a.score < 1 &&
          a.scoreDisplayMode !== "informative" &&
          a.scoreDisplayMode !== "notApplicable" &&
          a.scoreDisplayMode !== "manual",
      )
      .map((a) => `${a.id}${a.displayValue ? ` (${a.displayValue})` : ""}`);
  }
  return {
    scores: Object.fromEntries(
      CATEGORIES.map((id) => [id, Math.round((lhr.categories[id]?.score ?? 0) * 100)]),
    ) as Run["scores"],
    lcp_ms: Math.round(numeric("largest-contentful-paint")),
    tbt_ms: Math.round(numeric("total-blocking-time")),
    cls: Math.round(numeric("cumulative-layout-shift") * 1000) / 1000,
    fcp_ms: Math.round(numeric("first-contentful-paint")),
    ttfb_ms: Math.round(numeric("server-response-time")),
    benchmark_index: Math.round(lhr.environment.benchmarkIndex),
    failing,
  };
}

/** Lighthouse now and then fails to record a trace (NO_NAVSTART, NO_FCP): such a run is tried again, up to 3 times. */
async function auditWithRetries(url: string, chromePort: number): Promise<Run> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await audit(url, chromePort);
    } catch (error) {
      if (attempt >= 3) throw error;
      console.warn(`${error instanceof Error ? error.message : error}; trying again`);
    }
  }
}

/**
 * The JavaScript a page asks for before it can paint: every script its HTML names (module
 * scripts and modulepreload links), read from the build folder, gzip -9. Independent of the
 * machine's load, unlike the simulated timings.
 */
async function scriptsBeforePaint(
  serverPort: number,
  page: string,
  dir: string,
): Promise<{ files: number; gzip_bytes: number }> {
  const html = await (await fetch(`http://127.0.0.1:${serverPort}${page}`)).text();
  const files = new Set(
    [...html.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((match) => match[1]!),
  );
  let gzip_bytes = 0;
  for (const file of files)
    gzip_bytes += zlib.gzipSync(fs.readFileSync(path.join(dir, "client", file)), { level: 9 }).length;
  return { files: files.size, gzip_bytes };
}

function summarize(samples: Run[]) {
  const scores = Object.fromEntries(
    CATEGORIES.map((id) => [id, median(samples.map((s) => s.scores[id]))]),
  ) as Run["scores"];
  // The audits that cost points in the run whose performance score is the median one.
  const byScore = [...samples].sort((a, b) => a.scores.performance - b.scores.performance);
  return {
    scores,
    lcp_ms: median(samples.map((s) => s.lcp_ms)),
    tbt_ms: median(samples.map((s) => s.tbt_ms)),
    cls: median(samples.map((s) => s.cls)),
    fcp_ms: median(samples.map((s) => s.fcp_ms)),
    ttfb_ms: median(samples.map((s) => s.ttfb_ms)),
    benchmark_index: median(samples.map((s) => s.benchmark_index)),
    performance_runs: samples.map((s) => s.scores.performance),
    failing_in_median_run: byScore[Math.floor(byScore.length / 2)]!.failing,
  };
}

/** The compiled production server of `dir` on `serverPort`, on a fresh data folder under `work`. */
function startServer(dir: string, serverPort: number, work: string, institutionFile: string, demo: boolean) {
  return spawn(process.execPath, ["--enable-source-maps", path.join(dir, "bin/server.js")], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "production",
      MUTUAL_EMBEDDED_DATABASE: "1",
      MUTUAL_TEST_INSTALL: "1",
      LOG_LEVEL: "warn",
      INSTITUTION_CONFIG: institutionFile,
      MUTUAL_BUILD_DIR: dir,
      DATA_DIR: path.join(work, `data-${serverPort}`),
      PORT: String(serverPort),
      ...(demo ? { MUTUAL_DEMO: "1" } : {}),
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

function table(
  pages: string[],
  results: Record<
    string,
    ReturnType<typeof summarize> & { scripts_before_paint: { files: number; gzip_bytes: number } }
  >,
): string {
  return [
    "| page | performance | accessibility | best practices | SEO | LCP | TBT | CLS | JavaScript before paint |",
    "|---|---|---|---|---|---|---|---|---|",
    ...pages.map((page) => {
      const r = results[page]!;
      const js = r.scripts_before_paint;
      return `| ${page} | ${r.scores.performance} | ${r.scores.accessibility} | ${r.scores["best-practices"]} | ${r.scores.seo} | ${(r.lcp_ms / 1000).toFixed(1)} s | ${r.tbt_ms} ms | ${r.cls} | ${(js.gzip_bytes / 1024).toFixed(1)} KB, ${js.files} files |`;
    }),
  ].join("\n");
}

async function main() {
  const pages = option("pages")?.split(",") ?? publicPages();
  if (!args.includes("--no-build")) {
    console.log("Building (only what changed)...");
    if (spawnSync(process.execPath, ["scripts/build-server.mjs"], { cwd: root, stdio: "inherit" }).status !== 0)
      throw new Error("build failed");
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-lighthouse-"));
  const institutionFile = path.join(work, "institution.json");
  const demo = process.env.BENCH_DEMO === "1";
  fs.writeFileSync(institutionFile, JSON.stringify({ ...demoInstitution, demo }));
  // With BENCH_BEFORE_BUILD_DIR (a build folder inside the repository, made from an earlier commit),
  // that build is served too, on the next port, and measured page by page in turn with this one.
  const beforeDir = process.env.BENCH_BEFORE_BUILD_DIR
    ? path.resolve(root, process.env.BENCH_BEFORE_BUILD_DIR)
    : undefined;
  const builds = [
    { name: "current", dir: buildDir, port },
    ...(beforeDir ? [{ name: "before", dir: beforeDir, port: port + 1 }] : []),
  ];
  const servers = builds.map((build) => startServer(build.dir, build.port, work, institutionFile, demo));
  let chrome: chromeLauncher.LaunchedChrome | undefined;
  try {
    const deadline = Date.now() + 300_000;
    for (const build of builds) {
      while (!(await ready(build.port))) {
        if (servers.some((server) => server.exitCode !== null) || Date.now() > deadline)
          throw new Error("the server did not become ready");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const nice = process.env.BENCH_NICE;
    let browserPath = chromePath;
    if (nice) {
      for (const server of servers) spawnSync("renice", ["-n", nice, "-p", String(server.pid)], { stdio: "ignore" });
      // Every Chromium process (browser, zygote, renderers) inherits the priority of the first.
      browserPath = path.join(work, "chromium-niced");
      fs.writeFileSync(browserPath, `#!/bin/sh\nexec nice -n ${Number(nice)} ${chromePath} "$@"\n`, { mode: 0o755 });
    }
    chrome = await chromeLauncher.launch({
      chromePath: browserPath,
      chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu"],
    });
    // One run per build that is not counted: the first run of a fresh browser and server is
    // slower (cold caches and compilers) and would land on the first page measured.
    for (const build of builds) await auditWithRetries(`http://127.0.0.1:${build.port}${pages[0]}`, chrome.port);
    const load_before = os.loadavg();
    const samples = Object.fromEntries(
      builds.map((build) => [build.name, Object.fromEntries(pages.map((page) => [page, [] as Run[]]))]),
    );
    // Run by run over all pages (and builds, in alternating order), so that a change in the
    // machine's load falls on every page alike.
    for (let i = 0; i < runs; i++) {
      for (const page of pages) {
        for (const build of i % 2 === 0 ? builds : [...builds].reverse()) {
          const run = await auditWithRetries(`http://127.0.0.1:${build.port}${page}`, chrome.port);
          samples[build.name]![page]!.push(run);
          console.log(
            `run ${i + 1}/${runs} ${build.name} ${page}: ${CATEGORIES.map((id) => run.scores[id]).join(" / ")}, LCP ${run.lcp_ms} ms, TBT ${run.tbt_ms} ms, CLS ${run.cls}, benchmark index ${run.benchmark_index}, load ${os.loadavg()[0]!.toFixed(1)}`,
          );
        }
      }
    }
    const scripts: Record<string, Record<string, { files: number; gzip_bytes: number }>> = {};
    for (const build of builds) {
      scripts[build.name] = {};
      for (const page of pages) scripts[build.name]![page] = await scriptsBeforePaint(build.port, page, build.dir);
    }
    const results = Object.fromEntries(
      builds.map((build) => [
        build.name,
        Object.fromEntries(
          pages.map((page) => [
            page,
            { ...summarize(samples[build.name]![page]!), scripts_before_paint: scripts[build.name]![page]! },
          ]),
        ),
      ]),
    );
    const report = {
      date: new Date().toISOString(),
      commit: spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).stdout.trim(),
      builds: Object.fromEntries(builds.map((build) => [build.name, path.relative(root, build.dir)])),
      machine: `${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown"}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
      chromium: spawnSync(chromePath, ["--version"], { encoding: "utf8" }).stdout.trim(),
      lighthouse: JSON.parse(fs.readFileSync(path.join(root, "node_modules/lighthouse/package.json"), "utf8"))
        .version as string,
      configuration: "Lighthouse default (mobile: Moto G Power viewport, simulated slow 4G, 4x CPU slowdown), headless",
      profile: demo ? "demo (with its banner)" : "institution profile without the demo",
      nice: process.env.BENCH_NICE ? Number(process.env.BENCH_NICE) : 0,
      runs,
      load_average_before: load_before.map((l) => Number(l.toFixed(2))),
      load_average_after: os.loadavg().map((l) => Number(l.toFixed(2))),
      pages: results.current!,
      ...(beforeDir ? { pages_before: results.before! } : {}),
      samples,
    };
    for (const build of builds) {
      console.log(`\n${build.name} (${path.relative(root, build.dir)}):\n${table(pages, results[build.name]!)}\n`);
      for (const page of pages) {
        const failing = Object.entries(results[build.name]![page]!.failing_in_median_run).filter(
          ([, ids]) => ids.length,
        );
        if (failing.length)
          console.log(`${page}: ${failing.map(([category, ids]) => `${category}: ${ids.join(", ")}`).join("; ")}`);
      }
    }
    console.log(
      `load average before ${report.load_average_before.join(" ")}, after ${report.load_average_after.join(" ")}`,
    );
    fs.mkdirSync(path.join(root, "bench/results"), { recursive: true });
    fs.writeFileSync(path.join(root, `bench/results/${out}.json`), JSON.stringify(report, null, 2) + "\n");
  } finally {
    chrome?.kill();
    await Promise.all(
      servers.map((server) => {
        const exited = new Promise((resolve) => server.once("exit", resolve));
        server.kill("SIGTERM");
        return server.exitCode === null ? exited : undefined;
      }),
    );
    fs.rmSync(work, { recursive: true, force: true });
  }
}

await main();
