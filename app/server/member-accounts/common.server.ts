import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { ledgerAccounts, users } from "~/server/db/schema";
import type { AuditOrigin } from "~/server/audit/audit.server";
import type { RefusalCode } from "~/domain/refusals";
import type { PendingOwner } from "~/domain/member-accounts";

/**
 * What every staff action on a member's money shares (docs/product.md#member-accounts-staff):
 * who acts, the outcome as a value, and the ledger's refusals turned into that value.
 */
export interface StaffActor {
  id: string;
  email: string;
}

export interface StaffRequest {
  staff: StaffActor;
  origin: AuditOrigin;
  /** The member whose detail pane the form was on: every account and transaction must be theirs. */
  member_id: string;
}

/** A refusal staff can act on, with the field it belongs next to (or none: the whole form). */
export interface Refused {
  status: "refused";
  message: string;
  field?: string;
  /** 400 bad input, 403 not this person's to do, 404 not this member's, 409 the state does not allow it now. */
  http: 400 | 403 | 404 | 409;
  code?:
    | RefusalCode
    | "maker_cannot_approve"
    | "already_decided"
    | "nothing_to_reverse"
    | "resolved_elsewhere"
    | "number_taken"
    | "no_change"
    | "balance_changed";
}

export function refused(
  message: string,
  http: Refused["http"],
  extra: Partial<Pick<Refused, "field" | "code">> = {},
): Refused {
  return { status: "refused", message, http, ...extra };
}

/**
 * What a pending ledger transaction belongs to (PENDING_OWNERS: a queued payment, a bill payment,
 * a card purchase, a mobile deposit waiting for review), or null when staff may release it here.
 * Each owner row is written in the same database transaction as its hold, so it never appears later.
 */
export function pendingOwnerSql(transaction_id: SQL): SQL<PendingOwner | null> {
  return sql<PendingOwner | null>`case
    when exists (select 1 from external_payments q where q.hold_transaction_id = ${transaction_id}) then 'payment'
    when exists (select 1 from bill_payments b where b.hold_transaction_id = ${transaction_id}) then 'bill_payment'
    when exists (select 1 from card_authorizations c where c.transaction_id = ${transaction_id}) then 'card_purchase'
    when exists (select 1 from mobile_deposits d where d.pending_transaction_id = ${transaction_id}) then 'mobile_deposit'
  end`;
}

/** A ledger operation's answer: its result (`ok: true`) or its refusal as a value (nothing written). */
type Answer = { ok: true } | { ok: false; code: RefusalCode; message: string };

/**
 * Runs ledger work and reads its answer: a refusal (insufficient funds, a frozen account, already
 * reversed) comes back with the ledger's own words; anything thrown is a real failure.
 */
export async function ledgerAttempt<T extends Answer>(
  work: () => Promise<T>,
): Promise<
  { ok: true; value: Extract<T, { ok: true }> } | { ok: false; refusal: { code: RefusalCode; message: string } }
> {
  let answer: T;
  try {
    answer = await work();
  } catch (error) {
    // An older ledger threw its refusals (a LedgerRefusal error with a code) instead of answering them.
    const thrown = error as { name?: unknown; code?: unknown; message?: unknown };
    if (thrown && thrown.name === "LedgerRefusal" && typeof thrown.code === "string")
      return { ok: false, refusal: { code: thrown.code as RefusalCode, message: String(thrown.message) } };
    throw error;
  }
  if (answer.ok !== false) return { ok: true, value: answer as Extract<T, { ok: true }> };
  const refusal = answer as Extract<Answer, { ok: false }>;
  return { ok: false, refusal: { code: refusal.code, message: refusal.message } };
}

/** Thrown inside a database transaction to roll it back with a refusal; caught by `inTransaction`. */
export class RefusedError extends Error {
  constructor(readonly refusal: Refused) {
    super(refusal.message);
  }
}

/** One database transaction; a `RefusedError` inside rolls it all back and comes out as a value. */
export async function inTransaction<T>(db: DbOrTx, work: (tx: DbOrTx) => Promise<T>): Promise<T | Refused> {
  try {
    return await db.transaction((tx) => work(tx));
  } catch (error) {
    if (error instanceof RefusedError) return error.refusal;
    throw error;
  }
}

/** Unwraps a ledger operation's answer inside a transaction, throwing its refusal to roll the transaction back. */
export async function ledgerOrThrow<T extends Answer>(
  work: () => Promise<T>,
  onRefusal: (message: string, code: RefusalCode) => Refused,
): Promise<Extract<T, { ok: true }>> {
  const attempt = await ledgerAttempt(work);
  if (!attempt.ok) throw new RefusedError(onRefusal(attempt.refusal.message, attempt.refusal.code));
  return attempt.value;
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
