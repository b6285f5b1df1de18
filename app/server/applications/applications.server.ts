import { and, asc, eq } from "drizzle-orm";
import {
  ID_DOCUMENT_MAX_BYTES,
  ID_DOCUMENT_MISSING,
  ID_DOCUMENT_TOO_LARGE,
  ID_DOCUMENT_TYPES,
  ID_DOCUMENT_WRONG_TYPE,
  INFO_ANSWER_MAX_CHARS,
  maskDateOfBirth,
  maskIdNumber,
  type Application,
} from "~/domain/membership-application";
import type { Db } from "~/server/db/client.server";
import { applicationInfoRequests, memberProfiles, memberSettings, users } from "~/server/db/schema";
import { authFor } from "~/server/auth/auth.server";
import { authHeaders, type RequestMeta } from "~/server/auth/request-meta.server";
import { hitRateLimit } from "~/server/rate-limit/rate-limit.server";
import { RATE_LIMITS } from "~/server/auth/rate-limits.server";
import {
  removePrivateUpload,
  storePrivateUpload,
  UploadRejectedError,
  type StoredUpload,
} from "~/server/uploads/private-uploads.server";
import { sendEmail } from "~/server/mail/outbox.server";
import { applicationReceivedEmail } from "~/server/mail/templates.server";
import { decryptField, encryptField } from "~/server/security/crypto.server";
import { encryptionContext } from "~/server/members/members.server";
import { maskedTaxpayerIds, storeTaxpayerId } from "~/server/members/taxpayer-ids.server";
import { countryCode, screenApplication } from "~/server/sanctions/screening.server";
import { logger } from "~/server/logger.server";

/**
 * Membership applications (docs/product.md#applications-and-review): the public form's submission,
 * the applicant's status page and their answers to staff's requests for information. Staff review
 * (approve, reject, request info) is in the back office.
 */

export const ID_DOCUMENT_RULES = {
  allowed: ID_DOCUMENT_TYPES,
  max_bytes: ID_DOCUMENT_MAX_BYTES,
  messages: {
    missing: ID_DOCUMENT_MISSING,
    too_large: ID_DOCUMENT_TOO_LARGE,
    wrong_type: ID_DOCUMENT_WRONG_TYPE,
    unreadable: "We could not read that image. Please upload a clear photo or scan (JPEG, PNG, WebP or PDF).",
  },
} as const;

export type SubmitApplicationResult =
  | { status: "created"; user_id: string; set_cookies: string[] }
  | { status: "rate_limited"; retry_after_s: number }
  | { status: "document_rejected"; message: string }
  | { status: "email_taken" }
  | { status: "email_invalid" }
  | { status: "failed" };

/**
 * Stores an application: the document first (checked by content), then the account (role
 * pending) through Better Auth, which also signs the applicant in, then the profile with the
 * date of birth and ID number encrypted, and the taxpayer numbers (encrypted, last four apart). If a later step fails, the earlier ones are undone.
 */
