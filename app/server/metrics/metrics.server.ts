import crypto from "node:crypto";
import { sql } from "drizzle-orm";
import express, { type NextFunction, type Request, type Response } from "express";
import type { Logger } from "pino";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { matchRoutes, type RouteObject } from "react-router";
import { badPathSegment } from "~/server/security/request-guards.server";
import type { Database } from "~/server/db/client.server";
import { readCounts } from "~/server/db/read-replica.server";

/**
 * The process's metrics, in Prometheus's text format (docs/operations.md "Metrics and alerts"
 * lists each one and the alerts to set on it). Labels take only values from a short fixed list
 * (a route id, a status code, a refusal reason, a transaction kind), never an address, an email
 * or an account number, so the number of series stays bounded whatever members type.
 *
 * The registry lives on globalThis: the Express entry (server.ts) and the React Router build (the
 * ledger, the transfers) are two module graphs (docs/decisions/0001), and a registry created by
 * each would count half of the work each and serve only one half.
 */
const KEY = Symbol.for("mutual.metrics");

interface AppMetrics {
  registry: Registry;
  http_requests: Counter<"method" | "route" | "status">;
  http_duration: Histogram<"method" | "route">;
  ledger_postings: Counter<"kind" | "status">;
  ledger_refusals: Counter<"reason">;
  transfer_refusals: Counter<"reason">;
  database_info: Gauge<"driver">;
  database_up: Gauge;
  external_pending: Gauge<"kind">;
  external_oldest: Gauge<"kind">;
  database_reads: Counter<"target">;
  job_runs: Counter<"job" | "outcome">;
  job_queue: Gauge<"job" | "state">;
  /** Created at the first scrape of a process on PostgreSQL (PGlite has no pool). */
  pool?: { total: Gauge; idle: Gauge; waiting: Gauge; max: Gauge };
  /** Created at the first scrape of a process that delivers mail by SMTP. */
  outbox?: { unsent: Gauge; failed: Gauge; oldest: Gauge };
  /** Created at the first scrape of a process on PostgreSQL: its primary's standbys. */
  replication?: { standbys: Gauge<"sync_state">; lag: Gauge; synchronous: Gauge };
}

/** pg_stat_replication's sync_state values, each reported (0 when none) so an alert can read "none". */
const SYNC_STATES = ["sync", "quorum", "potential", "async"] as const;

type Holder = { [KEY]?: AppMetrics };

export function metrics(): AppMetrics {
  const holder = globalThis as Holder;
  holder[KEY] ??= createMetrics();
  return holder[KEY];
}

/** Seconds: page renders take tens of milliseconds; a slow database shows in the upper buckets. */
const LATENCY_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

