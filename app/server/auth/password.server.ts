import { eq } from "drizzle-orm";
import { institution } from "~/config/institution.server";
import { codedRefusal, type CodedRefusal } from "~/domain/refusals";
import { SETTINGS_MESSAGES } from "~/domain/settings";
import { RESET_LINK_INVALID, rateLimitedMessage } from "~/domain/sign-in";
import type { Db } from "~/server/db/client.server";
import { users } from "~/server/db/schema";
import { recordSecurityEvent } from "~/server/audit/audit.server";
import { sendEmail } from "~/server/mail/outbox.server";
import { passwordChangedEmail } from "~/server/mail/templates.server";
import { hitRateLimit } from "~/server/rate-limit/rate-limit.server";
import { logger } from "~/server/logger.server";
import { isDemoSignIn } from "~/server/auth/demo-signins.server";
import { authFor } from "./auth.server";
import {
  guardCurrentPassword,
  wrongCurrentPassword,
  type CurrentPasswordLocked,
  type WrongCurrentPassword,
} from "./current-password.server";
import { RATE_LIMITS } from "./rate-limits.server";
import { authHeaders, type RequestMeta } from "./request-meta.server";

/**
 * Passwords: "Forgot password?" (a single-use link valid 30 minutes, and an answer that never
 * says whether the address has an account), the reset itself (which ends every session), and the
 * change of a known password (which ends every other session).
 *
 * In demo mode the published demo sign-ins cannot be reset or changed, so one visitor cannot lock
 * the next out of the demo.
 *
 * Every reset request and every attempt to complete one is a security event in the audit log,
 * with its outcome (the visitor's answer stays the same whatever the outcome).
 */
/** A reset or a temporary password's replacement that failed on our side. */
const COULD_NOT_CHANGE = "We could not change your password. Please try again.";

export type ForgotPasswordResult = { ok: true } | CodedRefusal<"rate_limited">;

/** Too many reset requests or attempts from this network address. */
function resetRateLimited(retry_after_s: number): CodedRefusal<"rate_limited"> {
  return codedRefusal("too_many", rateLimitedMessage(retry_after_s), "rate_limited", { retry_after_s });
}

type ResetRequestOutcome = "sent" | "no_account" | "address_limit" | "demo_sign_in" | "failed";

export async function requestPasswordReset(
  db: Db,
  meta: RequestMeta,
  email: string,
  origin: { request_id?: string } = {},
): Promise<ForgotPasswordResult> {
  const address = email.trim().toLowerCase();
  const limit = await hitRateLimit(
    { key: `password-reset:ip:${meta.ip}`, ...RATE_LIMITS.password_reset },
    { database: db },
  );
  if (!limit.allowed) {
    await recordSecurityEvent(db, {
      action: "auth.password_reset.rate_limited",
      email: address,
      request_id: origin.request_id,
      ip: meta.ip,
    });
    return resetRateLimited(limit.retry_after_s);
  }
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, address));
  const outcome = await sendResetLink(db, meta, address, Boolean(user));
  await recordSecurityEvent(db, {
    action: "auth.password_reset.requested",
    user_id: user?.id ?? null,
    email: address,
    detail: { outcome },
    request_id: origin.request_id,
    ip: meta.ip,
  });
  return { ok: true };
}

async function sendResetLink(
  db: Db,
  meta: RequestMeta,
  address: string,
  has_account: boolean,
): Promise<ResetRequestOutcome> {
  // Per address: beyond the limit nothing is sent, and the answer stays the same.
  const perEmail = await hitRateLimit(
    { key: `password-reset:email:${address}`.slice(0, 200), ...RATE_LIMITS.password_reset_per_email },
    { database: db },
  );
  if (!perEmail.allowed) return "address_limit";
  if (institution().demo && isDemoSignIn(address)) return "demo_sign_in";
  try {
    await authFor(db).api.requestPasswordReset({
      body: { email: address, redirectTo: "/reset-password" },
      headers: authHeaders(meta),
    });
    return has_account ? "sent" : "no_account";
  } catch (error) {
    // Whatever went wrong, the visitor hears the same answer; we hear the details.
    logger.error({ err: error }, "password reset request failed");
    return "failed";
  }
}

/** The user a reset link's token belongs to while it is live (not used, not expired), else null. */
async function resetTokenUserId(db: Db, token: string, now: Date = new Date()): Promise<string | null> {
  if (!/^[A-Za-z0-9_-]{8,200}$/.test(token)) return null;
  const context = await authFor(db).$context;
  const row = await context.internalAdapter.findVerificationValue(`reset-password:${token}`);
  return row && row.expiresAt.getTime() > now.getTime() ? row.value : null;
}

/** Whether a reset link's token is live (not used, not expired), to show the form or say why not. */
export async function resetTokenIsLive(db: Db, token: string, now: Date = new Date()): Promise<boolean> {
  return (await resetTokenUserId(db, token, now)) !== null;
}

