import { and, eq } from "drizzle-orm";
import { checklistComplete, type Checklist } from "~/domain/application-review";
import type { IdentityVerification } from "~/domain/taxpayer-id";
import { maskAccountNumber } from "~/domain/account-display";
import { maskDateOfBirth, maskIdNumber } from "~/domain/membership-application";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { inRefusableTransaction, refuse } from "~/server/db/refusable-transaction.server";
import type { Actor } from "~/domain/actor";
import { refusal, type Refusal } from "~/domain/refusals";
import { APPROVE_NEEDS_CHECKLIST } from "~/domain/application-review";
import { IDENTITY_MESSAGES } from "~/domain/taxpayer-id";
import { applicationDecisions, applicationInfoRequests, memberProfiles, sessions, users } from "~/server/db/schema";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { openAccount, routingNumber, type AccountView } from "~/server/ledger/accounts.server";
import { issueDebitCard, type DebitCardView } from "~/server/cards/cards.server";
import { sendEmail } from "~/server/mail/outbox.server";
import { encryptionContext } from "~/server/members/members.server";
import { decryptField } from "~/server/security/crypto.server";
import { logger } from "~/server/logger.server";
import { notify } from "~/server/notifications/notifications.server";
import { countryCode, screenApplication, type ApplicationParties } from "~/server/sanctions/screening.server";
import type { SanctionsScreening } from "~/server/db/schema";
import { applicationApprovedEmail, applicationRejectedEmail, informationRequestedEmail } from "./emails.server";

/**
 * Staff decisions on a membership application (docs/product.md#staff-review). Each decision runs in
 * one database transaction: the application row is locked, its state checked, the change made, the
 * decision record (with a snapshot) and the audit row (with the checklist as ticked) written. The
 * email goes to the outbox once the transaction has committed. An approval also writes the new
 * member's first notification (the bell) inside the transaction. A rejection or a request for
 * information writes none: an applicant never sees the member app (only /pending-approval or
 * /not-approved), so the email and the status page carry those decisions.
 */

/** Why a decision was not made; nothing was written (except a screening filed now: see approve). */
export type DecisionRefusalCode =
  | "not_found"
  /** The application is no longer waiting for a decision (another staff member decided first). */
  | "already_decided"
  | "checklist_incomplete"
  /** An approval without the record of how identity was verified (31 CFR 1020.220(a)(3)). */
  | "identity_unverified"
  /**
   * The applicant or joint owner is a possible sanctions match (31 CFR 501): found now and put in
   * the screening queue, or already there and not cleared. Nothing was approved.
   */
  | "screening_hit";

export type DecisionRefusal = Refusal<DecisionRefusalCode> & { screening_id?: number; found_now?: boolean };

export type DecisionResult = { ok: true; decision_id: number } | DecisionRefusal;

/** The refusals with the words staff see beside the review form. */
function decisionRefusal(code: Exclude<DecisionRefusalCode, "already_decided" | "screening_hit">): DecisionRefusal {
  switch (code) {
    case "not_found":
      return refusal("not_found", "Failed: this application was not found.", { code });
    case "checklist_incomplete":
      return refusal("bad_input", `Failed: ${APPROVE_NEEDS_CHECKLIST}`, { code });
    case "identity_unverified":
      return refusal("bad_input", `Failed: ${IDENTITY_MESSAGES.method_missing}`, { code });
  }
}

function alreadyDecided(current: "approved" | "rejected"): DecisionRefusal {
  return refusal("conflict", `Failed: this application was already ${current}.`, { code: "already_decided" });
}

function screeningHit(screening_id: number, found_now: boolean): DecisionRefusal {
  const message = found_now
    ? `Not approved: the applicant or joint owner may match an entry on a sanctions list. It is in the screening queue (Sanctions, item ${screening_id}); the application can be approved once an admin clears it.`
    : `Not approved: a possible sanctions match for this applicant is still in the screening queue (Sanctions, item ${screening_id}); the application can be approved once an admin clears it.`;
  return { ...refusal("conflict", message, { code: "screening_hit" }), screening_id, found_now };
}