function createMetrics(): AppMetrics {
  const registry = new Registry();
  // CPU, memory, event-loop lag, garbage collection, open handles: Node's standard set.
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    http_requests: new Counter({
      name: "mutual_http_requests_total",
      help: "HTTP requests answered, by method, route (React Router route id) and status code",
      labelNames: ["method", "route", "status"],
      registers,
    }),
    http_duration: new Histogram({
      name: "mutual_http_request_duration_seconds",
      help: "Time from a request's arrival to the end of its answer, by method and route",
      labelNames: ["method", "route"],
      buckets: LATENCY_BUCKETS_SECONDS,
      registers,
    }),
    ledger_postings: new Counter({
      name: "mutual_ledger_postings_total",
      help: "Ledger transactions written (posted, held, settled, released, reversed), by kind and resulting status; repeats of an idempotency key are not counted",
      labelNames: ["kind", "status"],
      registers,
    }),
    ledger_refusals: new Counter({
      name: "mutual_ledger_refusals_total",
      help: "Ledger operations refused, by reason (insufficient_funds, account_frozen, transfer_limit, ...)",
      labelNames: ["reason"],
      registers,
    }),
    transfer_refusals: new Counter({
      name: "mutual_transfer_refusals_total",
      help: "Member transfers, recipient look-ups and reviews refused, by the reason the member is shown (limit, otp_invalid, rate_limited, ...)",
      labelNames: ["reason"],
      registers,
    }),
    database_info: new Gauge({
      name: "mutual_database_info",
      help: "The database driver this process uses (1)",
      labelNames: ["driver"],
      registers,
    }),
    database_up: new Gauge({
      name: "mutual_database_up",
      help: "1 when the queries of this scrape reached the database, 0 when they failed or took over 3 s",
      registers,
    }),
    external_pending: new Gauge({
      name: "mutual_external_payments_pending",
      help: "Payments to other banks held and waiting for the back office to send them, by kind (ach, wire)",
      labelNames: ["kind"],
      registers,
    }),
    external_oldest: new Gauge({
      name: "mutual_external_payments_oldest_pending_seconds",
      help: "Age of the oldest payment to another bank still waiting, by kind (0 when none waits)",
      labelNames: ["kind"],
      registers,
    }),
    database_reads: new Counter({
      name: "mutual_database_reads_total",
      help: "Reads of the pages that may use the read replica (DATABASE_READ_URL), by where they went: replica, primary_replica_behind (it had not replayed the browser's last write in time), primary_replica_unreachable",
      labelNames: ["target"],
      registers,
      // Counted by the database module (app/server/db/read-replica.server.ts), which sits below
      // this one; read at each scrape.
      collect() {
        this.reset();
        for (const [target, count] of Object.entries(readCounts())) if (count > 0) this.inc({ target }, count);
      },
    }),
    job_runs: new Counter({
      name: "mutual_job_runs_total",
      help: "Scheduled job attempts finished in this process, by job and outcome (succeeded; retry: failed and queued again; failed: after its last attempt)",
      labelNames: ["job", "outcome"],
      registers,
    }),
    job_queue: new Gauge({
      name: "mutual_job_runs_waiting",
      help: "Job runs by job and state: due (queued and due now: the queue depth), scheduled (queued for later), running, failed (gave up, for staff to look at)",
      labelNames: ["job", "state"],
      registers,
    }),
  };
}

// ---------------------------------------------------------------------------------------------
// What the ledger and the transfers report (one line at the place each outcome is produced).

export function countLedgerPosting(kind: string, status: string): void {
  metrics().ledger_postings.inc({ kind, status });
}

export function countLedgerRefusal(reason: string): void {
  metrics().ledger_refusals.inc({ reason });
}

export function countTransferRefusal(reason: string): void {
  metrics().transfer_refusals.inc({ reason });
}

/** A scheduled job's attempt ended (app/server/jobs/runner.server.ts). */
export function countJobRun(job: string, outcome: "succeeded" | "retry" | "failed"): void {
  metrics().job_runs.inc({ job, outcome });
}

// ---------------------------------------------------------------------------------------------
// HTTP requests

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** The route table as React Router's build gives it: a flat map by id with parent ids. */
export interface RouteManifest {
  [id: string]: { id: string; parentId?: string; path?: string; index?: boolean; caseSensitive?: boolean } | undefined;
}

const trees = new WeakMap<RouteManifest, RouteObject[]>();

function routeTree(manifest: RouteManifest): RouteObject[] {
  let tree = trees.get(manifest);
  if (!tree) {
    const entries = Object.values(manifest).filter((r) => r !== undefined);
    const children = (parentId: string | undefined): RouteObject[] =>
      entries
        .filter((r) => r.parentId === parentId)
        .map((r) =>
          r.index
            ? { id: r.id, path: r.path, index: true, caseSensitive: r.caseSensitive }
            : { id: r.id, path: r.path, caseSensitive: r.caseSensitive, children: children(r.id) },
        );
    tree = children(undefined);
    trees.set(manifest, tree);
  }
  return tree;
}

/** Paths the Express entry answers itself, counted under their own name. */
const OWN_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

/**
 * The label a request is counted under: the id of the React Router route that answers it
 * ("routes/member/dashboard"), never the address itself, which may hold an id or an email.
 * Static files count as "static"; an address no route claims counts under the not-found route.
 */
export function routeLabel(pathname: string, manifest: RouteManifest | undefined): string {
  if (OWN_PATHS.has(pathname)) return pathname;
  if (pathname.startsWith("/assets/")) return "static";
  if (!manifest) return "unmatched";
  // React Router's matchRoutes flattens and ranks the whole route table on every call: measured
  // at 16% of the server's CPU for member transfers over HTTP (bench/LOG.md, "Member transfers").
  // The answer depends only on the address, so recent addresses keep theirs (bounded: addresses
  // holding ids are many).
  let labels = labelCache.get(manifest);
  if (!labels) labelCache.set(manifest, (labels = new Map()));
  let label = labels.get(pathname);
  if (label === undefined) {
    if (labels.size >= LABEL_CACHE_MAX) labels.clear();
    label = matchLabel(pathname, manifest);
    labels.set(pathname, label);
  }
  return label;
}

