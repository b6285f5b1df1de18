/**
 * Member transfers over HTTP against the ledger alone (issue 17, "throughput where members feel
 * it"). For each set-up, at 1, 2, 4, 8 and 16 clients:
 *  - the reference: the ledger alone, `postTransfer` in this process on the same database, each
 *    client a concurrent task (a pooled connection on PostgreSQL);
 *  - member transfers over HTTP end to end: Between Accounts posted as the browser does with
 *    JavaScript (`POST /dashboard.data?transfer=internal`: session, CSRF guard, form, schema,
 *    ownership, ledger posting and notification), each client a keep-alive connection;
 * with one member per client (checking to savings, 1 cent, a fresh idempotency key each time), so
 * clients do not queue on one member's rows. Reference and HTTP alternate per round
 * (BENCH_ROUNDS), so that both see the same load of a shared machine; the ratio is HTTP ÷
 * reference per round. Set-ups (BENCH_SETUPS, default all):
 *  - `pglite`: the compiled server on an embedded PGlite folder (the default deployment); PGlite
 *    lets one process open a folder, so each round runs the reference, closes, then starts the
 *    server;
 *  - `pg1`: one app process on PostgreSQL, asked directly;
 *  - `pg2`: two app processes on one PostgreSQL behind Debian's nginx, configured from the shipped
 *    site (deploy/nginx/mutual.conf), as the multi-process test runs them.
 * Also, in this process on PostgreSQL: the statements (round trips) of one transfer, the ledger
 * alone and the member's Between Accounts and To Another Member.
 *
 *   node --import tsx bench/transfers.ts      (builds what changed first; writes results/transfers.json)
 *
 * Environment: BENCH_DATABASE_URL (PostgreSQL to create the bench's databases on, default
 * postgresql://postgres@127.0.0.1:55432/postgres), BENCH_PORT (3405: the server, or nginx before two), BENCH_SECONDS
 * (5 timed per point, after 1 s of warm-up; 4 s and 300 transfers before each side's first point), BENCH_ROUNDS (2), BENCH_CLIENTS (1,2,4,8,16),
 * BENCH_SETUPS (pglite,pg1,pg2), MUTUAL_BUILD_DIR (build), BENCH_SKIP_BUILD=1, BENCH_OUT (transfers), NGINX_BIN,
 * BENCH_SERVER_NODE_OPTIONS (NODE_OPTIONS for the app processes only, e.g. --cpu-prof),
 * BENCH_ACCEPT_ENCODING (browser: the client asks for compression as a browser does; none),
 * BENCH_BEFORE_BUILD_DIR (a build of an earlier commit: each round also runs the HTTP curve on it,
 * after this build's, for a before/after under the same load).
 */
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import pg from "pg";
import { desc, eq } from "drizzle-orm";
import {
  AppProcess as ServerProcess,
  benchEnvironment,
  backendPids,
  childPids,
  cpuMs,
  freePort,
  machineMs,
  startNginx as startProxy,
  waitFor,
} from "./processes";

const root = path.resolve(import.meta.dirname, "..");
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:55432/postgres";
const PORT = Number(process.env.BENCH_PORT ?? 3405);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CLIENTS = (process.env.BENCH_CLIENTS ?? "1,2,4,8,16").split(",").map(Number);
const SETUPS = (process.env.BENCH_SETUPS ?? "pglite,pg1,pg2").split(",");
const BUILD = path.resolve(root, process.env.MUTUAL_BUILD_DIR ?? "build");
/** A build of an earlier commit (its own checkout's `scripts/build-server.mjs`), measured beside this one in each round. */
const BEFORE_BUILD = process.env.BENCH_BEFORE_BUILD_DIR ? path.resolve(process.env.BENCH_BEFORE_BUILD_DIR) : undefined;
const PASSWORD = "Bench-Member-Pass-1";
/**
 * The HTTP client asks for compressed answers as every browser does (Chrome's `Accept-Encoding`),
 * so the server compresses what it would compress for a member (before 2026-11-24 20:00 the
 * bench asked for none, and missed that cost). BENCH_ACCEPT_ENCODING=none asks for none, as
 * Node's client; any other value is sent as it is. The own client only.
 */
const ACCEPT_ENCODING =
  (process.env.BENCH_ACCEPT_ENCODING ?? "browser") === "browser"
    ? "gzip, deflate, br, zstd"
    : process.env.BENCH_ACCEPT_ENCODING === "none"
      ? ""
      : process.env.BENCH_ACCEPT_ENCODING!;
