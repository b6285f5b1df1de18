import { execFile, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { repository } from "./app-server";

const run = promisify(execFile);
const script = path.join(repository, "scripts/ha/local-cluster.sh");

/**
 * Whether the failover stage runs: MUTUAL_HA_TEST=1 (.ci/run's own stage) requires it and fails
 * without pg_autoctl; MUTUAL_HA_TEST=0 (.ci/run's other stages, which must not run it twice)
 * skips it; unset, it runs where pg_autoctl is installed and is skipped, saying why, elsewhere.
 */
export function haTestPlan(): { run: boolean; why: string } {
  const wanted = process.env.MUTUAL_HA_TEST;
  const installed = spawnSync("sh", ["-c", "command -v pg_autoctl"]).status === 0;
  if (wanted === "0") return { run: false, why: "MUTUAL_HA_TEST=0: .ci/run runs it in its own stage" };
  if (wanted === "1") return { run: true, why: "" };
  return installed
    ? { run: true, why: "" }
    : {
        run: false,
        why: "pg_autoctl is not installed (apt-get install postgresql-15-auto-failover; .ci/run installs it and runs this in its own stage)",
      };
}

export type NodeName = "node1" | "node2";

interface NodeState {
  nodename: string;
  nodeport: number;
  current_group_state: string;
  assigned_group_state: string;
}

/**
 * A pg_auto_failover formation of the test's own (scripts/ha/local-cluster.sh): a monitor and two
 * nodes in a temporary folder on three loopback ports, node1 the primary at first.
 */
export class HaCluster {
  /** What the script printed: synchronous_commit, synchronous_standby_names, sync_state. */
  readonly settings: Record<string, string> = {};

  private constructor(
    readonly dir: string,
    readonly monitor_port: number,
  ) {}

  static async start(): Promise<HaCluster> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-ha-"));
    const monitor_port = await threeFreePorts();
    const cluster = new HaCluster(dir, monitor_port);
    const { stdout } = await run(script, ["start", dir, String(monitor_port)], { timeout: 150_000 });
    for (const line of stdout.split("\n")) {
      const at = line.indexOf("=");
      if (at > 0) cluster.settings[line.slice(0, at)] = line.slice(at + 1);
    }
    return cluster;
  }

  port(node: NodeName): number {
    return this.monitor_port + (node === "node1" ? 1 : 2);
  }

  /** The pair, as pg_autoctl show uri prints it: the app's DATABASE_URL. */
  get url(): string {
    return this.settings.DATABASE_URL!;
  }

  nodeUrl(node: NodeName): string {
    return `postgresql://postgres@127.0.0.1:${this.port(node)}/mutual`;
  }

  pgdata(node: NodeName): string {
    return path.join(this.dir, node, "pgdata");
  }

  async states(): Promise<NodeState[]> {
    const { stdout } = await run(script, ["state", this.dir, "--json"], { timeout: 30_000 });
    return JSON.parse(stdout) as NodeState[];
  }

  /** Resolves once both nodes report the wanted states (node name -> state). */
  async waitFor(wanted: Record<NodeName, string>, timeout_ms: number): Promise<void> {
    const deadline = performance.now() + timeout_ms;
    let last: string;
    for (;;) {
      try {
        const states = await this.states();
        last = states.map((s) => `${s.nodename}:${s.current_group_state}/${s.assigned_group_state}`).join(" ");
        if (
          states.every(
            (s) =>
              wanted[s.nodename as NodeName] === s.current_group_state &&
              s.current_group_state === s.assigned_group_state,
          )
        )
          return;
      } catch (error) {
        last = String(error);
      }
      if (performance.now() > deadline)
        throw new Error(`the formation did not reach ${JSON.stringify(wanted)}: ${last}\n${this.logTails()}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  /** The last lines of each node's pg_autoctl log, for a failure's message. */
  logTails(lines = 25): string {
    return (["node1", "node2"] as const)
      .map((node) => {
        const file = path.join(this.dir, node, "autoctl.log");
        const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines) : [];
        return `--- ${node} pg_autoctl log:\n${text.join("\n")}`;
      })
      .join("\n");
  }

  /** The primary's postmaster, killed at once (no shutdown, no checkpoint); its data folder made unreachable. */
  killPrimary(node: NodeName): void {
    const postmaster = Number(fs.readFileSync(path.join(this.pgdata(node), "postmaster.pid"), "utf8").split("\n")[0]);
    process.kill(postmaster, "SIGKILL");
    // At once after the kill: pg_autoctl restarts a PostgreSQL that died, and must find nothing to start.
    fs.chmodSync(this.pgdata(node), 0);
  }

  /** The node's folder reachable again and its pg_autoctl started anew: it rejoins as a standby. */
  async rejoin(node: NodeName): Promise<void> {
    await run(script, ["stop-node", this.dir, node], { timeout: 60_000 });
    fs.chmodSync(this.pgdata(node), 0o700);
    await run(script, ["run", this.dir, node], { timeout: 30_000 });
  }

  /** One query on a node, on a connection of its own. */
  async query<T extends pg.QueryResultRow>(node: NodeName, text: string): Promise<T[]> {
    const client = new pg.Client({ connectionString: this.nodeUrl(node) });
    client.on("error", () => undefined);
    await client.connect();
    try {
      return (await client.query<T>(text)).rows;
    } finally {
      await client.end();
    }
  }

  async stop(): Promise<void> {
    for (const node of ["node1", "node2"] as const) {
      if (fs.existsSync(this.pgdata(node))) fs.chmodSync(this.pgdata(node), 0o700);
    }
    await run(script, ["stop", this.dir], { timeout: 120_000 }).catch(() => undefined);
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A base port whose next two are free as well (the script takes three in a row), in 56000-56899. */
async function threeFreePorts(): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
  for (;;) {
    const base = 56000 + 3 * Math.floor(Math.random() * 300);
    if ((await free(base)) && (await free(base + 1)) && (await free(base + 2))) return base;
  }
}
