/**
 * Member app benchmark (issue: member banking app core). On the production build, embedded
 * PGlite in a fresh DATA_DIR (the default deployment):
 *  - /dashboard server time for a member whose checking account holds 100,000 transactions over
 *    two years (sequential requests over keep-alive, one client): p50 / p95 / p99; goal p95 < 25 ms;
 *  - requests per second at 4 clients for /dashboard and for the minimal page (/bench/minimal);
 *  - transfers per second over HTTP, end to end (session, CSRF guard, form parsing, schema,
 *    ownership checks, ledger posting, notification, all in one request), at 8 clients, posting
 *    Between Accounts as the browser does with JavaScript (the route's `.data` action request);
 *  - beside it, the ledger alone (`postTransfer` in-process on the same database, 8 tasks).
 * Usage: node --import tsx bench/dashboard.ts  (writes bench/results/dashboard.json)
 * Environment: BENCH_PORT (3402), BENCH_SECONDS (10), BENCH_TRANSACTIONS (100000),
 * BENCH_DATABASE_URL (a PostgreSQL server: the same on a database of its own that the bench
 * creates and drops there, written to bench/results/dashboard-postgres.json).
 */
import { spawn, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { desc, eq, sql } from "drizzle-orm";
import { withServerDatabase, writeResults } from "./support";

const PORT = Number(process.env.BENCH_PORT ?? 3402);
const BASE = `http://127.0.0.1:${PORT}`;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const TRANSACTIONS = Number(process.env.BENCH_TRANSACTIONS ?? 100_000);
const DAYS = 730;
const SEQUENTIAL_REQUESTS = 1000;
const WARMUP_REQUESTS = 100;
const EMAIL = "bench.member@bench.example";
const PASSWORD = "Bench-Member-Pass-1";
/** PostgreSQL instead of the embedded database: the server that the bench's own database is made on. */
const SERVER_URL = process.env.BENCH_DATABASE_URL;

process.env.SESSION_SECRET ??= crypto.randomBytes(32).toString("hex");
process.env.DATA_ENCRYPTION_KEY ??= crypto.randomBytes(32).toString("hex");
process.env.LOG_LEVEL = "warn";
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-bench-dashboard-"));
process.env.DATA_DIR = dataDir;

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function get(
  urlPath: string,
  cookie: string,
): Promise<{ status: number; ms: number; bytes: number; location?: string }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.get(`${BASE}${urlPath}`, { agent, headers: { cookie } }, (res) => {
      let bytes = 0;
      res.on("data", (chunk: Buffer) => void (bytes += chunk.length));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
          bytes,
          location: res.headers.location,
        }),
      );
    });
    req.on("error", reject);
  });
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const round = (n: number) => Math.round(n * 100) / 100;