/** The answers' bytes on the wire and how many came compressed (the own client), for the results. */
const answers = { bytes: 0, encoded: 0 };
const MEMBERS = Math.max(...CLIENTS);

const { work, institution_file: institutionFile } = benchEnvironment("transfers");

const { openDatabase, migrateDatabase } = await import("~/server/db/client.server");
type Database = Awaited<ReturnType<typeof openDatabase>>;
const schema = await import("~/server/db/schema");
const { authFor, hashPassword } = await import("~/server/auth/auth.server");
const { startSignIn, verifySignInCode } = await import("~/server/auth/sign-in.server");
const { postTransfer } = await import("~/server/ledger/ledger.server");
const { verifyLedger } = await import("~/server/ledger/verify.server");
const { upkeepEmbeddedDatabase } = await import("~/server/db/upkeep.server");
const { transferBetweenAccounts } = await import("~/server/payments/between-accounts.server");
const { transferToMember } = await import("~/server/payments/to-member.server");
const { fundedMember } = await import("../tests/factories");

interface BenchMember {
  id: string;
  email: string;
  name: string;
  checking_id: number;
  savings_id: number;
  cookie: string;
}

const load = () => os.loadavg().map((n) => Math.round(n * 100) / 100);
const round2 = (n: number) => Math.round(n * 100) / 100;
const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** Members with funded accounts, a password, and a session signed in as a person does it (password, then the emailed code). */
async function prepareMembers(db: Database["db"]): Promise<BenchMember[]> {
  const context = await authFor(db).$context;
  const members: BenchMember[] = [];
  for (let i = 0; i < MEMBERS; i++) {
    const m = await fundedMember(db, { checking_cents: 100_000_000 });
    await context.internalAdapter.linkAccount({
      userId: m.member.id,
      providerId: "credential",
      accountId: m.member.id,
      password: await hashPassword(PASSWORD),
    });
    // Members sign in with a second factor (the emailed code), as every member does.
    await db.update(schema.users).set({ twoFactorEnabled: true }).where(eq(schema.users.id, m.member.id));
    const jar = new Map<string, string>();
    const apply = (lines: readonly string[]) => {
      for (const line of lines) {
        const pair = line.split(";")[0] ?? "";
        const at = pair.indexOf("=");
        jar.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
      }
    };
    const meta = () => ({
      ip: `198.51.100.${i + 1}`,
      user_agent: "bench",
      cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "),
    });
    const started = await startSignIn(db, meta(), { email: m.member.email, password: PASSWORD });
    if (!started.ok || started.status !== "challenge") throw new Error(`sign-in: ${JSON.stringify(started)}`);
    apply(started.set_cookies);
    const [mail] = await db
      .select()
      .from(schema.outbox)
      .where(eq(schema.outbox.to_email, m.member.email))
      .orderBy(desc(schema.outbox.id))
      .limit(1);
    const code = /code is: (\d{6})/.exec(mail?.text_body ?? "")?.[1];
    if (!code) throw new Error("no sign-in code");
    const verified = await verifySignInCode(db, meta(), { code });
    if (!verified.ok) throw new Error(`verify: ${verified.message}`);
    apply(verified.set_cookies);
    members.push({
      id: m.member.id,
      email: m.member.email,
      name: m.member.name,
      checking_id: m.checking.id,
      savings_id: m.savings.id,
      cookie: meta().cookie,
    });
  }
  return members;
}

interface Point {
  clients: number;
  transfers_per_second: number;
  p50_ms: number;
  p99_ms: number;
  /** HTTP only: the app processes' CPU time (user + system) per transfer over the timed part. */
  server_cpu_ms_per_transfer?: number;
  /** HTTP only: the part of it spent in the kernel (sockets: the database's and the client's). */
  server_system_cpu_ms_per_transfer?: number;
  /** This process's CPU time per transfer: the posting itself for the reference, the HTTP client's work for HTTP. */
  bench_cpu_ms_per_transfer: number;
  /**
   * Where the machine's time went during the timed part, in ms per transfer (Linux /proc): the
   * PostgreSQL backends serving the bench's database, nginx (two processes), every other busy
   * process (other people's work, PostgreSQL's shared writers, the kernel's own threads) and the
   * cores' idle time. With the app's and the bench's figures above they add up to the cores'
   * time: (elapsed × cores) ÷ transfers.
   */
  postgres_cpu_ms_per_transfer?: number;
  nginx_cpu_ms_per_transfer?: number;
  others_cpu_ms_per_transfer?: number;
  idle_ms_per_transfer?: number;
}

