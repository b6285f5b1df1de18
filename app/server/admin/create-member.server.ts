import { eq } from "drizzle-orm";
import type { CreateMemberInput } from "~/domain/application-review";
import type { Db } from "~/server/db/client.server";
import { memberProfiles, memberSettings, passwordChangeRequirements, users } from "~/server/db/schema";
import { authFor, hashPassword } from "~/server/auth/auth.server";
import { forgetPasswordCheck } from "~/server/auth/password-change.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { openAccount } from "~/server/ledger/accounts.server";
import { issueDebitCard } from "~/server/cards/cards.server";
import { sendEmail } from "~/server/mail/outbox.server";
import { logger } from "~/server/logger.server";
import { screenParties } from "~/server/sanctions/screening.server";
import { staffCreatedMemberEmail } from "./emails.server";
import type { Actor } from "~/domain/actor";

/**
 * "Create New User" (docs/product.md#create-new-user): staff open an active member directly. A
 * staff or reviewer account is never created here: it is a role grant that another admin approves
 * (staff-grants.server.ts, docs/product.md#staff-role-grants). The account is created through Better Auth's adapter without signing anyone
 * in, so the staff member stays signed in as themselves. The password is temporary: a
 * `password_change_requirements` row makes the sign-in ask for a new one (see
 * `mustChangePassword`). A member (role user) gets Checking and Savings at zero through the ledger
 * and a debit card.
 */
export type CreateMemberResult =
  | { status: "created"; user_id: string; account_numbers: string[] }
  | { status: "email_taken" }
  /**
   * The person may match a sanctions list entry (31 CFR 501): nobody is created. There is no
   * application to hold in the screening queue, so they apply online instead, where the match is
   * reviewed before any account opens.
   */
  | { status: "screening_hit" }
  | { status: "failed"; detail: string };

export async function createMemberByStaff(
  db: Db,
  input: { staff: Actor; member: CreateMemberInput; origin: AuditOrigin; now?: Date },
): Promise<CreateMemberResult> {
  const m = input.member;
  const now = input.now ?? new Date();
  // Dual control: a staff role is only ever granted through an approved request.
  if (m.role !== "user" || !m.password)
    return { status: "failed", detail: "staff roles are granted through a request another admin approves" };
  const password = m.password;
  const [existing] = await db.select({ id: users.id }).from(users).where(eq(users.email, m.email));
  if (existing) return { status: "email_taken" };
  // A member opened by staff skips the application's review: screened here, before anything exists.
  const matches = await screenParties(db, [{ name: `${m.first_name} ${m.last_name}`, country: "US" }]);
  if (matches.length > 0) {
    await recordAudit(db, {
      actor_id: input.staff.id,
      actor_email: input.staff.email,
      action: "member.create_refused",
      subject_type: "member",
      subject_id: null,
      after: {
        reason: "possible sanctions match",
        screened_name: `${m.first_name} ${m.last_name}`,
        matches: matches.map((x) => ({ source: x.source, uid: x.uid, listed_name: x.listed_name, score: x.score })),
      },
      request_id: input.origin.request_id,
      ip: input.origin.ip,
      at: now,
    });
    return { status: "screening_hit" };
  }

  const context = await authFor(db).$context;
  let user_id: string;
  try {
    const user = await context.internalAdapter.createUser(
      {
        email: m.email,
        name: `${m.first_name} ${m.last_name}`,
        emailVerified: true,
        role: m.role,
        twoFactorEnabled: true,
      },
      { method: "admin" } as never,
    );
    user_id = user.id;
    await context.internalAdapter.linkAccount({
      userId: user_id,
      providerId: "credential",
      accountId: user_id,
      password: await hashPassword(password),
    });
  } catch (error) {
    const code = (error as { body?: { code?: string } }).body?.code ?? "";
    if (code.startsWith("USER_ALREADY_EXISTS")) return { status: "email_taken" };
    logger.error({ err: error }, "creating a user for staff failed");
    return { status: "failed", detail: "the account could not be created" };
  }

  try {
    const account_numbers = await db.transaction(async (tx) => {
      await tx.insert(memberProfiles).values({
        user_id,
        first_name: m.first_name,
        last_name: m.last_name,
        street: m.street,
        city: m.city,
        state: m.state,
        postal_code: m.postal_code,
        country: "United States",
        phone: m.phone,
        joint_account: m.joint_account,
        joint_name: m.joint_account ? (m.joint_name ?? null) : null,
        joint_email: m.joint_account ? (m.joint_email?.toLowerCase() ?? null) : null,
        joint_phone: m.joint_account ? (m.joint_phone ?? null) : null,
        status: "approved",
        document_status: "verified",
        decided_at: now,
        decided_by: input.staff.id,
        source: "staff",
        created_at: now,
        updated_at: now,
      });
      await tx.insert(memberSettings).values({ user_id }).onConflictDoNothing();
      await tx
        .insert(passwordChangeRequirements)
        .values({ user_id, reason: "temporary_password", set_by: input.staff.id, set_at: now });
      const opened: { id: number; type: string; account_number: string }[] = [];
      let card: { id: number; masked_number: string } | null = null;
      if (m.role === "user") {
        const checking = await openAccount(tx, { member_id: user_id, type: "checking", name: "Checking" });
        const savings = await openAccount(tx, { member_id: user_id, type: "savings", name: "Savings" });
        opened.push(checking, savings);
        const issued = await issueDebitCard(tx, { member_id: user_id, account_id: checking.id, now });
        card = { id: issued.id, masked_number: issued.masked_number };
      }
      await recordAudit(tx, {
        actor_id: input.staff.id,
        actor_email: input.staff.email,
        action: "member.create",
        subject_type: "member",
        subject_id: user_id,
        before: null,
        after: {
          email: m.email,
          name: `${m.first_name} ${m.last_name}`,
          role: m.role,
          status: "approved",
          must_change_password: true,
          joint_account: m.joint_account,
          accounts: opened.map((a) => ({ id: a.id, type: a.type, account_number: a.account_number })),
          debit_card: card,
        },
        request_id: input.origin.request_id,
        ip: input.origin.ip,
        at: now,
      });
      return opened.map((a) => a.account_number);
    });
    forgetPasswordCheck(db, user_id);
    try {
      await sendEmail(db, { ...staffCreatedMemberEmail(m.first_name), to: m.email, user_id });
    } catch (error) {
      logger.error({ err: error }, "could not queue the new member's email");
    }
    return { status: "created", user_id, account_numbers };
  } catch (error) {
    logger.error({ err: error, user_id }, "creating a member's records failed; undoing the account");
    await db.delete(users).where(eq(users.id, user_id));
    return {
      status: "failed",
      detail: (error as Error).message?.slice(0, 200) || "the member's records could not be saved",
    };
  }
}

/** The temporary-password requirement lives with the other sign-in rules (auth/password-change.server.ts). */
export { mustChangePassword, passwordChanged } from "~/server/auth/password-change.server";