async function waitReady() {
  for (let i = 0; i < 400; i++) {
    try {
      if ((await get("/readyz", "")).status === 200) return;
    } catch {
      // not yet listening
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("server did not become ready");
}

/**
 * The member, 100,000 transactions, and a signed-in session cookie, written before the server
 * starts: on the PostgreSQL database at `url`, or without one in PGlite in dataDir.
 */
async function prepare(url: string | undefined) {
  const { openDatabase, migrateDatabase } = await import("~/server/db/client.server");
  const schema = await import("~/server/db/schema");
  const { authFor, hashPassword } = await import("~/server/auth/auth.server");
  const { openAccount, institutionAccount } = await import("~/server/ledger/accounts.server");
  const { verifyLedger } = await import("~/server/ledger/verify.server");
  const { startSignIn, verifySignInCode } = await import("~/server/auth/sign-in.server");
  const { postTransfer } = await import("~/server/ledger/ledger.server");

  const database = await openDatabase(url ? { kind: "postgres", url } : { kind: "pglite", dataDir });
  await migrateDatabase(database);
  const db = database.db;
  const context = await authFor(db).$context;
  const user = await context.internalAdapter.createUser(
    { email: EMAIL, name: "Bench Member", emailVerified: true, role: "user", twoFactorEnabled: true },
    { method: "admin" } as never,
  );
  await context.internalAdapter.linkAccount({
    userId: user.id,
    providerId: "credential",
    accountId: user.id,
    password: await hashPassword(PASSWORD),
  });
  await db.insert(schema.memberProfiles).values({
    user_id: user.id,
    first_name: "Bench",
    last_name: "Member",
    status: "approved",
  } as typeof schema.memberProfiles.$inferInsert);
  const checking = await openAccount(db, { member_id: user.id, type: "checking", name: "Checking" });
  const savings = await openAccount(db, { member_id: user.id, type: "savings", name: "Savings" });
  const cash = await institutionAccount(db, "cash");

  // 100,000 balanced transactions in SQL chunks (every trigger and CHECK on), two years, dated in
  // order: every 10th a $1,000 payroll credit, the others debits of $10 to $100 in 7 categories.
  const seed_started = performance.now();
  const CHUNK = 10_000;
  for (let start = 0; start < TRANSACTIONS; start += CHUNK) {
    const end = Math.min(TRANSACTIONS, start + CHUNK) - 1;
    await db.transaction(async (tx) => {
      await tx.execute(sql`
        with g as (
          select g, case when g % 10 = 0 then 100000 else -(1000 + (g * 37) % 9000) end::bigint as amount,
                 (current_date - ${DAYS}::int + (g * ${DAYS}::int / ${TRANSACTIONS}::int))::date as day,
                 case when g % 10 = 0 then 'Income' else (array['Groceries','Dining','Shopping','Transportation','Utilities','Entertainment','Health'])[1 + g % 7] end as category
            from generate_series(${start}::int, ${end}::int) g
        ), t as (
          insert into ledger_transactions (kind, status, initiator, idempotency_key, effective_date, created_by, memo, category)
          select case when amount > 0 then 'ach_in' else 'card_payment' end, 'posted', 'system:bench-dashboard', 'bench-dashboard-' || g, day, 'bench',
                 case when amount > 0 then 'Payroll ' || g else 'Card purchase ' || g end, category
            from g order by g
          returning id, idempotency_key
        ), e as (
          insert into ledger_entries (transaction_id, account_id, amount_cents)
          select t.id, v.account_id, v.amount
            from t join g on t.idempotency_key = 'bench-dashboard-' || g.g
            cross join lateral (values (${checking.id}::bigint, g.amount), (${cash.id}::bigint, -g.amount)) as v(account_id, amount)
           order by t.id
        )
        update ledger_accounts
           set posted_cents = posted_cents + case when id = ${checking.id} then 1 else -1 end * (select sum(amount) from g)
         where id in (${checking.id}, ${cash.id})`);
    });
  }
  const seed_seconds = Math.round((performance.now() - seed_started) / 100) / 10;
  // PostgreSQL's autovacuum would vacuum and analyze the load within a minute of it; do it now.
  // On PGlite only ANALYZE: the app's upkeep job does the rest within 5 minutes.
  await db.execute(url ? sql`vacuum analyze` : sql`analyze`);
  const report = await verifyLedger(db);
  if (!report.ok) throw new Error(`seeded ledger does not verify: ${report.problems.join("; ")}`);
  // The bulk load leaves its pages dirty: flush them first so that the ledger-alone figure does
  // not pay for writing out the load.
  await db.execute(sql`checkpoint`);

  // The ledger alone, in-process on this database: 8 concurrent tasks, 1 s of warm-up, then
  // SECONDS timed.
  const ledger_transfer = () =>
    postTransfer(db, {
      kind: "transfer",
      initiator: `member:${user.id}`,
      idempotency_key: crypto.randomUUID(),
      created_by: user.id,
      entries: [
        { account_id: checking.id, amount_cents: -1 },
        { account_id: savings.id, amount_cents: 1 },
      ],
    });
  const warm_until = performance.now() + 1000;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (performance.now() < warm_until) await ledger_transfer();
    }),
  );
  let ledger_done = 0;
  const ledger_deadline = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (performance.now() < ledger_deadline) {
        await ledger_transfer();
        ledger_done++;
      }
    }),
  );
  const ledger_tps = Math.round(ledger_done / SECONDS);

  // Sign in as a person would (password, then the emailed code), for the session cookie.
  const jar = new Map<string, string>();
  const apply = (lines: readonly string[]) => {
    for (const line of lines) {
      const pair = line.split(";")[0] ?? "";
      const i = pair.indexOf("=");
      jar.set(pair.slice(0, i).trim(), pair.slice(i + 1).trim());
    }
  };
  const meta = () => ({
    ip: "198.51.100.7",
    user_agent: "bench",
    cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "),
  });
  const started = await startSignIn(db, meta(), { email: EMAIL, password: PASSWORD });
  if (!started.ok || started.status !== "challenge") throw new Error(`sign-in: ${JSON.stringify(started)}`);
  apply(started.set_cookies);
  const [mail] = await db
    .select()
    .from(schema.outbox)
    .where(eq(schema.outbox.to_email, EMAIL))
    .orderBy(desc(schema.outbox.id))
    .limit(1);
  const code = /code is: (\d{6})/.exec(mail?.text_body ?? "")?.[1];
  if (!code) throw new Error("no sign-in code");
  const verified = await verifySignInCode(db, meta(), { code });
  if (!verified.ok) throw new Error(`verify: ${verified.message}`);
  apply(verified.set_cookies);
  await database.close();
  return { cookie: meta().cookie, checking_id: checking.id, savings_id: savings.id, seed_seconds, ledger_tps };
}