/** What the timed parts also watch: the bench's PostgreSQL database (its backends) and nginx, while they run. */
const watched: { database?: string; nginx_pid?: number } = {};

/** `clients` loops, each on its own member, for 1 s of warm-up then SECONDS timed. */
async function drive(
  clients: number,
  members: BenchMember[],
  one: (member: BenchMember) => Promise<void>,
  server_pids: readonly number[] = [],
  warm_ms = 1000,
  warm_requests_min = 0,
): Promise<Point> {
  let warm_requests = 0;
  const loop = async (member: BenchMember, until: number, times?: number[]) => {
    while (performance.now() < until || (!times && warm_requests < warm_requests_min)) {
      const started = performance.now();
      await one(member);
      if (times) times.push(performance.now() - started);
      else warm_requests++;
    }
  };
  const warm_until = performance.now() + warm_ms;
  await Promise.all(members.slice(0, clients).map((m) => loop(m, warm_until)));
  const times: number[] = [];
  const postgres_pids = watched.database ? backendPids(watched.database) : [];
  const nginx_pids = watched.nginx_pid ? [watched.nginx_pid, ...childPids(watched.nginx_pid)] : [];
  const postgres_before = cpuMs(postgres_pids);
  const nginx_before = cpuMs(nginx_pids);
  const machine_before = machineMs();
  const cpu_before = cpuMs(server_pids);
  const bench_cpu_before = process.cpuUsage();
  const started = performance.now();
  const until = started + SECONDS * 1000;
  await Promise.all(members.slice(0, clients).map((m) => loop(m, until, times)));
  const elapsed_s = (performance.now() - started) / 1000;
  const bench_cpu = process.cpuUsage(bench_cpu_before);
  const cpu_after = cpuMs(server_pids);
  const machine_after = machineMs();
  const postgres_after = cpuMs(postgres_pids);
  const nginx_after = cpuMs(nginx_pids);
  times.sort((a, b) => a - b);
  const point: Point = {
    clients,
    transfers_per_second: Math.round(times.length / elapsed_s),
    p50_ms: round2(percentile(times, 50)),
    p99_ms: round2(percentile(times, 99)),
    bench_cpu_ms_per_transfer: round2((bench_cpu.user + bench_cpu.system) / 1000 / times.length),
  };
  if (server_pids.length > 0) {
    point.server_cpu_ms_per_transfer = round2(
      (cpu_after.user + cpu_after.system - cpu_before.user - cpu_before.system) / times.length,
    );
    point.server_system_cpu_ms_per_transfer = round2((cpu_after.system - cpu_before.system) / times.length);
  }
  const spent = (after: { user: number; system: number }, before: { user: number; system: number }) =>
    after.user + after.system - before.user - before.system;
  const postgres_ms = spent(postgres_after, postgres_before);
  const nginx_ms = spent(nginx_after, nginx_before);
  if (postgres_pids.length > 0) point.postgres_cpu_ms_per_transfer = round2(postgres_ms / times.length);
  if (nginx_pids.length > 0) point.nginx_cpu_ms_per_transfer = round2(nginx_ms / times.length);
  const others_ms =
    machine_after.busy -
    machine_before.busy -
    spent(cpu_after, cpu_before) -
    postgres_ms -
    nginx_ms -
    (bench_cpu.user + bench_cpu.system) / 1000;
  point.others_cpu_ms_per_transfer = round2(others_ms / times.length);
  point.idle_ms_per_transfer = round2((machine_after.idle - machine_before.idle) / times.length);
  return point;
}

/**
 * A credit union's database has history: 2,000 transfers between the bench's members before
 * anything is timed, then the statistics as the database-upkeep job keeps them. On a database
 * just created, the first postings plan their statements on near-empty tables, and on PGlite
 * (no autovacuum; the job runs every 5 minutes) those plans would stay for the whole first round
 * while its tables grew: the reference's first round ran at a quarter to two-fifths of its later
 * speed, slower at each point (241, 206, 178, 151 per s at 1, 4, 8, 16 clients; then 617-658).
 */
async function withHistory(db: Database["db"], members: readonly BenchMember[]): Promise<void> {
  const one = ledgerOne(db);
  for (let i = 0; i < HISTORY_TRANSFERS; i++) await one(members[i % members.length]!);
  await upkeepEmbeddedDatabase(db);
}
const HISTORY_TRANSFERS = 2000;

