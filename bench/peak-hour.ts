/**
 * The peak hour of a credit union, as its members make it (issue 31, "Capacity, measured as
 * members use it"): every kind of request at the rate a credit union of BENCH_MEMBERS members
 * (1,000,000 by default) makes it in its busiest hour, all at once, against the compiled server
 * on PostgreSQL, BENCH_PROCESSES app processes (2) behind Debian's nginx configured from the
 * shipped site, on this one machine. Then the same at larger multiples of that rate
 * (BENCH_SCALES), until one fails the goal, to find where the first limit is.
 *
 * The goal: every request kind's p95 under 250 ms and no errors at the full rate (scale 1).
 *
 * Arrivals are open-loop (a Poisson process per kind): a request is sent when its time comes,
 * whether or not the earlier ones were answered, and its time is counted from when it was due,
 * so a server that falls behind shows it in the latency instead of being asked less.
 *
 *   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:55432/postgres node --import tsx bench/peak-hour.ts
 *
 * Environment: BENCH_DATABASE_URL (the PostgreSQL the bench creates its database on),
 * BENCH_MEMBERS (1000000), BENCH_PROCESSES (2), BENCH_SECONDS (30 per step, after 10 s of
 * warm-up at the first), BENCH_SCALES (0.5,1,1.5,2,3), BENCH_PORT (3406, nginx), BENCH_SKIP_BUILD=1,
 * MUTUAL_BUILD_DIR (build), NGINX_BIN, BENCH_OUT (peak-hour).
 */
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import pg from "pg";
import { eq, inArray, sql } from "drizzle-orm";
import { demoInstitution } from "~/config/demo-institution";
import {
  AppProcess,
  benchEnvironment,
  backendPids,
  childPids,
  cpuMs,
  freePort,
  machineMs,
  startNginx,
  waitFor,
} from "./processes";

const root = path.resolve(import.meta.dirname, "..");
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:55432/postgres";
const CU_MEMBERS = Number(process.env.BENCH_MEMBERS ?? 1_000_000);
const PROCESSES = Number(process.env.BENCH_PROCESSES ?? 2);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const WARM_UP_S = 10;
const SCALES = (process.env.BENCH_SCALES ?? "0.5,1,1.5,2,3").split(",").map(Number);
const PORT = Number(process.env.BENCH_PORT ?? 3406);
const BUILD = path.resolve(root, process.env.MUTUAL_BUILD_DIR ?? "build");
const PASSWORD = "Bench-Member-Pass-1";
const P95_GOAL_MS = 250;

// ---------------------------------------------------------------------------------------------
// The peak hour, from members to requests per second. Every figure is stated with its source or
// as an assumption, so that a credit union can put in its own.

const MIX_SOURCES = {
  digital_share:
    "0.83: Bank of America, Q2 2023 results: digital households 83% of its consumer relationships (PYMNTS, 2023-07-18). A credit union's share is lower; the larger share is the harder load.",
  sign_ins_per_digital_member_per_day:
    "0.67: Bank of America, 2024: 14.3 billion logins by 58 million verified digital clients (press release, 2025-02-25): 14.3e9 / 58e6 / 366 days. Every login is taken as a whole two-step sign-in here; a real app keeps many signed in.",
  peak_hour_share:
    "0.10 (assumption): the busiest hour carries 10% of the day's sign-ins, 2.4 times an even spread (a payday morning).",
  per_sign_in:
    "assumption: each sign-in is followed by 2 dashboard loads and 1 history page; 0.08 transfers between the member's accounts, 0.04 to another member and 0.03 to another bank (Bank of America: 244 million Zelle payments in Q2 2024 against 3.5 billion logins, 0.07 a login, all kinds of transfer together about twice that); 0.05 bill payments and 0.05 statement downloads (a monthly bill and statement among some 20 sign-ins a month).",
  staff:
    "assumption: one member-service employee for 2,000 members (credit unions employ about one for 400 members in all), each searching the member directory 20 times in the hour.",
};