export type ResetPasswordResult = { ok: true } | CodedRefusal<"invalid_link" | "rate_limited" | "failed">;

/** The link was used, has expired or was never ours: the page says so and offers a new one. */
const deadLink = () => codedRefusal("bad_input", RESET_LINK_INVALID, "invalid_link");

export async function completePasswordReset(
  db: Db,
  meta: RequestMeta,
  input: { token: string; password: string },
  origin: { request_id?: string } = {},
): Promise<ResetPasswordResult> {
  const limit = await hitRateLimit(
    { key: `password-reset-complete:ip:${meta.ip}`, ...RATE_LIMITS.password_reset_complete },
    { database: db },
  );
  if (!limit.allowed) {
    await recordSecurityEvent(db, {
      action: "auth.password_reset.rate_limited",
      request_id: origin.request_id,
      ip: meta.ip,
    });
    return resetRateLimited(limit.retry_after_s);
  }
  const user_id = await resetTokenUserId(db, input.token);
  const result = user_id ? await resetWithToken(db, meta, input) : deadLink();
  await recordSecurityEvent(db, {
    action: result.ok ? "auth.password_reset.completed" : "auth.password_reset.refused",
    user_id,
    detail: result.ok ? { all_sessions_ended: true } : { reason: result.code },
    request_id: origin.request_id,
    ip: meta.ip,
  });
  return result;
}

async function resetWithToken(
  db: Db,
  meta: RequestMeta,
  input: { token: string; password: string },
): Promise<ResetPasswordResult> {
  try {
    await authFor(db).api.resetPassword({
      body: { newPassword: input.password, token: input.token },
      headers: authHeaders(meta),
    });
    return { ok: true };
  } catch (error) {
    const code = (error as { body?: { code?: string } }).body?.code;
    if (code === "INVALID_TOKEN" || code === "USER_NOT_FOUND") return deadLink();
    logger.error({ err: error }, "password reset failed");
    return codedRefusal("unavailable", COULD_NOT_CHANGE, "failed");
  }
}

export type ChangePasswordResult =
  | { ok: true; set_cookies: string[] }
  | WrongCurrentPassword
  | CurrentPasswordLocked
  | CodedRefusal<"not_allowed" | "failed">;

type PasswordPurpose = "password_change" | "temporary_password";

/**
 * What a refused change says, by the page it is made on: Account Settings, or "Choose a new
 * password" after signing in with a temporary one (docs/product.md#passwords).
 */
export const PASSWORD_CHANGE_MESSAGES = {
  password_change: {
    wrong_password: SETTINGS_MESSAGES.wrong_current_password,
    not_allowed: SETTINGS_MESSAGES.demo_locked,
    failed: SETTINGS_MESSAGES.try_again,
  },
  temporary_password: {
    wrong_password: "The temporary password is not correct.",
    not_allowed: "This sign-in cannot change its password. Please contact us.",
    failed: COULD_NOT_CHANGE,
  },
} as const satisfies Record<PasswordPurpose, Record<string, string>>;

/**
 * Changes the signed-in person's password (Account Settings, or a temporary one replaced). Every
 * other session ends; this browser gets a new session id. The current password is checked within
 * the limits of current-password.server.ts (a wrong one is audited, counted and alerted).
 */
export async function changePassword(
  db: Db,
  meta: RequestMeta,
  input: {
    email: string;
    user_id: string;
    current_password: string;
    new_password: string;
    purpose?: PasswordPurpose;
  },
  origin: { request_id?: string } = {},
): Promise<ChangePasswordResult> {
  const purpose = input.purpose ?? "password_change";
  const messages = PASSWORD_CHANGE_MESSAGES[purpose];
  if (institution().demo && isDemoSignIn(input.email))
    return codedRefusal("forbidden", messages.not_allowed, "not_allowed");
  return guardCurrentPassword(
    db,
    meta,
    { id: input.user_id, email: input.email },
    purpose,
    () => changeKnownPassword(db, meta, input, messages),
    origin,
  );
}

async function changeKnownPassword(
  db: Db,
  meta: RequestMeta,
  input: { email: string; user_id: string; current_password: string; new_password: string },
  messages: { wrong_password: string; failed: string },
): Promise<ChangePasswordResult> {
  try {
    const result = await authFor(db).api.changePassword({
      body: { currentPassword: input.current_password, newPassword: input.new_password, revokeOtherSessions: true },
      headers: authHeaders(meta),
      returnHeaders: true,
    });
    await sendEmail(db, { ...passwordChangedEmail(), to: input.email, user_id: input.user_id });
    return { ok: true, set_cookies: result.headers.getSetCookie() };
  } catch (error) {
    const code = (error as { body?: { code?: string } }).body?.code;
    if (code === "INVALID_PASSWORD") return wrongCurrentPassword(messages.wrong_password);
    logger.error({ err: error }, "password change failed");
    return codedRefusal("unavailable", messages.failed, "failed");
  }
}