const LABEL_CACHE_MAX = 2_000;
const labelCache = new WeakMap<RouteManifest, Map<string, string>>();

function matchLabel(pathname: string, manifest: RouteManifest): string {
  // A loader or action fetched by the browser: "/dashboard.data", "/_root.data" for "/".
  const page =
    pathname === "/_root.data" ? "/" : pathname.endsWith(".data") ? pathname.slice(0, -".data".length) : pathname;
  // Refused by the request guards before any route (and React Router would warn it cannot decode it).
  if (page.split("/").some(badPathSegment)) return "unmatched";
  const matches = matchRoutes(routeTree(manifest), page);
  const leaf = matches?.[matches.length - 1]?.route;
  if (!leaf) return "unmatched";
  // The catch-all route: a file (favicon.svg, served before React Router) or an unknown address.
  if (leaf.path === "*" && /\.[A-Za-z0-9]+$/.test(page)) return "static";
  return leaf.id ?? "unmatched";
}

/**
 * Express middleware counting every request and its duration once its answer is finished (or the
 * client went away: status "aborted"). `manifest` is read when the request ends, so the route
 * table of a development server's latest build is used.
 */
export function httpMetrics(manifest: () => RouteManifest | undefined | Promise<RouteManifest | undefined>) {
  return (
    req: { method: string; path: string },
    res: { statusCode: number; writableFinished: boolean; once(event: "close", listener: () => void): unknown },
    next: () => void,
  ) => {
    const started = process.hrtime.bigint();
    const method = METHODS.has(req.method) ? req.method : "other";
    const pathname = req.path;
    res.once("close", () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const status = res.writableFinished ? String(res.statusCode) : "aborted";
      void (async () => {
        let route = "unmatched";
        try {
          route = routeLabel(pathname, await manifest());
        } catch {
          // A development build that failed to load: the request still counts.
        }
        const m = metrics();
        m.http_requests.inc({ method, route, status });
        m.http_duration.observe({ method, route }, seconds);
      })();
    });
    next();
  };
}

// ---------------------------------------------------------------------------------------------
// The scrape

/** A scrape answers within the scraper's timeout even when the database does not. */
const SCRAPE_QUERY_TIMEOUT_MS = 3_000;

export interface ScrapeOptions {
  /** SMTP_URL is set: unsent outbox rows are a backlog (without SMTP the outbox is the mailbox). */
  outbox: boolean;
}

/**
 * Reads the gauges that describe the database now (the pool, the payments waiting, the outbox
 * backlog) and returns every metric in Prometheus's text format.
 */