function ledgerOne(db: Database["db"]) {
  return async (m: BenchMember) => {
    const result = await postTransfer(db, {
      kind: "transfer",
      initiator: `member:${m.id}`,
      idempotency_key: crypto.randomUUID(),
      created_by: m.id,
      entries: [
        { account_id: m.checking_id, amount_cents: -1 },
        { account_id: m.savings_id, amount_cents: 1 },
      ],
    });
    if (!result.ok) throw new Error(`ledger refused: ${result.code}`);
  };
}

/** The form Between Accounts posts (1 cent, checking to savings, a fresh key each time), and where it posts it. */
const TRANSFER_PATH = "/dashboard.data?transfer=internal";
function transferForm(m: BenchMember): string {
  return new URLSearchParams({
    intent: "internal",
    from_account_id: String(m.checking_id),
    to_account_id: String(m.savings_id),
    amount: "0.01",
    reference: "bench",
    idempotency_key: crypto.randomUUID(),
  }).toString();
}
function checkAnswer(status: number, text: string): void {
  if (status !== 200 || !text.includes("Transfer complete"))
    throw new Error(`transfer answered ${status}: ${text.slice(0, 300)}`);
}

/** With Node's HTTP client (BENCH_HTTP_CLIENT=node): the same request, at about twice the client's CPU. */
function httpOneNode(base: string) {
  const url = new URL(`${base}${TRANSFER_PATH}`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: MEMBERS });
  const one = (m: BenchMember) =>
    new Promise<void>((resolve, reject) => {
      const body = transferForm(m);
      const req = http.request(
        url,
        {
          method: "POST",
          agent,
          headers: {
            cookie: m.cookie,
            origin: base,
            "content-type": "application/x-www-form-urlencoded",
            "content-length": Buffer.byteLength(body),
          },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => void (text += chunk));
          res.on("end", () => {
            try {
              checkAnswer(res.statusCode ?? 0, text);
              resolve();
            } catch (error) {
              reject(error as Error);
            }
          });
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  return { one, close: () => agent.destroy() };
}

/**
 * The bench's own HTTP client: one keep-alive connection per client, the request's bytes written
 * as Node's client writes them (the same headers: cookie, origin, content type and length, host,
 * keep-alive) and the answer read by a minimal HTTP/1.1 reader (status, headers, a body by length
 * or in chunks). The server sees the same request; the client, which shares the two cores with
 * the server and PostgreSQL, costs about half of Node's `http.request` per transfer.
 */
class RawConnection {
  private socket: net.Socket | undefined;
  private received: Buffer = Buffer.alloc(0);
  private waiting:
    { resolve: (answer: { status: number; body: string }) => void; reject: (error: Error) => void } | undefined;
  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  request(head: string, body: string): Promise<{ status: number; body: string }> {
    if (this.waiting) throw new Error("one request at a time on a connection");
    if (!this.socket || this.socket.destroyed) this.connect();
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket!.write(head + body);
    });
  }

  close(): void {
    this.socket?.destroy();
  }

  private connect(): void {
    this.received = Buffer.alloc(0);
    const socket = net.connect(this.port, this.host);
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => {
      this.received = this.received.length === 0 ? chunk : Buffer.concat([this.received, chunk]);
      this.answer();
    });
    const fail = (error: Error) => {
      // A connection closed after its last answer (Connection: close) closes while the next
      // request already waits on a new one: that request is not this connection's.
      if (this.socket !== socket) return;
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting?.reject(error);
    };
    socket.on("error", fail);
    socket.on("close", () => fail(new Error("the connection closed before the answer")));
    this.socket = socket;
  }

  /** Resolves the request once its whole answer is in; otherwise waits for more. */
  private answer(): void {
    const data = this.received;
    const head_end = data.indexOf("\r\n\r\n");
    if (head_end < 0) return;
    const head = data.toString("latin1", 0, head_end).split("\r\n");
    const status = Number(head[0]!.split(" ")[1]);
    let length: number | undefined;
    let chunked = false;
    let close = false;
    let encoding = "";
    for (const line of head.slice(1)) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line
        .slice(colon + 1)
        .trim()
        .toLowerCase();
      if (name === "content-length") length = Number(value);
      else if (name === "content-encoding") encoding = value;
      else if (name === "transfer-encoding") chunked = value.includes("chunked");
      else if (name === "connection") close = value === "close";
    }
    let at = head_end + 4;
    let body: Buffer;
    if (chunked) {
      const parts: Buffer[] = [];
      for (;;) {
        const line_end = data.indexOf("\r\n", at);
        if (line_end < 0) return;
        const size = parseInt(data.toString("latin1", at, line_end), 16);
        if (size === 0) {
          if (data.length < line_end + 4) return; // the last chunk and the blank line after it (no trailers)
          at = line_end + 4;
          break;
        }
        if (data.length < line_end + 2 + size + 2) return;
        parts.push(data.subarray(line_end + 2, line_end + 2 + size));
        at = line_end + 2 + size + 2;
      }
      body = Buffer.concat(parts);
    } else {
      const size = length ?? 0;
      if (data.length < at + size) return;
      body = data.subarray(at, at + size);
      at += size;
    }
    this.received = data.subarray(at);
    const waiting = this.waiting;
    this.waiting = undefined;
    if (close) this.socket?.destroy();
    answers.bytes += body.length;
    if (encoding) answers.encoded++;
    const plain =
      encoding === "br"
        ? zlib.brotliDecompressSync(body)
        : encoding === "gzip"
          ? zlib.gunzipSync(body)
          : encoding === "deflate"
            ? zlib.inflateSync(body)
            : encoding === "zstd"
              ? zlib.zstdDecompressSync(body)
              : body;
    waiting?.resolve({ status, body: plain.toString("utf8") });
  }
}

