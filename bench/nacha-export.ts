/**
 * ACH export benchmark (`node --import tsx bench/nacha-export.ts`): staff export 10,000 pending
 * ACH transfers as one NACHA file (docs/product.md#payment-queues). Measures, per run: the whole
 * export (`exportPayments`: one database transaction that locks the pending payments, writes and
 * stores the file, marks them sent, settles each hold through the ledger, notifies each member
 * and audits), and the file writer alone (`writeNachaFile`, pure). Goal: the export under 2 s.
 * On PostgreSQL and on PGlite (on disk). Each run's file is read back by the tests' independent
 * NACHA reader and the ledger verified.
 * PostgreSQL: BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5433/postgres); the
 * bench makes and drops its own database there. BENCH_ROUNDS (default 3) runs per database;
 * BENCH_PAYMENTS (default 10,000) transfers per file, from 100 members. Writes
 * bench/results/nacha-export.json. BENCH_PROFILE=1 also counts and times every statement the
 * export sends to PostgreSQL (grouped by statement text) and prints where the time goes.
 */
import crypto from "node:crypto";
import os from "node:os";
import inspector from "node:inspector/promises";
import pg from "pg";
import { migrateDatabase, type Database, type Db } from "~/server/db/client.server";
import { externalPayments, users } from "~/server/db/schema";
import { institutionAccount, openAccount } from "~/server/ledger/accounts.server";
import { placeHold, postTransfer } from "~/server/ledger/ledger.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { exportPayments } from "~/server/rails/export.server";
import { writeNachaFile, type NachaCredit } from "~/domain/nacha";
import { readNachaFile } from "../tests/unit/nacha-reader";
import { loadAverage, median, onPgliteDatabase, onServerDatabase, writeResults } from "./support";

process.env.LOG_LEVEL ??= "silent";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PAYMENTS = Number(process.env.BENCH_PAYMENTS ?? 10_000);
const MEMBERS = 100;
const PROFILE = process.env.BENCH_PROFILE === "1";

/**
 * Statement profile of the export on PostgreSQL: every query a pg client sends while `profiling`
 * is on, counted and timed (from send to answer) by its text, so the export's phases show as
 * statements.
 */
let profiling = false;
const statements = new Map<string, { count: number; ms: number }>();
if (PROFILE) {
  const original = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  (pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (
    this: unknown,
    ...args: unknown[]
  ) {
    const result = original.apply(this, args);
    if (!profiling || !(result instanceof Promise)) return result;
    const first = args[0] as string | { text?: string };
    const text = (typeof first === "string" ? first : (first?.text ?? ""))
      .replace(/\s+/g, " ")
      .replace(/\$\d+(, \$\d+)+/g, "$n…")
      .slice(0, 110);
    const start = performance.now();
    const record = () => {
      const entry = statements.get(text) ?? { count: 0, ms: 0 };
      entry.count += 1;
      entry.ms += performance.now() - start;
      statements.set(text, entry);
    };
    return result.then(
      (value) => (record(), value),
      (error: unknown) => {
        record();
        throw error;
      },
    );
  };
}

/** The export's JavaScript side: a CPU profile around the call, summed by function (self time). */
async function cpuProfile<T>(work: () => Promise<T>): Promise<T> {
  if (!PROFILE) return work();
  const session = new inspector.Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 200 });
  await session.post("Profiler.start");
  try {
    return await work();
  } finally {
    const { profile } = await session.post("Profiler.stop");
    session.disconnect();
    const self = new Map<string, number>();
    const by_id = new Map(profile.nodes.map((n) => [n.id, n]));
    const deltas = profile.timeDeltas ?? [];
    (profile.samples ?? []).forEach((id, i) => {
      const node = by_id.get(id)!;
      const f = node.callFrame;
      const key = `${f.functionName || "(anonymous)"} ${f.url.replace(/^.*\/(node_modules\/)?/, "")}:${f.lineNumber + 1}`;
      self.set(key, (self.get(key) ?? 0) + (deltas[i] ?? 0) / 1000);
    });
    const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25);
    console.log("  CPU (self time, ms):");
    for (const [key, ms] of top) console.log(`  ${ms.toFixed(0).padStart(6)}  ${key}`);
  }
}

