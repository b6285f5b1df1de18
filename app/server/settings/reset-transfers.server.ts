import { and, asc, eq, isNull, ne, or } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { users } from "~/server/db/schema";
import { recordAudit } from "~/server/audit/audit.server";
import { resetTransferCount, transferCount } from "~/server/ledger/accounts.server";

/**
 * Reset Transfer Counts (SPEC 7, `/admin/reset-transfers`): staff see every member (staff
 * excluded) with this month's count of savings transfers, and reset one member or all of them.
 * Every reset is audited (who, whom, the count before and after) in the same transaction.
 *
 * "Reset all" counts a member as reset when their count was above zero, and as skipped when it
 * was already zero (nothing to reset).
 */
const MEMBERS_MAX = 5_000;

export interface TransferCountRow {
  user_id: string;
  email: string;
  name: string;
  current_count: number;
}

/** Members (role user, or no role; never staff or applicants), by email, with their current count. */
export async function listTransferCounts(db: Db): Promise<TransferCountRow[]> {
  const members = await db
    .select({ user_id: users.id, email: users.email, name: users.name })
    .from(users)
    .where(and(or(eq(users.role, "user"), isNull(users.role)), ne(users.email, "")))
    .orderBy(asc(users.email))
    .limit(MEMBERS_MAX);
  const rows: TransferCountRow[] = [];
  for (const member of members) rows.push({ ...member, current_count: await transferCount(db, member.user_id) });
  return rows;
}

export interface StaffActor {
  id: string;
  email: string;
}

export interface AuditOriginInput {
  request_id?: string | null;
  ip?: string | null;
}

export type ResetOneResult = { status: "reset"; email: string; before: number } | { status: "not_found" } | { status: "failed"; detail: string };

export async function resetMemberTransferCount(db: Db, actor: StaffActor, member_id: string, origin: AuditOriginInput = {}): Promise<ResetOneResult> {
  const [member] = await db.select({ id: users.id, email: users.email, role: users.role }).from(users).where(eq(users.id, member_id));
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

export async function resetAllMemberTransferCounts(db: Db, actor: StaffActor, origin: AuditOriginInput = {}): Promise<ResetAllResult> {
  try {
    return await db.transaction(async (tx) => {
      const members = await tx
        .select({ id: users.id })
        .from(users)
        .where(or(eq(users.role, "user"), isNull(users.role)))
        .limit(MEMBERS_MAX);
      const reset: { member_id: string; before: number }[] = [];
      for (const member of members) {
        const count = await transferCount(tx, member.id);
        if (count === 0) continue;
        await resetTransferCount(tx, member.id);
        reset.push({ member_id: member.id, before: count });
      }
      await recordAudit(tx, {
        actor_id: actor.id,
        actor_email: actor.email,
        action: "transfers.count_reset_all",
        subject_type: "members",
        before: { counts: reset },
        after: { reset: reset.length, skipped: members.length - reset.length },
        request_id: origin.request_id ?? null,
        ip: origin.ip ?? null,
      });
      return { status: "reset" as const, reset: reset.length, skipped: members.length - reset.length };
    });
  } catch (error) {
    return { status: "failed", detail: error instanceof Error ? error.message : String(error) };
  }
}