export async function submitApplication(
  db: Db,
  meta: RequestMeta,
  application: Application,
  document: File | null,
): Promise<SubmitApplicationResult> {
  const limit = await hitRateLimit({ key: `application:ip:${meta.ip}`, ...RATE_LIMITS.application }, { database: db });
  if (!limit.allowed) return { status: "rate_limited", retry_after_s: limit.retry_after_s };

  let stored: StoredUpload;
  try {
    stored = await storePrivateUpload("id-documents", document, ID_DOCUMENT_RULES);
  } catch (error) {
    if (error instanceof UploadRejectedError) return { status: "document_rejected", message: error.message };
    logger.error({ err: error }, "storing an ID document failed");
    return { status: "failed" };
  }

  const auth = authFor(db);
  let user_id: string;
  let set_cookies: string[];
  try {
    const result = await auth.api.signUpEmail({
      body: {
        email: application.email,
        password: application.password,
        name: `${application.first_name} ${application.last_name}`,
        rememberMe: false,
      },
      headers: authHeaders(meta),
      returnHeaders: true,
    });
    user_id = result.response.user.id;
    set_cookies = result.headers.getSetCookie();
  } catch (error) {
    await removePrivateUpload("id-documents", stored.file);
    const code = (error as { body?: { code?: string } }).body?.code;
    if (code === "USER_ALREADY_EXISTS" || code === "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL")
      return { status: "email_taken" };
    if (code === "INVALID_EMAIL") return { status: "email_invalid" };
    logger.error({ err: error }, "creating an applicant's account failed");
    return { status: "failed" };
  }

  try {
    await db.transaction(async (tx) => {
      await tx.insert(memberProfiles).values({
        user_id,
        first_name: application.first_name,
        last_name: application.last_name,
        date_of_birth_enc: encryptField(application.date_of_birth, encryptionContext("date_of_birth", user_id)),
        nationality: application.nationality,
        marital_status: application.marital_status,
        street: application.street,
        city: application.city,
        state: application.state,
        postal_code: application.postal_code,
        country: application.country,
        phone: application.phone,
        alt_email: application.alt_email ?? null,
        emergency_name: application.emergency_name,
        emergency_relationship: application.emergency_relationship,
        emergency_phone: application.emergency_phone,
        id_type: application.id_type,
        id_number_enc: encryptField(application.id_number, encryptionContext("id_number", user_id)),
        id_document_file: stored.file,
        id_document_mime: stored.mime,
        id_document_bytes: stored.bytes,
        joint_account: application.joint_account,
        joint_name: application.joint_name,
        joint_email: application.joint_email,
        joint_phone: application.joint_phone,
        status: "pending",
        document_status: "pending",
        source: "application",
      });
      // The taxpayer numbers (31 CFR 1020.220): the applicant's, and the joint owner's if any.
      await storeTaxpayerId(tx, { user_id, party: "member", tin: application.taxpayer_id });
      if (application.joint_taxpayer_id)
        await storeTaxpayerId(tx, { user_id, party: "joint", tin: application.joint_taxpayer_id });
      await tx.insert(memberSettings).values({ user_id }).onConflictDoNothing();
    });
  } catch (error) {
    logger.error({ err: error, user_id }, "storing an application failed; undoing the account");
    // The user row cascades to its sessions and credential.
    await db.delete(users).where(eq(users.id, user_id));
    await removePrivateUpload("id-documents", stored.file);
    return { status: "failed" };
  }

  // Screened as soon as it arrives (docs/product.md#sanctions-screening), so a possible match is in
  // the screening queue before staff open the application. Approval screens again (a list may be
  // loaded meanwhile) and is what stops: a failure here delays nothing.
  try {
    await db.transaction((tx) =>
      screenApplication(tx, user_id, {
        applicant: {
          name: `${application.first_name} ${application.last_name}`,
          birth_date: application.date_of_birth,
          country: countryCode(application.country),
        },
        joint_name: application.joint_account ? (application.joint_name ?? null) : null,
      }),
    );
  } catch (error) {
    logger.error({ err: error, user_id }, "screening a new application failed; approval screens it again");
  }

  await sendEmail(db, { ...applicationReceivedEmail(application.first_name), to: application.email, user_id });
  return { status: "created", user_id, set_cookies };
}

export interface InfoRequestView {
  id: number;
  message: string;
  requested_at: Date;
  status: "pending" | "answered";
  answer_text: string | null;
  answered_at: Date | null;
}

export interface ApplicantOverview {
  first_name: string;
  last_name: string;
  email: string;
  status: "pending" | "approved" | "rejected";
  document_status: "pending" | "info_requested" | "verified" | "rejected";
  rejection_reason: string | null;
  decided_at: Date | null;
  submitted_at: Date;
  date_of_birth_masked: string | null;
  id_number_masked: string | null;
  id_type: string | null;
  /** The applicant's taxpayer number (and the joint owner's), masked: "SSN •••-••-1234". */
  taxpayer_ids_masked: string[];
  info_requests: InfoRequestView[];
}

