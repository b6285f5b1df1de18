import { and, desc, eq, gt, inArray, isNotNull, isNull } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { staffCodePanelClears, staffSignInCodes, users } from "~/server/db/schema";
import { InvalidStaffCodeError, issueStaffCode, removeStaffCode } from "~/server/auth/staff-codes.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { STAFF_CODE_FORMAT_MESSAGE } from "~/domain/application-review";
import type { Actor } from "~/domain/actor";

/**
 * The one-time-code panel (docs/product.md#one-time-code-panel): issue a sign-in code for a member
 * (generated or typed), see valid and used codes (the code itself only once, at issue), remove a
 * valid code, clear the used list. The codes themselves live in the auth area
 * (staff-codes.server.ts); this adds the panel's listing and the audit rows. A code is never
 * written to the audit log.
 */
const PANEL_ROWS_MAX = 50;

export interface PanelCode {
  id: number;
  member_email: string;
  issued_by_email: string | null;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

export async function codePanel(
  db: Db,
  staff_id: string,
  now: Date = new Date(),
): Promise<{ valid: PanelCode[]; used: PanelCode[] }> {
  const [clear] = await db
    .select({ cleared_at: staffCodePanelClears.cleared_at })
    .from(staffCodePanelClears)
    .where(eq(staffCodePanelClears.staff_id, staff_id));
  const base = {
    id: staffSignInCodes.id,
    member_email: users.email,
    issued_by: staffSignInCodes.issued_by,
    created_at: staffSignInCodes.created_at,
    expires_at: staffSignInCodes.expires_at,
    used_at: staffSignInCodes.used_at,
  };
  const valid = await db
    .select(base)
    .from(staffSignInCodes)
    .innerJoin(users, eq(users.id, staffSignInCodes.user_id))
    .where(
      and(isNull(staffSignInCodes.used_at), isNull(staffSignInCodes.removed_at), gt(staffSignInCodes.expires_at, now)),
    )
    .orderBy(desc(staffSignInCodes.created_at))
    .limit(PANEL_ROWS_MAX);
  const used = await db
    .select(base)
    .from(staffSignInCodes)
    .innerJoin(users, eq(users.id, staffSignInCodes.user_id))
    .where(and(isNotNull(staffSignInCodes.used_at), clear ? gt(staffSignInCodes.used_at, clear.cleared_at) : undefined))
    .orderBy(desc(staffSignInCodes.used_at))
    .limit(PANEL_ROWS_MAX);
  const ids = [...new Set([...valid, ...used].map((r) => r.issued_by).filter((v): v is string => Boolean(v)))];
  const emails = ids.length
    ? await db.select({ id: users.id, email: users.email }).from(users).where(inArray(users.id, ids))
    : [];
  const toPanel = (r: (typeof valid)[number]): PanelCode => ({
    id: r.id,
    member_email: r.member_email,
    issued_by_email: emails.find((e) => e.id === r.issued_by)?.email ?? null,
    created_at: r.created_at,
    expires_at: r.expires_at,
    used_at: r.used_at,
  });
  return { valid: valid.map(toPanel), used: used.map(toPanel) };
}

export type IssueResult =
  | { status: "issued"; code: string; member_email: string; expires_at: Date }
  | { status: "member_not_found" }
  | { status: "not_a_member" }
  | { status: "invalid_code"; message: string };

/** Issues a code for the member with this email (not for staff accounts). */
export async function issueCodeForMember(
  db: Db,
  input: { staff: Actor; member_email: string; code?: string | null; origin: AuditOrigin },
): Promise<IssueResult> {
  const typed = input.code?.trim() || undefined;
  if (typed !== undefined && !/^\d{6}$/.test(typed))
    return { status: "invalid_code", message: STAFF_CODE_FORMAT_MESSAGE };
  const [member] = await db
    .select({ id: users.id, email: users.email, role: users.role })
    .from(users)
    .where(eq(users.email, input.member_email.trim().toLowerCase()));
  if (!member) return { status: "member_not_found" };
  // Staff of either kind (admin, reviewer) sign in with their own second factor, never a member code.
  if (member.role === "admin" || member.role === "reviewer") return { status: "not_a_member" };
  try {
    // One transaction (the issue runs in a savepoint inside it): no code without its audit row.
    const issued = await db.transaction(async (tx) => {
      const made = await issueStaffCode(tx as unknown as Db, {
        user_id: member.id,
        issued_by: input.staff.id,
        code: typed,
      });
      await recordAudit(tx, {
        actor_id: input.staff.id,
        actor_email: input.staff.email,
        action: "staff_code.issue",
        subject_type: "staff_code",
        subject_id: made.id,
        member_id: member.id,
        after: { typed: typed !== undefined, expires_at: made.expires_at.toISOString() },
        request_id: input.origin.request_id,
        ip: input.origin.ip,
      });
      return made;
    });
    return { status: "issued", code: issued.code, member_email: member.email, expires_at: issued.expires_at };
  } catch (error) {
    if (error instanceof InvalidStaffCodeError) return { status: "invalid_code", message: error.message };
    throw error;
  }
}

export async function removeCode(
  db: Db,
  input: { staff: Actor; code_id: number; origin: AuditOrigin },
): Promise<boolean> {
  const [row] = await db
    .select({ user_id: staffSignInCodes.user_id })
    .from(staffSignInCodes)
    .where(eq(staffSignInCodes.id, input.code_id));
  if (!row) return false;
  return db.transaction(async (tx) => {
    const removed = await removeStaffCode(tx as unknown as Db, { id: input.code_id });
    if (!removed) return false;
    await recordAudit(tx, {
      actor_id: input.staff.id,
      actor_email: input.staff.email,
      action: "staff_code.remove",
      subject_type: "staff_code",
      subject_id: input.code_id,
      member_id: row.user_id,
      before: { state: "valid" },
      after: { state: "removed" },
      request_id: input.origin.request_id,
      ip: input.origin.ip,
    });
    return true;
  });
}

/** Hides the used codes from this staff member's panel (the codes' records stay). */
export async function clearUsedCodes(db: Db, input: { staff: Actor; origin: AuditOrigin; now?: Date }): Promise<void> {
  const now = input.now ?? new Date();
  await db.transaction(async (tx) => {
    await tx
      .insert(staffCodePanelClears)
      .values({ staff_id: input.staff.id, cleared_at: now })
      .onConflictDoUpdate({ target: staffCodePanelClears.staff_id, set: { cleared_at: now } });
    await recordAudit(tx, {
      actor_id: input.staff.id,
      actor_email: input.staff.email,
      action: "staff_code.clear_used",
      subject_type: "staff_code_panel",
      subject_id: input.staff.id,
      after: { cleared_at: now.toISOString() },
      request_id: input.origin.request_id,
      ip: input.origin.ip,
      at: now,
    });
  });
}
