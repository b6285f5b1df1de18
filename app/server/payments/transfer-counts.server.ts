import { and, count, eq, isNull, ne, or, sql } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { users } from "~/server/db/schema";
import { recordAudit } from "~/server/audit/audit.server";
import { resetMonthTransferCounts, resetTransferCount, transferCount } from "~/server/ledger/accounts.server";
import { today } from "~/server/ledger/ledger.server";
import { monthOf } from "~/domain/ledger-rules";

/**
 * Reset Transfer Counts (`/admin/reset-transfers`): staff see every member (staff excluded) with
 * this month's count of savings transfers, and reset one member or all of them. Every reset is
 * audited (who, whom, the count before and after) in the same transaction.
 *
 * Whatever the number of members, the list is read a page at a time (the next page starts after
 * the last email shown, along the email index), each page's counts come with it in one query, and
 * "Reset all" is one statement. "Reset all" counts a member as reset when their count was above
 * zero, and as skipped when it was already zero (nothing to reset).
 */
export const TRANSFER_COUNTS_PAGE_SIZE = 50;
/** The longest email address a mailbox can have; a longer page address is not one we made. */
const EMAIL_CHARS_MAX = 320;

/** Members: role user, or no role; never staff or applicants. */
const isMember = and(or(eq(users.role, "user"), isNull(users.role)), ne(users.email, ""));
const memberIds = sql`select ${users.id} from ${users} where ${isMember}`;

export interface TransferCountRow {
  user_id: string;
  email: string;
  name: string;
  current_count: number;
}

export interface TransferCountsPage {
  members: TransferCountRow[];
  /** Every member, not only this page's. */
  total: number;
  /** Members whose count this month is above zero (what "Reset all" would reset). */
  with_transfers: number;
  /** The email to start the next page after; null on the last page. */
  next_after: string | null;
}

/** A page address's `after` value, or null when it cannot be an email we put there. */
export function parsePageAfter(value: string | null): string | null | "invalid" {
  if (value === null || value === "") return null;
  if (value.length > EMAIL_CHARS_MAX || /\p{Cc}/u.test(value)) return "invalid";
  return value;
}

/** One page of members by email, with their counts, and the real totals. */
export async function listTransferCounts(db: Db, options: { after?: string | null } = {}): Promise<TransferCountsPage> {
  const month = monthOf(today());
  // The page's members along the email index, then each one's count: an index probe of their
  // own savings accounts (ledger_accounts_member_id_idx).
  const page = await db.execute<{ user_id: string; email: string; name: string; current_count: string | number }>(sql`
    with page as (
      select ${users.id} as user_id, ${users.email} as email, ${users.name} as name from ${users}
      where ${isMember}${options.after ? sql` and ${users.email} > ${options.after}` : sql``}
      order by ${users.email} limit ${TRANSFER_COUNTS_PAGE_SIZE + 1}
    )
    select page.user_id, page.email, page.name,
      coalesce((select sum(la.transfer_count) from ledger_accounts la where la.member_id = page.user_id and la.type = 'savings' and la.transfer_count_month = ${month}), 0) as current_count
    from page order by page.email`);
  const rows = page.rows;
  const totals = await db.execute<{ total: string | number; with_transfers: string | number }>(sql`
    select count(*) as total,
      (select count(distinct la.member_id) from ledger_accounts la
        where la.type = 'savings' and la.transfer_count_month = ${month} and la.transfer_count > 0 and la.member_id in (${memberIds})) as with_transfers
    from ${users} where ${isMember}`);
  const more = rows.length > TRANSFER_COUNTS_PAGE_SIZE;
  const members = rows
    .slice(0, TRANSFER_COUNTS_PAGE_SIZE)
    .map((row) => ({ ...row, current_count: Number(row.current_count) }));
  return {
    members,
    total: Number(totals.rows[0]?.total ?? 0),
    with_transfers: Number(totals.rows[0]?.with_transfers ?? 0),
    next_after: more ? members[members.length - 1]!.email : null,
  };
}

export interface StaffActor {
  id: string;
  email: string;
}

export interface AuditOriginInput {
  request_id?: string | null;
  ip?: string | null;
}

export type ResetOneResult =
  { status: "reset"; email: string; before: number } | { status: "not_found" } | { status: "failed"; detail: string };

export async function resetMemberTransferCount(
  db: Db,
  actor: StaffActor,
  member_id: string,
  origin: AuditOriginInput = {},
): Promise<ResetOneResult> {
  // An id is short printable text; anything else names nobody (and would make the query fail).
  if (member_id === "" || member_id.length > 100 || /\p{Cc}/u.test(member_id)) return { status: "not_found" };
  const [member] = await db
    .select({ id: users.id, email: users.email, role: users.role })
    .from(users)
    .where(eq(users.id, member_id));
  if (!member || (member.role !== null && member.role !== "user")) return { status: "not_found" };
  try {
    const before = await db.transaction(async (tx) => {
      const count = await transferCount(tx, member.id);
      await resetTransferCount(tx, member.id);
      await recordAudit(tx, {
        actor_id: actor.id,
        actor_email: actor.email,
        action: "transfers.count_reset",
        subject_type: "member",
        subject_id: member.id,
        before: { transfer_count: count },
        after: { transfer_count: 0 },
        request_id: origin.request_id ?? null,
        ip: origin.ip ?? null,
      });
      return count;
    });
    return { status: "reset", email: member.email, before };
  } catch (error) {
    return { status: "failed", detail: error instanceof Error ? error.message : String(error) };
  }
}

export type ResetAllResult = { status: "reset"; reset: number; skipped: number } | { status: "failed"; detail: string };

export async function resetAllMemberTransferCounts(
  db: Db,
  actor: StaffActor,
  origin: AuditOriginInput = {},
): Promise<ResetAllResult> {
  try {
    return await db.transaction(async (tx) => {
      const reset = await resetMonthTransferCounts(tx, memberIds);
      const [members] = await tx.select({ n: count() }).from(users).where(isMember);
      const skipped = Number(members?.n ?? 0) - reset.length;
      await recordAudit(tx, {
        actor_id: actor.id,
        actor_email: actor.email,
        action: "transfers.count_reset_all",
        subject_type: "members",
        before: { counts: reset },
        after: { reset: reset.length, skipped },
        request_id: origin.request_id ?? null,
        ip: origin.ip ?? null,
      });
      return { status: "reset" as const, reset: reset.length, skipped };
    });
  } catch (error) {
    return { status: "failed", detail: error instanceof Error ? error.message : String(error) };
  }
}
