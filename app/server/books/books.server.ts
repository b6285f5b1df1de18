import { and, asc, eq, gte, inArray, lt, lte, sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import {
  INSTITUTION_ACCOUNT_TYPES,
  MEMBER_ACCOUNT_TYPES,
  ledgerAccounts,
  ledgerEntries,
  ledgerTransactions,
} from "~/server/db/schema";
import { INSTITUTION_ACCOUNT_NAMES, type InstitutionAccountType } from "~/server/ledger/accounts.server";
import { trialBalance, type BalanceLine, type TrialBalance } from "~/domain/books";

/**
 * The institution's books (docs/product.md#books): balances as of a day, the trial balance and an
 * institution account's entries by day, read from the ledger's entries themselves (never from a
 * cached figure), so what they show is what the ledger holds.
 *
 * A balance as of a day is the sum of the entries of every transaction that posted with an
 * effective date on or before it. A transaction later reversed counts (its reversal, a posted
 * transaction of its own, takes it back on the reversal's date); a pending one (a hold) or a
 * failed one moves no money and does not count. This is the rule of the accounts' cached
 * `posted_cents`, so for today the two agree (tests/integration/books).
 */

/** Transactions whose entries are money that moved (docs/product.md#balances). */
const MOVED = ["posted", "reversed"] as const;

/** The members' accounts, in the trial balance as one control line per kind (no member is named). */
const MEMBER_GROUP_NAMES: Record<(typeof MEMBER_ACCOUNT_TYPES)[number], string> = {
  checking: "Members' checking (share drafts)",
  savings: "Members' savings (shares)",
  credit_card: "Members' credit cards",
};

export interface InstitutionAccountBalance {
  type: InstitutionAccountType;
  name: string;
  /** Null when no posting has opened the account yet (it is opened on first use). */
  account_number: string | null;
  balance_cents: number;
}

export function isInstitutionAccountType(text: string): text is InstitutionAccountType {
  return (INSTITUTION_ACCOUNT_TYPES as readonly string[]).includes(text);
}

const balanceUpTo = (as_of: string) =>
  sql<string>`coalesce(sum(${ledgerEntries.amount_cents}) filter (where ${ledgerTransactions.status} in ('posted', 'reversed') and ${ledgerTransactions.effective_date} <= ${as_of}), 0)`;

/** Every institution account, in the ledger's order of kinds, with its balance at the end of `as_of`. */
export async function institutionBalances(db: DbOrTx, as_of: string): Promise<InstitutionAccountBalance[]> {
  const rows = await db
    .select({
      type: ledgerAccounts.type,
      account_number: ledgerAccounts.account_number,
      balance: balanceUpTo(as_of),
    })
    .from(ledgerAccounts)
    .leftJoin(ledgerEntries, eq(ledgerEntries.account_id, ledgerAccounts.id))
    .leftJoin(ledgerTransactions, eq(ledgerTransactions.id, ledgerEntries.transaction_id))
    .where(eq(ledgerAccounts.owner, "institution"))
    .groupBy(ledgerAccounts.id);
  const byType = new Map(rows.map((r) => [r.type, r]));
  return INSTITUTION_ACCOUNT_TYPES.map((type) => {
    const row = byType.get(type);
    return {
      type,
      name: INSTITUTION_ACCOUNT_NAMES[type],
      account_number: row?.account_number ?? null,
      balance_cents: Number(row?.balance ?? 0),
    };
  });
}

/** What members hold, per kind of account, at the end of `as_of`. */
async function memberBalances(db: DbOrTx, as_of: string): Promise<BalanceLine[]> {
  const rows = await db
    .select({ type: ledgerAccounts.type, balance: balanceUpTo(as_of) })
    .from(ledgerAccounts)
    .leftJoin(ledgerEntries, eq(ledgerEntries.account_id, ledgerAccounts.id))
    .leftJoin(ledgerTransactions, eq(ledgerTransactions.id, ledgerEntries.transaction_id))
    .where(eq(ledgerAccounts.owner, "member"))
    .groupBy(ledgerAccounts.type);
  const byType = new Map(rows.map((r) => [r.type, Number(r.balance)]));
  return MEMBER_ACCOUNT_TYPES.map((type) => ({
    code: `members_${type}`,
    name: MEMBER_GROUP_NAMES[type],
    balance_cents: byType.get(type) ?? 0,
  }));
}

/** The trial balance at the end of `as_of`: every institution account and the members' control lines. */
export async function trialBalanceAsOf(db: DbOrTx, as_of: string): Promise<TrialBalance> {
  const [institutionLines, memberLines] = [await institutionBalances(db, as_of), await memberBalances(db, as_of)];
  return trialBalance(as_of, [
    ...institutionLines.map((a) => ({ code: a.type, name: a.name, balance_cents: a.balance_cents })),
    ...memberLines,
  ]);
}

export interface AccountDay {
  date: string;
  credits_cents: number;
  /** Positive: the sum of the day's debits. */
  debits_cents: number;
  /** The balance at the end of the day. */
  closing_cents: number;
}

export interface AccountEntry {
  transaction_id: number;
  kind: string;
  amount_cents: number;
  created_at: Date;
  /** "reversed" when a later transaction took it back. */
  status: string;
}

export interface AccountBook {
  type: InstitutionAccountType;
  name: string;
  account_number: string | null;
  from: string;
  to: string;
  opening_cents: number;
  /** Only days with entries, oldest first. */
  days: AccountDay[];
  /** The entries of `day`, in the order they were written. */
  day: string;
  entries: AccountEntry[];
}

/** How many days an account's page shows, ending on the chosen day. */
export const ACCOUNT_BOOK_DAYS = 31;

function daysBefore(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - days);
  return d.toISOString().slice(0, 10);
}

