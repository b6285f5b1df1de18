import { institution } from "~/config/institution.server";
import type { Db } from "~/server/db/client.server";
import { sendEmail } from "~/server/mail/outbox.server";
import { passwordChangedEmail } from "~/server/mail/templates.server";
import { hitRateLimit } from "~/server/rate-limit/rate-limit.server";
import { logger } from "~/server/logger.server";
import { isDemoSignIn } from "~/server/seed/demo-signins.server";
import { authFor } from "./auth.server";
import { RATE_LIMITS } from "./rate-limits.server";
import { authHeaders, type RequestMeta } from "./request-meta.server";

/**
 * Passwords: "Forgot password?" (a single-use link valid 30 minutes, and an answer that never
 * says whether the address has an account), the reset itself (which ends every session), and the
 * change of a known password (which ends every other session).
 *
 * In demo mode the published demo sign-ins cannot be reset or changed, so one visitor cannot lock
 * the next out of the demo.
 */
export type ForgotPasswordResult = { status: "sent" } | { status: "rate_limited"; retry_after_s: number };

export async function requestPasswordReset(db: Db, meta: RequestMeta, email: string): Promise<ForgotPasswordResult> {
  const limit = await hitRateLimit({ key: `password-reset:ip:${meta.ip}`, ...RATE_LIMITS.password_reset }, { database: db });
  if (!limit.allowed) return { status: "rate_limited", retry_after_s: limit.retry_after_s };
  const address = email.trim().toLowerCase();
  // Per address: beyond the limit nothing is sent, and the answer stays the same.
  const perEmail = await hitRateLimit({ key: `password-reset:email:${address}`.slice(0, 200), ...RATE_LIMITS.password_reset_per_email }, { database: db });
  if (!perEmail.allowed) return { status: "sent" };
  if (institution().demo && isDemoSignIn(address)) return { status: "sent" };
  try {
    await authFor(db).api.requestPasswordReset({ body: { email: address, redirectTo: "/reset-password" }, headers: authHeaders(meta) });
  } catch (error) {
    // Whatever went wrong, the visitor hears the same answer; we hear the details.
    logger.error({ err: error }, "password reset request failed");
  }
  return { status: "sent" };
}

/** Whether a reset link's token is live (not used, not expired), to show the form or say why not. */
export async function resetTokenIsLive(db: Db, token: string, now: Date = new Date()): Promise<boolean> {
  if (!/^[A-Za-z0-9_-]{8,200}$/.test(token)) return false;
  const context = await authFor(db).$context;
  const row = await context.internalAdapter.findVerificationValue(`reset-password:${token}`);
  return Boolean(row && row.expiresAt.getTime() > now.getTime());
}

export type ResetPasswordResult = { status: "reset" } | { status: "invalid_link" } | { status: "rate_limited"; retry_after_s: number } | { status: "failed" };

export async function completePasswordReset(db: Db, meta: RequestMeta, input: { token: string; password: string }): Promise<ResetPasswordResult> {
  const limit = await hitRateLimit({ key: `password-reset-complete:ip:${meta.ip}`, ...RATE_LIMITS.password_reset_complete }, { database: db });
  if (!limit.allowed) return { status: "rate_limited", retry_after_s: limit.retry_after_s };
  if (!(await resetTokenIsLive(db, input.token))) return { status: "invalid_link" };
  try {
    await authFor(db).api.resetPassword({ body: { newPassword: input.password, token: input.token }, headers: authHeaders(meta) });
    return { status: "reset" };
  } catch (error) {
    const code = (error as { body?: { code?: string } }).body?.code;
    if (code === "INVALID_TOKEN" || code === "USER_NOT_FOUND") return { status: "invalid_link" };
    logger.error({ err: error }, "password reset failed");
    return { status: "failed" };
  }
}

export type ChangePasswordResult =
  | { status: "changed"; set_cookies: string[] }
  | { status: "wrong_password" }
  | { status: "not_allowed" }
  | { status: "failed" };

/**
 * Changes the signed-in person's password (Account Settings, later). Every other session ends;
 * this browser gets a new session id.
 */
export async function changePassword(
  db: Db,
  meta: RequestMeta,
  input: { email: string; user_id: string; current_password: string; new_password: string },
): Promise<ChangePasswordResult> {
  if (institution().demo && isDemoSignIn(input.email)) return { status: "not_allowed" };
  try {
    const result = await authFor(db).api.changePassword({
      body: { currentPassword: input.current_password, newPassword: input.new_password, revokeOtherSessions: true },
      headers: authHeaders(meta),
      returnHeaders: true,
    });
    await sendEmail(db, { ...passwordChangedEmail(), to: input.email, user_id: input.user_id });
    return { status: "changed", set_cookies: result.headers.getSetCookie() };
  } catch (error) {
    const code = (error as { body?: { code?: string } }).body?.code;
    if (code === "INVALID_PASSWORD") return { status: "wrong_password" };
    logger.error({ err: error }, "password change failed");
    return { status: "failed" };
  }
}
