import { and, asc, desc, eq, gte, inArray, lt, lte, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import {
  INSTITUTION_ACCOUNT_TYPES,
  LOAN_ACCOUNT_TYPES,
  MEMBER_ACCOUNT_TYPES,
  booksReconciliations,
  ledgerAccounts,
  ledgerEntries,
  ledgerTransactions,
} from "~/server/db/schema";
import { INSTITUTION_ACCOUNT_NAMES, type InstitutionAccountType } from "~/server/ledger/accounts.server";
import {
  RAILS,
  RAIL_IDS,
  reconciliationOutcome,
  trialBalance,
  type BalanceLine,
  type Rail,
  type TrialBalance,
} from "~/domain/books";
import type { Actor } from "~/domain/actor";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { today } from "~/server/ledger/ledger.server";

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

/**
 * Every loan has a receivable account of its own (owner institution, kind loan_receivable): the
 * books show them as one control line, and only once a loan exists, so a credit union that books
 * no loans needs no code for it (docs/product.md#books).
 */
export const LOANS_RECEIVABLE_LINE = { code: "loan_receivable", name: "Loans receivable (every loan)" } as const;

async function loansReceivable(db: DbOrTx, as_of: string): Promise<BalanceLine[]> {
  const [row] = await db
    .select({ accounts: sql<string>`count(distinct ${ledgerAccounts.id})`, balance: balanceUpTo(as_of) })
    .from(ledgerAccounts)
    .leftJoin(ledgerEntries, eq(ledgerEntries.account_id, ledgerAccounts.id))
    .leftJoin(ledgerTransactions, eq(ledgerTransactions.id, ledgerEntries.transaction_id))
    .where(and(eq(ledgerAccounts.owner, "institution"), inArray(ledgerAccounts.type, [...LOAN_ACCOUNT_TYPES])));
  return Number(row?.accounts ?? 0) > 0 ? [{ ...LOANS_RECEIVABLE_LINE, balance_cents: Number(row?.balance ?? 0) }] : [];
}

/** The trial balance at the end of `as_of`: every institution account, the loans and the members' control lines. */
export async function trialBalanceAsOf(db: DbOrTx, as_of: string): Promise<TrialBalance> {
  const [institutionLines, loanLines, memberLines] = [
    await institutionBalances(db, as_of),
    await loansReceivable(db, as_of),
    await memberBalances(db, as_of),
  ];
  return trialBalance(as_of, [
    ...institutionLines.map((a) => ({ code: a.type, name: a.name, balance_cents: a.balance_cents })),
    ...loanLines,
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

export interface RailDay {
  rail: Rail;
  label: string;
  statement_source: string;
  account_name: string;
  account_number: string | null;
  credits_cents: number;
  debits_cents: number;
  /** Credits minus debits: the settlement account's net for the day, in the ledger's sign. */
  net_cents: number;
  /** What moved it, per kind of transaction (ACH files and returns, card settlements...). */
  by_kind: { kind: string; count: number; credits_cents: number; debits_cents: number }[];
  entries: AccountEntry[];
  /** The newest statement figure entered for this rail and day, against today's ledger figure. */
  reconciliation: {
    statement_cents: number;
    ledger_cents_then: number;
    entered_by_email: string | null;
    entered_at: Date;
    matched: boolean;
    difference_cents: number;
  } | null;
}

/** One rail's settlement on one day: the settlement account's movement, by kind, and its reconciliation. */
export async function railDay(db: DbOrTx, rail: Rail, date: string): Promise<RailDay> {
  const spec = RAILS[rail];
  const book = await accountBook(db, spec.account, date, date);
  const today = book.days.find((d) => d.date === date);
  const credits_cents = today?.credits_cents ?? 0;
  const debits_cents = today?.debits_cents ?? 0;
  const net_cents = credits_cents - debits_cents;
  const kinds = new Map<string, { kind: string; count: number; credits_cents: number; debits_cents: number }>();
  for (const e of book.entries) {
    const k = kinds.get(e.kind) ?? { kind: e.kind, count: 0, credits_cents: 0, debits_cents: 0 };
    k.count += 1;
    if (e.amount_cents > 0) k.credits_cents += e.amount_cents;
    else k.debits_cents -= e.amount_cents;
    kinds.set(e.kind, k);
  }
  const [latest] = await db
    .select()
    .from(booksReconciliations)
    .where(and(eq(booksReconciliations.rail, rail), eq(booksReconciliations.business_date, date)))
    .orderBy(desc(booksReconciliations.id))
    .limit(1);
  return {
    rail,
    label: spec.label,
    statement_source: spec.statement,
    account_name: book.name,
    account_number: book.account_number,
    credits_cents,
    debits_cents,
    net_cents,
    by_kind: [...kinds.values()],
    entries: book.entries,
    // Compared with the ledger as it is now: a settlement posted late closes the difference.
    reconciliation: latest
      ? {
          statement_cents: latest.statement_cents,
          ledger_cents_then: latest.ledger_cents,
          entered_by_email: latest.entered_by_email,
          entered_at: latest.entered_at,
          ...reconciliationOutcome(latest.statement_cents, net_cents),
        }
      : null,
  };
}

/** The daily settlement report: every rail's day. */
export async function settlementReport(db: DbOrTx, date: string): Promise<RailDay[]> {
  const days: RailDay[] = [];
  for (const rail of RAIL_IDS) days.push(await railDay(db, rail, date));
  return days;
}

/**
 * Records the statement's figure for a rail and day (docs/product.md#books), with the ledger's
 * figure at that moment, who and when, and an audit entry, in one transaction. Nothing in the
 * ledger changes: a difference is for people to look into, never corrected here.
 */
export async function recordReconciliation(
  db: Db,
  input: { rail: Rail; date: string; statement_cents: number; staff: Actor; origin: AuditOrigin },
): Promise<{ matched: boolean; difference_cents: number; ledger_cents: number }> {
  return db.transaction(async (tx) => {
    const day = await railDay(tx, input.rail, input.date);
    const [row] = await tx
      .insert(booksReconciliations)
      .values({
        rail: input.rail,
        business_date: input.date,
        statement_cents: input.statement_cents,
        ledger_cents: day.net_cents,
        entered_by: input.staff.id,
        entered_by_email: input.staff.email,
      })
      .returning({ id: booksReconciliations.id });
    const outcome = reconciliationOutcome(input.statement_cents, day.net_cents);
    await recordAudit(tx, {
      actor_id: input.staff.id,
      actor_email: input.staff.email,
      action: "books.reconciliation.recorded",
      subject_type: "books_reconciliation",
      subject_id: String(row!.id),
      after: {
        rail: input.rail,
        business_date: input.date,
        statement_cents: input.statement_cents,
        ledger_cents: day.net_cents,
        difference_cents: outcome.difference_cents,
      },
      request_id: input.origin.request_id,
      ip: input.origin.ip,
    });
    return { ...outcome, ledger_cents: day.net_cents };
  });
}

/** The institution's business date today: the books' default day (docs/product.md#business-date). */
export function booksToday(): string {
  return today();
}

/** The books' lines, in order: every institution account, then the members' control lines. */
export const GL_LINES: readonly { code: string; name: string }[] = [
  ...INSTITUTION_ACCOUNT_TYPES.map((type) => ({ code: type, name: INSTITUTION_ACCOUNT_NAMES[type] })),
  ...MEMBER_ACCOUNT_TYPES.map((type) => ({ code: `members_${type}`, name: MEMBER_GROUP_NAMES[type] })),
];

export interface GlDayLine {
  code: string;
  name: string;
  debits_cents: number;
  credits_cents: number;
}

/**
 * The day's general-ledger totals by line (every institution account and the members' control
 * lines): what was debited and credited on `date` (effective date), for the export to the credit
 * union's accounting system. The debits of all lines equal their credits.
 */
export async function glDayTotals(db: DbOrTx, date: string): Promise<GlDayLine[]> {
  const rows = await db
    .select({
      owner: ledgerAccounts.owner,
      type: ledgerAccounts.type,
      credits: sql<string>`coalesce(sum(${ledgerEntries.amount_cents}) filter (where ${ledgerEntries.amount_cents} > 0), 0)`,
      debits: sql<string>`coalesce(-sum(${ledgerEntries.amount_cents}) filter (where ${ledgerEntries.amount_cents} < 0), 0)`,
    })
    .from(ledgerEntries)
    .innerJoin(ledgerTransactions, eq(ledgerTransactions.id, ledgerEntries.transaction_id))
    .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, ledgerEntries.account_id))
    .where(and(inArray(ledgerTransactions.status, [...MOVED]), eq(ledgerTransactions.effective_date, date)))
    .groupBy(ledgerAccounts.owner, ledgerAccounts.type);
  const byCode = new Map(
    rows.map((r) => [
      r.owner === "member" ? `members_${r.type}` : r.type,
      { credits: Number(r.credits), debits: Number(r.debits) },
    ]),
  );
  const loans = byCode.get(LOANS_RECEIVABLE_LINE.code);
  return [
    ...GL_LINES.map((line) => ({
      ...line,
      debits_cents: byCode.get(line.code)?.debits ?? 0,
      credits_cents: byCode.get(line.code)?.credits ?? 0,
    })),
    ...(loans ? [{ ...LOANS_RECEIVABLE_LINE, debits_cents: loans.debits, credits_cents: loans.credits }] : []),
  ];
}
