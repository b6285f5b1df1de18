import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { ledgerAccounts, users } from "~/server/db/schema";
import type { AuditOrigin } from "~/server/audit/audit.server";
import type { LedgerRefusal, RefusalCode } from "~/domain/refusals";
import type { StaffRefusal } from "~/domain/member-accounts";
import type { Actor } from "~/domain/actor";
import { refuse } from "~/server/db/refusable-transaction.server";
import type { PendingOwner } from "~/domain/member-accounts";

/**
 * What every staff action on a member's money shares (docs/product.md#member-accounts-staff):
 * who acts, the outcome as a value, and the ledger's refusals turned into that value.
 */
export interface StaffRequest {
  staff: Actor;
  origin: AuditOrigin;
  /** The member whose detail pane the form was on: every account and transaction must be theirs. */
  member_id: string;
}

/**
 * What a pending ledger transaction belongs to (PENDING_OWNERS: a queued payment, a bill payment,
 * a card purchase, a mobile deposit waiting for review, an incoming credit held for review), or null when staff may release it here.
 * Each owner row is written in the same database transaction as its hold, so it never appears later.
 */
export function pendingOwnerSql(transaction_id: SQL): SQL<PendingOwner | null> {
  return sql<PendingOwner | null>`case
    when exists (select 1 from external_payments q where q.hold_transaction_id = ${transaction_id}) then 'payment'
    when exists (select 1 from bill_payments b where b.hold_transaction_id = ${transaction_id}) then 'bill_payment'
    when exists (select 1 from card_authorizations c where c.transaction_id = ${transaction_id}) then 'card_purchase'
    when exists (select 1 from mobile_deposits d where d.pending_transaction_id = ${transaction_id}) then 'mobile_deposit'
    when exists (select 1 from ach_credit_reviews r where r.hold_transaction_id = ${transaction_id}) then 'credit_review'
  end`;
}

/**
 * Unwraps a ledger operation's answer inside `inRefusableTransaction`: a refusal (insufficient
 * funds, a frozen account, already reversed) ends the transaction with `onRefusal`'s answer, in
 * the ledger's own words; anything thrown is a real failure.
 */
export async function ledgerOrRefuse<T extends { ok: true } | LedgerRefusal>(
  work: () => Promise<T>,
  onRefusal: (message: string, code: RefusalCode) => StaffRefusal,
): Promise<Extract<T, { ok: true }>> {
  const answer = await work();
  if (!answer.ok) refuse(onRefusal(answer.message, answer.code));
  return answer as Extract<T, { ok: true }>;
}

export interface MemberAccountRow {
  id: number;
  account_number: string;
  name: string;
  type: string;
  status: "active" | "frozen" | "closed";
  posted_cents: number;
  held_cents: number;
}

/** The member's own accounts (never an institution account, never another member's). */
export async function accountsOfMember(db: DbOrTx, member_id: string): Promise<MemberAccountRow[]> {
  const rows = await db
    .select({
      id: ledgerAccounts.id,
      account_number: ledgerAccounts.account_number,
      name: ledgerAccounts.name,
      type: ledgerAccounts.type,
      status: ledgerAccounts.status,
      posted_cents: ledgerAccounts.posted_cents,
      held_cents: ledgerAccounts.held_cents,
    })
    .from(ledgerAccounts)
    .where(and(eq(ledgerAccounts.owner, "member"), eq(ledgerAccounts.member_id, member_id)))
    .orderBy(ledgerAccounts.id)
    .limit(100);
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    posted_cents: Number(r.posted_cents),
    held_cents: Number(r.held_cents),
  }));
}

/** One account, only if it is this member's. */
export async function accountOfMember(
  db: DbOrTx,
  member_id: string,
  account_id: number,
): Promise<MemberAccountRow | null> {
  return (await accountsOfMember(db, member_id)).find((a) => a.id === account_id) ?? null;
}

/** Emails of the people behind user ids (who posted, who asked, who approved). */
export async function emailsOf(db: DbOrTx, ids: readonly string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids.filter((id) => /^[A-Za-z0-9_-]{1,64}$/.test(id)))];
  if (unique.length === 0) return new Map();
  const rows = await db.select({ id: users.id, email: users.email }).from(users).where(inArray(users.id, unique));
  return new Map(rows.map((r) => [r.id, r.email]));
}

/** The member's email (for Reverse All's confirmation and the notices), or null when not a member. */
export async function memberEmail(db: DbOrTx, member_id: string): Promise<string | null> {
  const [row] = await db.select({ email: users.email, role: users.role }).from(users).where(eq(users.id, member_id));
  return row ? row.email : null;
}

/** "Checking ••7890" for notices: never the whole number. */
export function accountLabel(account: { name: string; account_number: string }): string {
  return `${account.name} ••${account.account_number.slice(-4)}`;
}