function httpOneRaw(base: string) {
  const url = new URL(base);
  const connections = new Map<string, RawConnection>();
  const one = async (m: BenchMember) => {
    let connection = connections.get(m.id);
    if (!connection) connections.set(m.id, (connection = new RawConnection(url.hostname, Number(url.port))));
    const body = transferForm(m);
    const head = `POST ${TRANSFER_PATH} HTTP/1.1\r\ncookie: ${m.cookie}\r\norigin: ${base}\r\ncontent-type: application/x-www-form-urlencoded\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${ACCEPT_ENCODING ? `accept-encoding: ${ACCEPT_ENCODING}\r\n` : ""}Host: ${url.host}\r\nConnection: keep-alive\r\n\r\n`;
    const answer = await connection.request(head, body);
    checkAnswer(answer.status, answer.body);
  };
  return { one, close: () => connections.forEach((c) => c.close()) };
}

const httpClient = (base: string) => (process.env.BENCH_HTTP_CLIENT === "node" ? httpOneNode(base) : httpOneRaw(base));

/** The compiled server of `build` (this build, or BENCH_BEFORE_BUILD_DIR's) with the bench's profile. */
class AppProcess extends ServerProcess {
  constructor(port: number, env: Record<string, string>, build = BUILD) {
    super(port, env, { build, institution_file: institutionFile });
  }
}

/** nginx in front of the apps, watched by the timed parts while it runs. */
function startNginx(port: number, app_ports: number[]): ReturnType<typeof startProxy> {
  const nginx = startProxy(work, port, app_ports);
  watched.nginx_pid = nginx.child.pid;
  return {
    child: nginx.child,
    stop: async () => {
      if (watched.nginx_pid === nginx.child.pid) watched.nginx_pid = undefined;
      await nginx.stop();
    },
  };
}

interface Round {
  round: number;
  load_average_start: number[];
  reference: Point[];
  http: Point[];
  /** With BENCH_BEFORE_BUILD_DIR: the same HTTP curve on that build, right after. */
  http_before?: Point[];
}

/** The cores' time per transfer by where it went (means of the rounds), as in `Point`. */
function coreSplit(points: Point[]): Record<string, number> {
  const mean = (pick: (p: Point) => number | undefined) =>
    round2(points.reduce((a, p) => a + (pick(p) ?? 0), 0) / points.length);
  return {
    app: mean((p) => p.server_cpu_ms_per_transfer),
    postgres: mean((p) => p.postgres_cpu_ms_per_transfer),
    nginx: mean((p) => p.nginx_cpu_ms_per_transfer),
    bench: mean((p) => p.bench_cpu_ms_per_transfer),
    others: mean((p) => p.others_cpu_ms_per_transfer),
    idle: mean((p) => p.idle_ms_per_transfer),
  };
}

