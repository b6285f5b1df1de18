/**
 * ACH in benchmark (`node --import tsx bench/ach-inbound.ts`): staff upload an inbound NACHA file
 * of 100,000 credits (payroll direct deposits, one to each of 100,000 member accounts, ten
 * batches) and it posts (docs/product.md#ach-in). Measures the whole `receiveAchFile` (read and
 * check the file, store it and its entries, post them in chunks of many entries per database
 * commit, each entry its own ledger transaction, notify each member, audit) and the parser alone.
 * Goal: under 25 s on PostgreSQL; PGlite (on disk) recorded. Afterwards the ledger is verified,
 * the ACH settlement account must have moved by exactly the file's credit total, and the same
 * file uploaded again must post nothing.
 * PostgreSQL: BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5433/postgres); the
 * bench makes and drops its own database there. BENCH_CREDITS (default 100,000); BENCH_ONLY
 * "postgres" or "pglite" runs one. Prints the machine's load average (`uptime`) beside each
 * figure and writes bench/results/ach-inbound.json.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import { execFileSync } from "node:child_process";
import { migrateDatabase, type Database } from "~/server/db/client.server";
import { users } from "~/server/db/schema";
import { getBalances, institutionAccount } from "~/server/ledger/accounts.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { receiveAchFile } from "~/server/rails/inbound.server";
import { readInboundNachaFile } from "~/domain/nacha/reader";
import { institution } from "~/config/institution.server";
import { buildInboundFile, type BuildBatch } from "../tests/unit/nacha-inbound-builder";
import { onPgliteDatabase, onServerDatabase, writeResults } from "./support";

process.env.LOG_LEVEL ??= "silent";
const CREDITS = Number(process.env.BENCH_CREDITS ?? 100_000);
const BATCHES = 10;

/**
 * CPU seconds the PostgreSQL backends serving `datname` have used so far, by pid (from /proc: the
 * server runs on this machine). With the app's own CPU this gives the work done, which on a
 * machine shared with other sessions says more than the wall time, stretched by their load.
 */