/**
 * One institution account's book: the balance before the period, each day of the
 * ACCOUNT_BOOK_DAYS ending on `to` with what came in and went out and the closing balance, and
 * the entries of the chosen `day` (in the period). The entries name the transaction and its kind,
 * never a member: the accountant has no member powers (docs/security.md#roles).
 */
export async function accountBook(
  db: DbOrTx,
  type: InstitutionAccountType,
  to: string,
  day: string = to,
): Promise<AccountBook> {
  const from = daysBefore(to, ACCOUNT_BOOK_DAYS - 1);
  const [account] = await db
    .select({ id: ledgerAccounts.id, account_number: ledgerAccounts.account_number })
    .from(ledgerAccounts)
    .where(and(eq(ledgerAccounts.owner, "institution"), eq(ledgerAccounts.type, type)));
  const base = { type, name: INSTITUTION_ACCOUNT_NAMES[type], from, to, day };
  if (!account) return { ...base, account_number: null, opening_cents: 0, days: [], entries: [] };

  const moved = and(eq(ledgerEntries.account_id, account.id), inArray(ledgerTransactions.status, [...MOVED]));
  const [opening] = await db
    .select({ total: sql<string>`coalesce(sum(${ledgerEntries.amount_cents}), 0)` })
    .from(ledgerEntries)
    .innerJoin(ledgerTransactions, eq(ledgerTransactions.id, ledgerEntries.transaction_id))
    .where(and(moved, lt(ledgerTransactions.effective_date, from)));
  const perDay = await db
    .select({
      date: ledgerTransactions.effective_date,
      credits: sql<string>`coalesce(sum(${ledgerEntries.amount_cents}) filter (where ${ledgerEntries.amount_cents} > 0), 0)`,
      debits: sql<string>`coalesce(-sum(${ledgerEntries.amount_cents}) filter (where ${ledgerEntries.amount_cents} < 0), 0)`,
    })
    .from(ledgerEntries)
    .innerJoin(ledgerTransactions, eq(ledgerTransactions.id, ledgerEntries.transaction_id))
    .where(and(moved, gte(ledgerTransactions.effective_date, from), lte(ledgerTransactions.effective_date, to)))
    .groupBy(ledgerTransactions.effective_date)
    .orderBy(asc(ledgerTransactions.effective_date));
  const opening_cents = Number(opening?.total ?? 0);
  let running = opening_cents;
  const days = perDay.map((row) => {
    const credits_cents = Number(row.credits);
    const debits_cents = Number(row.debits);
    running += credits_cents - debits_cents;
    return { date: row.date, credits_cents, debits_cents, closing_cents: running };
  });
  const entries = await db
    .select({
      transaction_id: ledgerTransactions.id,
      kind: ledgerTransactions.kind,
      amount_cents: ledgerEntries.amount_cents,
      created_at: ledgerTransactions.created_at,
      status: ledgerTransactions.status,
    })
    .from(ledgerEntries)
    .innerJoin(ledgerTransactions, eq(ledgerTransactions.id, ledgerEntries.transaction_id))
    .where(and(moved, eq(ledgerTransactions.effective_date, day)))
    .orderBy(asc(ledgerEntries.id));
  return { ...base, account_number: account.account_number, opening_cents, days, entries };
}
