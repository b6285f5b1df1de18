/**
 * The database layer on a pg_auto_failover pair (`node --import tsx bench/failover.ts`), for
 * decision 0017: what reaching "whichever node is primary now" costs, and how long the app's
 * connections take to find the new primary.
 *
 * 1. A formation of its own (scripts/ha/local-cluster.sh: monitor + 2 nodes, synchronous standby)
 *    in a temporary folder, or the one in BENCH_HA_DIR whose monitor listens on BENCH_HA_PORT.
 * 2. Throughput: CLIENTS loops posting ledger transfers (postTransfer, the ledger module alone, as
 *    bench/ledger.ts) for SECONDS, in alternating rounds through
 *    - the pair's URL (two servers, target_session_attrs=read-write: host-selection.server.ts),
 *    - the primary's own URL (node-postgres as before),
 *    - the primary's own URL with synchronous_commit=local (what waiting for the standby costs).
 * 3. Failover under load: the primary's postmaster gets SIGKILL and its data folder is made
 *    unreachable; the loops keep posting, each key again until it is acknowledged. Measured: the
 *    time from the kill to the first acknowledged transfer (RTO at the database layer), what the
 *    failed attempts were (every one must be "unavailable", the app's 503), and that every
 *    acknowledged key is stored exactly once on the new primary (RPO 0), ledger verified.
 * Writes bench/results/failover.json.
 */
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { inArray, sql } from "drizzle-orm";
import { migrateDatabase, openDatabase, type Database } from "~/server/db/client.server";
import { databaseUnavailable } from "~/server/db/unavailable.server";
import { institutionAccount, openAccount } from "~/server/ledger/accounts.server";
import { postBatch, postTransfer } from "~/server/ledger/ledger.server";
import { transferEntries } from "~/domain/ledger-rules";
import { verifyLedger } from "~/server/ledger/verify.server";
import { ledgerTransactions } from "~/server/db/schema";
import { loadAverage, median, writeResults } from "./support";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
const ACCOUNTS = 200;
const repository = path.resolve(import.meta.dirname, "..");
const clusterScript = path.join(repository, "scripts/ha/local-cluster.sh");

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : 0;
}

async function accounts(database: Database): Promise<number[]> {
  const db = database.db;
  const cash = await institutionAccount(db, "cash");
  const ids: number[] = [];
  for (let i = 0; i < ACCOUNTS; i++)
    ids.push((await openAccount(db, { member_id: `bench-${i}`, type: "checking", name: "Checking" })).id);
  await postBatch(db, {
    idempotency_key: `bench-opening-${crypto.randomUUID()}`,
    initiator: "system:bench",
    created_by: "system:bench",
    transactions: ids.map((id) => ({ kind: "opening_deposit" as const, entries: transferEntries(cash.id, id, 1e8) })),
  });
  return ids;
}

function randomPair(ids: number[]): [number, number] {
  const from = ids[Math.floor(Math.random() * ids.length)]!;
  let to = from;
  while (to === from) to = ids[Math.floor(Math.random() * ids.length)]!;
  return [from, to];
}

async function throughput(url: string, ids: number[]): Promise<{ tps: number; p50_ms: number; p95_ms: number }> {
  const database = await openDatabase({ kind: "postgres", url, pool_max: CLIENTS });
  const latencies: number[] = [];
  const deadline = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        await postTransfer(database.db, {
          idempotency_key: crypto.randomUUID(),
          initiator: "member:bench",
          created_by: "member:bench",
          kind: "member_transfer",
          entries: transferEntries(...randomPair(ids), 1),
        });
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await database.close();
  latencies.sort((a, b) => a - b);
  return {
    tps: Math.round(latencies.length / seconds),
    p50_ms: Math.round(percentile(latencies, 50) * 10) / 10,
    p95_ms: Math.round(percentile(latencies, 95) * 10) / 10,
  };
}