async function backendCpu(database: Database, datname: string): Promise<Map<number, number>> {
  const result = await database.db.execute(`select pid from pg_stat_activity where datname = '${datname}'` as never);
  const ticks = new Map<number, number>();
  for (const row of result.rows as { pid: number }[]) {
    try {
      const fields = fs.readFileSync(`/proc/${row.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      ticks.set(Number(row.pid), (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // Not readable (another machine or user): no figure.
    }
  }
  return ticks;
}

const uptime = () => execFileSync("uptime", { encoding: "utf8" }).trim();
const round1 = (n: number) => Math.round(n * 10) / 10;

/** CREDITS member accounts with zero balances, written set-based (no entries: nothing to verify yet). */
async function seed(database: Database, tag: string): Promise<string[]> {
  const db = database.db;
  await db.execute(
    `insert into ledger_accounts (account_number, owner, type, member_id, name)
    select (7000000000 + i)::text, 'member', case when i % 3 = 0 then 'savings' else 'checking' end, 'bench-${tag}-' || i, 'Bench account'
      from generate_series(1, ${CREDITS}) as i` as never,
  );
  return Array.from({ length: CREDITS }, (_, i) => String(7_000_000_000 + i + 1));
}

function file(accounts: readonly string[], tag: string): string {
  const per = Math.ceil(accounts.length / BATCHES);
  const batches: BuildBatch[] = [];
  for (let b = 0; b < BATCHES; b++) {
    const slice = accounts.slice(b * per, (b + 1) * per);
    if (slice.length === 0) break;
    batches.push({
      company_name: `Employer ${b + 1} ${tag}`.slice(0, 16),
      company_id: `19${String(b).padStart(8, "0")}`,
      description: "PAYROLL",
      odfi: ["09100001", "02100002", "12100024", "02600959", "07100001"][b % 5],
      service_class: "220",
      entries: slice.map((account_number, i) => ({
        code: Number(account_number) % 3 === 0 ? "32" : "22",
        account_number,
        amount_cents: 100 + ((b * 7919 + i * 131) % 500_000),
        name: `Employee ${i}`,
        id: `E${b}-${i}`,
      })),
    });
  }
  return buildInboundFile(batches);
}

interface Run {
  database: string;
  credits: number;
  file_bytes: number;
  parse_only_ms: number;
  receive_ms: number;
  entries_per_second: number;
  duplicate_ms: number;
  app_cpu_s: number;
  database_cpu_s: number | null;
  load_before: string;
  load_after: string;
}

async function oneRun(label: string, database: Database, datname: string | null): Promise<Run> {
  await migrateDatabase(database);
  const db = database.db;
  const tag = crypto.randomBytes(3).toString("hex");
  const s0 = performance.now();
  const accounts = await seed(database, tag);
  const text = file(accounts, tag);
  const bytes = new TextEncoder().encode(text);
  console.log(
    `${label}: seeded ${CREDITS} accounts and built a ${(bytes.length / 1e6).toFixed(1)} MB file in ${((performance.now() - s0) / 1000).toFixed(1)} s`,
  );
  const staff_id = `bench-staff-${tag}`;
  await db.insert(users).values({
    id: staff_id,
    name: "Bench Staff",
    email: `${staff_id}@bench.example`,
    role: "admin",
    emailVerified: true,
  });
  const staff = { id: staff_id, email: `${staff_id}@bench.example` };
  const origin = { request_id: "bench", ip: "127.0.0.1" };

  const p0 = performance.now();
  const parsed = readInboundNachaFile(bytes, { routing_number: institution().routing_number });
  const parse_only_ms = performance.now() - p0;
  if (!parsed.ok) throw new Error(parsed.message);

  const settlement = await institutionAccount(db, "ach_settlement");
  const [before] = await getBalances(db, [settlement.id]);
  const load_before = uptime();
  console.log(`  ${load_before}`);
  const cpu_before = datname ? await backendCpu(database, datname) : null;
  const app_before = process.cpuUsage();
  const t0 = performance.now();
  const result = await receiveAchFile(db, { bytes, file_name: `bench-${tag}.ach`, staff, origin });
  const receive_ms = performance.now() - t0;
  const app = process.cpuUsage(app_before);
  const cpu_after = datname ? await backendCpu(database, datname) : null;
  const database_cpu_s =
    cpu_before && cpu_after ? [...cpu_after].reduce((sum, [pid, s]) => sum + s - (cpu_before.get(pid) ?? 0), 0) : null;
  const load_after = uptime();
  console.log(`  ${load_after}`);
  if (!result.ok) throw new Error(result.message);
  if (result.posted !== CREDITS) throw new Error(`posted ${result.posted} of ${CREDITS}`);
  const [after] = await getBalances(db, [settlement.id]);
  if (after!.current_cents - before!.current_cents !== -parsed.file.credit_total_cents)
    throw new Error("settlement did not move by the file's credit total");

  const d0 = performance.now();
  const again = await receiveAchFile(db, { bytes, file_name: `again-${tag}.ach`, staff, origin });
  const duplicate_ms = performance.now() - d0;
  if (again.ok || again.reason !== "duplicate") throw new Error("the same file posted twice");
  const report = await verifyLedger(db);
  if (!report.ok) throw new Error(`ledger does not verify: ${JSON.stringify(report.problems).slice(0, 500)}`);
  const run = {
    database: label,
    credits: CREDITS,
    file_bytes: bytes.length,
    parse_only_ms: round1(parse_only_ms),
    receive_ms: round1(receive_ms),
    entries_per_second: Math.round(CREDITS / (receive_ms / 1000)),
    duplicate_ms: round1(duplicate_ms),
    app_cpu_s: round1((app.user + app.system) / 1e6),
    database_cpu_s: database_cpu_s === null ? null : round1(database_cpu_s),
    load_before,
    load_after,
  };
  console.log(
    `${label}: ${CREDITS} credits posted in ${(receive_ms / 1000).toFixed(1)} s (${run.entries_per_second}/s), CPU: app ${run.app_cpu_s} s, database ${run.database_cpu_s ?? "?"} s; parse alone ${run.parse_only_ms} ms; the same file again refused in ${run.duplicate_ms} ms; ledger verified`,
  );
  return run;
}

async function main() {
  const only = process.env.BENCH_ONLY;
  const runs: Run[] = [];
  if (only !== "pglite")
    runs.push(await onServerDatabase("achin", (database, name) => oneRun("PostgreSQL", database, name)));
  if (only !== "postgres") runs.push(await onPgliteDatabase("achin", (database) => oneRun("PGlite", database, null)));
  const out = writeResults(only ? `ach-inbound-${only}.json` : "ach-inbound.json", {
    at: new Date().toISOString(),
    cpus: os.cpus().length,
    runs,
  });
  console.log(`wrote ${out}`);
}

await main();