export async function scrape(database: Database, options: ScrapeOptions): Promise<string> {
  const m = metrics();
  m.database_info.set({ driver: database.kind }, 1);
  const pool = database.poolStats?.();
  if (pool) {
    const registers = [m.registry];
    m.pool ??= {
      total: new Gauge({
        name: "mutual_database_pool_connections",
        help: "Connections to PostgreSQL open in this process's pool",
        registers,
      }),
      idle: new Gauge({
        name: "mutual_database_pool_idle_connections",
        help: "Open connections not in use",
        registers,
      }),
      waiting: new Gauge({
        name: "mutual_database_pool_waiting_clients",
        help: "Requests waiting for a connection because all are in use",
        registers,
      }),
      max: new Gauge({
        name: "mutual_database_pool_max_connections",
        help: "The pool's limit (DATABASE_POOL_MAX)",
        registers,
      }),
    };
    m.pool.total.set(pool.total);
    m.pool.idle.set(pool.idle);
    m.pool.waiting.set(pool.waiting);
    m.pool.max.set(pool.max);
  }
  if (database.kind === "postgres") {
    const registers = [m.registry];
    m.replication ??= {
      standbys: new Gauge({
        name: "mutual_database_replication_standbys",
        help: "Standbys streaming from the primary, by pg_stat_replication's sync_state (sync and quorum: commits wait for them)",
        labelNames: ["sync_state"],
        registers,
      }),
      lag: new Gauge({
        name: "mutual_database_replication_replay_lag_seconds",
        help: "The largest replay lag of the primary's standbys (0 with none, or none lagging)",
        registers,
      }),
      synchronous: new Gauge({
        name: "mutual_database_replication_synchronous",
        help: "1 when commits wait for a standby now (synchronous_standby_names set and a sync or quorum standby streaming)",
        registers,
      }),
    };
  }
  if (options.outbox) {
    const registers = [m.registry];
    m.outbox ??= {
      unsent: new Gauge({
        name: "mutual_outbox_unsent_messages",
        help: "Emails written to the outbox and not yet delivered by SMTP",
        registers,
      }),
      failed: new Gauge({
        name: "mutual_outbox_failed_messages",
        help: "Undelivered emails whose last delivery attempt failed",
        registers,
      }),
      oldest: new Gauge({
        name: "mutual_outbox_oldest_unsent_seconds",
        help: "Age of the oldest undelivered email (0 when none)",
        registers,
      }),
    };
  }

  try {
    const figures = await withTimeout(databaseFigures(database, options), SCRAPE_QUERY_TIMEOUT_MS);
    m.database_up.set(1);
    m.external_pending.reset();
    m.external_oldest.reset();
    for (const kind of ["ach", "wire"]) {
      const row = figures.external.find((r) => r.kind === kind);
      m.external_pending.set({ kind }, row?.pending ?? 0);
      m.external_oldest.set({ kind }, row?.oldest_seconds ?? 0);
    }
    m.job_queue.reset();
    for (const row of figures.jobs) {
      for (const state of ["due", "scheduled", "running", "failed"] as const)
        m.job_queue.set({ job: row.job, state }, row[state]);
    }
    if (m.replication && figures.replication) {
      for (const sync_state of SYNC_STATES)
        m.replication.standbys.set({ sync_state }, figures.replication.standbys[sync_state] ?? 0);
      m.replication.lag.set(figures.replication.lag_seconds);
      m.replication.synchronous.set(figures.replication.synchronous ? 1 : 0);
    }
    if (m.outbox && figures.outbox) {
      m.outbox.unsent.set(figures.outbox.unsent);
      m.outbox.failed.set(figures.outbox.failed);
      m.outbox.oldest.set(figures.outbox.oldest_seconds);
    }
  } catch {
    // Figures that could not be read are left out rather than shown stale.
    m.database_up.set(0);
    m.external_pending.reset();
    m.external_oldest.reset();
    m.job_queue.reset();
    m.replication?.standbys.reset();
    m.replication?.lag.reset();
    m.replication?.synchronous.reset();
  }
  return m.registry.metrics();
}

export function metricsContentType(): string {
  return metrics().registry.contentType;
}

