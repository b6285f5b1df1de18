import { eq, sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { memberProfiles } from "~/server/db/schema";
import { memberAccounts, routingNumber, type AccountView } from "~/server/ledger/accounts.server";
import { toCents } from "~/server/ledger/rules";
import { firstTransactionOnOrAfter, memberHistoryPage, type MemberTransaction } from "./history.server";

/**
 * Every figure of the dashboard (SPEC 6), from the member's ledger records. Queries are bounded
 * by index ranges: balances are the accounts' cached figures; the month and the 30 days start
 * at the first transaction of the range (an index on effective_date) and read only that range
 * of each account's entries (an index on account_id, transaction_id); the recent list is one
 * keyset page.
 */
export interface DashboardAccount {
  id: number;
  account_number: string;
  type: "checking" | "savings" | "credit_card";
  type_label: string;
  status: "active" | "frozen" | "closed";
  holder: string;
  current_cents: number;
  available_cents: number;
}

export interface Dashboard {
  first_name: string;
  holder: string;
  joint: boolean;
  routing_number: string;
  accounts: DashboardAccount[];
  total_available_cents: number;
  pending: { total_cents: number; count: number };
  month: { label: string; income_cents: number; outgoing_cents: number };
  spending: { from: string; to: string; categories: Array<{ category: string; amount_cents: number }>; total_cents: number };
  recent: MemberTransaction[];
}

export const RECENT_COUNT = 20;
/** Kinds that move money between a member's own accounts: not income, not spending. */
const OWN_MOVES = sql`('transfer', 'reversal')`;

const TYPE_LABELS: Record<string, string> = { checking: "Personal Checking", savings: "Personal Savings", credit_card: "Credit Card" };

export async function memberHolder(db: DbOrTx, member_id: string, fallback_name: string): Promise<{ first_name: string; holder: string; joint: boolean }> {
  const [profile] = await db
    .select({ first_name: memberProfiles.first_name, last_name: memberProfiles.last_name, joint_account: memberProfiles.joint_account, joint_name: memberProfiles.joint_name })
    .from(memberProfiles)
    .where(eq(memberProfiles.user_id, member_id));
  if (!profile) return { first_name: fallback_name.split(" ")[0] ?? fallback_name, holder: fallback_name, joint: false };
  const name = `${profile.first_name} ${profile.last_name}`;
  const joint = profile.joint_account && Boolean(profile.joint_name);
  return { first_name: profile.first_name, holder: joint ? `${name} & ${profile.joint_name}` : name, joint };
}

export function monthStart(today: string): string {
  return `${today.slice(0, 7)}-01`;
}

export function daysBefore(today: string, days: number): string {
  const d = new Date(`${today}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - days);
  return d.toISOString().slice(0, 10);
}

export async function dashboard(db: DbOrTx, member: { id: string; name: string }, now: Date = new Date()): Promise<Dashboard> {
  const today = now.toISOString().slice(0, 10);
  const [who, all] = await Promise.all([memberHolder(db, member.id, member.name), memberAccounts(db, member.id)]);
  const accounts = all.filter((a) => a.type === "checking" || a.type === "savings");
  const ids = accounts.map((a) => a.id);
  const month_from = monthStart(today);
  const spending_from = daysBefore(today, 29);

  const [pending, month, spending, recent] = await Promise.all([
    pendingTotals(db, ids),
    monthTotals(db, ids, month_from),
    spendingByCategory(db, ids, spending_from),
    memberHistoryPage(db, accounts, {}, { limit: RECENT_COUNT }),
  ]);
  return {
    first_name: who.first_name,
    holder: who.holder,
    joint: who.joint,
    routing_number: routingNumber(),
    accounts: accounts.map((a) => toDashboardAccount(a, who.holder)),
    total_available_cents: accounts.filter((a) => a.status !== "closed").reduce((sum, a) => sum + a.available_cents, 0),
    pending,
    month: { label: new Date(`${month_from}T00:00:00Z`).toLocaleString("en-US", { month: "long", year: "numeric", timeZone: "UTC" }), ...month },
    spending: { from: spending_from, to: today, ...spending },
    recent: recent.rows,
  };
}

function toDashboardAccount(a: AccountView, holder: string): DashboardAccount {
  return {
    id: a.id,
    account_number: a.account_number,
    type: a.type as DashboardAccount["type"],
    type_label: TYPE_LABELS[a.type] ?? a.type,
    status: a.status,
    holder,
    current_cents: a.current_cents,
    available_cents: a.available_cents,
  };
}

function idList(ids: readonly number[]) {
  return sql.join(ids.map((id) => sql`${id}::bigint`), sql`, `);
}

/** Pending transactions on the member's accounts: from the partial index of pending transactions. */
export async function pendingTotals(db: DbOrTx, ids: readonly number[]): Promise<{ total_cents: number; count: number }> {
  if (ids.length === 0) return { total_cents: 0, count: 0 };
  const result = await db.execute(sql`
    select coalesce(sum(abs(e.amount_cents)), 0)::text as total, count(distinct t.id)::int as n
      from ledger_transactions t
      join ledger_entries e on e.transaction_id = t.id and e.account_id in (${idList(ids)})
     where t.status = 'pending'`);
  const row = result.rows[0] ?? {};
  return { total_cents: toCents(row.total ?? 0), count: Number(row.n ?? 0) };
}

/** Credits and debits dated from `from` on, money between the member's own accounts left out. */
export async function monthTotals(db: DbOrTx, ids: readonly number[], from: string): Promise<{ income_cents: number; outgoing_cents: number }> {
  if (ids.length === 0) return { income_cents: 0, outgoing_cents: 0 };
  const first = await firstTransactionOnOrAfter(db, from);
  const result = await db.execute(sql`
    select coalesce(sum(e.amount_cents) filter (where e.amount_cents > 0), 0)::text as income,
           coalesce(-sum(e.amount_cents) filter (where e.amount_cents < 0), 0)::text as outgoing
      from ledger_entries e join ledger_transactions t on t.id = e.transaction_id
     where e.account_id in (${idList(ids)}) and e.transaction_id >= ${first}::bigint
       and t.effective_date >= ${from}::date and t.status = 'posted' and t.kind not in ${OWN_MOVES}`);
  const row = result.rows[0] ?? {};
  return { income_cents: toCents(row.income ?? 0), outgoing_cents: toCents(row.outgoing ?? 0) };
}

/** Debits by category dated from `from` on (posted and pending), own moves left out. */
export async function spendingByCategory(
  db: DbOrTx,
  ids: readonly number[],
  from: string,
): Promise<{ categories: Array<{ category: string; amount_cents: number }>; total_cents: number }> {
  if (ids.length === 0) return { categories: [], total_cents: 0 };
  const first = await firstTransactionOnOrAfter(db, from);
  const result = await db.execute(sql`
    select coalesce(t.category, 'Other') as category, (-sum(e.amount_cents))::text as spent
      from ledger_entries e join ledger_transactions t on t.id = e.transaction_id
     where e.account_id in (${idList(ids)}) and e.transaction_id >= ${first}::bigint and e.amount_cents < 0
       and t.effective_date >= ${from}::date and t.status in ('posted', 'pending') and t.kind not in ${OWN_MOVES}
     group by 1 order by 2 desc`);
  const categories = result.rows
    .map((r) => ({ category: String(r.category), amount_cents: toCents(r.spent) }))
    .sort((a, b) => b.amount_cents - a.amount_cents);
  return { categories, total_cents: categories.reduce((s, c) => s + c.amount_cents, 0) };
}