function printProfile(total_ms: number) {
  const list = [...statements.entries()].sort((a, b) => b[1].ms - a[1].ms);
  const in_db = list.reduce((sum, [, e]) => sum + e.ms, 0);
  console.log(
    `  profile: ${list.reduce((n, [, e]) => n + e.count, 0)} statements, ${in_db.toFixed(0)} ms waiting on PostgreSQL of ${total_ms.toFixed(0)} ms`,
  );
  for (const [text, e] of list.slice(0, 15))
    console.log(`  ${e.ms.toFixed(0).padStart(6)} ms ${String(e.count).padStart(5)}x  ${text}`);
  statements.clear();
}
const ROUTINGS = ["021000021", "121000248", "026009593", "011000138", "071000013"];

/** The ledger answers with a result or (after its refactor) a refusal value; either shape, the bench needs success. */
function transactionId(answer: unknown): number {
  const a = answer as { ok?: boolean; transaction?: { id: number }; code?: string };
  if (a.ok === false || !a.transaction) throw new Error(`ledger refused: ${a.code}`);
  return a.transaction.id;
}

/** PAYMENTS pending ACH transfers from MEMBERS funded members, held as the send step holds them. */
async function seed(db: Db, round: number): Promise<void> {
  const tag = `${round}-${crypto.randomBytes(3).toString("hex")}`;
  const cash = await institutionAccount(db, "cash");
  const settlement = await institutionAccount(db, "ach_settlement");
  for (let m = 0; m < MEMBERS; m++) {
    const member_id = `bench-${tag}-${m}`;
    await db.insert(users).values({
      id: member_id,
      name: `Bench Member ${m}`,
      email: `${member_id}@bench.example`,
      role: "user",
      emailVerified: true,
    });
    const checking = await openAccount(db, { member_id, type: "checking", name: "Checking" });
    transactionId(
      await postTransfer(db, {
        kind: "deposit",
        initiator: "system:bench",
        idempotency_key: `fund-${member_id}`,
        created_by: "bench",
        entries: [
          { account_id: cash.id, amount_cents: -100_000_000 },
          { account_id: checking.id, amount_cents: 100_000_000 },
        ],
      }),
    );
    const rows: (typeof externalPayments.$inferInsert)[] = [];
    for (let i = 0; i < PAYMENTS / MEMBERS; i++) {
      const amount_cents = 100 + ((m * 131 + i * 17) % 250_000);
      const idempotency_key = crypto.randomUUID();
      const hold = transactionId(
        await placeHold(db, {
          kind: "ach_out",
          initiator: `member:${member_id}`,
          idempotency_key,
          created_by: member_id,
          entries: [
            { account_id: checking.id, amount_cents: -amount_cents },
            { account_id: settlement.id, amount_cents },
          ],
          memo: "Transfer to another bank",
          category: "Transfers",
        }),
      );
      rows.push({
        member_id,
        kind: "ach",
        from_account_id: checking.id,
        hold_transaction_id: hold,
        amount_cents,
        details: {
          routing_number: ROUTINGS[i % ROUTINGS.length]!,
          account_number: String(10_000_000 + m * 1000 + i),
          account_name: `Payee ${m}-${i}`,
          bank_name: "",
        },
        reference: `Invoice ${i}`,
        idempotency_key,
      });
    }
    await db.insert(externalPayments).values(rows);
  }
}

interface Run {
  export_ms: number;
  writer_only_ms: number;
  payments: number;
  file_bytes: number;
}

