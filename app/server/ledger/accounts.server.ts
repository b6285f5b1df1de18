import crypto from "node:crypto";
import { and, asc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import {
  ledgerAccounts,
  type INSTITUTION_ACCOUNT_TYPES,
  type LedgerAccount,
  type MEMBER_ACCOUNT_TYPES,
} from "~/server/db/schema";
import { isValidAccountNumber, randomAccountNumber } from "~/domain/account-number";
import { institution } from "~/config/institution.server";
import { ledgerRefusal, type LedgerRefusal } from "~/domain/refusals";
import { today } from "./ledger.server";
import { withRetry } from "./session.server";
import {
  AMOUNT_CENTS_MAX,
  assert,
  assertText,
  monthOf,
  toCents,
  toId,
  type AccountStatus,
} from "~/domain/ledger-rules";

/**
 * Ledger accounts: opening, status, overdraft, balances and the savings transfer count. Balances
 * are never written here (docs/product.md#ledger-only): they follow from postings in
 * `ledger.server.ts`.
 */

export type MemberAccountType = (typeof MEMBER_ACCOUNT_TYPES)[number];
export type InstitutionAccountType = (typeof INSTITUTION_ACCOUNT_TYPES)[number];

/** Tries before giving up on finding an unused number: 10^10 numbers make a clash rare. */
const ACCOUNT_NUMBER_ATTEMPTS_MAX = 20;
const MEMBER_ACCOUNTS_MAX = 100;

export const INSTITUTION_ACCOUNT_NAMES: Record<InstitutionAccountType, string> = {
  cash: "Cash",
  ach_settlement: "ACH settlement",
  wire_settlement: "Wire settlement",
  bill_pay_settlement: "Bill pay settlement",
  deposits_in_transit: "Deposits in transit",
  adjustments: "Adjustments",
  fees_income: "Fees income",
  card_settlement: "Card settlement",
  dividends_paid: "Dividends paid",
  interest_receivable: "Loan interest receivable",
  interest_income: "Loan interest income",
};

export interface AccountView {
  id: number;
  account_number: string;
  owner: "member" | "institution";
  type: LedgerAccount["type"];
  member_id: string | null;
  name: string;
  status: AccountStatus;
  /** Current balance: posted entries (docs/product.md#balances). */
  current_cents: number;
  /** Debits on hold (pending transactions). */
  held_cents: number;
  /** Current minus held debits (docs/product.md#balances); the overdraft limit is not included. */
  available_cents: number;
  overdraft_limit_cents: number;
  opened_at: Date;
}

/** The institution's routing number (9 digits, ABA checksum checked when the profile loads). */
export function routingNumber(): string {
  return institution().routing_number;
}

/** A 10-digit account number that no account has yet (checked against the database). */
export async function generateAccountNumber(db: DbOrTx): Promise<string> {
  for (let attempt = 0; attempt < ACCOUNT_NUMBER_ATTEMPTS_MAX; attempt++) {
    const candidate = randomAccountNumber((max) => crypto.randomInt(max));
    const taken = await db
      .select({ id: ledgerAccounts.id })
      .from(ledgerAccounts)
      .where(eq(ledgerAccounts.account_number, candidate))
      .limit(1);
    if (taken.length === 0) return candidate;
  }
  throw new Error(`no unused account number after ${ACCOUNT_NUMBER_ATTEMPTS_MAX} tries`);
}

/** Opens a member's checking, savings or credit-card account with a zero balance. */
export async function openAccount(
  db: DbOrTx,
  input: { member_id: string; type: MemberAccountType; name: string; overdraft_limit_cents?: number },
): Promise<AccountView> {
  assertText(input.member_id, "member_id", true);
  assertText(input.name, "name", true);
  const overdraft_limit_cents = input.overdraft_limit_cents ?? 0;
  assert(
    Number.isSafeInteger(overdraft_limit_cents) &&
      overdraft_limit_cents >= 0 &&
      overdraft_limit_cents <= AMOUNT_CENTS_MAX,
    "bad overdraft limit",
  );
  return insertAccount(db, {
    owner: "member",
    type: input.type,
    member_id: input.member_id,
    name: input.name,
    overdraft_limit_cents,
  });
}

/** A new loan's receivable account (docs/product.md#loans): the institution's, one per loan. */
export function openLoanReceivable(db: DbOrTx, name: string): Promise<AccountView> {
  assertText(name, "name", true);
  return insertAccount(db, {
    owner: "institution",
    type: "loan_receivable",
    member_id: null,
    name,
    overdraft_limit_cents: 0,
  });
}

/** The institution's account of a kind (cash, ACH settlement...), opened on first use. */
export async function institutionAccount(db: DbOrTx, type: InstitutionAccountType): Promise<AccountView> {
  const existing = await findInstitutionAccount(db, type);
  if (existing) return existing;
  try {
    return await insertAccount(db, {
      owner: "institution",
      type,
      member_id: null,
      name: INSTITUTION_ACCOUNT_NAMES[type],
      overdraft_limit_cents: 0,
    });
  } catch (error) {
    // Another process opened it at the same moment: the unique index kept one; use it.
    const raced = await findInstitutionAccount(db, type);
    if (raced) return raced;
    throw error;
  }
}

async function findInstitutionAccount(db: DbOrTx, type: InstitutionAccountType): Promise<AccountView | null> {
  const [row] = await db
    .select()
    .from(ledgerAccounts)
    .where(and(eq(ledgerAccounts.owner, "institution"), eq(ledgerAccounts.type, type)));
  return row ? toAccountView(row) : null;
}

async function insertAccount(
  db: DbOrTx,
  values: {
    owner: "member" | "institution";
    type: LedgerAccount["type"];
    member_id: string | null;
    name: string;
    overdraft_limit_cents: number;
  },
): Promise<AccountView> {
  for (let attempt = 1; ; attempt++) {
    const account_number = await generateAccountNumber(db);
    assert(isValidAccountNumber(account_number), "generated account number has the wrong shape");
    const rows = await db
      .insert(ledgerAccounts)
      .values({ ...values, account_number })
      .onConflictDoNothing({ target: ledgerAccounts.account_number })
      .returning();
    // Empty only if another process took the same number between the check and the insert.
    if (rows[0]) return toAccountView(rows[0]);
    assert(attempt < ACCOUNT_NUMBER_ATTEMPTS_MAX, "account number kept clashing");
  }
}

export async function getAccount(db: DbOrTx, account_id: number): Promise<AccountView | null> {
  const [row] = await db.select().from(ledgerAccounts).where(eq(ledgerAccounts.id, account_id));
  return row ? toAccountView(row) : null;
}

export async function getAccountByNumber(db: DbOrTx, account_number: string): Promise<AccountView | null> {
  if (!isValidAccountNumber(account_number)) return null;
  const [row] = await db.select().from(ledgerAccounts).where(eq(ledgerAccounts.account_number, account_number));
  return row ? toAccountView(row) : null;
}

/** Balances of the given accounts, in id order (missing ids are simply absent). */
export async function getBalances(db: DbOrTx, account_ids: readonly number[]): Promise<AccountView[]> {
  if (account_ids.length === 0) return [];
  assert(account_ids.length <= MEMBER_ACCOUNTS_MAX * 10, "too many accounts in one balance query");
  const rows = await db
    .select()
    .from(ledgerAccounts)
    .where(inArray(ledgerAccounts.id, [...account_ids]))
    .orderBy(asc(ledgerAccounts.id));
  return rows.map(toAccountView);
}

/** A member's accounts with their balances, oldest first. */
export async function memberAccounts(db: DbOrTx, member_id: string): Promise<AccountView[]> {
  const rows = await db
    .select()
    .from(ledgerAccounts)
    .where(and(eq(ledgerAccounts.owner, "member"), eq(ledgerAccounts.member_id, member_id)))
    .orderBy(asc(ledgerAccounts.id))
    .limit(MEMBER_ACCOUNTS_MAX);
  return rows.map(toAccountView);
}

/**
 * Freeze, unfreeze or close (staff). Closing needs a zero balance with nothing pending, and is
 * final: a closed account never reopens (its number stays taken and its history stays).
 */
export async function setAccountStatus(
  db: DbOrTx,
  account_id: number,
  status: AccountStatus,
): Promise<AccountChangeAnswer> {
  return withRetry(() =>
    db.transaction(async (tx): Promise<AccountChangeAnswer> => {
      const [row] = await tx.select().from(ledgerAccounts).where(eq(ledgerAccounts.id, account_id)).for("update");
      if (!row) return ledgerRefusal("account_not_found", { subject_id: account_id });
      if (row.status === "closed" && status !== "closed")
        return ledgerRefusal("account_closed", { subject_id: account_id });
      if (status === "closed" && (toCents(row.posted_cents) !== 0 || toCents(row.held_cents) !== 0)) {
        return ledgerRefusal("balance_not_zero", { subject_id: account_id });
      }
      const [updated] = await tx
        .update(ledgerAccounts)
        .set({ status })
        .where(eq(ledgerAccounts.id, account_id))
        .returning();
      return { ok: true, account: toAccountView(updated!) };
    }),
  );
}

/** An account after a staff change, or why the change was refused (nothing changed). */
export type AccountChangeAnswer = { ok: true; account: AccountView } | LedgerRefusal;

/** Sets how far below zero a member account may go; never below what it already uses. */
export async function setOverdraftLimit(
  db: DbOrTx,
  account_id: number,
  overdraft_limit_cents: number,
): Promise<AccountChangeAnswer> {
  assert(
    Number.isSafeInteger(overdraft_limit_cents) &&
      overdraft_limit_cents >= 0 &&
      overdraft_limit_cents <= AMOUNT_CENTS_MAX,
    "bad overdraft limit",
  );
  return withRetry(() =>
    db.transaction(async (tx): Promise<AccountChangeAnswer> => {
      const [row] = await tx.select().from(ledgerAccounts).where(eq(ledgerAccounts.id, account_id)).for("update");
      if (!row) return ledgerRefusal("account_not_found", { subject_id: account_id });
      const view = toAccountView(row);
      if (row.owner === "member" && view.available_cents + overdraft_limit_cents < 0) {
        return ledgerRefusal("overdraft_in_use", { subject_id: account_id });
      }
      const [updated] = await tx
        .update(ledgerAccounts)
        .set({ overdraft_limit_cents })
        .where(eq(ledgerAccounts.id, account_id))
        .returning();
      return { ok: true, account: toAccountView(updated!) };
    }),
  );
}

/**
 * A member's transfers out of savings this month (docs/product.md#transfer-limits; the "Current
 * count" of the staff reset page): the sum over the member's savings accounts.
 */
export async function transferCount(db: DbOrTx, member_id: string, month: string = monthOf(today())): Promise<number> {
  assert(/^\d{4}-\d{2}$/.test(month), `bad month ${month}`);
  const result = await db
    .select({ count: sql<string>`coalesce(sum(${ledgerAccounts.transfer_count}), 0)` })
    .from(ledgerAccounts)
    .where(
      and(
        eq(ledgerAccounts.member_id, member_id),
        eq(ledgerAccounts.type, "savings"),
        eq(ledgerAccounts.transfer_count_month, month),
      ),
    );
  return toCents(result[0]?.count ?? 0);
}

/**
 * Staff reset of one member's count (docs/product.md#reset-transfer-counts). Returns how many
 * savings accounts were reset.
 */
export async function resetTransferCount(db: DbOrTx, member_id: string): Promise<number> {
  assertText(member_id, "member_id", true);
  const rows = await db
    .update(ledgerAccounts)
    .set({ transfer_count: 0 })
    .where(and(eq(ledgerAccounts.member_id, member_id), eq(ledgerAccounts.type, "savings")))
    .returning({ id: ledgerAccounts.id });
  return rows.length;
}

/** Staff reset of every member's count. Returns how many members had a count above zero. */
export async function resetAllTransferCounts(db: DbOrTx): Promise<number> {
  const rows = await db
    .update(ledgerAccounts)
    .set({ transfer_count: 0 })
    .where(and(eq(ledgerAccounts.type, "savings"), sql`${ledgerAccounts.transfer_count} > 0`))
    .returning({ member_id: ledgerAccounts.member_id });
  return new Set(rows.map((r) => r.member_id)).size;
}

/**
 * Staff reset of this month's count for every holder `holders` selects (a subquery of member
 * ids), in one statement whatever their number. Returns each holder whose count was above zero,
 * with that count, for the audit log.
 */
export async function resetMonthTransferCounts(
  db: DbOrTx,
  holders: SQL,
  month: string = monthOf(today()),
): Promise<{ member_id: string; before: number }[]> {
  assert(/^\d{4}-\d{2}$/.test(month), `bad month ${month}`);
  const result = await db.execute<{ member_id: string; before: string | number }>(sql`
    with counted as (
      select id, member_id, transfer_count from ledger_accounts
      where type = 'savings' and transfer_count > 0 and transfer_count_month = ${month} and member_id in (${holders})
      for update
    ), reset as (
      update ledger_accounts set transfer_count = 0 from counted where ledger_accounts.id = counted.id
      returning counted.member_id, counted.transfer_count
    )
    select member_id, sum(transfer_count) as before from reset group by member_id order by member_id`);
  return result.rows.map((row) => ({ member_id: row.member_id, before: Number(row.before) }));
}

function toAccountView(row: LedgerAccount): AccountView {
  const state = {
    posted_cents: toCents(row.posted_cents),
    held_cents: toCents(row.held_cents),
    overdraft_limit_cents: toCents(row.overdraft_limit_cents),
  };
  return {
    id: toId(row.id),
    account_number: row.account_number,
    owner: row.owner,
    type: row.type,
    member_id: row.member_id,
    name: row.name,
    status: row.status,
    current_cents: state.posted_cents,
    held_cents: state.held_cents,
    available_cents: state.posted_cents - state.held_cents,
    overdraft_limit_cents: state.overdraft_limit_cents,
    opened_at: row.opened_at,
  };
}
