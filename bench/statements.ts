/**
 * Monthly statement run benchmark (`node --import tsx bench/statements.ts`): the monthly
 * statements job (`runMonthlyStatements`, docs/product.md#statements) for BENCH_ACCOUNTS member
 * accounts (default 10,000) with 50 transactions each in the month, on PostgreSQL. Each statement
 * is read from the ledger, drawn as a PDF, kept, and its member told, one database transaction
 * per account. Goal: at least 100 statements a second. Records the process's peak memory (RSS)
 * and the machine's load average, which other work on the shared machine raises.
 *
 * The ledger rows are written set-based in SQL (half a million postings one by one through the
 * ledger would take longer than the run measured); the database's own invariants (entries sum to
 * zero, daily totals) check them as they are written, `ledger:verify` checks them after, and the
 * cached balances are set from the entries.
 * PostgreSQL: BENCH_DATABASE_URL (default the shared server at 127.0.0.1:55432); the bench makes
 * and drops its own database there. Writes bench/results/statements.json.
 */
import { sql } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { STATEMENT_RUN_CONCURRENCY, runMonthlyStatements } from "~/server/statements/monthly-run.server";
import { machineLoad, onServerDatabase, seedVerified, writeResults } from "./support";

process.env.LOG_LEVEL ??= "silent";
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:55432/postgres";
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 10_000);
const PER_ACCOUNT = 50;
const CHUNK = 500;
/** Monday 2 November 2026, 12:00 UTC: the first business day after October. */
const RUN_AT = new Date("2026-11-02T12:00:00Z");

async function seed(db: Db): Promise<void> {
  const cash = await institutionAccount(db, "cash");
  for (let from = 0; from < ACCOUNTS; from += CHUNK) {
    const to = Math.min(from + CHUNK, ACCOUNTS) - 1;
    await db.transaction(async (tx) => {
      await tx.execute(sql`insert into users (id, name, email, role, email_verified, created_at, updated_at)
        select 'bench-' || i, 'Bench Member ' || i, 'bench-' || i || '@bench.example', 'user', true, now(), now() from generate_series(${from}::int, ${to}::int) i`);
      await tx.execute(sql`insert into member_profiles (user_id, first_name, last_name, street, city, state, postal_code, country, status)
        select 'bench-' || i, 'Bench', 'Member ' || i, i || ' Harbor Street', 'Portsmouth', 'NH', '03801', 'United States', 'approved' from generate_series(${from}::int, ${to}::int) i`);
      await tx.execute(sql`insert into ledger_accounts (account_number, owner, type, member_id, name, opened_at)
        select (4000000000 + i)::text, 'member', 'checking', 'bench-' || i, 'Personal Checking', '2026-09-01T12:00:00Z' from generate_series(${from}::int, ${to}::int) i`);
      // Per account: an opening deposit on 1 October (1,000,000 cents) and 49 smaller debits through October.
      await tx.execute(sql`
        with acct as (select id, row_number() over (order by id) as n from ledger_accounts where member_id between 'bench-' and 'bench-~' and account_number::bigint between ${4000000000 + from} and ${4000000000 + to}),
        tx as (
          insert into ledger_transactions (kind, status, initiator, idempotency_key, effective_date, created_by, memo, category)
          select case when k = 0 then 'deposit' else 'card_payment' end, 'posted', 'system:bench', a.id || '-' || k,
                 ('2026-10-01'::date + (k * 30 / ${PER_ACCOUNT}))::date, 'bench',
                 case when k = 0 then 'Opening deposit' else 'Card purchase ' || k end, case when k = 0 then 'Deposits' else 'Shopping' end
            from acct a, generate_series(0, ${PER_ACCOUNT - 1}) k
          returning id, idempotency_key)
        insert into ledger_entries (transaction_id, account_id, amount_cents)
        select t.id, x.account_id, x.amount_cents
          from tx t
          cross join lateral (select split_part(t.idempotency_key, '-', 1)::bigint as account_id, split_part(t.idempotency_key, '-', 2)::int as k) p
          cross join lateral (values (p.account_id, case when p.k = 0 then 1000000 else -(100 + (p.account_id * 7 + p.k * 131) % 9000) end),
                                     (${cash.id}::bigint, case when p.k = 0 then -1000000 else (100 + (p.account_id * 7 + p.k * 131) % 9000) end)) x(account_id, amount_cents)`);
    });
  }
}

async function main() {
  await onServerDatabase(
    "statements",
    async (database) => {
      const { seed_s, load_start } = await seedVerified(database, seed);
      console.log(
        `Seeded ${ACCOUNTS} accounts x ${PER_ACCOUNT} transactions in ${seed_s.toFixed(1)} s; ledger verified.`,
      );

      let peak_rss = process.memoryUsage().rss;
      const sampler = setInterval(() => (peak_rss = Math.max(peak_rss, process.memoryUsage().rss)), 200);
      const rss_before = process.memoryUsage().rss;
      const cpu_start = process.cpuUsage();
      const start = performance.now();
      const counts = await runMonthlyStatements(database.db, RUN_AT);
      const run_s = (performance.now() - start) / 1000;
      const cpu = process.cpuUsage(cpu_start);
      clearInterval(sampler);
      peak_rss = Math.max(peak_rss, process.memoryUsage().rss);
      const again_start = performance.now();
      const again = await runMonthlyStatements(database.db, RUN_AT);
      const again_ms = performance.now() - again_start;
      const stored = await database.db.execute(
        sql`select count(*)::int as n, sum(octet_length(pdf))::bigint as bytes from account_statements`,
      );
      const n = Number(stored.rows[0]!.n);
      const bytes = Number(stored.rows[0]!.bytes);
      const result = {
        date: new Date().toISOString(),
        database: "postgres 15 (shared server)",
        accounts: ACCOUNTS,
        transactions_per_account: PER_ACCOUNT,
        accounts_at_once: STATEMENT_RUN_CONCURRENCY,
        statements_made: counts.made,
        run_seconds: Number(run_s.toFixed(2)),
        statements_per_second: Number((counts.made / run_s).toFixed(1)),
        goal_per_second: 100,
        // This process's CPU (reading, drawing the PDF, writing); the database server's is not in it.
        app_cpu_ms_per_statement: Number(((cpu.user + cpu.system) / 1000 / Math.max(counts.made, 1)).toFixed(2)),
        second_run: { made: again.made, ms: Number(again_ms.toFixed(1)) },
        pdf_bytes_mean: Math.round(bytes / n),
        rss_mb_before: Math.round(rss_before / 2 ** 20),
        rss_mb_peak: Math.round(peak_rss / 2 ** 20),
        ...machineLoad(load_start),
      };
      console.log(JSON.stringify(result, null, 2));
      writeResults("statements.json", result);
    },
    { pool_max: 4, server_url: SERVER_URL },
  );
}

await main();