const SIGN_INS_PER_S = (CU_MEMBERS * 0.83 * (14.3e9 / 58e6 / 366) * 0.1) / 3600;
/** Requests (flows) per second of each kind at scale 1. */
const RATES_PER_S: Record<Kind, number> = {
  sign_in: SIGN_INS_PER_S,
  dashboard: SIGN_INS_PER_S * 2,
  history: SIGN_INS_PER_S,
  transfer_between_accounts: SIGN_INS_PER_S * 0.08,
  transfer_to_member: SIGN_INS_PER_S * 0.04,
  transfer_to_us_bank: SIGN_INS_PER_S * 0.03,
  bill_payment: SIGN_INS_PER_S * 0.05,
  statement_pdf: SIGN_INS_PER_S * 0.05,
  staff_directory_search: ((CU_MEMBERS / 2000) * 20) / 3600,
};
type Kind =
  | "sign_in"
  | "dashboard"
  | "history"
  | "transfer_between_accounts"
  | "transfer_to_member"
  | "transfer_to_us_bank"
  | "bill_payment"
  | "statement_pdf"
  | "staff_directory_search";

// ---------------------------------------------------------------------------------------------
// Set-up: the server's environment and the bench's members, made before anything is timed.

const { work, institution_file: institutionFile } = benchEnvironment("peak");

const { openDatabase, migrateDatabase } = await import("~/server/db/client.server");
type Database = Awaited<ReturnType<typeof openDatabase>>;
const schema = await import("~/server/db/schema");
const { authFor, hashPassword } = await import("~/server/auth/auth.server");
const { verifyLedger } = await import("~/server/ledger/verify.server");
const { businessDate } = await import("~/domain/ledger-rules");
const { addDays } = await import("~/domain/schedule");
const { businessDayOnOrAfter } = await import("~/domain/payment-dates");
const { fundedMember, sessionCookie, staff } = await import("../tests/factories");

/** Members signed in before the run, each on a network address of its own (127.1.x.y). */
const SESSION_MEMBERS = 300;
/** Members who sign in during the run, each sign-in from one of SIGN_IN_ADDRESSES addresses in turn. */
const SIGN_IN_MEMBERS = 400;
/** Sign-ins are limited to 30 per address in 15 minutes: the run's sign-ins spread over this many addresses. */
const SIGN_IN_ADDRESSES = 4000;

interface BenchMember {
  id: string;
  email: string;
  checking_id: number;
  savings_id: number;
  payee_id: number;
  cookie: string;
  agent: http.Agent;
}

const address = (n: number) => `127.${1 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;

async function prepare(db: Database["db"]): Promise<{
  members: BenchMember[];
  sign_in_emails: string[];
  staff_cookie: string;
  staff_agent: http.Agent;
  last_names: string[];
}> {
  const context = await authFor(db).$context;
  const hash = await hashPassword(PASSWORD);
  const members: BenchMember[] = [];
  const sign_in_emails: string[] = [];
  const last_names: string[] = [];
  for (let i = 0; i < SESSION_MEMBERS + SIGN_IN_MEMBERS; i++) {
    const m = await fundedMember(db, { checking_cents: 100_000_000, savings_cents: 1_000_000 });
    last_names.push(m.member.name.split(" ")[1]!);
    if (i >= SESSION_MEMBERS) {
      await context.internalAdapter.linkAccount({
        userId: m.member.id,
        providerId: "credential",
        accountId: m.member.id,
        password: hash,
      });
      // Members sign in with a second factor (the emailed code), as every member does.
      await db.update(schema.users).set({ twoFactorEnabled: true }).where(eq(schema.users.id, m.member.id));
      sign_in_emails.push(m.member.email);
      continue;
    }
    const [payee] = await db
      .insert(schema.billPayees)
      .values({ member_id: m.member.id, name: "Harbor Electric", account_number: `55${i}` })
      .returning({ id: schema.billPayees.id });
    members.push({
      id: m.member.id,
      email: m.member.email,
      checking_id: m.checking.id,
      savings_id: m.savings.id,
      payee_id: payee!.id,
      cookie: await sessionCookie(db, m.member.id),
      agent: new http.Agent({ keepAlive: true, localAddress: address(i + 1) }),
    });
  }
  // Opened 70 days ago, so that last month has a statement to download.
  const ids = members.map((m) => m.id);
  await db
    .update(schema.ledgerAccounts)
    .set({ opened_at: sql`now() - interval '70 days'` })
    .where(inArray(schema.ledgerAccounts.member_id, ids));
  const clerk = await staff(db);
  return {
    members,
    sign_in_emails,
    staff_cookie: await sessionCookie(db, clerk.id),
    staff_agent: new http.Agent({ keepAlive: true, localAddress: address(SESSION_MEMBERS + 1) }),
    last_names,
  };
}

// ---------------------------------------------------------------------------------------------
// The HTTP client: a browser's headers (compression asked for, the Origin of a form post).

interface Answer {
  status: number;
  body: string;
  set_cookies: string[];
}

function request(
  base: string,
  agent: http.Agent,
  method: "GET" | "POST",
  pathname: string,
  cookie: string,
  form?: Record<string, string>,
): Promise<Answer> {
  const body = form ? new URLSearchParams(form).toString() : undefined;
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${pathname}`,
      {
        method,
        agent,
        headers: {
          cookie,
          origin: base,
          "accept-encoding": "gzip, deflate, br",
          ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => {
          const raw = Buffer.concat(chunks);
          const encoding = res.headers["content-encoding"];
          const text = (
            encoding === "br"
              ? zlib.brotliDecompressSync(raw)
              : encoding === "gzip"
                ? zlib.gunzipSync(raw)
                : encoding === "deflate"
                  ? zlib.inflateSync(raw)
                  : raw
          ).toString("utf8");
          resolve({ status: res.statusCode ?? 0, body: text, set_cookies: res.headers["set-cookie"] ?? [] });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const withCookies = (cookie: string, set_cookies: string[]) => {
  const jar = new Map(
    cookie
      .split("; ")
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)] as const),
  );
  for (const line of set_cookies) {
    const pair = line.split(";")[0]!;
    jar.set(pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1));
  }
  return [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
};

