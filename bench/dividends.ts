/**
 * Monthly dividend run benchmark (`node --import tsx bench/dividends.ts`): the monthly dividends
 * job (`payMonthlyDividends`, docs/product.md#dividends) for BENCH_ACCOUNTS savings accounts
 * (default 10,000) with an opening deposit in September and 20 postings in October, on
 * PostgreSQL. Each account's average daily balance is read from the ledger (one statement per 500
 * accounts) and its dividend posted with its record, one database transaction per account. Then
 * a second run (nothing left to pay) and `ledger:verify`. Records the machine's load average,
 * which other work on the shared machine raises.
 *
 * The ledger rows are written set-based in SQL, as bench/statements.ts does; the database's own
 * invariants check them as they are written and `ledger:verify` checks them after.
 * PostgreSQL: BENCH_DATABASE_URL (default the shared server at 127.0.0.1:55432); the bench makes
 * and drops its own database there. Writes bench/results/dividends.json.
 */
import { sql } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { DIVIDEND_RUN_CONCURRENCY, payMonthlyDividends } from "~/server/dividends/dividends.server";
import { expectLedgerVerified, machineLoad, onServerDatabase, seedVerified, writeResults } from "./support";

process.env.LOG_LEVEL ??= "silent";
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:55432/postgres";
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 10_000);
const PER_ACCOUNT = 20;
const CHUNK = 500;
/** Sunday 1 November 2026, 12:00 UTC: the month just ended is October. */
const RUN_AT = new Date("2026-11-01T12:00:00Z");

async function seed(db: Db): Promise<void> {
  const cash = await institutionAccount(db, "cash");
  for (let from = 0; from < ACCOUNTS; from += CHUNK) {
    const to = Math.min(from + CHUNK, ACCOUNTS) - 1;
    await db.transaction(async (tx) => {
      await tx.execute(sql`insert into ledger_accounts (account_number, owner, type, member_id, name, opened_at)
        select (5000000000 + i)::text, 'member', 'savings', 'bench-' || i, 'Personal Savings', '2026-09-01T12:00:00Z' from generate_series(${from}::int, ${to}::int) i`);
      // Per account: a deposit on 15 September (500,000 cents plus a little), then credits and debits through October.
      await tx.execute(sql`
        with acct as (select id from ledger_accounts where account_number::bigint between ${5000000000 + from} and ${5000000000 + to}),
        tx as (
          insert into ledger_transactions (kind, status, initiator, idempotency_key, effective_date, created_by, memo, category)
          select case when k = 0 then 'deposit' when k % 2 = 0 then 'deposit' else 'withdrawal' end, 'posted', 'system:bench', a.id || '-' || k,
                 case when k = 0 then '2026-09-15'::date else ('2026-10-01'::date + (k * 30 / ${PER_ACCOUNT}))::date end, 'bench',
                 'Bench ' || k, 'Other'
            from acct a, generate_series(0, ${PER_ACCOUNT}) k
          returning id, idempotency_key)
        insert into ledger_entries (transaction_id, account_id, amount_cents)
        select t.id, x.account_id, x.amount_cents
          from tx t
          cross join lateral (select split_part(t.idempotency_key, '-', 1)::bigint as account_id, split_part(t.idempotency_key, '-', 2)::int as k) p
          cross join lateral (select case when p.k = 0 then 500000 + p.account_id % 100000 when p.k % 2 = 0 then 100 + (p.account_id * 7 + p.k * 131) % 9000 else -(100 + (p.account_id * 11 + p.k * 71) % 9000) end as cents) c
          cross join lateral (values (p.account_id, c.cents), (${cash.id}::bigint, -c.cents)) x(account_id, amount_cents)`);
    });
  }
}

async function main() {
  await onServerDatabase(
    "dividends",
    async (database) => {
      const { seed_s, load_start } = await seedVerified(database, seed);
      console.log(
        `Seeded ${ACCOUNTS} savings accounts x ${PER_ACCOUNT + 1} transactions in ${seed_s.toFixed(1)} s; ledger verified.`,
      );

      const cpu_start = process.cpuUsage();
      const start = performance.now();
      const counts = await payMonthlyDividends(database.db, RUN_AT);
      const run_s = (performance.now() - start) / 1000;
      const cpu = process.cpuUsage(cpu_start);
      const again_start = performance.now();
      const again = await payMonthlyDividends(database.db, RUN_AT);
      const again_ms = performance.now() - again_start;
      await expectLedgerVerified(database.db, "the run");
      const result = {
        date: new Date().toISOString(),
        database: "postgres 15 (shared server)",
        accounts: ACCOUNTS,
        transactions_per_account_in_month: PER_ACCOUNT,
        accounts_at_once: DIVIDEND_RUN_CONCURRENCY,
        paid: counts.paid,
        paid_cents: counts.paid_cents,
        run_seconds: Number(run_s.toFixed(2)),
        accounts_per_second: Number((counts.paid / run_s).toFixed(1)),
        // This process's CPU (the arithmetic, the postings' statements); the database server's is not in it.
        app_cpu_ms_per_account: Number(((cpu.user + cpu.system) / 1000 / Math.max(counts.paid, 1)).toFixed(2)),
        second_run: { paid: again.paid, ms: Number(again_ms.toFixed(1)) },
        ledger_verified: true,
        ...machineLoad(load_start),
      };
      console.log(JSON.stringify(result, null, 2));
      writeResults("dividends.json", result);
    },
    { pool_max: 4, server_url: SERVER_URL },
  );
}

await main();
