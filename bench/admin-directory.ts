/**
 * Back-office directory benchmark (`node --import tsx bench/admin-directory.ts`). Seeds 100,000
 * members (70% approved with Checking and Savings, 20% pending, 10% rejected) into a fresh
 * database on PostgreSQL, then measures, with one client (a pool of one connection), what the
 * /admin loader asks of the database for:
 *  - a tab: the four counts plus the first page of All / Pending / Approved / Rejected;
 *  - a search: the counts plus a page of results by name, last name, email or account number;
 *  - a page: the counts plus a random page (2..400) of a tab.
 * Each request is what the loader of app/routes/admin/index.tsx does with its URL: parseTab,
 * the query, Number(page), directoryCounts, then listDirectory with those counts.
 * Target (the issue): each under 100 ms at p95. BENCH_DATABASE_URL (default
 * postgresql://postgres@127.0.0.1:5433/postgres); the bench makes and drops its own database.
 * BENCH_MEMBERS (default 100000), BENCH_ITERATIONS (default 300 per kind). BENCH_PGLITE=1 runs
 * the same on embedded PGlite (the default deployment) in a temporary folder instead, and writes
 * results/admin-directory-pglite.json. Before timing, the bench checks that the kept counts equal
 * a real COUNT. Writes bench/results/admin-directory.json and prints the Markdown table for
 * bench/README.md.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import pg from "pg";
import { sql } from "drizzle-orm";
import { migrateDatabase, openDatabase } from "~/server/db/client.server";
import type { Db } from "~/server/db/client.server";
import { directoryCounts, listDirectory, parseTab, DIRECTORY_PAGES_MAX } from "~/server/admin/directory.server";
import { dropDatabase } from "./support";

const SERVER_URL = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5433/postgres";
const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 100_000);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 300);
const WARMUP = 20;
/** BENCH_KEEP=1 keeps the seeded database (its URL or folder is printed) for EXPLAIN, and writes no result; drop it yourself. */
const KEEP = process.env.BENCH_KEEP === "1";
const PGLITE = process.env.BENCH_PGLITE === "1";

const FIRST = [
  "James",
  "Mary",
  "Robert",
  "Patricia",
  "John",
  "Jennifer",
  "Michael",
  "Linda",
  "David",
  "Elizabeth",
  "William",
  "Barbara",
  "Richard",
  "Susan",
  "Joseph",
  "Jessica",
  "Thomas",
  "Sarah",
  "Priya",
  "Wei",
  "Amara",
  "Mateo",
  "Sofia",
  "Omar",
  "Yuki",
  "Noah",
  "Ava",
  "Liam",
  "Emma",
  "Lucas",
];
const LAST = [
  "Smith",
  "Johnson",
  "Williams",
  "Brown",
  "Jones",
  "Garcia",
  "Miller",
  "Davis",
  "Rodriguez",
  "Martinez",
  "Hernandez",
  "Lopez",
  "Gonzalez",
  "Wilson",
  "Anderson",
  "Thomas",
  "Taylor",
  "Moore",
  "Jackson",
  "Martin",
  "Lee",
  "Perez",
  "Thompson",
  "White",
  "Harris",
  "Sanchez",
  "Clark",
  "Ramirez",
  "Lewis",
  "Robinson",
  "Okafor",
  "Nguyen",
  "Shah",
  "Kim",
  "Patel",
  "Chen",
  "Morgan",
  "Reed",
  "Whitfield",
  "Kowalski",
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function summarise(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    n: sorted.length,
    p50_ms: round(percentile(sorted, 50)),
    p95_ms: round(percentile(sorted, 95)),
    max_ms: round(sorted[sorted.length - 1]!),
  };
}

