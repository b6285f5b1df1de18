import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import {
  AppProcess,
  TransferLoad,
  appEnvironment,
  freePort,
  memberWithAccounts,
  postedBalances,
  repository,
  signIn,
  type Member,
  type Outcome,
} from "../app-server";
import { onPostgres, openTestDatabase } from "../test-database";
import type { Database } from "~/server/db/client.server";
import { sessions } from "~/server/db/schema";
import { verifyLedger } from "~/server/ledger/verify.server";
import { DEMO_SIGNINS } from "~/server/auth/demo-signins.server";

/**
 * Two app processes on one PostgreSQL database behind Debian's nginx, configured from the
 * shipped example (deploy/nginx/mutual.conf): a member signed in on one process carries on on
 * the other; transfers go through the proxy to both; one process is killed mid-load and the
 * proxy carries on with the other; nothing acknowledged is lost or doubled and the ledger
 * verifies. PostgreSQL only: several
 * processes cannot share one embedded database.
 *
 * That scheduled jobs run once across processes is tested with two app servers in
 * jobs-app-processes.test.ts (and with two job runner processes in jobs-processes.test.ts).
 */

const NGINX = process.env.NGINX_BIN ?? "/usr/sbin/nginx";
/** Concurrent transfer loops through the proxy, spread over the demo members. */
const WORKERS = 4;
const ACKS_BEFORE_KILL = 30;
const ACKS_AFTER_KILL = 30;
const TRANSFER_CENTS = 1;

