import { sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { memberAccounts, routingNumber, type AccountView } from "~/server/ledger/accounts.server";
import { today as businessToday } from "~/server/ledger/ledger.server";
import { toCents } from "~/domain/ledger-rules";
import { LOAN_MOVE_KINDS, OWN_MOVE_KINDS, spendingWindow } from "~/domain/member-transactions";
import {
  accountIdArray,
  billPaymentStates,
  historyPage,
  jsonRows,
  jsonValue,
  paymentStates,
  recentEntries,
  type MemberTransaction,
} from "./history.server";

/**
 * Every figure of the dashboard (docs/product.md#dashboard), from the member's ledger records, in
 * two statements: the accounts (balances are the accounts' cached figures, which the verifier
 * checks against the entries), then one for the profile's names, pending + this month + 30 days of
 * spending (`rangeFigures`: the daily totals of the date range up to today, plus pending entries
 * for the Pending figure) and the recent page.
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
  spending: {
    from: string;
    to: string;
    categories: Array<{ category: string; amount_cents: number }>;
    total_cents: number;
  };
  recent: MemberTransaction[];
}

export const RECENT_COUNT = 20;
/**
 * Kinds that are neither income nor spending, as a text[] literal: money between the member's own
 * accounts, and a loan's money paid out or paid back.
 */
const OWN_MOVES = `{${[...OWN_MOVE_KINDS, ...LOAN_MOVE_KINDS].join(",")}}`;

/** One formatter for the module ("November 2026"): toLocaleString would build one per call. */
const MONTH_LABEL = new Intl.DateTimeFormat("en-US", { month: "long", year: "numeric", timeZone: "UTC" });

const TYPE_LABELS: Record<string, string> = {
  checking: "Personal Checking",
  savings: "Personal Savings",
  credit_card: "Credit Card",
};

interface ProfileNames {
  first_name: string;
  last_name: string;
  joint_account: boolean;
  joint_name: string | null;
}

/** Who the accounts belong to, as the cards name them: the member, or both joint holders. */
function holderOf(
  profile: ProfileNames | null,
  fallback_name: string,
): { first_name: string; holder: string; joint: boolean } {
  if (!profile)
    return { first_name: fallback_name.split(" ")[0] ?? fallback_name, holder: fallback_name, joint: false };
  const name = `${profile.first_name} ${profile.last_name}`;
  const joint = profile.joint_account && Boolean(profile.joint_name);
  return { first_name: profile.first_name, holder: joint ? `${name} & ${profile.joint_name}` : name, joint };
}

export function monthStart(today: string): string {
  return `${today.slice(0, 7)}-01`;
}

export async function dashboard(
  db: DbOrTx,
  member: { id: string; name: string },
  now: Date = new Date(),
): Promise<Dashboard> {
  // The credit union's business day: "this month" turns over at midnight where its books are kept.
  const today = businessToday(now);
  const all = await memberAccounts(db, member.id);
  const accounts = all.filter((a) => a.type === "checking" || a.type === "savings");
  const ids = accounts.map((a) => a.id);
  const month_from = monthStart(today);
  const spending = spendingWindow(today);

  // The profile's names, the range figures and the recent page in one statement: beside its own
  // work, each statement costs PGlite a fixed ~0.6 ms of protocol calls and result parsing.
  const result = await db.execute(sql`
    select (select json_build_object('first_name', p.first_name, 'last_name', p.last_name, 'joint_account', p.joint_account, 'joint_name', p.joint_name)
              from member_profiles p where p.user_id = ${member.id}) as profile,
           ${ids.length === 0 ? sql`null` : sql`(select json_agg(f) from member_range_figures(${accountIdArray(ids)}, ${month_from}::date, ${spending.from}::date, ${spending.to}::date, ${OWN_MOVES}::text[]) f)`} as figures,
           r.recent, ${paymentStates(sql`r.recent`)} as recent_payments, ${billPaymentStates(sql`r.recent`)} as recent_bill_payments
      from (select ${ids.length === 0 ? sql`null::json` : recentEntries(accounts, null, RECENT_COUNT)} as recent offset 0) r`);
  const row = result.rows[0] ?? {};
  const who = holderOf(jsonValue(row.profile) as ProfileNames | null, member.name);
  const figures = rangeFigures(jsonRows(row.figures));
  const recent = historyPage(row.recent, accounts, RECENT_COUNT, {
    payments: row.recent_payments,
    bill_payments: row.recent_bill_payments,
  });
  return {
    first_name: who.first_name,
    holder: who.holder,
    joint: who.joint,
    routing_number: routingNumber(),
    accounts: accounts.map((a) => toDashboardAccount(a, who.holder)),
    total_available_cents: accounts.filter((a) => a.status !== "closed").reduce((sum, a) => sum + a.available_cents, 0),
    pending: figures.pending,
    month: { label: MONTH_LABEL.format(new Date(`${month_from}T00:00:00Z`)), ...figures.month },
    spending: { ...spending, ...figures.spending },
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

/**
 * Pending, this month's income and outgoing, and 30 days of spending by category, from the rows
 * of `member_range_figures` (migrations 0012 and 0031: a function, so that its plan is made once
 * per connection). Income, outgoing and spending are money that has moved: posted, dated from
 * the range's start to today (`spendingWindow`, app/domain/member-transactions.ts), from
 * `ledger_daily_totals` (a few rows per account and day, kept by the database in each posting's
 * transaction and checked by `ledger:verify`), so the cost does not grow with how busy the month
 * was. Pending transactions (few, from their partial index) make only the Pending figure: a held
 * card purchase or a bill payment scheduled for next year has not left the account. Money between
 * the member's own accounts, a loan paid out and a loan payment are neither income nor spending. A
 * member without accounts has no rows: zeros.
 */
export function rangeFigures(rows: readonly Record<string, unknown>[]): {
  pending: { total_cents: number; count: number };
  month: { income_cents: number; outgoing_cents: number };
  spending: { categories: Array<{ category: string; amount_cents: number }>; total_cents: number };
} {
  let income_cents = 0;
  let outgoing_cents = 0;
  const categories: Array<{ category: string; amount_cents: number }> = [];
  for (const r of rows) {
    if (r.income !== null && r.income !== undefined) income_cents += toCents(r.income);
    if (r.outgoing !== null && r.outgoing !== undefined) outgoing_cents += toCents(r.outgoing);
    if (r.spent !== null && r.spent !== undefined && toCents(r.spent) > 0)
      categories.push({ category: String(r.category), amount_cents: toCents(r.spent) });
  }
  categories.sort((a, b) => b.amount_cents - a.amount_cents || a.category.localeCompare(b.category));
  const first = rows[0] ?? {};
  return {
    pending: { total_cents: toCents(first.pending_total ?? 0), count: Number(first.pending_count ?? 0) },
    month: { income_cents, outgoing_cents },
    spending: { categories, total_cents: categories.reduce((sum, c) => sum + c.amount_cents, 0) },
  };
}