async function main(): Promise<void> {
  const own = !process.env.BENCH_HA_DIR;
  const dir = process.env.BENCH_HA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), "mutual-bench-ha-"));
  const monitor_port = Number(process.env.BENCH_HA_PORT ?? 56300);
  const [port_1, port_2] = [monitor_port + 1, monitor_port + 2];
  if (own) execFileSync(clusterScript, ["start", dir, String(monitor_port)], { stdio: "inherit" });
  const pair = `postgresql://postgres@127.0.0.1:${port_1},127.0.0.1:${port_2}/mutual?target_session_attrs=read-write`;
  const load_start = loadAverage();
  try {
    // Which node is primary now (a formation reused after an earlier run may have swapped them).
    const primaryPort = async () => {
      for (const port of [port_1, port_2]) {
        const client = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:${port}/mutual` });
        try {
          await client.connect();
          const { rows } = await client.query<{ r: boolean }>("select pg_is_in_recovery() as r");
          if (!rows[0]!.r) return port;
        } catch {
          // down
        } finally {
          await client.end().catch(() => undefined);
        }
      }
      throw new Error("no primary");
    };
    const primary = await primaryPort();
    const primaryUrl = `postgresql://postgres@127.0.0.1:${primary}/mutual`;
    const setup = await openDatabase({ kind: "postgres", url: pair, pool_max: 2 });
    await migrateDatabase(setup);
    const ids = await accounts(setup);
    await setup.close();

    // 2. Throughput, alternating rounds.
    const variants = {
      pair_read_write: pair,
      primary_only: primaryUrl,
      primary_only_commit_local: `${primaryUrl}?options=${encodeURIComponent("-c synchronous_commit=local")}`,
    };
    const rounds: Record<string, { tps: number; p50_ms: number; p95_ms: number }[]> = {};
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, url] of Object.entries(variants)) {
        (rounds[name] ??= []).push(await throughput(url, ids));
        console.log(round, name, JSON.stringify(rounds[name]!.at(-1)));
      }
    }
    const summary = Object.fromEntries(
      Object.entries(rounds).map(([name, list]) => [
        name,
        { tps: median(list.map((m) => m.tps)), p95_ms: median(list.map((m) => m.p95_ms)), rounds: list },
      ]),
    );

    // 3. Failover under load.
    const database = await openDatabase({ kind: "postgres", url: pair, pool_max: CLIENTS });
    const acknowledged = new Map<string, number>();
    const attempts: { at_ms: number; outcome: string }[] = [];
    let stopping = false;
    let killed_at: number | null = null;
    let first_after_kill: number | null = null;
    const loop = async () => {
      while (!stopping) {
        const key = crypto.randomUUID();
        const [from, to] = randomPair(ids);
        for (;;) {
          const attempt_started = performance.now();
          try {
            await postTransfer(database.db, {
              idempotency_key: key,
              initiator: "member:bench",
              created_by: "member:bench",
              kind: "member_transfer",
              entries: transferEntries(from, to, 1),
            });
            const now = performance.now();
            acknowledged.set(key, now);
            // RTO ends with the first transfer asked for after the kill and acknowledged: one that
            // was under way at the kill may still be acknowledged by the old primary's last commit.
            if (killed_at !== null && attempt_started > killed_at && first_after_kill === null) first_after_kill = now;
            attempts.push({ at_ms: now, outcome: "acknowledged" });
            break;
          } catch (error) {
            const unavailable = databaseUnavailable(error);
            attempts.push({
              at_ms: performance.now(),
              outcome: unavailable ? `unavailable ${unavailable.code ?? ""}`.trim() : `FAILED ${String(error)}`,
            });
            if (!unavailable) throw error;
            await new Promise((resolve) => setTimeout(resolve, 25));
          }
        }
      }
    };
    const loops = Array.from({ length: CLIENTS }, loop);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const datadir = path.join(dir, primary === port_1 ? "node1" : "node2", "pgdata");
    const postmaster = Number(fs.readFileSync(path.join(datadir, "postmaster.pid"), "utf8").split("\n")[0]);
    const acknowledged_before_kill = acknowledged.size;
    killed_at = performance.now();
    process.kill(postmaster, "SIGKILL");
    fs.chmodSync(datadir, 0);
    while (first_after_kill === null || performance.now() - first_after_kill < 3000) {
      if (performance.now() - killed_at > 120_000) throw new Error("no transfer acknowledged 120 s after the kill");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    stopping = true;
    await Promise.all(loops);
    const rto_s = Math.round(((first_after_kill! - killed_at) / 1000) * 10) / 10;
    const failed = attempts.filter((a) => a.at_ms >= killed_at! && a.outcome !== "acknowledged");
    const kinds: Record<string, number> = {};
    for (const a of failed) kinds[a.outcome] = (kinds[a.outcome] ?? 0) + 1;
    const keys = [...acknowledged.keys()];
    const stored = await database.db
      .select({ key: ledgerTransactions.idempotency_key, n: sql<number>`count(*)::int` })
      .from(ledgerTransactions)
      .where(inArray(ledgerTransactions.idempotency_key, keys))
      .groupBy(ledgerTransactions.idempotency_key);
    const problems = (await verifyLedger(database.db)).problems;
    await database.close();
    const failover = {
      clients: CLIENTS,
      acknowledged_before_kill,
      acknowledged_in_all: keys.length,
      stored_once: stored.filter((s) => s.n === 1).length,
      stored_more_than_once: stored.filter((s) => s.n > 1).length,
      missing: keys.length - stored.length,
      rto_s,
      attempts_not_acknowledged_after_kill: failed.length,
      by_kind: kinds,
      ledger_problems: problems.length,
    };
    console.log(JSON.stringify({ throughput: summary, failover }, null, 2));
    const file = writeResults("failover.json", {
      date: new Date().toISOString(),
      machine: `${os.cpus().length} cores, load average ${load_start} -> ${loadAverage()}`,
      seconds: SECONDS,
      rounds: ROUNDS,
      throughput: summary,
      failover,
    });
    console.log(`written ${file}`);
  } finally {
    // Let the old primary's node back in (it rejoins as the standby), then stop what we started.
    for (const node of ["node1", "node2"]) fs.chmodSync(path.join(dir, node, "pgdata"), 0o700);
    if (own) {
      execFileSync(clusterScript, ["stop", dir], { stdio: "inherit" });
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}

await main();