type Profile = typeof memberProfiles.$inferSelect;

/** The application as it stood, for the file: personal numbers masked, never in clear. */
export function applicationSnapshot(profile: Profile, email: string): Record<string, unknown> {
  const dob = profile.date_of_birth_enc
    ? maskDateOfBirth(decryptField(profile.date_of_birth_enc, encryptionContext("date_of_birth", profile.user_id)))
    : null;
  const idn = profile.id_number_enc
    ? maskIdNumber(decryptField(profile.id_number_enc, encryptionContext("id_number", profile.user_id)))
    : null;
  return {
    user_id: profile.user_id,
    email,
    first_name: profile.first_name,
    last_name: profile.last_name,
    date_of_birth_masked: dob,
    nationality: profile.nationality,
    marital_status: profile.marital_status,
    address: {
      street: profile.street,
      city: profile.city,
      state: profile.state,
      postal_code: profile.postal_code,
      country: profile.country,
    },
    phone: profile.phone,
    alt_email: profile.alt_email,
    emergency: {
      name: profile.emergency_name,
      relationship: profile.emergency_relationship,
      phone: profile.emergency_phone,
    },
    id_type: profile.id_type,
    id_number_masked: idn,
    id_document: profile.id_document_file
      ? { file: profile.id_document_file, mime: profile.id_document_mime, bytes: profile.id_document_bytes }
      : null,
    joint: profile.joint_account
      ? { name: profile.joint_name, email: profile.joint_email, phone: profile.joint_phone }
      : null,
    status: profile.status,
    document_status: profile.document_status,
    submitted_at: profile.created_at.toISOString(),
  };
}

async function lockApplication(
  tx: DbOrTx,
  member_id: string,
): Promise<{ profile: Profile; email: string; role: string | null } | null> {
  const [row] = await tx
    .select({ profile: memberProfiles, email: users.email, role: users.role })
    .from(memberProfiles)
    .innerJoin(users, eq(users.id, memberProfiles.user_id))
    .where(eq(memberProfiles.user_id, member_id))
    .for("update", { of: memberProfiles });
  return row ?? null;
}

function stateOf(profile: Profile) {
  return {
    status: profile.status,
    document_status: profile.document_status,
    rejection_reason: profile.rejection_reason,
    decided_at: profile.decided_at,
  };
}

/** One decision's transaction: what `checkPending` refuses comes out as the answer, nothing written. */
function decide<T extends { ok: true }>(db: Db, work: (tx: DbOrTx) => Promise<T>): Promise<T | DecisionRefusal> {
  return inRefusableTransaction<T | DecisionRefusal>(db, work);
}

function checkPending(found: Awaited<ReturnType<typeof lockApplication>>): asserts found is NonNullable<typeof found> {
  if (!found) refuse(decisionRefusal("not_found"));
  if (found.profile.status !== "pending") refuse(alreadyDecided(found.profile.status));
}

async function sendAfterCommit(db: Db, message: Parameters<typeof sendEmail>[1]): Promise<void> {
  try {
    await sendEmail(db, message);
  } catch (error) {
    // The decision stands; the missing email shows in the outbox's absence and in the log.
    logger.error({ err: error, kind: message.kind }, "could not queue a decision email");
  }
}

export interface ApprovalOutcome {
  ok: true;
  decision_id: number;
  accounts: AccountView[];
  card: DebitCardView;
}

/**
 * Approve: every checklist item ticked and how identity was verified recorded (documentary or
 * non-documentary, and any discrepancy with its resolution: 31 CFR 1020.220(a)(3)); status approved, role user, Checking and Savings opened at
 * zero through the ledger (generated numbers, the institution's routing number), a debit card for
 * the checking account, the approval record, the audit row; then the welcome email.
 */