async function databaseFigures(database: Database, options: ScrapeOptions) {
  // The back office's queue index (external_payments_queue_idx: kind, status, id) serves this.
  const external = await database.db.execute(sql`
    select kind, count(*)::int as pending,
           coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as oldest_seconds
      from external_payments where status = 'pending' group by kind`);
  let outbox: { unsent: number; failed: number; oldest_seconds: number } | undefined;
  if (options.outbox) {
    // The partial index outbox_unsent_idx holds exactly these rows.
    const rows = await database.db.execute(sql`
      select count(*)::int as unsent, count(*) filter (where error is not null)::int as failed,
             coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as oldest_seconds
        from outbox where sent_at is null`);
    const row = rows.rows[0]!;
    outbox = { unsent: Number(row.unsent), failed: Number(row.failed), oldest_seconds: Number(row.oldest_seconds) };
  }
  // Job names are the code's own short list. Runs that succeeded are left out (the partial
  // indexes job_runs_due_idx and job_runs_running_idx serve the rest).
  const jobs = await database.db.execute(sql`
    select job,
           count(*) filter (where state = 'queued' and run_at <= now())::int as due,
           count(*) filter (where state = 'queued' and run_at > now())::int as scheduled,
           count(*) filter (where state = 'running')::int as running,
           count(*) filter (where state = 'failed')::int as failed
      from job_runs where state <> 'succeeded' group by job`);
  // PostgreSQL: the standbys of the server this process writes to (pg_auto_failover's pair, or
  // none). Their lag needs the app's role to be in pg_monitor (docs/operations.md#watch).
  let replication:
    | { standbys: Partial<Record<(typeof SYNC_STATES)[number], number>>; lag_seconds: number; synchronous: boolean }
    | undefined;
  if (database.kind === "postgres") {
    const rows = await database.db.execute(sql`
      select sync_state, count(*)::int as standbys,
             coalesce(max(extract(epoch from replay_lag)), 0)::float8 as lag_seconds,
             current_setting('synchronous_standby_names') <> '' as names_set
        from pg_stat_replication where state = 'streaming' group by sync_state`);
    const standbys: Partial<Record<(typeof SYNC_STATES)[number], number>> = {};
    for (const r of rows.rows) standbys[String(r.sync_state) as (typeof SYNC_STATES)[number]] = Number(r.standbys);
    replication = {
      standbys,
      lag_seconds: Math.max(0, ...rows.rows.map((r) => Number(r.lag_seconds))),
      synchronous: rows.rows.some(
        (r) => r.names_set === true && (r.sync_state === "sync" || r.sync_state === "quorum"),
      ),
    };
  }
  return {
    replication,
    jobs: jobs.rows.map((r) => ({
      job: String(r.job),
      due: Number(r.due),
      scheduled: Number(r.scheduled),
      running: Number(r.running),
      failed: Number(r.failed),
    })),
    external: external.rows.map((r) => ({
      kind: String(r.kind),
      pending: Number(r.pending),
      oldest_seconds: Number(r.oldest_seconds),
    })),
    outbox,
  };
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("metrics query timed out")), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

// ---------------------------------------------------------------------------------------------
// Who may read them

/**
 * True when the Authorization header carries METRICS_TOKEN as a bearer token. Both sides are
 * hashed first, so the comparison takes the same time whatever was sent and however long it was.
 */
export function metricsTokenMatches(authorization: string | undefined, token: string): boolean {
  const sent = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1] ?? "";
  const digest = (text: string) => crypto.createHash("sha256").update(text).digest();
  return crypto.timingSafeEqual(digest(sent), digest(token)) && sent.length > 0;
}

export interface MetricsEndpointOptions extends ScrapeOptions {
  /** METRICS_TOKEN: required as a bearer token when set. */
  token?: string;
  logger: Logger;
}

/**
 * GET /metrics. With a token configured, a request without it is answered 401 (and logged: a
 * scraper with a wrong token, or someone trying).
 */
export function metricsEndpoint(database: Database, options: MetricsEndpointOptions) {
  return async (req: Request, res: Response) => {
    res.setHeader("Cache-Control", "no-store");
    if (options.token !== undefined && !metricsTokenMatches(req.get("authorization"), options.token)) {
      options.logger.warn(
        { request_id: res.locals.request_id as string | undefined },
        "metrics request without the right token",
      );
      res.status(401).setHeader("WWW-Authenticate", 'Bearer realm="metrics"');
      res.type("text/plain").send("A valid metrics token is required.");
      return;
    }
    res.type(metricsContentType()).send(await scrape(database, options));
  };
}

/** GET /metrics on the main port: only with METRICS_TOKEN configured (and sent); 404 otherwise. */
export function metricsOnMainPort(database: Database, options: MetricsEndpointOptions) {
  const endpoint = metricsEndpoint(database, options);
  return (req: Request, res: Response, next: NextFunction) => {
    if (options.token === undefined) return void res.status(404).type("text/plain").send("Not found");
    endpoint(req, res).catch(next);
  };
}

/**
 * The application answering on METRICS_PORT: /metrics and nothing else. The port is meant for a
 * scraper on the same host or a private network (METRICS_HOST); METRICS_TOKEN, when configured,
 * is required here too.
 */
export function metricsPortApp(database: Database, options: MetricsEndpointOptions): express.Express {
  const app = express();
  app.disable("x-powered-by");
  const endpoint = metricsEndpoint(database, options);
  app.get("/metrics", (req, res, next) => void endpoint(req, res).catch(next));
  app.use((_req: Request, res: Response) => void res.status(404).type("text/plain").send("Not found"));
  return app;
}