function summarise(rounds: Round[]) {
  return CLIENTS.map((clients) => {
    const ref = rounds.map((r) => r.reference.find((p) => p.clients === clients)!.transfers_per_second);
    const got = rounds.map((r) => r.http.find((p) => p.clients === clients)!.transfers_per_second);
    const mean = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) / xs.length);
    const cpu = rounds.map((r) => r.http.find((p) => p.clients === clients)!.server_cpu_ms_per_transfer ?? 0);
    const meanOf = (xs: number[]) => round2(xs.reduce((a, b) => a + b, 0) / xs.length);
    const httpPoint = (r: Round) => r.http.find((p) => p.clients === clients)!;
    const point = {
      clients,
      reference_per_s: mean(ref),
      http_per_s: mean(got),
      ratio: round2(mean(got) / mean(ref)),
      ratio_per_round: ref.map((r, i) => round2(got[i]! / r)),
      server_cpu_ms_per_transfer: round2(cpu.reduce((a, b) => a + b, 0) / cpu.length),
      server_system_cpu_ms_per_transfer: meanOf(rounds.map((r) => httpPoint(r).server_system_cpu_ms_per_transfer ?? 0)),
      bench_cpu_ms_per_transfer_http: meanOf(rounds.map((r) => httpPoint(r).bench_cpu_ms_per_transfer)),
      bench_cpu_ms_per_transfer_reference: meanOf(
        rounds.map((r) => r.reference.find((p) => p.clients === clients)!.bench_cpu_ms_per_transfer),
      ),
      // Where the cores' time went, ms per transfer: HTTP, then the reference.
      cores_http: coreSplit(rounds.map(httpPoint)),
      cores_reference: coreSplit(rounds.map((r) => r.reference.find((p) => p.clients === clients)!)),
    };
    if (!rounds.every((r) => r.http_before)) return point;
    const beforePoints = rounds.map((r) => r.http_before!.find((p) => p.clients === clients)!);
    const before = beforePoints.map((p) => p.transfers_per_second);
    return {
      ...point,
      http_before_per_s: mean(before),
      ratio_before: round2(mean(before) / mean(ref)),
      server_cpu_ms_per_transfer_before: meanOf(beforePoints.map((p) => p.server_cpu_ms_per_transfer ?? 0)),
    };
  });
}

/**
 * A server just started runs its code unoptimised at first: its first seconds and requests are
 * not timed (on a loaded machine 4 s can be a few dozen requests, so at least 300). The reference
 * gets the same before its first point (it had 1 s), so that both sides are timed warm: on PGlite
 * it opens the folder afresh each round.
 */
const WARM_UP_MS = 4000;
const WARM_UP_REQUESTS = 300;

async function curve(members: BenchMember[], base: string, server_pids: readonly number[]): Promise<Point[]> {
  const client = httpClient(base);
  const points: Point[] = [];
  for (const [i, clients] of CLIENTS.entries())
    points.push(
      await drive(
        clients,
        members,
        client.one,
        server_pids,
        i === 0 ? WARM_UP_MS : 1000,
        i === 0 ? WARM_UP_REQUESTS : 0,
      ),
    );
  client.close();
  return points;
}

async function referenceCurve(db: Database["db"], members: BenchMember[]): Promise<Point[]> {
  const points: Point[] = [];
  for (const [i, clients] of CLIENTS.entries())
    points.push(
      await drive(clients, members, ledgerOne(db), [], i === 0 ? WARM_UP_MS : 1000, i === 0 ? WARM_UP_REQUESTS : 0),
    );
  return points;
}

function report(setup: string, rounds: Round[]): void {
  for (const r of rounds) {
    const before = (i: number) =>
      r.http_before
        ? `, before ${r.http_before[i]!.transfers_per_second} (${r.http_before[i]!.server_cpu_ms_per_transfer})`
        : "";
    console.log(
      `${setup} round ${r.round} (load ${r.load_average_start.join(" ")}), clients: HTTP/ledger (server CPU ms a transfer, of it system; bench CPU ms a transfer, HTTP/ledger): ${CLIENTS.map((c, i) => `${c}: ${r.http[i]!.transfers_per_second}/${r.reference[i]!.transfers_per_second} (${r.http[i]!.server_cpu_ms_per_transfer}, ${r.http[i]!.server_system_cpu_ms_per_transfer}; ${r.http[i]!.bench_cpu_ms_per_transfer}/${r.reference[i]!.bench_cpu_ms_per_transfer}${before(i)})`).join(", ")}`,
    );
    const cores = (p: Point) => Object.values(coreSplit([p])).join("/");
    console.log(
      `  cores' ms a transfer, app/postgres/nginx/bench/others/idle, HTTP; ledger: ${CLIENTS.map((c, i) => `${c}: ${cores(r.http[i]!)}; ${cores(r.reference[i]!)}`).join(", ")}`,
    );
  }
}

