import crypto from "node:crypto";
import fs from "node:fs";
import type http from "node:http";
import type net from "node:net";
import os from "node:os";
import path from "node:path";
import express from "express";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppProcess, Browser, demoInbox, freePort, serverDatabase } from "../app-server";
import { openTestDatabase, onPostgres } from "../test-database";
import { STAFF, newKey, openMember } from "../ledger-fixtures";
import type { Database } from "~/server/db/client.server";
import { postTransfer } from "~/server/ledger/ledger.server";
import { transferEntries } from "~/domain/ledger-rules";
import { metricsOnMainPort, metricsPortApp } from "~/server/metrics/metrics.server";
import { DEMO_SIGNINS } from "~/server/auth/demo-signins.server";

/**
 * /metrics: who may read it (token, separate port), what it counts (requests by route, the
 * ledger's postings and refusals, the database), and that no address, email or id reaches a
 * label. First in this process on the test database, then on the real server process, whose
 * ledger and HTTP entry are two module graphs sharing one registry.
 */

const TOKEN = crypto.randomBytes(32).toString("hex");

// -------------------------------------------------------------------------------------------
// A tiny reader of Prometheus's text format, independent of prom-client.

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[pair[1]!] = pair[2]!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of the samples named `name` whose labels include `labels` (0 when there is none). */
function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

function has(samples: Sample[], name: string): boolean {
  return samples.some((s) => s.name === name);
}

async function listen(app: express.Express): Promise<{ server: http.Server; base: string }> {
  return new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () =>
      resolve({ server, base: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}` }),
    );
  });
}

// -------------------------------------------------------------------------------------------

describe("/metrics in this process", () => {
  let database: Database;
  const servers: http.Server[] = [];
  const logger = pino({ level: "silent" });
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => {
    for (const server of servers) server.close();
    await database?.close();
  });

  async function serve(app: express.Express): Promise<string> {
    const { server, base } = await listen(app);
    servers.push(server);
    return base;
  }

  it("on the main port: 404 without METRICS_TOKEN configured; 401 without the right token; the metrics with it", async () => {
    const off = express().get("/metrics", metricsOnMainPort(database, { outbox: false, logger }));
    const offBase = await serve(off);
    expect((await fetch(`${offBase}/metrics`)).status).toBe(404);
    expect((await fetch(`${offBase}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);

    const on = express().get("/metrics", metricsOnMainPort(database, { token: TOKEN, outbox: false, logger }));
    const onBase = await serve(on);
    const refused = await fetch(`${onBase}/metrics`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await refused.text()).not.toContain("mutual_");
    expect(
      (
        await fetch(`${onBase}/metrics`, {
          headers: { authorization: `Bearer ${TOKEN.slice(0, -1)}${TOKEN.endsWith("0") ? "1" : "0"}` },
        })
      ).status,
    ).toBe(401);
    expect((await fetch(`${onBase}/metrics`, { headers: { authorization: TOKEN } })).status).toBe(401);
    const ok = await fetch(`${onBase}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(has(parseMetrics(await ok.text()), "mutual_database_up")).toBe(true);
  });

  it("on its own port: /metrics without a token when none is configured, nothing else", async () => {
    const base = await serve(metricsPortApp(database, { outbox: true, logger }));
    expect((await fetch(`${base}/`)).status).toBe(404);
    expect((await fetch(`${base}/dashboard`)).status).toBe(404);
    const response = await fetch(`${base}/metrics`);
    expect(response.status).toBe(200);
    const samples = parseMetrics(await response.text());
    expect(total(samples, "mutual_database_up")).toBe(1);
    expect(total(samples, "mutual_database_info", { driver: database.kind })).toBe(1);
    // The queue of payments to other banks, and the outbox backlog (SMTP configured).
    expect(
      samples
        .filter((s) => s.name === "mutual_external_payments_pending")
        .map((s) => s.labels.kind)
        .sort(),
    ).toEqual(["ach", "wire"]);
    expect(has(samples, "mutual_outbox_unsent_messages")).toBe(true);
    // Node's own figures.
    expect(has(samples, "process_cpu_user_seconds_total")).toBe(true);
    expect(has(samples, "nodejs_eventloop_lag_seconds")).toBe(true);
    // The pool exists only on PostgreSQL.
    expect(has(samples, "mutual_database_pool_max_connections")).toBe(onPostgres);
    if (onPostgres) expect(total(samples, "mutual_database_pool_connections")).toBeGreaterThanOrEqual(1);

    const withToken = await serve(metricsPortApp(database, { token: TOKEN, outbox: false, logger }));
    expect((await fetch(`${withToken}/metrics`)).status).toBe(401);
    expect((await fetch(`${withToken}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  it("counts the ledger's postings by kind and its refusals by reason; a repeated key counts once", async () => {
    const base = await serve(metricsPortApp(database, { outbox: false, logger }));
    const scrape = async () => parseMetrics(await (await fetch(`${base}/metrics`)).text());
    const member = await openMember(database.db, { checking_cents: 10_000 });
    const before = await scrape();

    const transfer = {
      ...STAFF,
      kind: "transfer" as const,
      idempotency_key: newKey("metrics"),
      entries: transferEntries(member.checking.id, member.savings.id, 2_500),
    };
    await postTransfer(database.db, transfer);
    await postTransfer(database.db, transfer); // the same key again: moves nothing
    const refused = await postTransfer(database.db, {
      ...transfer,
      idempotency_key: newKey("metrics"),
      entries: transferEntries(member.checking.id, member.savings.id, 1_000_000),
    });
    expect(!refused.ok && refused.code).toBe("insufficient_funds");

    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) =>
      total(after, name, labels) - total(before, name, labels);
    expect(delta("mutual_ledger_postings_total", { kind: "transfer", status: "posted" })).toBe(1);
    expect(delta("mutual_ledger_refusals_total", { reason: "insufficient_funds" })).toBe(1);
  });

  it("counts payments to other banks waiting, and how long the oldest has waited", async () => {
    const base = await serve(metricsPortApp(database, { outbox: false, logger }));
    const member = await openMember(database.db, { checking_cents: 10_000 });
    await database.db.execute(
      `insert into external_payments (member_id, kind, from_account_id, hold_transaction_id, amount_cents, details, idempotency_key, created_at)
       values ('${member.member_id}', 'ach', ${member.checking.id}, 1, 100, '{}'::jsonb, 'metrics-ach', now() - interval '2 hours')` as never,
    );
    const samples = parseMetrics(await (await fetch(`${base}/metrics`)).text());
    expect(total(samples, "mutual_external_payments_pending", { kind: "ach" })).toBeGreaterThanOrEqual(1);
    expect(total(samples, "mutual_external_payments_oldest_pending_seconds", { kind: "ach" })).toBeGreaterThanOrEqual(
      7_000,
    );
    expect(total(samples, "mutual_external_payments_pending", { kind: "wire" })).toBe(0);
  });
});

