import { inRefusableTransaction } from "~/server/db/refusable-transaction.server";
import { and, eq, gte, lte, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { accountDividends } from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { postTransfer } from "~/server/ledger/ledger.server";
import { businessDate, toCents, toId } from "~/domain/ledger-rules";
import { addMonths, monthBounds, monthLabel, monthOfDate, type StatementMonth } from "~/domain/statements";
import {
  apyEarnedHundredths,
  formatHundredthsPercent,
  monthDividend,
  parseApyPercent,
  type DailyChange,
} from "~/domain/dividends";

/**
 * The monthly dividend run (docs/product.md#dividends), a job (app/server/jobs/registry.server.ts)
 * that runs every night and, on the first night of a month, before the statement run, pays the
 * month just ended: for each open member account of a type that earns, the average daily balance
 * from the ledger and the dividend at the type's APY (app/domain/dividends.ts), credited from
 * the institution's Dividends paid account in one ledger transaction dated the month's last day,
 * so the month's statement shows it and the next month's balances include it.
 *
 * Safe to repeat and to stop half way: an account's month is worked out once, in one database
 * transaction with the posting (the row in account_dividends, unique per account and month, and
 * the ledger's own idempotency key), so a second run, or the run after a crash, pays only the
 * accounts still missing. A frozen account is paid too: the ledger lets a dividend credit in
 * (`interest`), and nothing else (app/domain/ledger-rules.ts, `checkAccountOpen`).
 */
export const DIVIDEND_RUN_BATCH = 500;
/** Accounts worked on at once (each in its own database transaction); the embedded database takes them in turn. */
export const DIVIDEND_RUN_CONCURRENCY = 4;
export const DIVIDEND_INITIATOR = "system:dividends";

export type EarningType = "savings" | "checking";

export interface DividendRunCounts {
  [name: string]: number | string | boolean | null;
  month: string;
  /** Accounts credited, and the total credited. */
  paid: number;
  paid_cents: number;
  /** Accounts worked out whose average balance earned less than half a cent (a row, no posting). */
  earned_nothing: number;
  /** Accounts the ledger refused to credit (none expected: a closed account is not worked out): tried again by the next run. */
  waiting: number;
}

/** The APY of each account type that earns, in parts per million, from the institution profile. */
export function dividendRates(): Record<EarningType, number> {
  const { savings_apy_percent, checking_apy_percent } = institution().dividends;
  return { savings: parseApyPercent(savings_apy_percent) ?? 0, checking: parseApyPercent(checking_apy_percent) ?? 0 };
}

/** The account types whose APY is above zero: only their accounts are worked out. */
function earningTypes(rates: Record<EarningType, number>): EarningType[] {
  return (Object.keys(rates) as EarningType[]).filter((type) => rates[type] > 0);
}

/** The dividend transaction's idempotency key: one per account and month. */
export function dividendKey(account_id: number, month: StatementMonth): string {
  return `dividend:${account_id}:${month}`;
}

export async function payMonthlyDividends(db: Db, now: Date): Promise<DividendRunCounts> {
  const month = addMonths(monthOfDate(businessDate(institution().time_zone, now)), -1);
  const counts: DividendRunCounts = { month, paid: 0, paid_cents: 0, earned_nothing: 0, waiting: 0 };
  const rates = dividendRates();
  const types = earningTypes(rates);
  if (types.length === 0) return counts;
  const expense = await institutionAccount(db, "dividends_paid");
  for (let after = 0; ;) {
    const batch = await accountsToPay(db, month, types, after, DIVIDEND_RUN_BATCH);
    // A few accounts at a time; after a failure the others stop taking new accounts, so the run
    // ends (and is retried) with every account either paid in full or untouched.
    let next = 0;
    let failure: { error: unknown } | undefined;
    const worker = async () => {
      while (!failure && next < batch.length) {
        const account = batch[next++]!;
        try {
          const outcome = await payAccountDividend(db, account, month, rates[account.type], expense.id);
          if (outcome.kind === "paid") {
            counts.paid++;
            counts.paid_cents += outcome.dividend_cents;
          } else if (outcome.kind === "nothing") counts.earned_nothing++;
          else if (outcome.kind === "refused") counts.waiting++;
        } catch (error) {
          failure ??= { error };
        }
      }
    };
    await Promise.all(Array.from({ length: DIVIDEND_RUN_CONCURRENCY }, worker));
    if (failure) throw failure.error;
    if (batch.length < DIVIDEND_RUN_BATCH) break;
    after = batch[batch.length - 1]!.id;
  }
  return counts;
}

/**
 * Pays one account's dividends for each month from `from_month` to the month just ended, in
 * order (each month's credit is in the next month's balances), with the same rule, rows and keys
 * as the nightly run: for history written at once, such as the demo's, which the nightly run
 * (the month just ended only) would not reach. Returns the cents credited.
 */
export async function payAccountDividendsSince(
  db: Db,
  account_id: number,
  from_month: StatementMonth,
  now: Date,
): Promise<number> {
  const last = addMonths(monthOfDate(businessDate(institution().time_zone, now)), -1);
  const rates = dividendRates();
  const types = earningTypes(rates);
  if (types.length === 0) return 0;
  const expense = await institutionAccount(db, "dividends_paid");
  let paid_cents = 0;
  for (let month = from_month; month <= last; month = addMonths(month, 1)) {
    const [account] = await accountsToPay(db, month, types, account_id - 1, 1);
    if (account?.id !== account_id) continue;
    const outcome = await payAccountDividend(db, account, month, rates[account.type], expense.id);
    if (outcome.kind === "paid") paid_cents += outcome.dividend_cents;
  }
  return paid_cents;
}

/** An account's month as the ledger has it: the balance when it began and each day's change. */
export interface AccountMonth {
  id: number;
  type: EarningType;
  opening_cents: number;
  changes: DailyChange[];
}

/**
 * Open member accounts of the earning types, by id from `after`, with no dividend row for the
 * month and a history begun by its end, with their figures for the month, in one statement (one
 * snapshot). The balance when the month began is the current balance less every posted entry
 * dated on or after its first day (as the statement works it out), so only the entries from that
 * day on are read, found through the transactions' date index, however long the history.
 */
export async function accountsToPay(
  db: DbOrTx,
  month: StatementMonth,
  types: readonly EarningType[],
  after: number,
  limit: number,
): Promise<AccountMonth[]> {
  const { start, end } = monthBounds(month);
  const time_zone = institution().time_zone;
  const result = await db.execute(sql`
    with accounts as (
      select a.id, a.type, a.posted_cents from ledger_accounts a
       where a.owner = 'member' and a.type in (${sql.join(
         types.map((t) => sql`${t}`),
         sql`, `,
       )}) and a.status <> 'closed' and a.id > ${after}
         and not exists (select 1 from account_dividends d where d.account_id = a.id and d.period_month = ${month})
         and ((a.opened_at at time zone ${time_zone})::date <= ${end}::date
              or exists (select 1 from ledger_entries e join ledger_transactions t on t.id = e.transaction_id
                          where e.account_id = a.id and t.effective_date <= ${end}::date))
       order by a.id limit ${limit}
    ), since as (
      select e.account_id, t.effective_date, sum(e.amount_cents) as net_cents
        from ledger_transactions t join ledger_entries e on e.transaction_id = t.id
       where t.effective_date >= ${start}::date and t.status in ('posted', 'reversed')
         and e.account_id in (select id from accounts)
       group by e.account_id, t.effective_date
    )
    select a.id, a.type, a.posted_cents,
           (select coalesce(sum(s.net_cents), 0) from since s where s.account_id = a.id) as since_start_cents,
           (select coalesce(json_agg(json_build_object('effective_date', s.effective_date::text, 'net_cents', s.net_cents) order by s.effective_date), '[]')
              from since s where s.account_id = a.id and s.effective_date <= ${end}::date) as changes
      from accounts a order by a.id`);
  return result.rows.map((row) => {
    const changes = (typeof row.changes === "string" ? JSON.parse(row.changes) : row.changes) as {
      effective_date: string;
      net_cents: unknown;
    }[];
    return {
      id: toId(row.id),
      type: row.type as EarningType,
      opening_cents: toCents(row.posted_cents) - toCents(row.since_start_cents),
      changes: changes.map((c) => ({ effective_date: c.effective_date, net_cents: toCents(c.net_cents) })),
    };
  });
}

export type DividendOutcome =
  | { ok: true; kind: "paid"; dividend_cents: number; transaction_id: number }
  | { ok: true; kind: "nothing" }
  | { ok: false; kind: "done_before" }
  | { ok: false; kind: "refused"; code: string };

/**
 * Works out and pays one account's month, in one database transaction: the ledger credit (its
 * key makes a repeat a replay) and the account_dividends row (its unique key makes a repeat
 * write nothing). A refusal writes neither.
 */
export async function payAccountDividend(
  db: Db,
  account: AccountMonth,
  month: StatementMonth,
  apy_ppm: number,
  expense_account_id: number,
): Promise<DividendOutcome> {
  const figures = monthDividend(month, account.opening_cents, account.changes, apy_ppm);
  return payInTransaction(db, account, month, apy_ppm, expense_account_id, figures);
}

function payInTransaction(
  db: Db,
  account: AccountMonth,
  month: StatementMonth,
  apy_ppm: number,
  expense_account_id: number,
  figures: ReturnType<typeof monthDividend>,
): Promise<DividendOutcome> {
  return inRefusableTransaction(db, async (tx): Promise<DividendOutcome> => {
    let transaction_id: number | null = null;
    if (figures.dividend_cents > 0) {
      const posted = await postTransfer(tx, {
        idempotency_key: dividendKey(account.id, month),
        initiator: DIVIDEND_INITIATOR,
        kind: "interest",
        created_by: "dividends",
        memo: `Dividend for ${monthLabel(month)}`,
        category: "Interest",
        effective_date: monthBounds(month).end,
        entries: [
          { account_id: account.id, amount_cents: figures.dividend_cents },
          { account_id: expense_account_id, amount_cents: -figures.dividend_cents },
        ],
      });
      if (!posted.ok) return { ok: false, kind: "refused", code: posted.code };
      transaction_id = posted.transaction.id;
    }
    const written = await tx
      .insert(accountDividends)
      .values({
        account_id: account.id,
        period_month: month,
        days: figures.days,
        average_daily_balance_cents: figures.average_daily_balance_cents,
        apy_ppm,
        dividend_cents: figures.dividend_cents,
        transaction_id,
      })
      .onConflictDoNothing({ target: [accountDividends.account_id, accountDividends.period_month] })
      .returning({ id: accountDividends.id });
    // Another run worked the month out first: undo whatever this one wrote.
    if (written.length === 0) return { ok: false, kind: "done_before" };
    return transaction_id === null
      ? { ok: true, kind: "nothing" }
      : { ok: true, kind: "paid", dividend_cents: figures.dividend_cents, transaction_id };
  });
}

/** What a statement shows of the month's dividend (Truth in Savings periodic statement figures). */
export interface StatementDividends {
  period_cents: number;
  /** The calendar year's dividends up to and including the month. */
  year_to_date_cents: number;
  average_daily_balance_cents: number;
  days: number;
  /** "3.50%"; null when the average balance was not above zero. */
  apy_earned: string | null;
}

/** The month's dividend figures of an account, or null when the month has none worked out (a type that does not earn). */
export async function statementDividends(
  db: DbOrTx,
  account_id: number,
  month: StatementMonth,
): Promise<StatementDividends | null> {
  const rows = await db
    .select()
    .from(accountDividends)
    .where(
      and(
        eq(accountDividends.account_id, account_id),
        gte(accountDividends.period_month, `${month.slice(0, 4)}-01`),
        lte(accountDividends.period_month, month),
      ),
    );
  const row = rows.find((r) => r.period_month === month);
  if (!row) return null;
  const apy_earned = apyEarnedHundredths(row.dividend_cents, row.average_daily_balance_cents, row.days);
  return {
    period_cents: row.dividend_cents,
    year_to_date_cents: rows.reduce((sum, r) => sum + r.dividend_cents, 0),
    average_daily_balance_cents: row.average_daily_balance_cents,
    days: row.days,
    apy_earned: apy_earned === null ? null : formatHundredthsPercent(apy_earned),
  };
}