async function pgliteSetup(): Promise<{ rounds: Round[]; verified: boolean }> {
  const dataDir = path.join(work, "pglite");
  const prepared = await openDatabase({ kind: "pglite", dataDir });
  await migrateDatabase(prepared);
  const members = await prepareMembers(prepared.db);
  await withHistory(prepared.db, members);
  await prepared.close();
  const rounds: Round[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const load_average_start = load();
    // One process at a time may open the folder: the reference in this one, then the server.
    // The statistics as the app's database-upkeep job keeps them (PGlite has no autovacuum), fresh
    // before each side's timed part: the reference's postings would otherwise leave the server
    // planning on older figures than the reference had.
    const database = await openDatabase({ kind: "pglite", dataDir });
    await upkeepEmbeddedDatabase(database.db);
    const reference = await referenceCurve(database.db, members);
    await upkeepEmbeddedDatabase(database.db);
    await database.close();
    const app = new AppProcess(PORT, { DATA_DIR: dataDir });
    await app.ready();
    const got = await curve(members, `http://127.0.0.1:${PORT}`, [app.child.pid!]);
    await app.stop();
    let http_before: Point[] | undefined;
    if (BEFORE_BUILD) {
      const before = new AppProcess(PORT, { DATA_DIR: dataDir }, BEFORE_BUILD);
      await before.ready();
      http_before = await curve(members, `http://127.0.0.1:${PORT}`, [before.child.pid!]);
      await before.stop();
    }
    rounds.push({ round, load_average_start, reference, http: got, http_before });
    report("pglite", rounds.slice(-1));
  }
  const database = await openDatabase({ kind: "pglite", dataDir });
  const verified = (await verifyLedger(database.db)).ok;
  await database.close();
  return { rounds, verified };
}

async function postgresSetup(processes: number): Promise<{ rounds: Round[]; verified: boolean }> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  const name = `mutual_bench_transfers_${process.pid}_${processes}`;
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const database = await openDatabase({ kind: "postgres", url: url.toString(), pool_max: 20 });
  watched.database = name;
  const apps: AppProcess[] = [];
  let nginx: ReturnType<typeof startNginx> | undefined;
  try {
    await migrateDatabase(database);
    const members = await prepareMembers(database.db);
    await withHistory(database.db, members);
    const env: Record<string, string> = {
      DATABASE_URL: url.toString(),
      DATA_DIR: path.join(work, `pg-${processes}`),
      ...(processes > 1 ? { TRUST_PROXY: "1" } : {}),
    };
    // The apps on free ports (the ports after BENCH_PORT may be other people's); the proxy, or the one app, is what clients ask.
    for (let i = 0; i < processes; i++) apps.push(new AppProcess(processes > 1 ? await freePort() : PORT, env));
    await Promise.all(apps.map((a) => a.ready()));
    let base = `http://127.0.0.1:${apps[0]!.port}`;
    if (processes > 1) {
      nginx = startNginx(
        PORT,
        apps.map((a) => a.port),
      );
      base = `http://127.0.0.1:${PORT}`;
      await waitFor(`${base}/healthz`, () => nginx!.child.exitCode !== null);
    }
    const rounds: Round[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const load_average_start = load();
      const reference = await referenceCurve(database.db, members);
      const got = await curve(
        members,
        base,
        apps.map((a) => a.child.pid!),
      );
      let http_before: Point[] | undefined;
      if (BEFORE_BUILD) {
        // The earlier build's processes, on the same ports, while this build's are stopped.
        await nginx?.stop();
        await Promise.all(apps.map((a) => a.stop()));
        const before = apps.map((a) => new AppProcess(a.port, env, BEFORE_BUILD));
        await Promise.all(before.map((a) => a.ready()));
        if (processes > 1)
          nginx = startNginx(
            PORT,
            before.map((a) => a.port),
          );
        if (nginx) await waitFor(`${base}/healthz`, () => nginx!.child.exitCode !== null);
        http_before = await curve(
          members,
          base,
          before.map((a) => a.child.pid!),
        );
        await nginx?.stop();
        await Promise.all(before.map((a) => a.stop()));
        apps.splice(0, apps.length, ...apps.map((a) => new AppProcess(a.port, env)));
        await Promise.all(apps.map((a) => a.ready()));
        if (processes > 1)
          nginx = startNginx(
            PORT,
            apps.map((a) => a.port),
          );
        if (nginx) await waitFor(`${base}/healthz`, () => nginx!.child.exitCode !== null);
      }
      rounds.push({ round, load_average_start, reference, http: got, http_before });
      report(`pg${processes}`, rounds.slice(-1));
    }
    const verified = (await verifyLedger(database.db)).ok;
    return { rounds, verified };
  } finally {
    await nginx?.stop();
    await Promise.all(apps.map((a) => a.stop()));
    watched.database = undefined;
    await database.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.end();
  }
}

