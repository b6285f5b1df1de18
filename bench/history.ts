/**
 * Account history benchmark (`node --import tsx bench/history.ts`; also run at the end of
 * `npm run bench:ledger`). One member account holding 1,000,000 entries (1,000,000 balanced
 * transactions against the cash account, written through SQL in chunks with every database
 * check on, then verified); then `historyPage` (keyset pagination, 20 rows) for the newest page
 * and for a page 990,000 entries deep, each timed 200 times: p50, p95, max. On PostgreSQL
 * (BENCH_DATABASE_URL) and on PGlite (on disk). Writes bench/results/history.json when run alone.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { migrateDatabase, type Database } from "~/server/db/client.server";
import { institutionAccount, openAccount } from "~/server/ledger/accounts.server";
import { historyPage } from "~/server/ledger/history.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { onPgliteDatabase, onServerDatabase, writeResults } from "./support";

const ENTRIES = Number(process.env.BENCH_HISTORY_ENTRIES ?? 1_000_000);
const CHUNK = 50_000;
const PAGE_ROWS = 20;
const SAMPLES = 200;
const DEEP_OFFSET = 10_000; // from the oldest: 990,000 entries below the newest page

export interface HistoryMeasurement {
  database: "postgres" | "pglite";
  entries: number;
  seed_seconds: number;
  verify_ms: number;
  newest_page: { p50_ms: number; p95_ms: number; max_ms: number };
  deep_page: { p50_ms: number; p95_ms: number; max_ms: number; entries_newer: number };
}

function stats(samples_ms: number[]) {
  const sorted = [...samples_ms].sort((a, b) => a - b);
  const at = (p: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! * 100) / 100;
  return { p50_ms: at(0.5), p95_ms: at(0.95), max_ms: Math.round(sorted[sorted.length - 1]! * 100) / 100 };
}

async function measure(database: Database): Promise<HistoryMeasurement> {
  const db = database.db;
  await migrateDatabase(database);
  const cash = await institutionAccount(db, "cash");
  const account = await openAccount(db, { member_id: "bench-history", type: "checking", name: "Checking" });

  const seed_started_ms = performance.now();
  for (let start = 1; start <= ENTRIES; start += CHUNK) {
    const end = Math.min(ENTRIES, start + CHUNK - 1);
    // Balanced transactions and the cached balances, in one statement: the deferred sum-to-zero
    // triggers and every CHECK run at commit as for any posting.
    await db.transaction(async (tx) => {
      await tx.execute(sql`
        with t as (
          insert into ledger_transactions (kind, status, initiator, idempotency_key, effective_date, created_by, memo, category)
          select 'deposit', 'posted', 'system:bench-history', 'history-' || g, date '2020-01-01' + (g / 500), 'bench',
                 'Deposit ' || g, 'Income'
            from generate_series(${start}::int, ${end}::int) g
          returning id
        ), e as (
          insert into ledger_entries (transaction_id, account_id, amount_cents)
          select t.id, v.account_id, v.amount_cents
            from t cross join (values (${account.id}::bigint, 100::bigint), (${cash.id}::bigint, -100::bigint)) as v(account_id, amount_cents)
           order by t.id, v.amount_cents desc
        ), a as (
          update ledger_accounts
             set posted_cents = posted_cents + case when id = ${account.id} then 100 else -100 end * (select count(*) from t)
           where id in (${account.id}, ${cash.id})
        )
        select count(*) from t`);
    });
  }
  const seed_seconds = Math.round((performance.now() - seed_started_ms) / 100) / 10;
  if (database.kind === "postgres") await db.execute(sql`vacuum analyze ledger_entries`);
  else await db.execute(sql`analyze`);

  const verify_started_ms = performance.now();
  const report = await verifyLedger(db);
  const verify_ms = Math.round(performance.now() - verify_started_ms);
  if (!report.ok) throw new Error(`seeded ledger does not verify: ${report.problems.join("; ")}`);

  const deep_row = await db.execute(sql`
    select id from ledger_entries where account_id = ${account.id} order by id asc offset ${DEEP_OFFSET} limit 1`);
  const deep_cursor = String(deep_row.rows[0]!.id);

  const time = async (before: string | null) => {
    const samples: number[] = [];
    for (let i = 0; i < 20; i++) await historyPage(db, account.id, { before, limit: PAGE_ROWS }); // warm-up
    for (let i = 0; i < SAMPLES; i++) {
      const t0 = performance.now();
      const page = await historyPage(db, account.id, { before, limit: PAGE_ROWS });
      samples.push(performance.now() - t0);
      if (page.rows.length !== PAGE_ROWS) throw new Error("history page came back short");
    }
    return stats(samples);
  };
  const newest_page = await time(null);
  const deep_page = { ...(await time(deep_cursor)), entries_newer: ENTRIES - DEEP_OFFSET };
  return { database: database.kind, entries: ENTRIES, seed_seconds, verify_ms, newest_page, deep_page };
}

export async function runHistoryBench(): Promise<HistoryMeasurement[]> {
  const results: HistoryMeasurement[] = [];

  results.push(await onServerDatabase("history", measure, { pool_max: 2 }));
  results.push(await onPgliteDatabase("history", measure));

  console.log(
    `\nHistory of one account with ${ENTRIES.toLocaleString("en-US")} entries, ${PAGE_ROWS} rows a page, ${SAMPLES} samples each:`,
  );
  console.log(
    "| database | seed (s) | verify (ms) | newest page p50 / p95 / max ms | page 990,000 deep p50 / p95 / max ms |",
  );
  console.log("|---|---:|---:|---:|---:|");
  for (const r of results) {
    console.log(
      `| ${r.database} | ${r.seed_seconds} | ${r.verify_ms} | ${r.newest_page.p50_ms} / ${r.newest_page.p95_ms} / ${r.newest_page.max_ms} | ` +
        `${r.deep_page.p50_ms} / ${r.deep_page.p95_ms} / ${r.deep_page.max_ms} |`,
    );
  }
  const worst_p95 = Math.max(...results.flatMap((r) => [r.newest_page.p95_ms, r.deep_page.p95_ms]));
  console.log(`Goal: each under 20 ms at p95. Worst p95 ${worst_p95} ms: ${worst_p95 < 20 ? "met" : "NOT met"}.`);
  return results;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const results = await runHistoryBench();
  writeResults("history.json", { date: new Date().toISOString(), results });
}
