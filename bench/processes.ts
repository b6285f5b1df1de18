/**
 * What the HTTP benchmarks share (bench/transfers.ts, bench/peak-hour.ts): the compiled server as
 * a process, Debian's nginx in front of several, and where the machine's CPU time went (Linux
 * /proc): the app processes, PostgreSQL's backends of one database, nginx, and the cores' idle.
 */
import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { demoInstitution } from "~/config/demo-institution";

const root = path.resolve(import.meta.dirname, "..");
const NGINX = process.env.NGINX_BIN ?? "/usr/sbin/nginx";

/**
 * The environment a bench's servers and its own in-process services share, set before any app
 * module is imported: fresh keys, silent logs, and the demo profile as a real institution's
 * (`demo: false`: no demo people, no codes on screen) in a new work folder.
 */
export function benchEnvironment(name: string): { work: string; institution_file: string } {
  process.env.SESSION_SECRET ??= crypto.randomBytes(32).toString("hex");
  process.env.DATA_ENCRYPTION_KEY ??= crypto.randomBytes(32).toString("hex");
  process.env.LOG_LEVEL = "silent";
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `mutual-bench-${name}-`));
  const institution_file = path.join(work, "institution.json");
  fs.writeFileSync(institution_file, JSON.stringify({ ...demoInstitution, demo: false }));
  process.env.INSTITUTION_CONFIG = institution_file;
  return { work, institution_file };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * The compiled production server, as `npm start` runs it after its build: `build` (its folder),
 * `institution_file` (the profile), `env` what the set-up adds (DATABASE_URL, DATA_DIR...).
 */
export class AppProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  constructor(
    readonly port: number,
    env: Record<string, string>,
    options: { build: string; institution_file: string },
  ) {
    const { build, institution_file: institutionFile } = options;
    this.child = spawn(process.execPath, ["--enable-source-maps", path.join(build, "bin/server.js")], {
      cwd: root,
      env: {
        ...process.env,
        NODE_ENV: "production",
        MUTUAL_TEST_INSTALL: "1",
        MUTUAL_EMBEDDED_DATABASE: "1",
        LOG_LEVEL: "warn",
        MUTUAL_BUILD_DIR: build,
        INSTITUTION_CONFIG: institutionFile,
        // For profiling the servers alone (--cpu-prof, say).
        NODE_OPTIONS: process.env.BENCH_SERVER_NODE_OPTIONS ?? "",
        ...env,
        PORT: String(port),
      },
      stdio: ["ignore", "ignore", "inherit"],
    });
    this.exited = new Promise((resolve) => this.child.once("exit", () => resolve()));
  }
  async ready(): Promise<void> {
    await waitFor(`http://127.0.0.1:${this.port}/readyz`, () => this.child.exitCode !== null);
  }
  async stop(): Promise<void> {
    if (this.child.exitCode === null) this.child.kill("SIGTERM");
    await this.exited;
  }
}

export async function waitFor(url: string, gone: () => boolean): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (gone()) throw new Error(`the process behind ${url} exited`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await response.body?.cancel();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} never answered 200`);
}

/**
 * Debian's nginx (NGINX_BIN) in front of the apps, with the shipped site's upstream parameters,
 * map and proxy block (as tests/integration/whole-app/multi-process.test.ts); its files in a new
 * folder under `work`.
 */
export function startNginx(
  work: string,
  port: number,
  app_ports: number[],
): { child: ChildProcess; stop: () => Promise<void> } {
  const text = fs.readFileSync(path.join(root, "deploy/nginx/mutual.conf"), "utf8");
  const upstream = /upstream mutual \{([\s\S]*?)\n\}/.exec(text)?.[1];
  const server_parameters = /^\s*server \S+ ([^;]*);/m.exec(upstream ?? "")?.[1];
  const map = /^map \$server_port \$mutual_port_suffix \{[\s\S]*?\n\}/m.exec(text)?.[0];
  const proxy = /# BEGIN proxy\n([\s\S]*?)\n\s*# END proxy/.exec(text)?.[1];
  if (!server_parameters || !map || !proxy)
    throw new Error("deploy/nginx/mutual.conf lost its upstream, map or BEGIN/END proxy markers");
  const dir = fs.mkdtempSync(path.join(work, "nginx-"));
  fs.chmodSync(dir, 0o755);
  fs.writeFileSync(
    path.join(dir, "nginx.conf"),
    `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 512; }
http {
    access_log off;
    client_body_temp_path ${dir}/client_body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;
    upstream mutual {
${app_ports.map((p) => `        server 127.0.0.1:${p} ${server_parameters};`).join("\n")}
        keepalive 32;
    }
${map}
    server {
        listen 127.0.0.1:${port};
        server_name 127.0.0.1;
${proxy}
    }
}
`,
  );
  const child = spawn(
    NGINX,
    ["-p", dir, "-e", path.join(dir, "error.log"), "-c", path.join(dir, "nginx.conf"), "-g", "daemon off;"],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    child,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGQUIT");
      await exited;
    },
  };
}

/** The pids of the PostgreSQL backends connected to `database` (their title names it: "postgres: user database host ..."). */
export function backendPids(database: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (title.startsWith("postgres: ") && title.split(" ")[2] === database) pids.push(Number(entry));
    } catch {
      // gone since the listing
    }
  }
  return pids;
}

/** The pids of a process's children (nginx's worker under its master). */
export function childPids(parent: number): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (Number(fs.readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]!.split(" ")[1]) === parent)
        pids.push(Number(entry));
    } catch {
      // gone since the listing
    }
  }
  return pids;
}

/** The machine's CPU time from /proc/stat, all cores, in ms: busy (everything but idle and I/O wait) and idle. */
export function machineMs(): { busy: number; idle: number } {
  const fields = fs.readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const idle = fields[3]! + fields[4]!;
  return { busy: (fields.reduce((a, b) => a + b, 0) - idle) * 10, idle: idle * 10 };
}

/** CPU time of live processes, from /proc (Linux), in ms: user and system (the kernel's work for them). */
export function cpuMs(pids: readonly number[]): { user: number; system: number } {
  let user = 0;
  let system = 0;
  for (const pid of pids) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // a backend that closed during the timed part: its time is counted under others
    }
    const fields = stat.split(") ")[1]!.split(" ");
    user += Number(fields[11]);
    system += Number(fields[12]);
  }
  return { user: user * 10, system: system * 10 }; // 100 clock ticks a second
}