/** What the applicant sees of their own application (personal numbers masked). */
export async function getApplicantOverview(db: Db, user_id: string): Promise<ApplicantOverview | null> {
  const [row] = await db
    .select({ profile: memberProfiles, email: users.email })
    .from(memberProfiles)
    .innerJoin(users, eq(users.id, memberProfiles.user_id))
    .where(eq(memberProfiles.user_id, user_id));
  if (!row) return null;
  const { profile } = row;
  const requests = await db
    .select({
      id: applicationInfoRequests.id,
      message: applicationInfoRequests.message,
      requested_at: applicationInfoRequests.requested_at,
      status: applicationInfoRequests.status,
      answer_text: applicationInfoRequests.answer_text,
      answered_at: applicationInfoRequests.answered_at,
    })
    .from(applicationInfoRequests)
    .where(eq(applicationInfoRequests.user_id, user_id))
    .orderBy(asc(applicationInfoRequests.requested_at))
    .limit(50);
  return {
    first_name: profile.first_name,
    last_name: profile.last_name,
    email: row.email,
    status: profile.status,
    document_status: profile.document_status,
    rejection_reason: profile.rejection_reason,
    decided_at: profile.decided_at,
    submitted_at: profile.created_at,
    date_of_birth_masked: profile.date_of_birth_enc
      ? maskDateOfBirth(decryptField(profile.date_of_birth_enc, encryptionContext("date_of_birth", user_id)))
      : null,
    id_number_masked: profile.id_number_enc
      ? maskIdNumber(decryptField(profile.id_number_enc, encryptionContext("id_number", user_id)))
      : null,
    id_type: profile.id_type,
    taxpayer_ids_masked: (await maskedTaxpayerIds(db, user_id)).map(
      (t) => `${t.party === "joint" ? "Joint owner: " : ""}${t.type_label} ${t.masked}`,
    ),
    info_requests: requests,
  };
}

export type AnswerResult =
  | { status: "answered" }
  | { status: "not_found" }
  | { status: "document_rejected"; message: string }
  | { status: "failed" };

/**
 * The applicant's answer to a request for information: text and, optionally, a new document
 * (which becomes the application's document). The request goes back to staff's review queue.
 */
export async function answerInfoRequest(
  db: Db,
  input: { user_id: string; request_id: number; text: string; document: File | null; now?: Date },
): Promise<AnswerResult> {
  if (input.text.length === 0 || input.text.length > INFO_ANSWER_MAX_CHARS) return { status: "failed" };
  const [request] = await db
    .select({ id: applicationInfoRequests.id })
    .from(applicationInfoRequests)
    .where(
      and(
        eq(applicationInfoRequests.id, input.request_id),
        eq(applicationInfoRequests.user_id, input.user_id),
        eq(applicationInfoRequests.status, "pending"),
      ),
    );
  if (!request) return { status: "not_found" };

  let stored: StoredUpload | null = null;
  if (input.document && input.document.size > 0) {
    try {
      stored = await storePrivateUpload("id-documents", input.document, ID_DOCUMENT_RULES);
    } catch (error) {
      if (error instanceof UploadRejectedError) return { status: "document_rejected", message: error.message };
      logger.error({ err: error }, "storing an answer's document failed");
      return { status: "failed" };
    }
  }
  const now = input.now ?? new Date();
  try {
    const answered = await db.transaction(async (tx) => {
      const updated = await tx
        .update(applicationInfoRequests)
        .set({
          status: "answered",
          answer_text: input.text,
          answer_document_file: stored?.file ?? null,
          answer_document_mime: stored?.mime ?? null,
          answered_at: now,
        })
        .where(
          and(
            eq(applicationInfoRequests.id, input.request_id),
            eq(applicationInfoRequests.user_id, input.user_id),
            eq(applicationInfoRequests.status, "pending"),
          ),
        )
        .returning({ id: applicationInfoRequests.id });
      if (updated.length !== 1) return false;
      // Back to the review queue: the document waits for verification again.
      await tx
        .update(memberProfiles)
        .set({
          document_status: "pending",
          updated_at: now,
          ...(stored
            ? { id_document_file: stored.file, id_document_mime: stored.mime, id_document_bytes: stored.bytes }
            : {}),
        })
        .where(and(eq(memberProfiles.user_id, input.user_id), eq(memberProfiles.status, "pending")));
      return true;
    });
    if (!answered) {
      if (stored) await removePrivateUpload("id-documents", stored.file);
      return { status: "not_found" };
    }
    return { status: "answered" };
  } catch (error) {
    logger.error({ err: error }, "storing an answer failed");
    if (stored) await removePrivateUpload("id-documents", stored.file);
    return { status: "failed" };
  }
}