/** Round trips of one transfer, counted on node-postgres (each is one call of the client's `query`). */
async function statementsPerTransfer() {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  const name = `mutual_bench_statements_${process.pid}`;
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const database = await openDatabase({ kind: "postgres", url: url.toString() });
  try {
    await migrateDatabase(database);
    const db = database.db;
    const a = await fundedMember(db, { checking_cents: 1_000_000 });
    const b = await fundedMember(db);
    const count = async (work: () => Promise<unknown>) => {
      await work(); // a first call prepares the statements
      let n = 0;
      const query = pg.Client.prototype.query;
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        n++;
        return (query as (...x: unknown[]) => unknown).apply(this, args);
      } as typeof query;
      try {
        await work();
      } finally {
        pg.Client.prototype.query = query;
      }
      return n;
    };
    const m = { ...a.member, checking_id: a.checking.id, savings_id: a.savings.id, cookie: "" };
    return {
      ledger_alone: await count(() => ledgerOne(db)(m)),
      between_accounts: await count(() =>
        transferBetweenAccounts(db, a.member, {
          from_account_id: a.checking.id,
          to_account_id: a.savings.id,
          amount_cents: 1,
          reference: "bench",
          idempotency_key: crypto.randomUUID(),
        }),
      ),
      to_another_member: await count(() =>
        transferToMember(db, a.member, {
          from_account_id: a.checking.id,
          recipient_email: b.member.email,
          amount_cents: 1,
          reference: "bench",
          idempotency_key: crypto.randomUUID(),
        } as Parameters<typeof transferToMember>[2]),
      ),
    };
  } finally {
    await database.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.end();
  }
}

async function main() {
  console.log("Building (only what changed)...");
  if (
    process.env.BENCH_SKIP_BUILD !== "1" &&
    spawnSync(process.execPath, ["scripts/build-server.mjs"], {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, MUTUAL_BUILD_DIR: BUILD },
    }).status !== 0
  )
    throw new Error("build failed");
  const started = new Date().toISOString();
  const load_before = load();
  const statements = await statementsPerTransfer();
  console.log("round trips per transfer (PostgreSQL):", statements);
  const setups: Record<string, { rounds: Round[]; verified: boolean; curve: ReturnType<typeof summarise> }> = {};
  for (const setup of SETUPS) {
    const result = setup === "pglite" ? await pgliteSetup() : await postgresSetup(setup === "pg2" ? 2 : 1);
    setups[setup] = { ...result, curve: summarise(result.rounds) };
    console.table(setups[setup].curve.map(({ cores_http: _h, cores_reference: _r, ...point }) => point));
  }
  const result = {
    date: started,
    machine: `${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown"}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
    load_average: { before: load_before, after: load() },
    // What the HTTP client asked for, and how the answers came (all rounds and builds together).
    accept_encoding: ACCEPT_ENCODING || "none",
    http_answers: answers,
    seconds_per_point: SECONDS,
    members: MEMBERS,
    round_trips_per_transfer_postgresql: statements,
    setups: Object.fromEntries(
      Object.entries(setups).map(([name, s]) => [
        name,
        {
          database:
            name === "pglite"
              ? "PGlite (embedded, on disk), one app process"
              : name === "pg1"
                ? "PostgreSQL, one app process (pool 20)"
                : "PostgreSQL, two app processes (pool 20 each) behind nginx",
          ratio_at_8_clients: s.curve.find((p) => p.clients === 8)?.ratio ?? null,
          curve: s.curve,
          ledger_verified: s.verified,
          rounds: s.rounds,
        },
      ]),
    ),
  };
  fs.mkdirSync(path.join(root, "bench/results"), { recursive: true });
  fs.writeFileSync(
    path.join(root, `bench/results/${process.env.BENCH_OUT ?? "transfers"}.json`),
    JSON.stringify(result, null, 2) + "\n",
  );
  console.log(
    `load average before ${result.load_average.before.join(" ")}, after ${result.load_average.after.join(" ")}`,
  );
}

try {
  await main();
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