export async function approveApplication(
  db: Db,
  input: {
    member_id: string;
    staff: Actor;
    checklist: Checklist;
    /** How identity was verified (Customer Identification Program): required. */
    identity: IdentityVerification | null;
    origin: AuditOrigin;
    now?: Date;
  },
): Promise<ApprovalOutcome | DecisionRefusal> {
  if (!checklistComplete(input.checklist)) return decisionRefusal("checklist_incomplete");
  if (!input.identity) return decisionRefusal("identity_unverified");
  const identity = input.identity;
  const now = input.now ?? new Date();
  const outcome = await decide(db, async (tx) => {
    const found = await lockApplication(tx, input.member_id);
    checkPending(found);
    // Sanctions screening before any account is opened (docs/product.md#sanctions-screening): a
    // possible match stops the approval and waits in the screening queue. The transaction commits
    // (an answer, not a refusal, to it), so the screening filed now is kept.
    const screening = await screenApplication(tx, input.member_id, applicationParties(found.profile));
    if (screening.status !== "clear")
      return { ok: true as const, screening_hit: screeningHit(screening.screening_id, screening.status === "filed") };
    const before = { ...stateOf(found.profile), role: found.role };
    await tx
      .update(memberProfiles)
      .set({
        status: "approved",
        document_status: "verified",
        decided_at: now,
        decided_by: input.staff.id,
        rejection_reason: null,
        updated_at: now,
      })
      .where(eq(memberProfiles.user_id, input.member_id));
    await tx.update(users).set({ role: "user", updatedAt: now }).where(eq(users.id, input.member_id));
    // The session the applicant had while waiting was opened by the application itself, without a
    // second factor: it must not become a way into the banking app. The member signs in anew.
    const ended = await tx.delete(sessions).where(eq(sessions.userId, input.member_id)).returning({ id: sessions.id });
    const checking = await openAccount(tx, { member_id: input.member_id, type: "checking", name: "Checking" });
    const savings = await openAccount(tx, { member_id: input.member_id, type: "savings", name: "Savings" });
    const card = await issueDebitCard(tx, { member_id: input.member_id, account_id: checking.id, now });
    const [decision] = await tx
      .insert(applicationDecisions)
      .values({
        user_id: input.member_id,
        decision: "approved",
        checklist: input.checklist,
        identity_verification: identity,
        snapshot: applicationSnapshot(found.profile, found.email),
        decided_by: input.staff.id,
        decided_at: now,
      })
      .returning({ id: applicationDecisions.id });
    await recordAudit(tx, {
      actor_id: input.staff.id,
      actor_email: input.staff.email,
      action: "application.approve",
      subject_type: "member",
      subject_id: input.member_id,
      before,
      after: {
        status: "approved",
        document_status: "verified",
        role: "user",
        checklist: input.checklist,
        identity_verification: identity,
        decision_id: decision!.id,
        routing_number: routingNumber(),
        accounts: [checking, savings].map((a) => ({
          id: a.id,
          type: a.type,
          account_number: a.account_number,
          balance_cents: a.current_cents,
        })),
        debit_card: { id: card.id, masked_number: card.masked_number, account_id: card.account_id },
        applicant_sessions_ended: ended.length,
      },
      request_id: input.origin.request_id,
      ip: input.origin.ip,
      at: now,
    });
    // The new member's bell (docs/product.md#notifications: application approved), committed with
    // the decision itself.
    await notify(tx, {
      member_id: input.member_id,
      kind: "application_decision",
      title: "Your membership is approved",
      body: `Welcome! Your ${checking.name} (${maskAccountNumber(checking.account_number)}) and ${savings.name} (${maskAccountNumber(savings.account_number)}) accounts are open, and a debit card (${card.masked_number}) was issued for your checking account.`,
      at: now,
    });
    return {
      ok: true as const,
      decision_id: decision!.id,
      accounts: [checking, savings],
      card,
      first_name: found.profile.first_name,
      email: found.email,
    };
  });
  if (!outcome.ok) return outcome;
  if (outcome.screening_hit) return outcome.screening_hit;
  await sendAfterCommit(db, {
    ...applicationApprovedEmail(
      outcome.first_name,
      outcome.accounts.map((a) => ({ name: a.name, masked: maskAccountNumber(a.account_number) })),
    ),
    to: outcome.email,
    user_id: input.member_id,
  });
  return { ok: true, decision_id: outcome.decision_id, accounts: outcome.accounts, card: outcome.card };
}