async function sequential(urlPath: string, cookie: string, warmup = WARMUP_REQUESTS) {
  for (let i = 0; i < warmup; i++) await get(urlPath, cookie);
  const times: number[] = [];
  for (let i = 0; i < SEQUENTIAL_REQUESTS; i++) {
    const r = await get(urlPath, cookie);
    if (r.status !== 200) throw new Error(`${urlPath} answered ${r.status}`);
    times.push(r.ms);
  }
  times.sort((a, b) => a - b);
  return {
    requests: SEQUENTIAL_REQUESTS,
    p50_ms: round(percentile(times, 50)),
    p95_ms: round(percentile(times, 95)),
    p99_ms: round(percentile(times, 99)),
  };
}

async function concurrent(urlPath: string, connections: number, cookie: string) {
  const result = await autocannon({
    url: `${BASE}${urlPath}`,
    connections,
    duration: SECONDS,
    pipelining: 1,
    headers: { cookie },
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${urlPath}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return {
    connections,
    requests_per_second: Math.round(result.requests.average),
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
  };
}

async function transfers(cookie: string, from: number, to: number) {
  const result = await autocannon({
    url: `${BASE}/dashboard.data?transfer=internal`,
    connections: 8,
    duration: SECONDS,
    pipelining: 1,
    method: "POST",
    headers: { cookie, origin: BASE, "content-type": "application/x-www-form-urlencoded" },
    requests: [
      {
        method: "POST",
        setupRequest: (request) => ({
          ...request,
          body: new URLSearchParams({
            intent: "internal",
            from_account_id: String(from),
            to_account_id: String(to),
            amount: "0.01",
            reference: "bench",
            idempotency_key: crypto.randomUUID(),
          }).toString(),
        }),
      },
    ],
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`transfers: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return {
    connections: 8,
    transfers_per_second: Math.round(result.requests.average),
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    total: result.requests.total,
  };
}

const root = path.resolve(import.meta.dirname, "..");
const build = path.resolve(root, process.env.MUTUAL_BUILD_DIR ?? "build");

async function main() {
  if (process.env.BENCH_PREPARE_ONLY && SERVER_URL)
    throw new Error("BENCH_PREPARE_ONLY keeps a PGlite folder: run it without BENCH_DATABASE_URL");
  if (
    process.env.BENCH_SKIP_BUILD !== "1" &&
    spawnSync(process.execPath, ["scripts/build-server.mjs"], {
      cwd: root,
      stdio: "ignore",
      env: { ...process.env, MUTUAL_BUILD_DIR: build },
    }).status !== 0
  )
    throw new Error("build failed");
  // On PostgreSQL, a database of the bench's own (bench/support.ts), dropped at the end.
  if (SERVER_URL) await withServerDatabase("dashboard", (url) => measure(url), SERVER_URL);
  else await measure(undefined);
}

async function measure(url: string | undefined) {
  const prepared = await prepare(url);
  // For profiling by hand: keep the prepared folder and its signed-in cookie, time nothing.
  if (process.env.BENCH_PREPARE_ONLY) {
    fs.writeFileSync(process.env.BENCH_PREPARE_ONLY, JSON.stringify({ ...prepared, dataDir }, null, 2));
    return;
  }
  // The compiled production server, as `npm start` runs it, with the demo profile as a credit
  // union's own (a production start on PostgreSQL refuses the demo's published sign-ins).
  const institution_file = path.join(dataDir, "institution.json");
  const { demoInstitution } = await import("~/config/demo-institution");
  fs.writeFileSync(institution_file, JSON.stringify({ ...demoInstitution, demo: false }));
  const server = spawn(process.execPath, [path.join(build, "bin/server.js")], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(PORT),
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      MUTUAL_BENCH: "1",
      MUTUAL_TEST_INSTALL: "1",
      MUTUAL_EMBEDDED_DATABASE: "1",
      MUTUAL_BUILD_DIR: build,
      INSTITUTION_CONFIG: institution_file,
      ...(url ? { DATABASE_URL: url } : {}),
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const exited = new Promise((resolve) => server.once("exit", resolve));
  try {
    await waitReady();
    const first = await get("/dashboard", prepared.cookie);
    if (first.status !== 200)
      throw new Error(
        `/dashboard answered ${first.status} (${first.location ?? "no location"}): is the session cookie accepted?`,
      );
    const load_before = os.loadavg().map((n) => Math.round(n * 100) / 100);
    const dashboard_one_client = await sequential("/dashboard", prepared.cookie);
    // The same server again, now 1,100 requests in: how a server that has been up a while
    // answers (V8 is still optimising the rendering code after the first hundred). Reported
    // beside the figure above, not instead of it.
    const dashboard_one_client_warm = await sequential("/dashboard", prepared.cookie, 0);
    const minimal_one_client = await sequential("/bench/minimal", "");
    const dashboard_four = await concurrent("/dashboard", 4, prepared.cookie);
    const minimal_four = await concurrent("/bench/minimal", 4, "");
    const http_transfers = await transfers(prepared.cookie, prepared.checking_id, prepared.savings_id);
    const load_after = os.loadavg().map((n) => Math.round(n * 100) / 100);
    const result = {
      date: new Date().toISOString(),
      /** 1, 5 and 15-minute load averages when the timed part started and when it ended. */
      load_average: { before: load_before, after: load_after },
      dashboard_html_bytes: first.bytes,
      machine: `${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown"}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
      database: url ? "PostgreSQL (its own database on BENCH_DATABASE_URL's server)" : "PGlite (embedded, on disk)",
      member_transactions: TRANSACTIONS,
      seed_seconds: prepared.seed_seconds,
      dashboard_one_client: { ...dashboard_one_client, goal_p95_ms: 25 },
      dashboard_one_client_after_1100_requests: dashboard_one_client_warm,
      minimal_one_client,
      four_clients: {
        dashboard: dashboard_four,
        minimal: minimal_four,
        ratio_dashboard_to_minimal:
          Math.round((dashboard_four.requests_per_second / minimal_four.requests_per_second) * 100) / 100,
      },
      transfers_eight_clients: {
        http_end_to_end: http_transfers,
        ledger_only_in_process: { tasks: 8, transfers_per_second: prepared.ledger_tps },
        ratio_http_to_ledger: Math.round((http_transfers.transfers_per_second / prepared.ledger_tps) * 100) / 100,
      },
    };
    console.log(JSON.stringify(result, null, 2));
    writeResults(url ? "dashboard-postgres.json" : "dashboard.json", result);
  } finally {
    server.kill("SIGTERM");
    agent.destroy();
    await exited;
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
