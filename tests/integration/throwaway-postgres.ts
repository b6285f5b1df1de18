import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * A PostgreSQL server of a test's own, in a temporary folder on a port of its own, that the test
 * may stop, crash and restart: a shared server (TEST_DATABASE_URL) must never be restarted.
 * initdb refuses to run as root, so as root the server runs as the `postgres` user.
 */
export class ThrowawayPostgres {
  private constructor(
    readonly bin: string,
    readonly dir: string,
    readonly port: number,
  ) {}

  /** The newest installed PostgreSQL's programs (Debian: /usr/lib/postgresql/<n>/bin), or PG_BIN. */
  static findBin(): string | undefined {
    if (process.env.PG_BIN) return process.env.PG_BIN;
    const root = "/usr/lib/postgresql";
    if (!fs.existsSync(root)) return undefined;
    const versions = fs
      .readdirSync(root)
      .filter((v) => fs.existsSync(path.join(root, v, "bin/initdb")))
      .sort((a, b) => Number(b) - Number(a));
    return versions[0] ? path.join(root, versions[0], "bin") : undefined;
  }

  static async create(): Promise<ThrowawayPostgres> {
    const bin = ThrowawayPostgres.findBin();
    if (!bin) throw new Error("No PostgreSQL server programs found (apt-get install -y postgresql, or set PG_BIN)");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-throwaway-pg-"));
    if (isRoot()) {
      const uid = Number((await run("id", ["-u", "postgres"])).stdout.trim());
      const gid = Number((await run("id", ["-g", "postgres"])).stdout.trim());
      fs.chownSync(dir, uid, gid);
    }
    await asServerUser(path.join(bin, "initdb"), [
      "-D",
      path.join(dir, "data"),
      "-A",
      "trust",
      "-U",
      "postgres",
      "--no-sync",
    ]);
    // A free port in 55500-55999; another run may take one between the choice and the start.
    for (let attempt = 0; ; attempt++) {
      const server = new ThrowawayPostgres(bin, dir, 55500 + Math.floor(Math.random() * 500));
      try {
        await server.start();
        return server;
      } catch (error) {
        if (attempt >= 4) throw error;
      }
    }
  }

  /**
   * A streaming standby of `primary` (pg_basebackup -R), started on a port of its own. `settings`
   * are server settings for it, such as recovery_min_apply_delay: a replica that is behind on purpose.
   */
  static async standbyOf(
    primary: ThrowawayPostgres,
    settings: Record<string, string> = {},
  ): Promise<ThrowawayPostgres> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-throwaway-standby-"));
    if (isRoot()) {
      const uid = Number((await run("id", ["-u", "postgres"])).stdout.trim());
      const gid = Number((await run("id", ["-g", "postgres"])).stdout.trim());
      fs.chownSync(dir, uid, gid);
    }
    const data = path.join(dir, "data");
    await asServerUser(path.join(primary.bin, "pg_basebackup"), [
      ..."-h 127.0.0.1 -U postgres -X stream -R --no-sync -c fast".split(" "),
      ...["-p", String(primary.port), "-D", data],
    ]);
    const lines = Object.entries(settings).map(([name, value]) => `${name} = '${value}'`);
    fs.appendFileSync(path.join(data, "postgresql.auto.conf"), lines.map((line) => `${line}\n`).join(""));
    for (let attempt = 0; ; attempt++) {
      const server = new ThrowawayPostgres(primary.bin, dir, 55500 + Math.floor(Math.random() * 500));
      try {
        await server.start();
        return server;
      } catch (error) {
        if (attempt >= 4) throw error;
      }
    }
  }

  url(database = "postgres"): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c max_connections=100`;
    await asServerUser(path.join(this.bin, "pg_ctl"), [
      "-D",
      path.join(this.dir, "data"),
      "-o",
      options,
      "-l",
      path.join(this.dir, "log"),
      "-w",
      "start",
    ]);
  }

  /** `immediate` is a crash: every backend killed at once, recovery at the next start. */
  async stop(mode: "fast" | "immediate"): Promise<void> {
    await asServerUser(path.join(this.bin, "pg_ctl"), ["-D", path.join(this.dir, "data"), "-m", mode, "-w", "stop"]);
  }

  /**
   * A server that stops answering without closing anything (a hung host, a network that drops
   * packets): every process of it stopped with SIGSTOP, until thaw().
   */
  freeze(): void {
    const postmaster = this.postmasterPid();
    process.kill(postmaster, "SIGSTOP"); // first, so that it starts no backend after the list below
    for (const pid of childrenOf(postmaster)) process.kill(pid, "SIGSTOP");
  }

  thaw(): void {
    const postmaster = this.postmasterPid();
    for (const pid of childrenOf(postmaster)) process.kill(pid, "SIGCONT");
    process.kill(postmaster, "SIGCONT");
  }

  private postmasterPid(): number {
    return Number(fs.readFileSync(path.join(this.dir, "data/postmaster.pid"), "utf8").split("\n")[0]);
  }

  /** Stops the server and removes its folder. */
  async destroy(): Promise<void> {
    await this.stop("immediate").catch(() => undefined);
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Linux: the processes whose parent is `parent` (/proc/<pid>/stat, the field after the name). */
function childrenOf(parent: number): number[] {
  const children: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // it exited meanwhile
    }
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (ppid === parent) children.push(Number(entry));
  }
  return children;
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

async function asServerUser(program: string, args: string[]): Promise<void> {
  const [file, argv] = isRoot() ? ["runuser", ["-u", "postgres", "--", program, ...args]] : [program, args];
  await run(file, argv, { timeout: 60_000 });
}
