/**
 * Home page benchmark (issue: foundation). Measures, on the production build:
 *  - JavaScript sent for the home page, gzipped (every module the HTML preloads or imports);
 *  - server time with one client (sequential requests over keep-alive): p50 / p95 / p99;
 *  - requests per second at 4 concurrent clients, for the home page and for a minimal
 *    one-component React Router page served by the same server in the same run.
 * Usage: npm run bench:home  (writes bench/results/home.json)
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";

const PORT = Number(process.env.BENCH_PORT ?? 3401);
const BASE = `http://127.0.0.1:${PORT}`;
const SEQUENTIAL_REQUESTS = 2000;
const WARMUP_REQUESTS = 200;
const CONCURRENT_SECONDS = 10;
/** The 4-client runs alternate the two pages in short rounds (home, minimal, minimal, home, ...) so that a change in the machine's load falls on both alike. */
const CONCURRENT_ROUNDS = 10;

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function get(
  urlPath: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; bytes: number; body: Buffer; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.get(`${BASE}${urlPath}`, { agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const body = Buffer.concat(chunks);
        resolve({
          status: res.statusCode ?? 0,
          bytes: body.length,
          body,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        });
      });
    });
    req.on("error", reject);
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function waitReady() {
  // Start-up migrates a fresh database: allow three minutes on a busy machine.
  for (let i = 0; i < 720; i++) {
    try {
      if ((await get("/readyz")).status === 200) return;
    } catch {
      // not yet listening
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("server did not become ready");
}

async function javascriptBytes(): Promise<{ files: number; gzip_bytes: number }> {
  const html = (await get("/")).body.toString("utf8");
  const urls = new Set<string>();
  for (const m of html.matchAll(/<link rel="modulepreload" href="([^"]+)"/g)) urls.add(m[1]!);
  for (const m of html.matchAll(/<script[^>]+src="([^"]+\.js)"/g)) urls.add(m[1]!);
  for (const m of html.matchAll(/import\s*\(?\s*"(\/assets\/[^"]+\.js)"/g)) urls.add(m[1]!);
  let gzip_bytes = 0;
  for (const url of urls) gzip_bytes += (await get(url, { "accept-encoding": "gzip" })).bytes;
  return { files: urls.size, gzip_bytes };
}

async function sequential(urlPath: string) {
  for (let i = 0; i < WARMUP_REQUESTS; i++) await get(urlPath);
  const times: number[] = [];
  for (let i = 0; i < SEQUENTIAL_REQUESTS; i++) {
    const r = await get(urlPath);
    if (r.status !== 200) throw new Error(`${urlPath} answered ${r.status}`);
    times.push(r.ms);
  }
  times.sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    requests: SEQUENTIAL_REQUESTS,
    p50_ms: round(percentile(times, 50)),
    p95_ms: round(percentile(times, 95)),
    p99_ms: round(percentile(times, 99)),
  };
}

/**
 * Requests per second of each page at `connections` clients, over CONCURRENT_SECONDS each, taken
 * in CONCURRENT_ROUNDS alternating rounds (ABBA order). Pooled: all of a page's requests over all
 * of its time; `round_ratios` are the first page's rate over the second's, round pair by pair.
 */
async function concurrentAlternating(paths: [string, string], connections: number) {
  const seconds = CONCURRENT_SECONDS / (CONCURRENT_ROUNDS / 2);
  const pooled = paths.map(() => ({ requests: 0, seconds: 0, p50: [] as number[], p99: [] as number[] }));
  const round_ratios: number[] = [];
  for (let round = 0; round < CONCURRENT_ROUNDS / 2; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    const rates: number[] = [];
    for (const i of order) {
      const result = await autocannon({ url: `${BASE}${paths[i]}`, connections, duration: seconds, pipelining: 1 });
      if (result.non2xx > 0 || result.errors > 0)
        throw new Error(`${paths[i]}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      pooled[i]!.requests += result.requests.total;
      pooled[i]!.seconds += result.duration;
      pooled[i]!.p50.push(result.latency.p50);
      pooled[i]!.p99.push(result.latency.p99);
      rates[i] = result.requests.total / result.duration;
    }
    round_ratios.push(Math.round((rates[0]! / rates[1]!) * 100) / 100);
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const summary = pooled.map((p) => ({
    connections,
    requests_per_second: Math.round(p.requests / p.seconds),
    latency_p50_ms: median(p.p50),
    latency_p99_ms: Math.max(...p.p99),
  }));
  return { first: summary[0]!, second: summary[1]!, round_ratios };
}

async function main() {
  const root = path.resolve(import.meta.dirname, "..");
  if (spawnSync("npx", ["react-router", "build"], { cwd: root, stdio: "ignore" }).status !== 0)
    throw new Error("build failed");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-bench-"));
  const server = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "production",
      MUTUAL_EMBEDDED_DATABASE: "1",
      PORT: String(PORT),
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      MUTUAL_BENCH: "1",
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  try {
    await waitReady();
    const js = await javascriptBytes();
    const home_one_client = await sequential("/");
    const minimal_one_client = await sequential("/bench/minimal");
    const {
      first: home_four,
      second: minimal_four,
      round_ratios,
    } = await concurrentAlternating(["/", "/bench/minimal"], 4);
    const result = {
      date: new Date().toISOString(),
      machine: `${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown"}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
      javascript: { ...js, gzip_kb: Math.round(js.gzip_bytes / 102.4) / 10, goal_kb: 150 },
      home_one_client: { ...home_one_client, goal_p95_ms: 10 },
      minimal_one_client,
      four_clients: {
        home: home_four,
        minimal: minimal_four,
        ratio_home_to_minimal:
          Math.round((home_four.requests_per_second / minimal_four.requests_per_second) * 100) / 100,
        round_ratios,
        goal_ratio: 0.5,
      },
    };
    console.log(JSON.stringify(result, null, 2));
    fs.mkdirSync(path.join(root, "bench/results"), { recursive: true });
    fs.writeFileSync(path.join(root, "bench/results/home.json"), JSON.stringify(result, null, 2) + "\n");
  } finally {
    server.kill("SIGTERM");
    agent.destroy();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
