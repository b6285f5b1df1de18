import crypto from "node:crypto";
import { and, asc, count, eq, isNull, ne, or } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import {
  authAccounts,
  memberProfiles,
  memberSettings,
  staffRoleGrants,
  users,
  type StaffRoleGrant,
} from "~/server/db/schema";
import { authFor, hashPassword, publicBaseUrl } from "~/server/auth/auth.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { sendEmail } from "~/server/mail/outbox.server";
import { logger } from "~/server/logger.server";
import type { StaffRole } from "~/domain/staff-roles";
import { STAFF_GRANT_MESSAGES } from "~/domain/staff-grants";
import { refusal, type Refusal } from "~/domain/refusals";
import { inRefusableTransaction } from "~/server/db/refusable-transaction.server";
import { staffRoleGrantedEmail, staffSetUpEmail } from "./emails.server";
import type { Actor } from "~/domain/actor";

/**
 * Staff role grants under dual control (docs/product.md#staff-role-grants,
 * docs/security.md#dual-control-of-staff-roles). Creating a staff or reviewer account, or raising a member to
 * one of those roles, is a request: nothing changes until another admin approves it. The
 * approver sees the address the role is for; on approval a new account gets a set-up link sent
 * to that address only (the requester never knows a password for it), a raised member keeps
 * their own password and second factor. Every step is audited, and the database itself refuses
 * an approver who is the requester (staff_role_grants_approver_not_requester).
 */

/** How long the set-up link of a new staff account works (a reset link works 30 minutes). */
export const STAFF_SET_UP_LINK_VALID_HOURS = 72;
/** The queue section lists this many waiting requests at most (oldest first). */
const PENDING_LIST_MAX = 100;

/** The new staff member's directory profile: the server command asks for the name only. */
export interface StaffProfileInput {
  first_name: string;
  last_name: string;
  street?: string | null;
  city?: string | null;
  state?: string | null;
  postal_code?: string | null;
  phone?: string | null;
}

/** Who filed a request: an admin in the back office, or the server command (no person, no session). */
export type GrantRequester = { kind: "staff"; staff: Actor } | { kind: "server_command" };

/** How the audit log names the server command as actor (there is no signed-in person). */
export const SERVER_COMMAND_ACTOR = "server command: npm run staff:create";

export type GrantRefusalCode =
  | "not_found"
  /** Decided by another admin first. */
  | "already_decided"
  /** The requester may not decide their own request (dual control). */
  | "own_request"
  | "email_taken"
  | "already_pending"
  | "not_a_member"
  /** A raise whose member's role changed since the request. */
  | "no_longer_a_member";

export type GrantRefusal = Refusal<GrantRefusalCode>;

/** The refusal with the words staff see (STAFF_GRANT_MESSAGES); the route picks the status from the kind. */
export function grantRefusal(code: GrantRefusalCode): GrantRefusal {
  const kind = code === "not_found" ? "not_found" : code === "own_request" ? "forbidden" : "conflict";
  return refusal(kind, STAFF_GRANT_MESSAGES[code], { code });
}

export type RequestGrantResult = { ok: true; grant_id: number } | GrantRefusal;

function actorOf(requester: GrantRequester): { actor_id: string | null; actor_email: string } {
  return requester.kind === "staff"
    ? { actor_id: requester.staff.id, actor_email: requester.staff.email }
    : { actor_id: null, actor_email: SERVER_COMMAND_ACTOR };
}

/** A unique-index refusal (a second waiting request for the same address, filed at the same moment). */
function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string } } | null;
  return e?.code === "23505" || e?.cause?.code === "23505";
}

/** Files a request for a new staff or reviewer account. Nothing is created until it is approved. */
export async function requestNewStaff(
  db: Db,
  input: {
    requester: GrantRequester;
    email: string;
    role: StaffRole;
    profile: StaffProfileInput;
    origin: AuditOrigin;
    now?: Date;
  },
): Promise<RequestGrantResult> {
  const email = input.email.trim().toLowerCase();
  const [existing] = await db.select({ id: users.id }).from(users).where(eq(users.email, email));
  if (existing) return grantRefusal("email_taken");
  const name = `${input.profile.first_name} ${input.profile.last_name}`;
  return fileGrantRequest(db, {
    actor: actorOf(input.requester),
    grant: { kind: "create", email, name, role: input.role, profile: input.profile },
    origin: input.origin,
    now: input.now ?? new Date(),
  });
}