async function seed(run: (statement: string) => Promise<unknown>): Promise<void> {
  const client = { query: run };
  const first = `array[${FIRST.map((n) => `'${n}'`).join(",")}]`;
  const last = `array[${LAST.map((n) => `'${n}'`).join(",")}]`;
  // One set-based statement per table: the point is the read path, not the writer.
  await client.query(`
    insert into users (id, name, email, email_verified, created_at, updated_at, role, two_factor_enabled)
    select 'bench-' || g,
           (${first})[1 + g % ${FIRST.length}] || ' ' || (${last})[1 + (g / ${FIRST.length}) % ${LAST.length}],
           lower((${first})[1 + g % ${FIRST.length}] || '.' || (${last})[1 + (g / ${FIRST.length}) % ${LAST.length}]) || g || '@example.com',
           true, now() - (g || ' minutes')::interval, now(),
           case when g % 10 < 7 then 'user' else 'pending' end, true
    from generate_series(1, ${MEMBERS}) g`);
  await client.query(`
    insert into member_profiles (user_id, first_name, last_name, nationality, marital_status, street, city, state, postal_code, country, phone,
                                 status, document_status, rejection_reason, decided_at, source, created_at, updated_at)
    select 'bench-' || g,
           (${first})[1 + g % ${FIRST.length}], (${last})[1 + (g / ${FIRST.length}) % ${LAST.length}],
           'American', 'single', g || ' Main Street', 'Portsmouth', 'NH', '03801', 'United States', '(555) 010-0000',
           case when g % 10 < 7 then 'approved' when g % 10 < 9 then 'pending' else 'rejected' end,
           case when g % 10 < 7 then 'verified' when g % 10 < 9 then 'pending' else 'rejected' end,
           case when g % 10 = 9 then 'Could not verify the document' end,
           case when g % 10 < 7 or g % 10 = 9 then now() end,
           'application', now() - (g || ' minutes')::interval, now()
    from generate_series(1, ${MEMBERS}) g`);
  // Checking and Savings for approved members; numbers unique, 10 digits, first digit 1-9.
  await client.query(`
    insert into ledger_accounts (account_number, owner, type, member_id, name)
    select (1000000000 + g * 2 + k)::text, 'member', case when k = 0 then 'checking' else 'savings' end, 'bench-' || g, case when k = 0 then 'Checking' else 'Savings' end
    from generate_series(1, ${MEMBERS}) g cross join generate_series(0, 1) k
    where g % 10 < 7`);
  // What autovacuum does on a live database: statistics and the visibility map (index-only counts).
  await client.query("vacuum analyze");
}

/** What the /admin loader does with its URL's tab, q and page (app/routes/admin/index.tsx). */
async function adminLoaderDirectory(db: Db, search: string): Promise<void> {
  const params = new URLSearchParams(search);
  const tab = parseTab(params.get("tab"));
  const query = (params.get("q") ?? "").slice(0, 100);
  const page = Number(params.get("page") ?? "1");
  const counts = await directoryCounts(db);
  await listDirectory(db, { tab, query, page, counts });
}