// ---------------------------------------------------------------------------------------------
// One flow per kind: its HTTP requests, each timed under its own name.

type Record_ = (name: string, ms: number, ok: boolean, detail?: string) => void;

interface Flows {
  run(kind: Kind, due_ms: number, record: Record_): Promise<void>;
}

function flows(
  base: string,
  codes: pg.Pool,
  setup: Awaited<ReturnType<typeof prepare>>,
  today: string,
  statement_month: string,
): Flows {
  let turn = 0;
  let sign_in_turn = 0;
  const member = () => setup.members[turn++ % setup.members.length]!;
  const payment_date = businessDayOnOrAfter(addDays(today, 1));

  /** The newest code emailed to `email` after outbox row `after_id` (sign-in and step-up codes). */
  const codeFor = async (email: string, after_id: number): Promise<string | undefined> => {
    const { rows } = await codes.query<{ text_body: string }>(
      "select text_body from outbox where to_email = $1 and id > $2 order by id desc limit 1",
      [email, after_id],
    );
    return /code is: (\d{6})/.exec(rows[0]?.text_body ?? "")?.[1];
  };
  const lastOutboxId = async (email: string): Promise<number> => {
    const { rows } = await codes.query<{ id: string }>(
      "select coalesce(max(id), 0) as id from outbox where to_email = $1",
      [email],
    );
    return Number(rows[0]!.id);
  };

  /** One request timed from `since` (when it was due, for a flow's first), checked by `ok`. */
  const timed = async (
    record: Record_,
    name: string,
    since: number,
    send: () => Promise<Answer>,
    ok: (answer: Answer) => boolean,
  ): Promise<Answer | undefined> => {
    try {
      const answer = await send();
      const good = ok(answer);
      record(name, performance.now() - since, good, good ? undefined : `${answer.status} ${answer.body.slice(0, 160)}`);
      return good ? answer : undefined;
    } catch (error) {
      record(name, performance.now() - since, false, String(error));
      return undefined;
    }
  };
  const page = (answer: Answer) => answer.status === 200;
  const done = (answer: Answer) => answer.status === 200 && answer.body.includes('"done"');
  const key = () => crypto.randomUUID();

  return {
    async run(kind, due_ms, record) {
      switch (kind) {
        case "sign_in": {
          const email = setup.sign_in_emails[sign_in_turn % setup.sign_in_emails.length]!;
          const agent = new http.Agent({
            keepAlive: false,
            localAddress: address(SESSION_MEMBERS + 2 + (sign_in_turn % SIGN_IN_ADDRESSES)),
          });
          sign_in_turn++;
          const before = await lastOutboxId(email);
          const first = await timed(
            record,
            "sign-in: password",
            due_ms,
            () => request(base, agent, "POST", "/login", "", { intent: "password", email, password: PASSWORD }),
            (a) => a.status === 302,
          );
          if (!first) return;
          const code = await codeFor(email, before);
          if (!code) return record("sign-in: code", 0, false, "no code in the outbox");
          await timed(
            record,
            "sign-in: code",
            performance.now(),
            () => request(base, agent, "POST", "/login", withCookies("", first.set_cookies), { intent: "code", code }),
            (a) => a.status === 302,
          );
          return;
        }
        case "dashboard": {
          const m = member();
          await timed(record, "dashboard", due_ms, () => request(base, m.agent, "GET", "/dashboard", m.cookie), page);
          return;
        }
        case "history": {
          const m = member();
          await timed(
            record,
            "history",
            due_ms,
            () => request(base, m.agent, "GET", "/dashboard/transactions", m.cookie),
            page,
          );
          return;
        }
        case "statement_pdf": {
          const m = member();
          await timed(
            record,
            "statement PDF",
            due_ms,
            () => request(base, m.agent, "GET", `/dashboard/statements/${m.checking_id}/${statement_month}`, m.cookie),
            (a) => a.status === 200 && a.body.startsWith("%PDF"),
          );
          return;
        }
        case "transfer_between_accounts": {
          const m = member();
          await timed(
            record,
            "transfer between accounts",
            due_ms,
            () =>
              request(base, m.agent, "POST", "/dashboard.data", m.cookie, {
                intent: "internal",
                from_account_id: String(m.checking_id),
                to_account_id: String(m.savings_id),
                amount: "0.01",
                reference: "Peak hour",
                idempotency_key: key(),
              }),
            done,
          );
          return;
        }
        case "transfer_to_member": {
          const m = member();
          const to = setup.members[(turn + 7) % setup.members.length]!;
          await timed(
            record,
            "transfer to another member",
            due_ms,
            () =>
              request(base, m.agent, "POST", "/dashboard.data", m.cookie, {
                intent: "member",
                from_account_id: String(m.checking_id),
                recipient_email: to.email,
                amount: "0.01",
                reference: "Peak hour",
                idempotency_key: key(),
              }),
            done,
          );
          return;
        }
        case "transfer_to_us_bank": {
          const m = member();
          const form = {
            from_account_id: String(m.checking_id),
            bank: "other",
            routing_number: "011000015",
            account_number: "123456789",
            account_type: "checking",
            account_name: "Pat Member",
            amount: "0.01",
            reference: "Peak hour",
            idempotency_key: key(),
          };
          const before = await lastOutboxId(m.email);
          const review = await timed(
            record,
            "transfer to another bank: review",
            due_ms,
            () => request(base, m.agent, "POST", "/dashboard.data", m.cookie, { intent: "ach-review", ...form }),
            (a) => a.status === 200 && a.body.includes('"otp"'),
          );
          if (!review) return;
          const code = await codeFor(m.email, before);
          if (!code) return record("transfer to another bank: send", 0, false, "no code in the outbox");
          await timed(
            record,
            "transfer to another bank: send",
            performance.now(),
            () =>
              request(base, m.agent, "POST", "/dashboard.data", m.cookie, { intent: "ach-send", otp: code, ...form }),
            done,
          );
          return;
        }
        case "bill_payment": {
          const m = member();
          await timed(
            record,
            "bill payment",
            due_ms,
            () =>
              request(base, m.agent, "POST", "/dashboard/bill-pay.data", m.cookie, {
                intent: "schedule",
                payee: `payee:${m.payee_id}`,
                payee_account_number: "",
                from_account_id: String(m.checking_id),
                amount: "0.01",
                payment_date,
                memo: "",
                idempotency_key: key(),
              }),
            (a) => a.status === 200 && !/"(refused|invalid)"/.test(a.body),
          );
          return;
        }
        case "staff_directory_search": {
          const name = setup.last_names[turn++ % setup.last_names.length]!;
          await timed(
            record,
            "staff directory search",
            due_ms,
            () =>
              request(
                base,
                setup.staff_agent,
                "GET",
                `/admin?q=${encodeURIComponent(name.slice(0, 8))}`,
                setup.staff_cookie,
              ),
            page,
          );
          return;
        }
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// A step: every kind at its rate times `scale`, for `seconds`.

interface KindResult {
  requests: number;
  per_s: number;
  errors: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  first_error?: string;
}

interface Step {
  scale: number;
  members_equivalent: number;
  offered_flows_per_s: number;
  requests_per_s: number;
  kinds: Record<string, KindResult>;
  /** Where the cores' time went, ms per HTTP request (Linux /proc). */
  cpu_ms_per_request: { app: number; postgres: number; nginx: number; bench: number; others: number; idle: number };
  /** Each app process's share of one core over the step (a Node process runs JavaScript on one). */
  app_process_core_share: number[];
  met: boolean;
  load_average_start: number[];
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const round2 = (n: number) => Math.round(n * 100) / 100;

/** Exponential gaps: a Poisson process of `per_s` arrivals a second. */
const gapMs = (per_s: number) => (-Math.log(1 - Math.random()) / per_s) * 1000;

async function step(
  scale: number,
  seconds: number,
  run: Flows,
  pids: { app: number[]; nginx: number; database: string },
): Promise<Step> {
  const times = new Map<string, number[]>();
  const errors = new Map<string, { count: number; first?: string }>();
  const record: Record_ = (name, ms, ok, detail) => {
    if (!times.has(name)) times.set(name, []);
    if (!errors.has(name)) errors.set(name, { count: 0 });
    if (ok) times.get(name)!.push(ms);
    else {
      const e = errors.get(name)!;
      e.count++;
      e.first ??= detail;
    }
  };
  const load_average_start = os.loadavg().map(round2);
  const postgres_pids = backendPids(pids.database);
  const nginx_pids = [pids.nginx, ...childPids(pids.nginx)];
  const app_before = pids.app.map((pid) => cpuMs([pid]));
  const postgres_before = cpuMs(postgres_pids);
  const nginx_before = cpuMs(nginx_pids);
  const machine_before = machineMs();
  const bench_before = process.cpuUsage();
  const started = performance.now();
  const end = started + seconds * 1000;
  const flowsInFlight: Promise<void>[] = [];
  await Promise.all(
    (Object.keys(RATES_PER_S) as Kind[]).map(async (kind) => {
      const per_s = RATES_PER_S[kind] * scale;
      let due = started + gapMs(per_s);
      while (due < end) {
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        flowsInFlight.push(run.run(kind, due, record));
        due += gapMs(per_s);
      }
    }),
  );
  await Promise.all(flowsInFlight);
  const elapsed_s = (performance.now() - started) / 1000;
  const spent = (after: { user: number; system: number }, before: { user: number; system: number }) =>
    after.user + after.system - before.user - before.system;
  const app_ms = pids.app.map((pid, i) => spent(cpuMs([pid]), app_before[i]!));
  const postgres_ms = spent(cpuMs(postgres_pids), postgres_before);
  const nginx_ms = spent(cpuMs(nginx_pids), nginx_before);
  const machine_after = machineMs();
  const bench_cpu = process.cpuUsage(bench_before);
  const bench_ms = (bench_cpu.user + bench_cpu.system) / 1000;
  const kinds: Record<string, KindResult> = {};
  let requests = 0;
  for (const name of [...new Set([...times.keys(), ...errors.keys()])].sort()) {
    const list = (times.get(name) ?? []).sort((a, b) => a - b);
    const e = errors.get(name) ?? { count: 0 };
    requests += list.length + e.count;
    kinds[name] = {
      requests: list.length + e.count,
      per_s: round2((list.length + e.count) / elapsed_s),
      errors: e.count,
      p50_ms: round2(percentile(list, 50)),
      p95_ms: round2(percentile(list, 95)),
      p99_ms: round2(percentile(list, 99)),
      ...(e.first ? { first_error: e.first } : {}),
    };
  }
  const app_total = app_ms.reduce((a, b) => a + b, 0);
  const per = (ms: number) => round2(ms / Math.max(1, requests));
  const machine_busy = machine_after.busy - machine_before.busy;
  return {
    scale,
    members_equivalent: Math.round(CU_MEMBERS * scale),
    offered_flows_per_s: round2(Object.values(RATES_PER_S).reduce((a, b) => a + b, 0) * scale),
    requests_per_s: round2(requests / elapsed_s),
    kinds,
    cpu_ms_per_request: {
      app: per(app_total),
      postgres: per(postgres_ms),
      nginx: per(nginx_ms),
      bench: per(bench_ms),
      others: per(machine_busy - app_total - postgres_ms - nginx_ms - bench_ms),
      idle: per(machine_after.idle - machine_before.idle),
    },
    app_process_core_share: app_ms.map((ms) => round2(ms / (elapsed_s * 1000))),
    met: Object.values(kinds).every((k) => k.errors === 0 && k.p95_ms < P95_GOAL_MS),
    load_average_start,
  };
}

/** What stopped the first step that failed: the cores, one app process's thread, or neither. */
function firstLimit(failed: Step): string {
  const slow = Object.entries(failed.kinds)
    .filter(([, k]) => k.errors > 0 || k.p95_ms >= P95_GOAL_MS)
    .map(([name, k]) => `${name} (p95 ${k.p95_ms} ms${k.errors ? `, ${k.errors} errors: ${k.first_error}` : ""})`);
  const c = failed.cpu_ms_per_request;
  const total = c.app + c.postgres + c.nginx + c.bench + c.others + c.idle;
  const idle_share = total > 0 ? c.idle / total : 0;
  const busiest_process = Math.max(...failed.app_process_core_share);
  const where =
    idle_share < 0.05
      ? `the machine's cores (idle ${Math.round(idle_share * 100)}%): of each request's CPU, app ${c.app} ms, PostgreSQL ${c.postgres} ms, nginx ${c.nginx} ms, the bench's own client ${c.bench} ms`
      : busiest_process > 0.9
        ? `one app process's JavaScript thread (${Math.round(busiest_process * 100)}% of a core) while ${Math.round(idle_share * 100)}% of the cores sat idle: more app processes`
        : `neither the cores (idle ${Math.round(idle_share * 100)}%) nor one app process (busiest at ${Math.round(busiest_process * 100)}% of a core): a queue (the database pool, locks)`;
  return `at ${failed.scale}× (${failed.members_equivalent.toLocaleString("en-US")} members): ${slow.join("; ")}; the limit: ${where}`;
}

/**
 * What the run's database holds, for docs/operations.md's capacity table: its size, and the bytes
 * a member and a ledger transaction take with their indexes (the member's rows: user, profile,
 * settings, accounts; a transaction's: the transaction, its entries, its notification).
 */
async function storageFigures(admin: pg.Client, database: string, database_url: string) {
  const own = new pg.Client({ connectionString: database_url });
  await own.connect();
  try {
    const size = async (tables: string[]) =>
      Number(
        (
          await own.query<{ bytes: string }>(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::text AS bytes FROM pg_class c WHERE c.relkind = 'r' AND c.relname = ANY($1)",
            [tables],
          )
        ).rows[0]!.bytes,
      );
    const count = async (table: string) =>
      Number((await own.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table}`)).rows[0]!.n);
    const members = await count("member_profiles");
    const transactions = await count("ledger_transactions");
    const database_bytes = Number(
      (await admin.query<{ bytes: string }>("SELECT pg_database_size($1)::text AS bytes", [database])).rows[0]!.bytes,
    );
    const member_bytes = await size(["users", "member_profiles", "member_settings", "ledger_accounts"]);
    const transaction_bytes = await size(["ledger_transactions", "ledger_entries", "notifications"]);
    return {
      database_bytes,
      members,
      ledger_transactions: transactions,
      bytes_per_member: Math.round(member_bytes / Math.max(members, 1)),
      bytes_per_ledger_transaction: Math.round(transaction_bytes / Math.max(transactions, 1)),
    };
  } finally {
    await own.end();
  }
}

// ---------------------------------------------------------------------------------------------

async function main() {
  if (process.env.BENCH_SKIP_BUILD !== "1") {
    console.log("Building (only what changed)...");
    const build = spawnSync(process.execPath, ["scripts/build-server.mjs"], {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, MUTUAL_BUILD_DIR: BUILD },
    });
    if (build.status !== 0) throw new Error("build failed");
  }
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  const name = `mutual_bench_peak_${process.pid}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const database = await openDatabase({ kind: "postgres", url: url.toString(), pool_max: 10 });
  const codes = new pg.Pool({ connectionString: url.toString(), max: 8 });
  const apps: AppProcess[] = [];
  let nginx: ReturnType<typeof startNginx> | undefined;
  try {
    await migrateDatabase(database);
    console.log(`Preparing ${SESSION_MEMBERS + SIGN_IN_MEMBERS} members and a staff member...`);
    const setup = await prepare(database.db);
    const env = { DATABASE_URL: url.toString(), DATA_DIR: path.join(work, "data"), TRUST_PROXY: "1" };
    for (let i = 0; i < PROCESSES; i++)
      apps.push(new AppProcess(await freePort(), env, { build: BUILD, institution_file: institutionFile }));
    await Promise.all(apps.map((a) => a.ready()));
    nginx = startNginx(
      work,
      PORT,
      apps.map((a) => a.port),
    );
    const base = `http://127.0.0.1:${PORT}`;
    await waitFor(`${base}/healthz`, () => nginx!.child.exitCode !== null);
    const today = businessDate(demoInstitution.time_zone);
    const statement_month = addDays(`${today.slice(0, 7)}-01`, -1).slice(0, 7);
    const run = flows(base, codes, setup, today, statement_month);
    const pids = { app: apps.map((a) => a.child.pid!), nginx: nginx.child.pid!, database: name };

    console.log(
      `Peak hour of ${CU_MEMBERS.toLocaleString("en-US")} members: ${round2(SIGN_INS_PER_S)} sign-ins a second; flows a second by kind:`,
      Object.fromEntries(Object.entries(RATES_PER_S).map(([k, v]) => [k, round2(v)])),
    );
    console.log(`Warm-up: ${WARM_UP_S} s at scale ${SCALES[0]}`);
    await step(SCALES[0]!, WARM_UP_S, run, pids);
    const steps: Step[] = [];
    for (const scale of SCALES) {
      const result = await step(scale, SECONDS, run, pids);
      steps.push(result);
      console.log(
        `scale ${scale} (${result.members_equivalent.toLocaleString("en-US")} members): ${result.requests_per_s} requests/s, ${result.met ? "met" : "NOT met"}; CPU ms a request ${JSON.stringify(result.cpu_ms_per_request)}; app processes' core share ${result.app_process_core_share.join(", ")}`,
      );
      console.table(
        Object.fromEntries(
          Object.entries(result.kinds).map(([kind, k]) => [
            kind,
            { per_s: k.per_s, p50: k.p50_ms, p95: k.p95_ms, p99: k.p99_ms, errors: k.errors },
          ]),
        ),
      );
      for (const [kind, k] of Object.entries(result.kinds))
        if (k.first_error) console.log(`  ${kind}: first error: ${k.first_error}`);
      if (!result.met) break;
    }
    const report = await verifyLedger(database.db);
    const storage = await storageFigures(admin, name, url.toString());
    console.log("storage:", storage);
    const first_failed = steps.find((s) => !s.met);
    const held = steps.filter((s) => s.met).at(-1);
    const result = {
      date: new Date().toISOString(),
      machine: `${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown"}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}; PostgreSQL, nginx, ${PROCESSES} app processes and the bench's client all on it`,
      credit_union_members: CU_MEMBERS,
      sources: MIX_SOURCES,
      flows_per_s_at_scale_1: Object.fromEntries(Object.entries(RATES_PER_S).map(([k, v]) => [k, round2(v)])),
      goal: `every request kind's p95 under ${P95_GOAL_MS} ms, no errors, at scale 1`,
      goal_met: steps.find((s) => s.scale === 1)?.met ?? null,
      highest_scale_held: held
        ? { scale: held.scale, members: held.members_equivalent, requests_per_s: held.requests_per_s }
        : null,
      first_limit: first_failed ? firstLimit(first_failed) : "not reached: every scale asked for was held",
      ledger_verified: report.ok,
      storage,
      seconds_per_step: SECONDS,
      steps,
    };
    fs.mkdirSync(path.join(root, "bench/results"), { recursive: true });
    const file = path.join(root, `bench/results/${process.env.BENCH_OUT ?? "peak-hour"}.json`);
    fs.writeFileSync(file, JSON.stringify(result, null, 2) + "\n");
    console.log(
      `goal met at scale 1: ${result.goal_met}; highest scale held: ${JSON.stringify(result.highest_scale_held)}`,
    );
    console.log(`first limit: ${result.first_limit}`);
    console.log(`ledger verified: ${report.ok}; written ${path.relative(root, file)}`);
  } finally {
    await nginx?.stop();
    await Promise.all(apps.map((a) => a.stop()));
    await codes.end();
    await database.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.end();
  }
}

try {
  await main();
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
