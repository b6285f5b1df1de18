/**
 * What the database benchmarks share: a throwaway database of their own on the PostgreSQL server
 * or in a PGlite folder (removed afterwards, even when the run fails), the median of the rounds,
 * the machine's load average and the results file under bench/results/.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { sql } from "drizzle-orm";
import { migrateDatabase, openDatabase, type Database, type Db } from "~/server/db/client.server";
import { verifyLedger } from "~/server/ledger/verify.server";

/** The server the benchmarks make their databases on: BENCH_DATABASE_URL. */
export const BENCH_SERVER_URL = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5433/postgres";

/**
 * Drops a bench database once its pool's connections are gone (a forced drop would kill
 * connections the pool is still closing, and the pool would log their errors).
 */
export async function dropDatabase(admin: pg.Client, name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await admin.query(`drop database if exists ${name}`);
      return;
    } catch (error) {
      if (attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** A new database `mutual_bench_<label>_<random>` on the server for `work`, dropped afterwards. */
export async function withServerDatabase<T>(
  label: string,
  work: (url: string, name: string) => Promise<T>,
  server_url = BENCH_SERVER_URL,
): Promise<T> {
  const name = `mutual_bench_${label}_${crypto.randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: server_url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(server_url);
  url.pathname = `/${name}`;
  try {
    return await work(url.toString(), name);
  } finally {
    const cleanup = new pg.Client({ connectionString: server_url });
    await cleanup.connect();
    await dropDatabase(cleanup, name);
    await cleanup.end();
  }
}

/** The same, opened for `work` and closed before the drop (not migrated: the bench decides when). */
export function onServerDatabase<T>(
  label: string,
  work: (database: Database, name: string) => Promise<T>,
  options: { pool_max?: number; server_url?: string } = {},
): Promise<T> {
  return withServerDatabase(
    label,
    async (url, name) => {
      const database = await openDatabase({
        kind: "postgres",
        url,
        ...(options.pool_max ? { pool_max: options.pool_max } : {}),
      });
      try {
        return await work(database, name);
      } finally {
        await database.close();
      }
    },
    options.server_url,
  );
}

/** PGlite on disk in a new folder for `work`, closed and removed afterwards (not migrated). */
export async function onPgliteDatabase<T>(label: string, work: (database: Database) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mutual-bench-${label}-`));
  try {
    const database = await openDatabase({ kind: "pglite", dataDir: dir });
    try {
      return await work(database);
    } finally {
      await database.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The middle value of the rounds (the upper one of an even count). */
export const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;

/** The machine's load average (1, 5, 15 minutes), printed beside each figure: the machine is shared. */
export const loadAverage = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(1))
    .join(" ");

/** Writes bench/results/<file> as indented JSON and returns its path. */
export function writeResults(file: string, results: unknown): string {
  const out = path.join(import.meta.dirname, "results", file);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  return out;
}

/**
 * Migrates a bench database, fills it with `seed` (ledger rows written set-based in SQL), sets
 * the accounts' cached balances from their entries and checks the ledger verifies before anything
 * is measured. Returns the seconds the seed took and the load average when the bench began.
 */
export async function seedVerified(
  database: Database,
  seed: (db: Db) => Promise<void>,
): Promise<{ seed_s: number; load_start: number[] }> {
  await migrateDatabase(database);
  const load_start = os.loadavg();
  const seed_start = performance.now();
  await seed(database.db);
  await database.db.execute(sql`update ledger_accounts a set posted_cents = s.total
    from (select e.account_id, sum(e.amount_cents) as total from ledger_entries e join ledger_transactions t on t.id = e.transaction_id where t.status in ('posted', 'reversed') group by e.account_id) s
   where s.account_id = a.id and a.posted_cents <> s.total`);
  const seed_s = (performance.now() - seed_start) / 1000;
  await expectLedgerVerified(database.db, "the seed");
  return { seed_s, load_start };
}

/** Stops the bench when `ledger:verify` finds a problem (after the seed, or after the run measured). */
export async function expectLedgerVerified(db: Db, after: string): Promise<void> {
  const verified = await verifyLedger(db);
  if (!verified.ok) throw new Error(`ledger:verify failed after ${after}: ${JSON.stringify(verified).slice(0, 500)}`);
}

/** The machine's load at the start and end of a run and its CPU count, for a results file. */
export function machineLoad(load_start: number[]): {
  load_average_start: number[];
  load_average_end: number[];
  cpus: number;
} {
  return {
    load_average_start: load_start.map((l) => Number(l.toFixed(2))),
    load_average_end: os.loadavg().map((l) => Number(l.toFixed(2))),
    cpus: os.cpus().length,
  };
}