/** The applicant and joint owner as screening reads them (the date of birth decrypted here only). */
export function applicationParties(profile: Profile): ApplicationParties {
  return {
    applicant: {
      name: `${profile.first_name} ${profile.last_name}`,
      birth_date: profile.date_of_birth_enc
        ? decryptField(profile.date_of_birth_enc, encryptionContext("date_of_birth", profile.user_id))
        : null,
      country: countryCode(profile.country),
    },
    joint_name: profile.joint_account ? profile.joint_name : null,
  };
}

/**
 * What the applicant is told when a confirmed sanctions match declines their application: no list
 * is named (the screening queue holds the why for staff).
 */
export const SCREENING_DECLINE_REASON =
  "We are unable to open a membership for you. Please contact us with any questions.";

/**
 * A confirmed sanctions match on an applicant (the second staff member's approval, in the
 * screening's transaction): the application is declined as a rejection is, no account is opened,
 * the decision and audit rows name the screening. The email is queued after commit by the caller
 * (`emailAfterScreeningDecline`).
 */
export async function declineForScreening(
  tx: DbOrTx,
  screening: SanctionsScreening,
  staff: Actor,
  origin: AuditOrigin,
): Promise<{ first_name: string; email: string } | null> {
  const found = await lockApplication(tx, screening.subject_id);
  // Decided meanwhile (rejected by a reviewer): nothing more to decline.
  if (!found || found.profile.status !== "pending") return null;
  const now = new Date();
  const before = stateOf(found.profile);
  await tx
    .update(memberProfiles)
    .set({
      status: "rejected",
      document_status: "rejected",
      rejection_reason: SCREENING_DECLINE_REASON,
      decided_at: now,
      decided_by: staff.id,
      updated_at: now,
    })
    .where(eq(memberProfiles.user_id, found.profile.user_id));
  const [decision] = await tx
    .insert(applicationDecisions)
    .values({
      user_id: found.profile.user_id,
      decision: "rejected",
      checklist: {},
      snapshot: applicationSnapshot(found.profile, found.email),
      note: `Declined: confirmed sanctions match (screening ${screening.id}).`,
      decided_by: staff.id,
      decided_at: now,
    })
    .returning({ id: applicationDecisions.id });
  await recordAudit(tx, {
    actor_id: staff.id,
    actor_email: staff.email,
    action: "application.reject",
    subject_type: "member",
    subject_id: found.profile.user_id,
    before,
    after: {
      status: "rejected",
      document_status: "rejected",
      rejection_reason: SCREENING_DECLINE_REASON,
      screening_id: screening.id,
      decision_id: decision!.id,
    },
    request_id: origin.request_id,
    ip: origin.ip,
    at: now,
  });
  return { first_name: found.profile.first_name, email: found.email };
}

/** The declined applicant's email, once the screening's decision has committed. */
export async function emailAfterScreeningDecline(
  db: Db,
  declined: { user_id: string; first_name: string; email: string },
): Promise<void> {
  await sendAfterCommit(db, {
    ...applicationRejectedEmail(declined.first_name, SCREENING_DECLINE_REASON),
    to: declined.email,
    user_id: declined.user_id,
  });
}