async function main() {
  const name = `mutual_bench_admin_${crypto.randomBytes(4).toString("hex")}`;
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  let dataDir: string | null = null;
  if (PGLITE) {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-bench-admin-"));
  } else {
    const admin = new pg.Client({ connectionString: SERVER_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
  }
  if (!dataDir) {
    // Migrations hold an advisory lock on one connection while applying on another: not with a
    // pool of one. Migrate first, then measure through a pool of one connection.
    const migrator = await openDatabase({ kind: "postgres", url: url.toString(), pool_max: 2 });
    await migrateDatabase(migrator);
    await migrator.close();
  }
  const database = dataDir
    ? await openDatabase({ kind: "pglite", dataDir })
    : await openDatabase({ kind: "postgres", url: url.toString(), pool_max: 1 });
  try {
    if (dataDir) await migrateDatabase(database);
    const db = database.db;
    const started = performance.now();
    if (dataDir) {
      await seed((statement) => db.execute(sql.raw(statement)));
    } else {
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      await seed((statement) => client.query(statement));
      await client.end();
    }
    const seed_s = Math.round((performance.now() - started) / 100) / 10;
    const [{ members } = { members: 0 }] = (
      await db.execute<{ members: number }>(sql`select count(*)::int as members from member_profiles`)
    ).rows;
    const [{ accounts } = { accounts: 0 }] = (
      await db.execute<{ accounts: number }>(sql`select count(*)::int as accounts from ledger_accounts`)
    ).rows;
    const real = (
      await db.execute<{ status: string; n: number }>(
        sql`select status, count(*)::int as n from member_profiles group by status order by status`,
      )
    ).rows;
    const kept = await directoryCounts(db);
    for (const row of real) {
      if (kept[row.status as "pending"] !== Number(row.n))
        throw new Error(`kept count of ${row.status} is ${kept[row.status as "pending"]}, real ${row.n}`);
    }
    if (kept.all !== Number(members)) throw new Error(`kept count of all is ${kept.all}, real ${members}`);

    const tabs = ["", "pending", "approved", "rejected"];
    const searches = [
      "james",
      "smith",
      "mary.garcia",
      "priya sh",
      "okafor",
      "1000001",
      "1000123456",
      "wei.chen4",
      "lucas r",
      "zzz-nobody",
    ];
    const loadStart = os.loadavg().map((n) => Math.round(n * 10) / 10);
    const kinds = {
      tab: (i: number) => adminLoaderDirectory(db, `?tab=${tabs[i % tabs.length]}`),
      search: (i: number) =>
        adminLoaderDirectory(
          db,
          `?tab=${i % 3 === 0 ? "approved" : ""}&q=${encodeURIComponent(searches[i % searches.length]!)}`,
        ),
      page: (i: number) =>
        adminLoaderDirectory(db, `?tab=${tabs[i % tabs.length]}&page=${2 + ((i * 37) % (DIRECTORY_PAGES_MAX - 1))}`),
    };
    const results: Record<string, ReturnType<typeof summarise>> = {};
    for (const [kind, work] of Object.entries(kinds)) {
      for (let i = 0; i < WARMUP; i++) await work(i);
      const samples: number[] = [];
      for (let i = 0; i < ITERATIONS; i++) {
        const t = performance.now();
        await work(i);
        samples.push(performance.now() - t);
      }
      results[kind] = summarise(samples);
    }
    const report = {
      at: new Date().toISOString(),
      machine: {
        cpus: os.cpus().length,
        cpu: os.cpus()[0]?.model ?? "unknown",
        load_average_start: loadStart,
        load_average: os.loadavg().map((n) => Math.round(n * 10) / 10),
      },
      database: dataDir
        ? `PGlite ${(await db.execute<{ version: string }>(sql`select version()`)).rows[0]?.version}`
        : (await db.execute<{ version: string }>(sql`select version()`)).rows[0]?.version,
      members,
      accounts,
      seed_s,
      clients: 1,
      iterations: ITERATIONS,
      results,
    };
    if (!KEEP) {
      // A kept run is for EXPLAIN, not a result.
      fs.mkdirSync(path.join("bench", "results"), { recursive: true });
      fs.writeFileSync(
        path.join("bench", "results", PGLITE ? "admin-directory-pglite.json" : "admin-directory.json"),
        `${JSON.stringify(report, null, 2)}\n`,
      );
    }
    console.log(JSON.stringify(report, null, 2));
    console.log("\n| request (one client) | p50 | p95 | max |\n|---|---:|---:|---:|");
    for (const [kind, r] of Object.entries(results))
      console.log(`| ${kind} | ${r.p50_ms} ms | ${r.p95_ms} ms | ${r.max_ms} ms |`);
  } finally {
    await database.close();
    if (KEEP) {
      console.log(`kept ${dataDir ?? url.toString()}`);
    } else if (dataDir) {
      fs.rmSync(dataDir, { recursive: true, force: true });
    } else {
      const cleanup = new pg.Client({ connectionString: SERVER_URL });
      await cleanup.connect();
      await dropDatabase(cleanup, name);
      await cleanup.end();
    }
  }
}

await main();