/** Files a request to raise a member (role user) to staff or reviewer. */
export async function requestRaise(
  db: Db,
  input: { staff: Actor; member_id: string; role: StaffRole; origin: AuditOrigin; now?: Date },
): Promise<RequestGrantResult> {
  const [member] = await db
    .select({ id: users.id, email: users.email, name: users.name, role: users.role })
    .from(users)
    .where(eq(users.id, input.member_id));
  if (!member) return grantRefusal("not_found");
  // Applicants are not raised (their identity is not verified yet); staff already are staff.
  if (member.role !== "user" && member.role !== null) return grantRefusal("not_a_member");
  return fileGrantRequest(db, {
    actor: actorOf({ kind: "staff", staff: input.staff }),
    grant: { kind: "raise", email: member.email, name: member.name, role: input.role, user_id: member.id },
    member: { id: member.id, role: member.role ?? "user" },
    origin: input.origin,
    now: input.now ?? new Date(),
  });
}

/**
 * One waiting request per address: the row and its audit entry in one transaction. A second
 * request for the same address, filed at the same moment, meets the unique index instead.
 */
async function fileGrantRequest(
  db: Db,
  input: {
    actor: { actor_id: string | null; actor_email: string };
    grant: {
      kind: "create" | "raise";
      email: string;
      name: string;
      role: StaffRole;
      profile?: StaffProfileInput;
      user_id?: string;
    };
    member?: { id: string; role: string };
    origin: AuditOrigin;
    now: Date;
  },
): Promise<RequestGrantResult> {
  const { actor, grant, member, now } = input;
  try {
    return await db.transaction(async (tx) => {
      const [waiting] = await tx
        .select({ id: staffRoleGrants.id })
        .from(staffRoleGrants)
        .where(and(eq(staffRoleGrants.email, grant.email), eq(staffRoleGrants.status, "pending")));
      if (waiting) return grantRefusal("already_pending");
      const [row] = await tx
        .insert(staffRoleGrants)
        .values({ ...grant, requested_by: actor.actor_id, requested_by_email: actor.actor_email, requested_at: now })
        .returning({ id: staffRoleGrants.id });
      await recordAudit(tx, {
        ...actor,
        action: "staff_grant.request",
        subject_type: "staff_role_grant",
        subject_id: row!.id,
        ...(member ? { member_id: member.id, before: { role: member.role } } : {}),
        after: { kind: grant.kind, email: grant.email, name: grant.name, role: grant.role, status: "pending" },
        request_id: input.origin.request_id,
        ip: input.origin.ip,
        at: now,
      });
      return { ok: true, grant_id: row!.id } as const;
    });
  } catch (error) {
    if (isUniqueViolation(error)) return grantRefusal("already_pending");
    throw error;
  }
}

export interface PendingStaffGrant {
  id: number;
  kind: "create" | "raise";
  email: string;
  name: string;
  role: StaffRole;
  user_id: string | null;
  requested_by: string | null;
  requested_by_email: string | null;
  requested_at: string;
}

/** The waiting requests, oldest first, for the queues page (dates as ISO text). */
export async function pendingStaffGrants(db: Db): Promise<PendingStaffGrant[]> {
  const rows = await db
    .select({
      id: staffRoleGrants.id,
      kind: staffRoleGrants.kind,
      email: staffRoleGrants.email,
      name: staffRoleGrants.name,
      role: staffRoleGrants.role,
      user_id: staffRoleGrants.user_id,
      requested_by: staffRoleGrants.requested_by,
      requested_by_email: staffRoleGrants.requested_by_email,
      requested_at: staffRoleGrants.requested_at,
    })
    .from(staffRoleGrants)
    .where(eq(staffRoleGrants.status, "pending"))
    .orderBy(asc(staffRoleGrants.requested_at), asc(staffRoleGrants.id))
    .limit(PENDING_LIST_MAX);
  return rows.map((r) => ({ ...r, requested_at: r.requested_at.toISOString() }));
}

