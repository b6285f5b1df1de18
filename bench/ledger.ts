/**
 * Ledger benchmark (`npm run bench:ledger`). Measures, in one run on one machine:
 *  - transfers per second through the ledger module (`postTransfer`) on PostgreSQL at 1, 8 and
 *    32 concurrent clients (each client a pooled connection), beside pgbench's built-in TPC-B-like
 *    script on the same server with the same client counts;
 *  - the same through PGlite (embedded, on disk, one connection) at 1 and 8 concurrent tasks;
 *  - then the account history benchmark (bench/history.ts).
 * PostgreSQL: BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5433/postgres); the
 * bench makes and drops its own databases there. pgbench: PGBENCH (default the PostgreSQL 15
 * binary). Writes bench/results/ledger.json and prints a Markdown table for bench/README.md.
 * BENCH_SECONDS (default 10) sets each measurement's length, BENCH_ROUNDS (default 3) how many
 * alternating ledger/pgbench rounds are averaged; BENCH_SKIP_HISTORY=1 skips history.
 */
import { spawnSync } from "node:child_process";
import os from "node:os";
import pg from "pg";
import { migrateDatabase, openDatabase, type Database } from "~/server/db/client.server";
import { institutionAccount, openAccount } from "~/server/ledger/accounts.server";
import { postBatch, postTransfer } from "~/server/ledger/ledger.server";
import { transferEntries } from "~/domain/ledger-rules";
import { verifyLedger } from "~/server/ledger/verify.server";
import { runHistoryBench } from "./history";
import { onPgliteDatabase, withServerDatabase, writeResults } from "./support";

const SERVER_URL = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5433/postgres";
const PGBENCH = process.env.PGBENCH ?? "/usr/lib/postgresql/15/bin/pgbench";
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CLIENT_COUNTS = [1, 8, 32];
const PGLITE_CLIENT_COUNTS = [1, 8];
/** Enough accounts that two random transfers rarely touch the same row, as in pgbench's accounts. */
const ACCOUNTS = 1_000;
const OPENING_CENTS = 100_000_000;
/** pgbench scale >= the largest client count, as pgbench's documentation advises. */
const PGBENCH_SCALE = 32;