let database: (Database & { url?: string }) | undefined;
const apps: AppProcess[] = [];
let nginx: NginxProcess | undefined;
let dataDir: string | undefined;
afterAll(async () => {
  await nginx?.stop();
  await Promise.all(apps.map((app) => app.stop()));
  await database?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The parts of the shipped nginx site the test runs as they are (see the markers in the file). */
function shippedProxyConfig(): { server_parameters: string; map: string; log_format: string; proxy: string } {
  const text = fs.readFileSync(path.join(repository, "deploy/nginx/mutual.conf"), "utf8");
  const upstream = /upstream mutual \{([\s\S]*?)\n\}/.exec(text)?.[1];
  const server_parameters = /^\s*server \S+ ([^;]*);/m.exec(upstream ?? "")?.[1];
  const map = /^map \$server_port \$mutual_port_suffix \{[\s\S]*?\n\}/m.exec(text)?.[0];
  const log_format = /^log_format mutual [\s\S]*?;$/m.exec(text)?.[0];
  const proxy = /# BEGIN proxy\n([\s\S]*?)\n\s*# END proxy/.exec(text)?.[1];
  if (!upstream || !server_parameters || !map || !log_format || !proxy)
    throw new Error("deploy/nginx/mutual.conf lost its upstream, map, log_format or BEGIN/END proxy markers");
  return { server_parameters, map, log_format, proxy };
}

/** Debian's nginx in the foreground, with a prefix folder of its own for its config, logs and temp files. */
class NginxProcess {
  exit: string | null = null;
  private readonly child: ChildProcess;
  readonly exited: Promise<void>;
  readonly output: string[] = [];

  constructor(
    readonly dir: string,
    readonly port: number,
    app_ports: number[],
  ) {
    const shipped = shippedProxyConfig();
    // Workers run as `nobody` when the master is root (CI): they must reach their temp folders.
    fs.chmodSync(dir, 0o755);
    const config = `
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 512; }
http {
${shipped.log_format}
    access_log ${dir}/access.log mutual;
    client_body_temp_path ${dir}/client_body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;

    upstream mutual {
${app_ports.map((p) => `        server 127.0.0.1:${p} ${shipped.server_parameters};`).join("\n")}
        keepalive 16;
    }
${shipped.map}
    server {
        listen 127.0.0.1:${port};
        server_name 127.0.0.1;
        # The proxy reaches the apps from another address than the members reach it from, so
        # the app's idea of the client address shows whether it trusts the proxy's header.
        proxy_bind 127.0.0.2;
        # Which process answered (the last one asked), for the test's counts only.
        add_header X-Served-By $upstream_addr always;
${shipped.proxy}
    }
}
`;
    fs.writeFileSync(path.join(dir, "nginx.conf"), config);
    this.child = spawn(
      NGINX,
      ["-p", dir, "-e", path.join(dir, "error.log"), "-c", path.join(dir, "nginx.conf"), "-g", "daemon off;"],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    for (const stream of [this.child.stdout!, this.child.stderr!])
      stream.on("data", (chunk: Buffer) => this.output.push(chunk.toString()));
    this.exited = new Promise((resolve) =>
      this.child.once("exit", (code, signal) => {
        this.exit = signal ?? String(code);
        resolve();
      }),
    );
  }

  get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  accessLog(): string {
    const file = path.join(this.dir, "access.log");
    return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  }

  errorLog(): string {
    const file = path.join(this.dir, "error.log");
    return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  }

  /**
   * Resolves once nginx answers on its port (it says nothing when ready); fails if it exits (its
   * port taken meanwhile, say). Only this nginx adds X-Served-By: whatever else may answer there
   * is not taken for it.
   */
  async ready(): Promise<void> {
    for (;;) {
      if (this.exit !== null)
        throw new Error(`nginx exited (${this.exit}): ${this.output.join("")}\n${this.errorLog()}`);
      try {
        const response = await fetch(`${this.base}/healthz`);
        await response.body?.cancel();
        if (response.status === 200 && response.headers.has("x-served-by")) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async stop(): Promise<void> {
    // SIGQUIT: nginx's graceful stop.
    if (this.exit === null) this.child.kill("SIGQUIT");
    await this.exited;
  }
}

/** The last process nginx asked for an answer (X-Served-By lists every one it tried). */
function servedBy(outcome: Outcome): number | null {
  if (outcome.kind !== "acknowledged" || !outcome.served_by) return null;
  return Number(outcome.served_by.split(",").at(-1)!.trim().split(":").at(-1));
}

/** "Total available balance" as the dashboard shows it, asked of one process directly. */
async function totalShown(base: string, member: Member): Promise<string> {
  const response = await fetch(`${base}/dashboard`, { headers: { cookie: member.cookie } });
  const html = await response.text();
  expect(response.status, `${base}/dashboard for ${member.email}`).toBe(200);
  const total = /Total available balance[\s\S]*?tabular-nums[^>]*>([^<]+)</.exec(html)?.[1];
  if (!total) throw new Error(`no total balance on ${base}/dashboard`);
  return total;
}

describe("several app processes on one PostgreSQL behind nginx", () => {
  // Skipped, with its reason in its name, when the suite runs on PGlite.
  const test = onPostgres ? it : it.skip;
  test(
    onPostgres
      ? "two processes behind nginx: a session from one works on the other, transfers fail over when one is killed, nothing lost or doubled"
      : "SKIPPED on PGlite: several app processes need a shared PostgreSQL server (set TEST_DATABASE_URL) and nginx",
    async () => {
      const started = performance.now();
      const marks: string[] = [];
      let traced: TransferLoad | undefined;
      const mark = (what: string) => {
        marks.push(`${what} ${Math.round((performance.now() - started) / 100) / 10} s`);
        if (process.env.MULTI_PROCESS_TRACE) console.error(marks.at(-1), traced?.acknowledged.size);
      };
      if (!fs.existsSync(NGINX))
        throw new Error(`${NGINX} is missing: install Debian's nginx package (or set NGINX_BIN)`);
      database = await openTestDatabase({ pool_max: 2 });
      const db = database.db;
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-multi-"));
      // One environment for every process, as one EnvironmentFile gives every systemd instance.
      const environment = appEnvironment(database.url!, dataDir, {
        DATABASE_POOL_MAX: "8",
        TRUST_PROXY: "1",
        LOG_LEVEL: "info",
      });
      // Both start at once against the empty database, as two systemd instances do at boot, each
      // on a port of its own choosing (nginx is told them).
      apps.push(new AppProcess(environment), new AppProcess(environment));
      await Promise.all(apps.map((app) => app.serving()));
      const [app_1, app_2] = apps as [AppProcess, AppProcess];
      const [port_1, port_2] = [app_1.port, app_2.port];
      nginx = new NginxProcess(fs.mkdtempSync(path.join(os.tmpdir(), "mutual-nginx-")), await freePort(), [
        port_1,
        port_2,
      ]);
      mark("both processes serving");
      await nginx.ready();
      const proxy = nginx.base;
      const trouble = () => (nginx!.exit !== null ? `nginx exited (${nginx!.exit})` : null);

      // 1. Signed in on process 1 (talking to it directly), carried on on process 2: the session
      //    is in the database, not in a process.
      const people = DEMO_SIGNINS.filter((p) => p.kind === "member");
      const first = people[0]!;
      const firstCookie = await signIn(app_1.base, db, first.email, first.password);
      const onOther = await fetch(`${app_2.base}/dashboard`, { headers: { cookie: firstCookie }, redirect: "manual" });
      const onOtherHtml = await onOther.text();
      expect(onOther.status).toBe(200);
      expect(onOtherHtml).toContain("Total available balance");
      const members = [await memberWithAccounts(db, first.email, firstCookie)];

      // 2. The others sign in through the proxy (its Host and Origin agree: the CSRF check
      //    passes) while claiming another address: the app trusts only the address nginx saw.
      for (const person of people.slice(1)) {
        const cookie = await signIn(proxy, db, person.email, person.password, { "x-forwarded-for": "203.0.113.9" });
        members.push(await memberWithAccounts(db, person.email, cookie));
      }
      const addresses = await db.select({ ip: sessions.ipAddress }).from(sessions);
      expect(addresses.map((a) => a.ip)).not.toContain("203.0.113.9");
      expect(addresses.map((a) => a.ip)).not.toContain("127.0.0.2");
      expect(new Set(addresses.map((a) => a.ip))).toEqual(new Set(["127.0.0.1"]));
      // A post from another site is still refused behind the proxy.
      const foreign = await fetch(`${proxy}/dashboard.data`, {
        method: "POST",
        headers: {
          cookie: firstCookie,
          origin: "https://attacker.example",
          "content-type": "application/x-www-form-urlencoded",
        },
        body: "intent=internal",
      });
      await foreign.body?.cancel();
      expect(foreign.status).toBe(403);

      // The shipped site keeps the monitoring's endpoints off the internet, and its access log
      // keeps no query string (a reset link's token) but the request id the app logs too.
      for (const endpoint of ["/metrics", "/readyz"]) {
        const refused = await fetch(`${proxy}${endpoint}`);
        await refused.body?.cancel();
        expect(refused.status, `${endpoint} through nginx`).toBe(404);
        expect(refused.headers.has("x-served-by"), `${endpoint} never reaches an app process`).toBe(false);
      }
      const token = "a-live-reset-token-0123456789";
      const reset = await fetch(`${proxy}/reset-password?token=${token}`);
      await reset.body?.cancel();
      const request_id = reset.headers.get("x-request-id");
      expect(request_id).toMatch(/^[0-9a-f]{32}$/);
      await vi.waitFor(() => expect(nginx!.accessLog()).toContain(`request_id=${request_id}`));
      expect(nginx.accessLog()).not.toContain(token);
      expect(nginx.accessLog()).toContain(`"GET /reset-password HTTP/1.1" ${reset.status}`);

      mark("signed in");
      const balancesBefore = await postedBalances(db, members);

      // 3. Transfers through the proxy, served by both processes; then both show each member
      //    the same balances (no process keeps a copy of its own).
      const loadOptions = { workers: WORKERS, amount_cents: TRANSFER_CENTS, reference: "proxy test", trouble };
      const warmUp = new TransferLoad(proxy, members, loadOptions);
      warmUp.start();
      traced = warmUp;
      await warmUp.more(ACKS_BEFORE_KILL);
      await warmUp.stop();
      const servedBeforeKill = warmUp.answers.map(servedBy);
      expect(servedBeforeKill.filter((p) => p === port_1).length).toBeGreaterThan(0);
      expect(servedBeforeKill.filter((p) => p === port_2).length).toBeGreaterThan(0);
      for (const member of members) {
        expect(await totalShown(app_2.base, member)).toBe(await totalShown(app_1.base, member));
      }
      mark("load on both");

      // 4. Process 2 is killed mid-load: the proxy sends everything to process 1.
      const load = new TransferLoad(proxy, members, loadOptions, warmUp);
      load.start();
      traced = load;
      await load.more(ACKS_BEFORE_KILL);
      const answersAtKill = load.answers.length;
      const acknowledgedAtKill = load.acknowledged.size;
      await app_2.stop("SIGKILL");
      await load.more(ACKS_AFTER_KILL);
      await load.stop();
      mark("failover done");
      const duringFailover = load.answers.slice(answersAtKill);
      // Only the kill may cut an answer off (nginx had passed its status on already): every answer
      // before it arrived whole.
      expect(load.answers.slice(0, answersAtKill).filter((a) => a.kind === "cut_off")).toEqual([]);
      const notAcknowledged = duringFailover.filter((a) => a.kind !== "acknowledged");
      const acknowledgedDuringFailover = load.acknowledged.size - acknowledgedAtKill;
      expect(load.failures).toEqual([]);
      expect(app_1.exit).toBeNull();

      // 6. Nothing acknowledged lost, nothing doubled: every key stored once, under the
      //    transaction the member was told; balances moved by exactly the keys sent.
      await load.expectStoredOnce(db, balancesBefore);
      expect((await verifyLedger(db)).problems).toEqual([]);

      const served = load.answers.map(servedBy);
      console.info(
        `multi-process: ${load.keys.size} transfers acknowledged through nginx by ${WORKERS} loops ` +
          `(process 1 served ${served.filter((p) => p === port_1).length}, process 2 ${served.filter((p) => p === port_2).length} before its kill); ` +
          `after the SIGKILL of process 2: ${duringFailover.length} requests until ${ACKS_AFTER_KILL} more were acknowledged, ` +
          `${acknowledgedDuringFailover} acknowledged, ${notAcknowledged.length} not ` +
          `(${JSON.stringify(notAcknowledged.map((a) => (a.kind === "unavailable" ? a.status : a.kind)))}), each resent with its key and stored once; ` +
          `${load.answers.length} answers in all, no failures; ledger verified. Timeline: ${marks.join(", ")}`,
      );
    },
    180_000,
  );
});