/** How many requests wait (the queues page's count and the admin frame's badge). */
export async function pendingStaffGrantCount(db: DbOrTx): Promise<number> {
  const [row] = await db.select({ n: count() }).from(staffRoleGrants).where(eq(staffRoleGrants.status, "pending"));
  return Number(row?.n ?? 0);
}

export type DecideGrantResult =
  | { ok: true; decision: "approved"; grant: StaffRoleGrant; user_id: string }
  | { ok: true; decision: "declined"; grant: StaffRoleGrant }
  | GrantRefusal;

/**
 * A password nobody knows, for a new staff account until its owner sets one through the set-up
 * link: the account exists, but no one can sign in to it before then.
 */
function unusablePassword(): string {
  return crypto.randomBytes(32).toString("base64url");
}

/** The one-time set-up link: Better Auth's reset-password token, valid STAFF_SET_UP_LINK_VALID_HOURS. */
export async function issueSetUpLink(
  db: Db,
  user_id: string,
  now: Date = new Date(),
): Promise<{ url: string; expires_at: Date }> {
  const token = crypto.randomBytes(24).toString("base64url");
  const expires_at = new Date(now.getTime() + STAFF_SET_UP_LINK_VALID_HOURS * 60 * 60 * 1000);
  const context = await authFor(db).$context;
  await context.internalAdapter.createVerificationValue({
    identifier: `reset-password:${token}`,
    value: user_id,
    expiresAt: expires_at,
  });
  return { url: `${publicBaseUrl()}/reset-password?token=${encodeURIComponent(token)}`, expires_at };
}

/**
 * Writes a staff account as the rows Better Auth reads (user, credential with an unusable
 * password) and its directory profile, in the caller's transaction. The email code is its second
 * factor from the start (twoFactorEnabled), as for every account.
 */
async function insertStaffAccount(
  tx: DbOrTx,
  input: {
    email: string;
    name: string;
    role: StaffRole;
    profile: StaffProfileInput;
    decided_by: string | null;
    now: Date;
  },
): Promise<string> {
  const user_id = crypto.randomBytes(16).toString("base64url");
  await tx.insert(users).values({
    id: user_id,
    name: input.name,
    email: input.email,
    emailVerified: true,
    role: input.role,
    twoFactorEnabled: true,
    createdAt: input.now,
    updatedAt: input.now,
  });
  await tx.insert(authAccounts).values({
    id: crypto.randomBytes(16).toString("base64url"),
    accountId: user_id,
    providerId: "credential",
    userId: user_id,
    password: await hashPassword(unusablePassword()),
    createdAt: input.now,
    updatedAt: input.now,
  });
  const p = input.profile;
  await tx.insert(memberProfiles).values({
    user_id,
    first_name: p.first_name,
    last_name: p.last_name,
    street: p.street ?? null,
    city: p.city ?? null,
    state: p.state ?? null,
    postal_code: p.postal_code ?? null,
    country: p.street ? "United States" : null,
    phone: p.phone ?? null,
    status: "approved",
    document_status: "verified",
    decided_at: input.now,
    decided_by: input.decided_by,
    source: "staff",
    created_at: input.now,
    updated_at: input.now,
  });
  await tx.insert(memberSettings).values({ user_id }).onConflictDoNothing();
  return user_id;
}

/** Reads a grant and says why `staff` may not decide it, if so. */
async function decidable(
  db: Db,
  grant_id: number,
  staff: Actor,
): Promise<{ ok: true; grant: StaffRoleGrant } | GrantRefusal> {
  if (!Number.isSafeInteger(grant_id) || grant_id <= 0) return grantRefusal("not_found");
  const [grant] = await db.select().from(staffRoleGrants).where(eq(staffRoleGrants.id, grant_id));
  if (!grant) return grantRefusal("not_found");
  if (grant.status !== "pending") return grantRefusal("already_decided");
  if (grant.requested_by === staff.id) return grantRefusal("own_request");
  return { ok: true, grant };
}