async function oneRun(database: Database, round: number): Promise<Run> {
  const db = database.db;
  const seed_start = performance.now();
  await seed(db, round);
  console.log(`  seeded ${PAYMENTS} pending transfers in ${((performance.now() - seed_start) / 1000).toFixed(1)} s`);
  const staff_id = `bench-staff-${round}-${crypto.randomBytes(3).toString("hex")}`;
  await db.insert(users).values({
    id: staff_id,
    name: "Bench Staff",
    email: `${staff_id}@bench.example`,
    role: "admin",
    emailVerified: true,
  });

  profiling = PROFILE;
  const t0 = performance.now();
  const result = await cpuProfile(() =>
    exportPayments(
      db,
      "ach",
      { id: staff_id, email: `${staff_id}@bench.example` },
      { request_id: "bench", ip: "127.0.0.1" },
      { max_payments: PAYMENTS },
    ),
  );
  const t1 = performance.now();
  profiling = false;
  if (PROFILE && database.kind === "postgres") printProfile(t1 - t0);
  if (!result.ok) throw new Error(result.message);
  if (result.file.payment_count !== PAYMENTS)
    throw new Error(`exported ${result.file.payment_count}, expected ${PAYMENTS}`);

  const [stored] = (
    await db.execute<{ content: string }>(
      `select content from payment_export_files where id = ${result.file.id}` as never,
    )
  ).rows as { content: string }[];
  const read = readNachaFile(stored!.content);
  if (read.control.credit_cents !== result.file.total_cents) throw new Error("file total differs");
  const report = await verifyLedger(db);
  if (!report.ok) throw new Error(`ledger does not verify: ${JSON.stringify(report.problems).slice(0, 500)}`);

  // The writer alone, on the same number of credits.
  const credits: NachaCredit[] = Array.from({ length: PAYMENTS }, (_, i) => ({
    effective_date: "2026-11-25",
    routing_number: ROUTINGS[i % ROUTINGS.length]!,
    account_number: String(10_000_000 + i),
    account_type: "checking",
    amount_cents: 100 + i,
    individual_id: `MU${String(i + 1).padStart(8, "0")}`,
    individual_name: `Payee ${i}`,
    trace_sequence: i + 1,
    payment_information: `Invoice ${i}`,
  }));
  const w0 = performance.now();
  writeNachaFile({
    origin: { routing_number: "501234566", name: "Bench CU" },
    destination: { routing_number: "011000015", name: "Federal Reserve Bank" },
    company: { name: "Bench CU", identification: "1990000001", entry_description: "TRANSFER" },
    created: { date: "2026-11-24", time: "10:30" },
    file_id_modifier: "A",
    credits,
  });
  const w1 = performance.now();
  return {
    export_ms: round1(t1 - t0),
    writer_only_ms: round1(w1 - w0),
    payments: result.file.payment_count,
    file_bytes: stored!.content.length,
  };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

async function runOn(label: string, database: Database) {
  await migrateDatabase(database);
  const runs: Run[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const run = await oneRun(database, round);
    console.log(
      `${label} run ${round + 1}: export ${run.export_ms} ms (${run.payments} transfers, ${run.file_bytes} bytes), writer alone ${run.writer_only_ms} ms`,
    );
    runs.push(run);
  }
  return {
    runs,
    median_export_ms: median(runs.map((r) => r.export_ms)),
    median_writer_only_ms: median(runs.map((r) => r.writer_only_ms)),
  };
}

async function main() {
  console.log(`${PAYMENTS} transfers per file; load average ${loadAverage()}`);
  const only = process.env.BENCH_ONLY; // "postgres" or "pglite" to run one
  const postgres =
    only !== "pglite" ? await onServerDatabase("nacha", (database) => runOn("PostgreSQL", database)) : undefined;
  const pglite =
    only !== "postgres" ? await onPgliteDatabase("nacha", (database) => runOn("PGlite", database)) : undefined;
  writeResults("nacha-export.json", {
    date: new Date().toISOString(),
    payments: PAYMENTS,
    load_average_end: os.loadavg(),
    postgres,
    pglite,
  });
  console.log(
    `median export: PostgreSQL ${postgres?.median_export_ms ?? "-"} ms, PGlite ${pglite?.median_export_ms ?? "-"} ms`,
  );
}

await main();