// -------------------------------------------------------------------------------------------
// The real server process.

describe("/metrics on the real server", () => {
  let app: AppProcess | undefined;
  let dataDir: string | undefined;
  let closeDatabase: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await app?.stop();
    await closeDatabase?.();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("counts requests by route and status and a member's transfer and refusal, on the token-protected main port and the metrics port; no email or id in a label; logs JSON with request ids and no secret", async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-metrics-"));
    const database = await serverDatabase(dataDir);
    closeDatabase = database.close;
    const env: Record<string, string> = {
      ...database.env,
      METRICS_TOKEN: TOKEN,
      METRICS_PORT: String(await freePort()),
      // Nothing listens there: every email stays in the outbox, a backlog the metrics report.
      SMTP_URL: `smtp://127.0.0.1:${await freePort()}`,
    };
    app = new AppProcess(env);
    await app.serving();
    const base = app.base;
    const metricsBase = `http://127.0.0.1:${env.METRICS_PORT}`;
    const scrapeMain = async () => {
      const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(response.status).toBe(200);
      return response.text();
    };

    // Who may read.
    expect((await fetch(`${base}/metrics`)).status).toBe(401);
    expect((await fetch(`${base}/metrics`, { headers: { authorization: "Bearer wrong" } })).status).toBe(401);
    expect((await fetch(`${metricsBase}/metrics`)).status).toBe(401);
    expect((await fetch(`${metricsBase}/`)).status).toBe(404);
    const before = parseMetrics(await scrapeMain());

    // A member signs in (the code from the demo inbox), looks at pages, moves money, is refused.
    const person = DEMO_SIGNINS.find((p) => p.kind === "member")!;
    const browser = new Browser(base);
    const request = (pathname: string, fields?: Record<string, string>) => browser.request(pathname, fields);
    const code = await browser.signIn(person.email, person.password, demoInbox(base));
    const dashboard = await request("/dashboard");
    expect(dashboard.status).toBe(200);
    const select = /<select[^>]*name="from_account_id"[\s\S]*?<\/select>/.exec(dashboard.body)![0];
    const [from, to] = [...select.matchAll(/<option value="(\d+)"/g)].map((m) => m[1]!);
    const transfer = (amount: string) =>
      request("/dashboard.data", {
        intent: "internal",
        from_account_id: from!,
        to_account_id: to!,
        amount,
        reference: "metrics test",
        idempotency_key: crypto.randomUUID(),
      });
    const sent = await transfer("0.01");
    expect(sent.body).toContain('"done"');
    const refused = await transfer("9999999.00");
    expect(refused.body).toContain('"insufficient_funds"');
    // Addresses with an email and an id in them.
    expect((await request(`/products/${encodeURIComponent("jane.doe@example.com")}`)).status).toBe(404);
    expect((await request("/no-such-page/8412377305")).status).toBe(404);

    // The main port and the metrics port serve the same registry.
    const text = await scrapeMain();
    const portText = await (
      await fetch(`${metricsBase}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).text();
    expect(total(parseMetrics(portText), "mutual_ledger_postings_total")).toBe(
      total(parseMetrics(text), "mutual_ledger_postings_total"),
    );
    const after = parseMetrics(text);
    const delta = (name: string, labels: Record<string, string>) =>
      total(after, name, labels) - total(before, name, labels);
    expect(delta("mutual_http_requests_total", { method: "POST", route: "routes/auth/login", status: "302" })).toBe(2);
    expect(
      delta("mutual_http_requests_total", { method: "GET", route: "routes/member/dashboard", status: "200" }),
    ).toBe(1);
    expect(
      delta("mutual_http_requests_total", { method: "POST", route: "routes/member/dashboard", status: "200" }),
    ).toBe(2);
    expect(delta("mutual_http_requests_total", { route: "routes/public/product", status: "404" })).toBe(1);
    expect(delta("mutual_http_requests_total", { route: "routes/public/not-found", status: "404" })).toBe(1);
    expect(total(after, "mutual_http_requests_total", { method: "GET", route: "/metrics", status: "401" })).toBe(2);
    expect(
      delta("mutual_http_request_duration_seconds_count", { method: "POST", route: "routes/member/dashboard" }),
    ).toBe(2);
    // Counted inside the React Router build, read through the Express entry's scrape.
    expect(delta("mutual_ledger_postings_total", { kind: "transfer", status: "posted" })).toBe(1);
    expect(delta("mutual_ledger_refusals_total", { reason: "insufficient_funds" })).toBe(1);
    expect(delta("mutual_transfer_refusals_total", { reason: "insufficient_funds" })).toBe(1);
    expect(total(after, "mutual_database_up")).toBe(1);
    expect(total(after, "mutual_outbox_unsent_messages")).toBeGreaterThanOrEqual(1);
    expect(has(after, "mutual_database_pool_waiting_clients")).toBe(onPostgres);

    // No label holds an address, an email, an id or a secret.
    for (const leaked of [
      "@",
      "example.com",
      "8412377305",
      person.email,
      code,
      TOKEN,
      `route="/products`,
      `route="/dashboard`,
      `route="/no-such`,
    ]) {
      expect(text.split("\n").filter((line) => !line.startsWith("#") && line.includes(leaked))).toEqual([]);
    }
    for (const sample of after.filter((s) => s.labels.route !== undefined)) {
      expect(sample.labels.route).toMatch(
        /^(routes\/[\w/-]+|root|member|static|unmatched|\/healthz|\/readyz|\/metrics)$/,
      );
    }

    // The log: JSON lines, each request's with its id; no password, code, cookie or token.
    const requestLines = app.lines.filter((line) => line.includes('"request completed"'));
    expect(requestLines.length).toBeGreaterThanOrEqual(8);
    for (const line of requestLines)
      expect((JSON.parse(line) as { req: { id: string } }).req.id).toMatch(/^[\w-]{8,64}$/);
    const sessionCookie = [...browser.jar.values()].find((value) => value.length > 20);
    for (const secret of [person.password, code, TOKEN, sessionCookie].filter(Boolean)) {
      expect(app.lines.filter((line) => line.includes(secret!))).toEqual([]);
    }
  }, 600_000);
});