/**
 * Approves a waiting request (another admin than the requester): the role takes effect now. A new
 * account is created and its set-up link emailed to the approved address; a raised member is told
 * by email. The decision, the role change and the audit row are one transaction; a second
 * approver at the same moment finds it decided.
 */
export async function approveStaffGrant(
  db: Db,
  input: { staff: Actor; grant_id: number; origin: AuditOrigin; now?: Date },
): Promise<DecideGrantResult> {
  const now = input.now ?? new Date();
  const check = await decidable(db, input.grant_id, input.staff);
  if (!check.ok) return check;
  const grant = check.grant;
  if (grant.kind === "create") {
    const [existing] = await db.select({ id: users.id }).from(users).where(eq(users.email, grant.email));
    if (existing) return grantRefusal("email_taken");
  }
  const outcome = await inRefusableTransaction<DecideGrantResult>(db, async (tx) => {
    const claimed = await tx
      .update(staffRoleGrants)
      .set({ status: "approved", decided_by: input.staff.id, decided_by_email: input.staff.email, decided_at: now })
      .where(
        and(
          eq(staffRoleGrants.id, grant.id),
          eq(staffRoleGrants.status, "pending"),
          or(isNull(staffRoleGrants.requested_by), ne(staffRoleGrants.requested_by, input.staff.id)),
        ),
      )
      .returning();
    if (claimed.length !== 1) return grantRefusal("already_decided");
    let user_id: string;
    let before: unknown = null;
    if (grant.kind === "create") {
      user_id = await insertStaffAccount(tx, {
        email: grant.email,
        name: grant.name,
        role: grant.role,
        profile: grant.profile as StaffProfileInput,
        decided_by: input.staff.id,
        now,
      });
      await tx.update(staffRoleGrants).set({ user_id }).where(eq(staffRoleGrants.id, grant.id));
    } else {
      // Raised only while still a member: a member who became something else meanwhile is not.
      const raised = await tx
        .update(users)
        .set({ role: grant.role, updatedAt: now })
        .where(and(eq(users.id, grant.user_id!), or(eq(users.role, "user"), isNull(users.role))))
        .returning({ id: users.id });
      if (raised.length !== 1) return grantRefusal("no_longer_a_member");
      user_id = grant.user_id!;
      before = { role: "user" };
    }
    await recordAudit(tx, {
      actor_id: input.staff.id,
      actor_email: input.staff.email,
      action: "staff_grant.approve",
      subject_type: "staff_role_grant",
      subject_id: grant.id,
      member_id: user_id,
      before,
      after: {
        kind: grant.kind,
        email: grant.email,
        role: grant.role,
        user_id,
        requested_by_email: grant.requested_by_email,
        status: "approved",
      },
      request_id: input.origin.request_id,
      ip: input.origin.ip,
      at: now,
    });
    return { ok: true, decision: "approved", grant: { ...claimed[0]!, user_id }, user_id } as const;
  }).catch((error: unknown) => {
    // The address taken by an account made meanwhile (the users table's unique email).
    if (isUniqueViolation(error)) return grantRefusal("email_taken");
    throw error;
  });
  if (!outcome.ok || outcome.decision !== "approved") return outcome;
  try {
    if (grant.kind === "create") {
      const link = await issueSetUpLink(db, outcome.user_id, now);
      await sendEmail(db, {
        ...staffSetUpEmail(grant.name, grant.role, link.url, STAFF_SET_UP_LINK_VALID_HOURS),
        to: grant.email,
        user_id: outcome.user_id,
      });
    } else {
      await sendEmail(db, {
        ...staffRoleGrantedEmail(grant.name, grant.role),
        to: grant.email,
        user_id: outcome.user_id,
      });
    }
  } catch (error) {
    // The role is granted; the person can still use "Forgot password?" to get a link.
    logger.error({ err: error, grant_id: grant.id }, "could not send the staff set-up email");
  }
  return outcome;
}