interface Measurement {
  clients: number;
  transfers: number;
  seconds: number;
  tps: number;
  p50_ms: number;
  p95_ms: number;
  average_ms?: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Opens ACCOUNTS member accounts and funds them with one import batch. */
async function setUpAccounts(database: Database): Promise<number[]> {
  const db = database.db;
  const cash = await institutionAccount(db, "cash");
  const ids: number[] = [];
  for (let i = 0; i < ACCOUNTS; i++) {
    ids.push((await openAccount(db, { member_id: `bench-${i}`, type: "checking", name: "Checking" })).id);
  }
  await postBatch(db, {
    idempotency_key: "bench-opening",
    initiator: "system:bench",
    created_by: "system:bench",
    transactions: ids.map((id) => ({
      kind: "opening_deposit" as const,
      entries: transferEntries(cash.id, id, OPENING_CENTS),
    })),
  });
  return ids;
}

/** `clients` loops, each posting one transfer after another for SECONDS. */
async function measureTransfers(
  database: Database,
  ids: number[],
  clients: number,
  label: string,
): Promise<Measurement> {
  const latencies_ms: number[] = [];
  let transfers = 0;
  const deadline_ms = performance.now() + SECONDS * 1000;
  const started_ms = performance.now();
  const client = async (c: number) => {
    for (let i = 0; performance.now() < deadline_ms; i++) {
      const from = ids[Math.floor(Math.random() * ids.length)]!;
      let to = from;
      while (to === from) to = ids[Math.floor(Math.random() * ids.length)]!;
      const t0 = performance.now();
      await postTransfer(database.db, {
        idempotency_key: `${label}-${clients}-${c}-${i}`,
        initiator: "member:bench",
        created_by: "member:bench",
        kind: "member_transfer",
        entries: transferEntries(from, to, 1 + Math.floor(Math.random() * 100)),
      });
      latencies_ms.push(performance.now() - t0);
      transfers += 1;
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
  const seconds = (performance.now() - started_ms) / 1000;
  latencies_ms.sort((a, b) => a - b);
  return {
    clients,
    transfers,
    seconds: Math.round(seconds * 10) / 10,
    tps: Math.round(transfers / seconds),
    p50_ms: Math.round(percentile(latencies_ms, 50) * 10) / 10,
    p95_ms: Math.round(percentile(latencies_ms, 95) * 10) / 10,
  };
}

function pgbench(url: string, args: string[]): string {
  const result = spawnSync(PGBENCH, [...args, url], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`pgbench ${args.join(" ")} failed: ${result.stderr}`);
  return result.stdout;
}

function runPgbench(url: string, clients: number): Measurement {
  // Two threads drive the clients (two cores); the script is the built-in tpcb-like.
  const text = pgbench(url, ["-c", String(clients), "-j", String(Math.min(clients, 2)), "-T", String(SECONDS), "-n"]);
  const tps = Number(/tps = ([\d.]+)/.exec(text)?.[1]);
  const transactions = Number(/number of transactions actually processed: (\d+)/.exec(text)?.[1]);
  const latency_ms = Number(/latency average = ([\d.]+) ms/.exec(text)?.[1]);
  return {
    clients,
    transfers: transactions,
    seconds: SECONDS,
    tps: Math.round(tps),
    p50_ms: Number.NaN,
    p95_ms: Number.NaN,
    average_ms: latency_ms,
  };
}

function mean(list: Measurement[]): Measurement {
  const first = list[0]!;
  const avg = (f: (m: Measurement) => number) =>
    Math.round((list.reduce((s, m) => s + f(m), 0) / list.length) * 10) / 10;
  return {
    ...first,
    transfers: avg((m) => m.transfers),
    tps: Math.round(avg((m) => m.tps)),
    p50_ms: avg((m) => m.p50_ms),
    p95_ms: avg((m) => m.p95_ms),
    average_ms: avg((m) => m.average_ms ?? Number.NaN),
  };
}

/**
 * The ledger and pgbench on the same server, alternating (ledger, pgbench, ledger, pgbench...)
 * for each client count, so that both see the same machine: on a shared 2-core machine the
 * background load moves between runs, and alternating keeps the comparison fair.
 */
async function benchPostgres(): Promise<{
  ledger: Measurement[];
  pgbench: Measurement[];
  rounds: { ledger: Measurement[]; pgbench: Measurement[] };
}> {
  return withServerDatabase("pgbench", (pgbench_url) =>
    withServerDatabase("ledger", async (ledger_url) => {
      pgbench(pgbench_url, ["-i", "-q", "-s", String(PGBENCH_SCALE)]);
      const database = await openDatabase({ kind: "postgres", url: ledger_url, pool_max: Math.max(...CLIENT_COUNTS) });
      try {
        await migrateDatabase(database);
        const ids = await setUpAccounts(database);
        const ledger: Measurement[] = [];
        const bench: Measurement[] = [];
        const all = { ledger: [] as Measurement[], pgbench: [] as Measurement[] };
        for (const clients of CLIENT_COUNTS) {
          const l: Measurement[] = [];
          const p: Measurement[] = [];
          for (let round = 1; round <= ROUNDS; round++) {
            l.push(await measureTransfers(database, ids, clients, `pg-r${round}`));
            p.push(runPgbench(pgbench_url, clients));
            console.log(
              `  ${clients} clients, round ${round}: ledger ${l.at(-1)!.tps} transfers/s (p50 ${l.at(-1)!.p50_ms} ms, p95 ${l.at(-1)!.p95_ms} ms); pgbench ${p.at(-1)!.tps} tps`,
            );
          }
          ledger.push(mean(l));
          bench.push(mean(p));
          all.ledger.push(...l);
          all.pgbench.push(...p);
        }
        const report = await verifyLedger(database.db);
        if (!report.ok) throw new Error(`ledger does not verify after the bench: ${report.problems.join("; ")}`);
        console.log(`  ledger verified after ${report.counts.transactions} transactions`);
        return { ledger, pgbench: bench, rounds: all };
      } finally {
        await database.close();
      }
    }),
  );
}

async function benchLedgerPglite(): Promise<Measurement[]> {
  const out: Measurement[] = [];
  for (const clients of PGLITE_CLIENT_COUNTS) {
    await onPgliteDatabase("pglite", async (database) => {
      await migrateDatabase(database);
      const ids = await setUpAccounts(database);
      const m = await measureTransfers(database, ids, clients, "pglite");
      const report = await verifyLedger(database.db);
      if (!report.ok) throw new Error(`ledger does not verify after the bench: ${report.problems.join("; ")}`);
      console.log(
        `  ledger on PGlite (on disk), ${clients} concurrent tasks: ${m.tps} transfers/s (p50 ${m.p50_ms} ms, p95 ${m.p95_ms} ms), verified`,
      );
      out.push(m);
    });
  }
  return out;
}

async function serverSettings(): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  const settings: Record<string, string> = {};
  for (const name of ["server_version", "fsync", "synchronous_commit", "shared_buffers", "max_connections"]) {
    settings[name] = (await client.query(`show ${name}`)).rows[0][name];
  }
  await client.end();
  return settings;
}

async function main(): Promise<void> {
  const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}, Node ${process.version}`;
  const settings = await serverSettings();
  console.log(
    `Ledger bench, ${new Date().toISOString()}\n  machine: ${machine}\n  PostgreSQL: ${JSON.stringify(settings)}\n  load average before: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );

  const postgres = await benchPostgres();
  const pgbenchResults = postgres.pgbench;
  const ledgerResults = postgres.ledger;
  const pgliteResults = await benchLedgerPglite();

  console.log(`\nMeans of ${ROUNDS} alternating rounds of ${SECONDS} s:`);
  console.log(
    "| clients | ledger transfers/s (PostgreSQL) | p50 / p95 ms | pgbench tpcb-like tps | ledger / pgbench |",
  );
  console.log("|---:|---:|---:|---:|---:|");
  for (const [i, clients] of CLIENT_COUNTS.entries()) {
    const l = ledgerResults[i]!;
    const p = pgbenchResults[i]!;
    console.log(`| ${clients} | ${l.tps} | ${l.p50_ms} / ${l.p95_ms} | ${p.tps} | ${(l.tps / p.tps).toFixed(2)} |`);
  }
  console.log("\n| PGlite tasks | ledger transfers/s (PGlite, on disk) | p50 / p95 ms |");
  console.log("|---:|---:|---:|");
  for (const m of pgliteResults) console.log(`| ${m.clients} | ${m.tps} | ${m.p50_ms} / ${m.p95_ms} |`);

  const at8 = ledgerResults[1]!.tps / pgbenchResults[1]!.tps;
  console.log(
    `\nGoal at 8 clients: ledger >= 0.5 x pgbench. Measured ${at8.toFixed(2)}: ${at8 >= 0.5 ? "met" : "NOT met"}.`,
  );

  const history = process.env.BENCH_SKIP_HISTORY ? null : await runHistoryBench();

  writeResults("ledger.json", {
    date: new Date().toISOString(),
    machine,
    postgres: settings,
    seconds_per_measurement: SECONDS,
    accounts: ACCOUNTS,
    pgbench_scale: PGBENCH_SCALE,
    rounds: ROUNDS,
    pgbench: pgbenchResults,
    ledger_postgres: ledgerResults,
    postgres_rounds: postgres.rounds,
    ledger_pglite: pgliteResults,
    ratio_at_8_clients: at8,
    history,
  });
  console.log("\nWrote bench/results/ledger.json");
}

await main();
