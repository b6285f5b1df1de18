import { sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { toCents } from "~/domain/ledger-rules";

/**
 * Recomputes the ledger from its entries and checks every invariant
 * (docs/architecture.md#verification: `npm run ledger:verify`, and the tests after every concurrent
 * run). Reads only; each check is one set-based query, so it stays usable on millions of entries.
 * Reports at most `problems_max` problems per check: enough to see what is wrong without flooding a
 * terminal.
 */

export interface VerifyReport {
  ok: boolean;
  problems: string[];
  counts: { accounts: number; transactions: number; entries: number };
  /** Sum of every account's current balance: zero in a double-entry ledger. */
  total_posted_cents: number;
}

export async function verifyLedger(db: DbOrTx, options: { problems_max?: number } = {}): Promise<VerifyReport> {
  const problems_max = options.problems_max ?? 50;
  const problems: string[] = [];
  const rows = async (query: ReturnType<typeof sql>) => (await db.execute(query)).rows as Record<string, unknown>[];

  // 1. Cached balances agree with the entries: current = entries of posted (and later reversed)
  //    transactions; held = debits of pending ones.
  for (const r of await rows(sql`
    select a.id, a.account_number, a.posted_cents, a.held_cents,
           coalesce(s.posted_cents, 0) as entries_posted_cents, coalesce(s.held_cents, 0) as entries_held_cents
      from ledger_accounts a
      left join (
        select e.account_id,
               sum(e.amount_cents) filter (where t.status in ('posted', 'reversed')) as posted_cents,
               sum(-e.amount_cents) filter (where t.status = 'pending' and e.amount_cents < 0) as held_cents
          from ledger_entries e join ledger_transactions t on t.id = e.transaction_id
         group by e.account_id
      ) s on s.account_id = a.id
     where a.posted_cents <> coalesce(s.posted_cents, 0) or a.held_cents <> coalesce(s.held_cents, 0)
     order by a.id limit ${problems_max}`)) {
    problems.push(
      `account ${r.id} (${r.account_number}): cached current ${r.posted_cents} held ${r.held_cents}, ` +
        `but its entries give current ${r.entries_posted_cents} held ${r.entries_held_cents}`,
    );
  }

  // 2. Every transaction has two or more entries summing to zero.
  for (const r of await rows(sql`
    select t.id, count(e.id) as entry_count, coalesce(sum(e.amount_cents), 0) as total_cents
      from ledger_transactions t left join ledger_entries e on e.transaction_id = t.id
     group by t.id
    having count(e.id) < 2 or coalesce(sum(e.amount_cents), 0) <> 0
     order by t.id limit ${problems_max}`)) {
    problems.push(
      `transaction ${r.id}: ${r.entry_count} entries summing to ${r.total_cents} cents (must be >= 2 and 0)`,
    );
  }

  // 3. No member account below zero available, beyond its overdraft limit.
  for (const r of await rows(sql`
    select id, account_number, posted_cents, held_cents, overdraft_limit_cents
      from ledger_accounts
     where owner = 'member' and posted_cents - held_cents + overdraft_limit_cents < 0
     order by id limit ${problems_max}`)) {
    problems.push(
      `member account ${r.id} (${r.account_number}): current ${r.posted_cents} minus held ${r.held_cents} ` +
        `is below its overdraft limit ${r.overdraft_limit_cents}`,
    );
  }

  // 4. Reversals: a "reversed" transaction has exactly one posted reversal; a reversal points at
  //    a reversed transaction and carries its entries negated.
  for (const r of await rows(sql`
    select t.id from ledger_transactions t
     where t.status = 'reversed'
       and not exists (select 1 from ledger_transactions r where r.reverses_id = t.id and r.status = 'posted')
     order by t.id limit ${problems_max}`)) {
    problems.push(`transaction ${r.id}: marked reversed but no posted reversal points at it`);
  }
  for (const r of await rows(sql`
    select r.id, r.status, o.id as original_id, o.status as original_status
      from ledger_transactions r join ledger_transactions o on o.id = r.reverses_id
     where r.status <> 'posted' or o.status <> 'reversed'
     order by r.id limit ${problems_max}`)) {
    problems.push(
      `reversal ${r.id} (${r.status}) of transaction ${r.original_id} (${r.original_status}): must be posted, original reversed`,
    );
  }
  for (const r of await rows(sql`
    select r.id, r.reverses_id from ledger_transactions r
     where r.reverses_id is not null and (
       exists (select account_id, amount_cents from ledger_entries where transaction_id = r.id
               except select account_id, -amount_cents from ledger_entries where transaction_id = r.reverses_id)
       or exists (select account_id, -amount_cents from ledger_entries where transaction_id = r.reverses_id
               except select account_id, amount_cents from ledger_entries where transaction_id = r.id))
     order by r.id limit ${problems_max}`)) {
    problems.push(`reversal ${r.id}: its entries are not the negation of transaction ${r.reverses_id}'s`);
  }

  // 5. The daily totals (kept by triggers for date-range figures) agree with the entries of the
  //    posted transactions. A key whose money was all taken out again (reversed) stays at zero.
  for (const r of await rows(sql`
    with entries as (
      select e.account_id, t.effective_date, t.kind, coalesce(t.category, '') as category,
             coalesce(sum(e.amount_cents) filter (where e.amount_cents > 0), 0) as credits_cents,
             coalesce(-sum(e.amount_cents) filter (where e.amount_cents < 0), 0) as debits_cents
        from ledger_entries e join ledger_transactions t on t.id = e.transaction_id
       where t.status = 'posted'
       group by 1, 2, 3, 4
    )
    select coalesce(d.account_id, x.account_id) as account_id, coalesce(d.effective_date, x.effective_date)::text as effective_date,
           coalesce(d.kind, x.kind) as kind, coalesce(d.category, x.category) as category,
           coalesce(d.credits_cents, 0) as kept_credits, coalesce(d.debits_cents, 0) as kept_debits,
           coalesce(x.credits_cents, 0) as entries_credits, coalesce(x.debits_cents, 0) as entries_debits
      from ledger_daily_totals d
      full join entries x using (account_id, effective_date, kind, category)
     where coalesce(d.credits_cents, 0) <> coalesce(x.credits_cents, 0) or coalesce(d.debits_cents, 0) <> coalesce(x.debits_cents, 0)
     order by 1, 2, 3, 4 limit ${problems_max}`)) {
    problems.push(
      `daily totals of account ${r.account_id} on ${r.effective_date} (${r.kind}, "${r.category}"): kept credits ${r.kept_credits} debits ${r.kept_debits}, ` +
        `but the posted entries give credits ${r.entries_credits} debits ${r.entries_debits}`,
    );
  }

  // 6. The whole ledger sums to zero (follows from 1 and 2; checked on its own as the headline).
  const [totals] = await rows(sql`
    select (select coalesce(sum(posted_cents), 0) from ledger_accounts) as total_posted_cents,
           (select count(*) from ledger_accounts) as accounts,
           (select count(*) from ledger_transactions) as transactions,
           (select count(*) from ledger_entries) as entries`);
  const total_posted_cents = toCents(totals!.total_posted_cents);
  if (total_posted_cents !== 0)
    problems.push(`the accounts' current balances sum to ${total_posted_cents} cents, not 0`);

  return {
    ok: problems.length === 0,
    problems,
    counts: {
      accounts: toCents(totals!.accounts),
      transactions: toCents(totals!.transactions),
      entries: toCents(totals!.entries),
    },
    total_posted_cents,
  };
}