/** Declines a waiting request with a reason (another admin than the requester): nothing changes but the request. */
export async function declineStaffGrant(
  db: Db,
  input: { staff: Actor; grant_id: number; reason: string; origin: AuditOrigin; now?: Date },
): Promise<DecideGrantResult> {
  const now = input.now ?? new Date();
  const check = await decidable(db, input.grant_id, input.staff);
  if (!check.ok) return check;
  return db.transaction(async (tx): Promise<DecideGrantResult> => {
    const [declined] = await tx
      .update(staffRoleGrants)
      .set({
        status: "declined",
        decided_by: input.staff.id,
        decided_by_email: input.staff.email,
        decided_at: now,
        decline_reason: input.reason,
      })
      .where(
        and(
          eq(staffRoleGrants.id, input.grant_id),
          eq(staffRoleGrants.status, "pending"),
          or(isNull(staffRoleGrants.requested_by), ne(staffRoleGrants.requested_by, input.staff.id)),
        ),
      )
      .returning();
    if (!declined) return grantRefusal("already_decided");
    await recordAudit(tx, {
      actor_id: input.staff.id,
      actor_email: input.staff.email,
      action: "staff_grant.decline",
      subject_type: "staff_role_grant",
      subject_id: declined.id,
      member_id: declined.user_id,
      after: {
        kind: declined.kind,
        email: declined.email,
        role: declined.role,
        status: "declined",
        reason: input.reason,
      },
      request_id: input.origin.request_id,
      ip: input.origin.ip,
      at: now,
    });
    return { ok: true, decision: "declined", grant: declined } as const;
  });
}

/** Admins who could approve a request (not banned). */
export async function activeAdminCount(db: Db): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(users)
    .where(and(eq(users.role, "admin"), or(isNull(users.banned), eq(users.banned, false))));
  return Number(row?.n ?? 0);
}

export type ServerCommandResult =
  | { ok: true; outcome: "created"; user_id: string; set_up_url: string; expires_at: Date }
  | { ok: true; outcome: "requested"; grant_id: number }
  | GrantRefusal;

/**
 * `npm run staff:create` (docs/operations.md#first-admin): on a fresh installation, with no admin
 * yet, there is nobody to approve a request, so the command creates the account at once and
 * returns a one-time set-up link for the operator to hand over. Once an admin exists, dual
 * control applies to the command too: it files a request that an admin approves in the back
 * office (the link is then emailed to the address). Either way audited, with the server command
 * as actor.
 */
export async function createStaffFromServer(
  db: Db,
  input: { email: string; role: StaffRole; profile: StaffProfileInput; now?: Date },
): Promise<ServerCommandResult> {
  const now = input.now ?? new Date();
  const email = input.email.trim().toLowerCase();
  const origin: AuditOrigin = { request_id: null, ip: null };
  if ((await activeAdminCount(db)) > 0) {
    const result = await requestNewStaff(db, {
      requester: { kind: "server_command" },
      email,
      role: input.role,
      profile: input.profile,
      origin,
      now,
    });
    return result.ok ? { ok: true, outcome: "requested", grant_id: result.grant_id } : result;
  }
  const [existing] = await db.select({ id: users.id }).from(users).where(eq(users.email, email));
  if (existing) return grantRefusal("email_taken");
  const name = `${input.profile.first_name} ${input.profile.last_name}`;
  const user_id = await db.transaction(async (tx) => {
    const id = await insertStaffAccount(tx, {
      email,
      name,
      role: input.role,
      profile: input.profile,
      decided_by: null,
      now,
    });
    await recordAudit(tx, {
      actor_id: null,
      actor_email: SERVER_COMMAND_ACTOR,
      action: "staff.create.server_command",
      subject_type: "member",
      subject_id: id,
      after: {
        email,
        name,
        role: input.role,
        reason: "no admin yet: first staff account of the installation",
        set_up_link_valid_hours: STAFF_SET_UP_LINK_VALID_HOURS,
      },
      at: now,
    });
    return id;
  });
  const link = await issueSetUpLink(db, user_id, now);
  return { ok: true, outcome: "created", user_id, set_up_url: link.url, expires_at: link.expires_at };
}