/** Reject: a reason is required; status rejected with reason and time, the rejection record, the audit row, the email. */
export async function rejectApplication(
  db: Db,
  input: { member_id: string; staff: Actor; checklist: Checklist; reason: string; origin: AuditOrigin; now?: Date },
): Promise<DecisionResult> {
  const reason = input.reason.trim();
  if (!reason) throw new Error("a rejection needs a reason");
  const now = input.now ?? new Date();
  const outcome = await decide(db, async (tx) => {
    const found = await lockApplication(tx, input.member_id);
    checkPending(found);
    const before = stateOf(found.profile);
    await tx
      .update(memberProfiles)
      .set({
        status: "rejected",
        document_status: "rejected",
        rejection_reason: reason,
        decided_at: now,
        decided_by: input.staff.id,
        updated_at: now,
      })
      .where(eq(memberProfiles.user_id, input.member_id));
    const [decision] = await tx
      .insert(applicationDecisions)
      .values({
        user_id: input.member_id,
        decision: "rejected",
        checklist: input.checklist,
        snapshot: applicationSnapshot(found.profile, found.email),
        note: reason,
        decided_by: input.staff.id,
        decided_at: now,
      })
      .returning({ id: applicationDecisions.id });
    await recordAudit(tx, {
      actor_id: input.staff.id,
      actor_email: input.staff.email,
      action: "application.reject",
      subject_type: "member",
      subject_id: input.member_id,
      before,
      after: {
        status: "rejected",
        document_status: "rejected",
        rejection_reason: reason,
        checklist: input.checklist,
        decision_id: decision!.id,
      },
      request_id: input.origin.request_id,
      ip: input.origin.ip,
      at: now,
    });
    return {
      ok: true as const,
      decision_id: decision!.id,
      first_name: found.profile.first_name,
      email: found.email,
    };
  });
  if (!outcome.ok) return outcome;
  await sendAfterCommit(db, {
    ...applicationRejectedEmail(outcome.first_name, reason),
    to: outcome.email,
    user_id: input.member_id,
  });
  return { ok: true, decision_id: outcome.decision_id };
}

/**
 * Request information: a description is required; document status info_requested, an
 * information request (pending) the applicant answers on /pending-approval, the record, the
 * audit row, the email. Earlier unanswered requests stay as they are (the applicant sees all).
 */
export async function requestInformation(
  db: Db,
  input: { member_id: string; staff: Actor; checklist: Checklist; message: string; origin: AuditOrigin; now?: Date },
): Promise<(DecisionResult & { ok: true; info_request_id: number }) | DecisionRefusal> {
  const message = input.message.trim();
  if (!message) throw new Error("an information request needs a description");
  const now = input.now ?? new Date();
  const outcome = await decide(db, async (tx) => {
    const found = await lockApplication(tx, input.member_id);
    checkPending(found);
    const before = stateOf(found.profile);
    await tx
      .update(memberProfiles)
      .set({ document_status: "info_requested", updated_at: now })
      .where(eq(memberProfiles.user_id, input.member_id));
    const [request] = await tx
      .insert(applicationInfoRequests)
      .values({ user_id: input.member_id, message, requested_by: input.staff.id, requested_at: now, status: "pending" })
      .returning({ id: applicationInfoRequests.id });
    const [decision] = await tx
      .insert(applicationDecisions)
      .values({
        user_id: input.member_id,
        decision: "info_requested",
        checklist: input.checklist,
        snapshot: applicationSnapshot(found.profile, found.email),
        note: message,
        decided_by: input.staff.id,
        decided_at: now,
      })
      .returning({ id: applicationDecisions.id });
    await recordAudit(tx, {
      actor_id: input.staff.id,
      actor_email: input.staff.email,
      action: "application.request_info",
      subject_type: "member",
      subject_id: input.member_id,
      before,
      after: {
        document_status: "info_requested",
        info_request_id: request!.id,
        message,
        checklist: input.checklist,
        decision_id: decision!.id,
      },
      request_id: input.origin.request_id,
      ip: input.origin.ip,
      at: now,
    });
    return {
      ok: true as const,
      decision_id: decision!.id,
      info_request_id: request!.id,
      first_name: found.profile.first_name,
      email: found.email,
    };
  });
  if (!outcome.ok) return outcome;
  await sendAfterCommit(db, {
    ...informationRequestedEmail(outcome.first_name, message),
    to: outcome.email,
    user_id: input.member_id,
  });
  return { ok: true, decision_id: outcome.decision_id, info_request_id: outcome.info_request_id };
}

/** The pending information requests of an application (for the dialog). */
export async function openInfoRequests(db: DbOrTx, member_id: string) {
  return db
    .select()
    .from(applicationInfoRequests)
    .where(and(eq(applicationInfoRequests.user_id, member_id)))
    .orderBy(applicationInfoRequests.requested_at)
    .limit(50);
}
