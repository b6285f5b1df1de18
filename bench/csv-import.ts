/**
 * Add Transactions benchmark (`node --import tsx bench/csv-import.ts`): staff upload a CSV of
 * 10,000 rows for one member (docs/product.md#add-transactions). Measures, per run: reading the
 * file (csv-parse and the header and column checks), then checking every row and posting them
 * (`addTransactions`: one database transaction with one ledger batch for the Completed rows and a
 * hold per Pending row), on PostgreSQL and on PGlite (on disk). Verifies the ledger after each run.
 * PostgreSQL: BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5433/postgres); the bench
 * makes and drops its own database there. BENCH_ROUNDS (default 3) runs per database; BENCH_ROWS
 * (default 10,000) rows per file, 1 in 100 Pending. Writes bench/results/csv-import.json.
 */
import crypto from "node:crypto";
import os from "node:os";
import { migrateDatabase, type Database } from "~/server/db/client.server";
import { users } from "~/server/db/schema";
import { openAccount } from "~/server/ledger/accounts.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { addTransactions } from "~/server/postings/add-transactions.server";
import { readPostingsCsv } from "~/server/postings/csv.server";
import { POSTING_CSV_HEADER, POSTING_CATEGORIES } from "~/domain/staff-postings";
import { loadAverage, median, onPgliteDatabase, onServerDatabase, writeResults } from "./support";

process.env.LOG_LEVEL ??= "silent";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);

/** A file as a spreadsheet would save it: CRLF, quoted descriptions with commas, credits first. */
function csvFile(rows: number): Uint8Array {
  const lines = [POSTING_CSV_HEADER.join(",")];
  for (let i = 0; i < rows; i++) {
    const credit = i < Math.ceil(rows / 2);
    const account = i % 2 === 0 ? "Checking" : "Savings";
    // Each debit is half of the credit of the same position in the first half: funds never run out.
    const cents = credit ? 100 + (i % 9_900) : Math.ceil((100 + ((i - Math.ceil(rows / 2)) % 9_900)) / 2);
    const amount = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;
    const category = POSTING_CATEGORIES[i % POSTING_CATEGORIES.length];
    const status = i % 100 === 99 ? "Pending" : "Completed";
    lines.push(
      `${account},${credit ? "credit" : "debit"},${amount},"Row ${i + 1}, imported",${category},2026-11-${String(1 + (i % 20)).padStart(2, "0")},09:${String(i % 60).padStart(2, "0")},${status}`,
    );
  }
  return new TextEncoder().encode(`${lines.join("\r\n")}\r\n`);
}

interface Run {
  read_ms: number;
  check_and_post_ms: number;
  total_ms: number;
  rows: number;
}

async function oneRun(database: Database, file: Uint8Array, round: number): Promise<Run> {
  const db = database.db;
  const member_id = `bench-member-${round}-${crypto.randomBytes(4).toString("hex")}`;
  await db.insert(users).values({
    id: member_id,
    name: "Bench Member",
    email: `${member_id}@bench.example`,
    role: "user",
    emailVerified: true,
  });
  await openAccount(db, { member_id, type: "checking", name: "Checking" });
  await openAccount(db, { member_id, type: "savings", name: "Savings" });
  const [staff] = await db
    .insert(users)
    .values({
      id: `bench-staff-${member_id}`,
      name: "Bench Staff",
      email: `staff-${member_id}@bench.example`,
      role: "admin",
      emailVerified: true,
    })
    .returning();

  const t0 = performance.now();
  const read = readPostingsCsv(file);
  const t1 = performance.now();
  if (!read.ok) throw new Error(read.message);
  const result = await addTransactions(db, {
    member_id,
    staff: { id: staff!.id, email: staff!.email },
    rows: read.rows,
    batch_key: `bench-${member_id}`,
    source: "csv",
    origin: { request_id: "bench", ip: "127.0.0.1" },
    now: new Date("2026-11-24T15:00:00Z"),
  });
  const t2 = performance.now();
  if (!result.ok || result.status !== "added") throw new Error(`not added: ${JSON.stringify(result).slice(0, 500)}`);
  const report = await verifyLedger(db);
  if (!report.ok) throw new Error(`ledger does not verify: ${JSON.stringify(report).slice(0, 500)}`);
  return {
    read_ms: round1(t1 - t0),
    check_and_post_ms: round1(t2 - t1),
    total_ms: round1(t2 - t0),
    rows: result.count,
  };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

async function runOn(
  label: string,
  database: Database,
  file: Uint8Array,
): Promise<{ runs: Run[]; median_total_ms: number }> {
  await migrateDatabase(database);
  const runs: Run[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const run = await oneRun(database, file, round);
    console.log(
      `${label} run ${round + 1}: read ${run.read_ms} ms, check and post ${run.check_and_post_ms} ms, total ${run.total_ms} ms (${run.rows} rows)`,
    );
    runs.push(run);
  }
  return { runs, median_total_ms: median(runs.map((r) => r.total_ms)) };
}

async function main() {
  const file = csvFile(ROWS);
  console.log(`file: ${ROWS} rows, ${(file.byteLength / 1024).toFixed(0)} KB; load average ${loadAverage()}`);

  const postgres = await onServerDatabase("csv", (database) => runOn("PostgreSQL", database, file));
  const pglite = await onPgliteDatabase("csv", (database) => runOn("PGlite", database, file));
  writeResults("csv-import.json", {
    date: new Date().toISOString(),
    rows: ROWS,
    bytes: file.byteLength,
    load_average_end: os.loadavg(),
    postgres,
    pglite,
  });
  console.log(`median total: PostgreSQL ${postgres.median_total_ms} ms, PGlite ${pglite.median_total_ms} ms`);
}

await main();
