import { worksInBackOffice } from "~/domain/staff-roles";
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { maskEmail } from "~/domain/sign-in";
import type { Db } from "~/server/db/client.server";
import { sessions, signInChallenges, usedTotpCodes, users } from "~/server/db/schema";
import { sendEmail } from "~/server/mail/outbox.server";
import { notify } from "~/server/notifications/notifications.server";
import { accountLockedEmail, codesLockedEmail, loginAlertEmail } from "~/server/mail/templates.server";
import { hitRateLimit } from "~/server/rate-limit/rate-limit.server";
import { keyedHash } from "~/server/security/crypto.server";
import { logger } from "~/server/logger.server";
import { recordSecurityEvent } from "~/server/audit/audit.server";
import { applicationStatus, getMemberSettings } from "~/server/members/members.server";
import { institution } from "~/config/institution.server";
import { authFor, publicBaseUrl } from "./auth.server";
import { describeUserAgent, noteSignInDevice } from "./devices.server";
import { countPasskeys } from "./passkeys.server";
import { verifiedCookieValue } from "./signed-cookie.server";
import { hashCode } from "./codes.server";
import { mustChangePassword } from "./password-change.server";
import {
  CODE_ATTEMPTS_MAX,
  clearCodeAttempts,
  clearWrongPasswords,
  lockForWrongCodes,
  LOCKOUT_MS,
  lockoutState,
  recordCodeAttempt,
  recordWrongPassword,
} from "./lockout.server";
import { RATE_LIMITS } from "./rate-limits.server";
import { authHeaders, type RequestMeta } from "./request-meta.server";
import { effectiveRole, type EffectiveRole } from "./roles.server";

/**
 * Two-step sign-in (docs/product.md#two-steps).
 *
 * Step 1 checks the password through Better Auth. Because every user has two-factor on, a right
 * password creates no session: Better Auth opens a challenge (the signed, HttpOnly `two_factor`
 * cookie, 10 minutes) and we send the email code, unless the member uses an authenticator app.
 *
 * Step 2 takes a 6-digit code: a staff-issued code for this member, else the email code or the
 * app's code. Only then is a session created, with a new random id. Five wrong codes end the
 * challenge (back to step 1), whatever kind of code was tried; and because a new challenge only
 * takes the password, codes are also counted per account across challenges: 10 without a
 * sign-in lock the account as wrong passwords do, and the member is emailed (lockout.server.ts).
 */
export const WRONG_CODES_MAX = 5;
/** An authenticator code stays refused this long after use (its window is ±30 s). */
const TOTP_REUSE_WINDOW_MS = 3 * 60 * 1000;

type ApiError = { body?: { code?: string }; statusCode?: number };
function errorCode(error: unknown): string | undefined {
  return (error as ApiError | null)?.body?.code;
}

export type StartSignInResult =
  | { status: "challenge"; set_cookies: string[]; method: "email" | "totp" }
  | { status: "invalid" }
  | { status: "locked"; retry_after_s: number }
  | { status: "rate_limited"; retry_after_s: number }
  /** Staff with a passkey, while the profile requires staff to use one: the password path is closed to them. */
  | { status: "passkey_required"; set_cookies: string[] }
  | { status: "failed" };

/**
 * Step 1, with its security event in the audit log (sign-in failures and lockouts,
 * docs/product.md#sign-in-protection).
 */
export async function startSignIn(
  db: Db,
  meta: RequestMeta,
  input: { email: string; password: string },
  now: Date = new Date(),
): Promise<StartSignInResult> {
  const result = await checkPassword(db, meta, input, now);
  if (result.status !== "challenge") {
    await recordSecurityEvent(db, {
      action: `auth.sign_in.${result.status}`,
      email: input.email.trim().toLowerCase(),
      ip: meta.ip,
    });
  }
  return result;
}

async function checkPassword(
  db: Db,
  meta: RequestMeta,
  input: { email: string; password: string },
  now: Date,
): Promise<StartSignInResult> {
  const limit = await hitRateLimit({ key: `sign-in:ip:${meta.ip}`, ...RATE_LIMITS.sign_in }, { database: db, now });
  if (!limit.allowed) return { status: "rate_limited", retry_after_s: limit.retry_after_s };

  const lock = await lockoutState(db, input.email, now);
  if (lock.locked) return { status: "locked", retry_after_s: lock.retry_after_s };

  const auth = authFor(db);
  // A session already open in this browser ends here: signing in always starts a new one.
  if (/session_token=/.test(meta.cookie)) {
    await auth.api.signOut({ headers: authHeaders(meta) }).catch(() => undefined);
  }

  let set_cookies: string[];
  let response: { twoFactorRedirect?: boolean; twoFactorMethods?: string[]; user?: { id: string } };
  try {
    const result = await auth.api.signInEmail({
      body: { email: input.email, password: input.password, rememberMe: false },
      headers: authHeaders(meta),
      returnHeaders: true,
    });
    set_cookies = result.headers.getSetCookie();
    response = result.response as typeof response;
  } catch (error) {
    const code = errorCode(error);
    if (code === "INVALID_EMAIL_OR_PASSWORD") return wrongPassword(db, input.email, now);
    if (code === "BANNED_USER" || code === "INVALID_EMAIL" || code === "PASSWORD_TOO_LONG")
      return { status: "invalid" };
    logger.error({ err: error }, "sign-in step 1 failed");
    return { status: "failed" };
  }

  if (!response.twoFactorRedirect) {
    // Never a session from a password alone: end it and repair the flag for next time.
    logger.error({ user_id: response.user?.id }, "sign-in produced a session without a second factor; refused");
    await auth.api.signOut({ headers: authHeaders(meta, set_cookies) }).catch(() => undefined);
    if (response.user?.id) await db.update(users).set({ twoFactorEnabled: true }).where(eq(users.id, response.user.id));
    return { status: "failed" };
  }

  await clearWrongPasswords(db, input.email, now);
  try {
    const { challenge } = await auth.api.getSignInChallenge({ headers: authHeaders(meta, set_cookies) });
    if (!challenge) throw new Error("no challenge after a right password");
    if (await staffMustUsePasskey(db, challenge.user_id)) {
      // Asked only after the right password, so the refusal tells nobody else who is staff.
      const ended = await auth.api.endSignInChallenge({ headers: authHeaders(meta, set_cookies), returnHeaders: true });
      return { status: "passkey_required", set_cookies: ended.headers.getSetCookie() };
    }
    const method = response.twoFactorMethods?.includes("totp") ? "totp" : "email";
    await db
      .insert(signInChallenges)
      .values({ id: challengeKey(challenge.challenge_id), user_id: challenge.user_id, method, created_at: now });
    if (method === "email") await auth.api.sendTwoFactorOTP({ headers: authHeaders(meta, set_cookies), body: {} });
    return { status: "challenge", set_cookies, method };
  } catch (error) {
    logger.error({ err: error }, "opening the second sign-in step failed");
    return { status: "failed" };
  }
}

async function wrongPassword(db: Db, email: string, now: Date): Promise<StartSignInResult> {
  const { locked_now } = await recordWrongPassword(db, email, now);
  if (!locked_now) return { status: "invalid" };
  const [user] = await db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(eq(users.email, email.trim().toLowerCase()));
  if (user) await sendEmail(db, { ...accountLockedEmail(LOCKOUT_MS / 60_000), to: user.email, user_id: user.id });
  return { status: "locked", retry_after_s: LOCKOUT_MS / 1000 };
}

/** Our row for a challenge is keyed by a hash of Better Auth's identifier (a cookie secret). */
function challengeKey(challenge_id: string): string {
  return keyedHash("sign-in-challenge", challenge_id);
}

export interface SignInStep {
  key: string;
  user_id: string;
  method: "email" | "totp";
  failures: number;
  /** The account's address: its lock and code count are kept under it. */
  email: string;
  email_masked: string;
  expires_at: Date;
}

/** The open second step of this browser's sign-in, or null. */
export async function getSignInStep(db: Db, meta: RequestMeta): Promise<SignInStep | null> {
  if (!/two_factor=/.test(meta.cookie)) return null;
  const auth = authFor(db);
  const { challenge } = await auth.api.getSignInChallenge({ headers: authHeaders(meta) });
  if (!challenge) return null;
  const [row] = await db
    .select({
      key: signInChallenges.id,
      method: signInChallenges.method,
      failures: signInChallenges.failures,
      email: users.email,
    })
    .from(signInChallenges)
    .innerJoin(users, eq(users.id, signInChallenges.user_id))
    .where(
      and(
        eq(signInChallenges.id, challengeKey(challenge.challenge_id)),
        isNull(signInChallenges.ended_at),
        eq(signInChallenges.user_id, challenge.user_id),
      ),
    );
  if (!row) return null;
  return {
    key: row.key,
    user_id: challenge.user_id,
    method: row.method,
    failures: row.failures,
    email: row.email,
    email_masked: maskEmail(row.email),
    expires_at: new Date(challenge.expires_at),
  };
}

/** Ends this browser's open sign-in challenge ("Back", or too many wrong codes). */
export async function endSignInStep(
  db: Db,
  meta: RequestMeta,
  now: Date = new Date(),
): Promise<{ set_cookies: string[] }> {
  const step = await getSignInStep(db, meta).catch(() => null);
  if (step) await db.update(signInChallenges).set({ ended_at: now }).where(eq(signInChallenges.id, step.key));
  const result = await authFor(db).api.endSignInChallenge({ headers: authHeaders(meta), returnHeaders: true });
  return { set_cookies: result.headers.getSetCookie() };
}

export interface SignedInUser {
  id: string;
  email: string;
  role: EffectiveRole;
  /** For applicants: where their application stands (it decides their first page). */
  application_status: "pending" | "approved" | "rejected" | null;
  /**
   * A temporary password set by staff: the first page is "Choose a new password"
   * (docs/product.md#passwords).
   */
  must_change_password: boolean;
}

export type VerifyCodeResult =
  | { status: "signed_in"; set_cookies: string[]; user: SignedInUser }
  | { status: "invalid"; remaining: number }
  | { status: "ended"; set_cookies: string[] }
  | { status: "expired"; set_cookies: string[] }
  | { status: "locked"; retry_after_s: number; set_cookies: string[] }
  | { status: "rate_limited"; retry_after_s: number }
  | { status: "failed" };

type Attempt =
  | { outcome: "ok"; set_cookies: string[] }
  | { outcome: "wrong" }
  | { outcome: "expired" }
  | { outcome: "failed"; error: unknown };

function classify(error: unknown): Attempt {
  switch (errorCode(error)) {
    case "INVALID_CODE":
    case "OTP_HAS_EXPIRED":
    case "TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE":
    case "ACCOUNT_TEMPORARILY_LOCKED":
      return { outcome: "wrong" };
    case "INVALID_TWO_FACTOR_COOKIE":
      return { outcome: "expired" };
    default:
      return { outcome: "failed", error };
  }
}

/** Step 2, with its security event in the audit log: every sign-in, and every refused code. */
export async function verifySignInCode(
  db: Db,
  meta: RequestMeta,
  input: { code: string },
  now: Date = new Date(),
): Promise<VerifyCodeResult> {
  const seen: { step?: SignInStep } = {};
  const result = await checkCode(db, meta, input, now, seen);
  const user_id = result.status === "signed_in" ? result.user.id : null;
  await recordSecurityEvent(db, {
    action: result.status === "signed_in" ? "auth.sign_in" : `auth.code.${result.status}`,
    user_id,
    // A refused code names the account it was tried for, as a wrong password does.
    email: result.status === "signed_in" ? result.user.email : (seen.step?.email ?? null),
    ip: meta.ip,
  });
  return result;
}

async function checkCode(
  db: Db,
  meta: RequestMeta,
  input: { code: string },
  now: Date,
  seen: { step?: SignInStep },
): Promise<VerifyCodeResult> {
  const limit = await hitRateLimit(
    { key: `sign-in-code:ip:${meta.ip}`, ...RATE_LIMITS.sign_in_code },
    { database: db, now },
  );
  if (!limit.allowed) return { status: "rate_limited", retry_after_s: limit.retry_after_s };

  const step = await getSignInStep(db, meta);
  if (!step) return { status: "expired", ...(await endSignInStep(db, meta, now)) };
  seen.step = step;
  if (step.failures >= WRONG_CODES_MAX) return { status: "ended", ...(await endSignInStep(db, meta, now)) };
  // A challenge opened before the account was locked cannot be finished during the lock.
  const lock = await lockoutState(db, step.email, now);
  if (lock.locked)
    return { status: "locked", retry_after_s: lock.retry_after_s, ...(await endSignInStep(db, meta, now)) };
  // Counted before it is checked, so simultaneous guesses cannot slip past the limit.
  const counted = await recordCodeAttempt(db, step.email, now);
  if (!counted.allowed) return lockForCodes(db, meta, step, now);

  const auth = authFor(db);
  const headers = authHeaders(meta);
  let attempt: Attempt;
  if (!/^\d{6}$/.test(input.code)) {
    attempt = { outcome: "wrong" };
  } else {
    attempt = await auth.api
      .verifyStaffSignInCode({ body: { code: input.code }, headers, returnHeaders: true })
      .then((r): Attempt => ({ outcome: "ok", set_cookies: r.headers.getSetCookie() }))
      .catch(classify);
    if (attempt.outcome === "wrong") {
      if (step.method === "totp") {
        attempt = (await totpCodeRecentlyUsed(db, step.user_id, input.code, now))
          ? { outcome: "wrong" }
          : await auth.api
              .verifyTOTP({ body: { code: input.code }, headers, returnHeaders: true })
              .then((r): Attempt => ({ outcome: "ok", set_cookies: r.headers.getSetCookie() }))
              .catch(classify);
      } else {
        attempt = await auth.api
          .verifyTwoFactorOTP({ body: { code: input.code }, headers, returnHeaders: true })
          .then((r): Attempt => ({ outcome: "ok", set_cookies: r.headers.getSetCookie() }))
          .catch(classify);
      }
    }
  }

  switch (attempt.outcome) {
    case "ok": {
      await db.update(signInChallenges).set({ ended_at: now }).where(eq(signInChallenges.id, step.key));
      await clearCodeAttempts(db, step.email, now);
      if (step.method === "totp") await recordTotpUse(db, step.user_id, input.code, now);
      const user = await signedInUser(db, step.user_id);
      const set_cookies = await finishSignIn(db, user, meta, attempt.set_cookies, now);
      return { status: "signed_in", set_cookies, user };
    }
    case "wrong": {
      if (counted.attempts >= CODE_ATTEMPTS_MAX) return lockForCodes(db, meta, step, now);
      const [row] = await db
        .update(signInChallenges)
        .set({ failures: sql`${signInChallenges.failures} + 1` })
        .where(eq(signInChallenges.id, step.key))
        .returning({ failures: signInChallenges.failures });
      const failures = row?.failures ?? WRONG_CODES_MAX;
      if (failures >= WRONG_CODES_MAX) return { status: "ended", ...(await endSignInStep(db, meta, now)) };
      return { status: "invalid", remaining: WRONG_CODES_MAX - failures };
    }
    case "expired":
      return { status: "expired", ...(await endSignInStep(db, meta, now)) };
    case "failed":
      logger.error({ err: attempt.error }, "sign-in step 2 failed");
      return { status: "failed" };
  }
}

/** The account has used up its codes: sign-in is locked (the member emailed once) and this challenge ends. */
async function lockForCodes(db: Db, meta: RequestMeta, step: SignInStep, now: Date): Promise<VerifyCodeResult> {
  const { locked_now } = await lockForWrongCodes(db, step.email, now);
  if (locked_now)
    await sendEmail(db, {
      ...codesLockedEmail(CODE_ATTEMPTS_MAX, LOCKOUT_MS / 60_000),
      to: step.email,
      user_id: step.user_id,
    });
  const lock = await lockoutState(db, step.email, now);
  return {
    status: "locked",
    retry_after_s: lock.locked ? lock.retry_after_s : LOCKOUT_MS / 1000,
    ...(await endSignInStep(db, meta, now)),
  };
}

export async function signedInUser(db: Db, user_id: string): Promise<SignedInUser> {
  const [row] = await db
    .select({ id: users.id, email: users.email, role: users.role })
    .from(users)
    .where(eq(users.id, user_id));
  if (!row) throw new Error("signed-in user not found");
  const role = effectiveRole(row.role);
  return {
    id: row.id,
    email: row.email,
    role,
    application_status: role === "pending" ? await applicationStatus(db, row.id) : null,
    must_change_password: role !== "pending" && (await mustChangePassword(db, row.id)),
  };
}

async function totpCodeRecentlyUsed(db: Db, user_id: string, code: string, now: Date): Promise<boolean> {
  const [row] = await db
    .select({ used_at: usedTotpCodes.used_at })
    .from(usedTotpCodes)
    .where(
      and(
        eq(usedTotpCodes.user_id, user_id),
        eq(usedTotpCodes.code_hash, hashCode("totp-used", user_id, code)),
        gt(usedTotpCodes.used_at, new Date(now.getTime() - TOTP_REUSE_WINDOW_MS)),
      ),
    );
  return Boolean(row);
}

async function recordTotpUse(db: Db, user_id: string, code: string, now: Date): Promise<void> {
  await db
    .insert(usedTotpCodes)
    .values({ user_id, code_hash: hashCode("totp-used", user_id, code), used_at: now })
    .onConflictDoUpdate({ target: [usedTotpCodes.user_id, usedTotpCodes.code_hash], set: { used_at: now } });
}

/**
 * Whether the password path is closed to this person: the profile requires staff to use passkeys
 * and this staff member has one (docs/product.md#passkeys). Staff without one still sign in with
 * the password and a code, and are then led to add one (session.server.ts).
 */
export async function staffMustUsePasskey(db: Db, user_id: string): Promise<boolean> {
  if (!institution().staff_passkeys_required) return false;
  const [row] = await db.select({ role: users.role }).from(users).where(eq(users.id, user_id));
  const role = effectiveRole(row?.role ?? null);
  if (!worksInBackOffice(role)) return false;
  return (await countPasskeys(db, user_id)) > 0;
}

/**
 * What every finished sign-in does, whichever way it was made (code or passkey): notes the device
 * (its cookie joins the response's cookies) and, from a device not seen before, sends the login
 * alert when the person's loginAlerts is on (docs/product.md#sign-in-protection).
 */
export async function finishSignIn(
  db: Db,
  user: SignedInUser,
  meta: RequestMeta,
  set_cookies: string[],
  now: Date,
): Promise<string[]> {
  try {
    const device = await noteSignInDevice(db, user.id, meta.cookie, now);
    if (!device.known) await sendLoginAlert(db, user, meta, set_cookies, now);
    return [...set_cookies, device.set_cookie];
  } catch (error) {
    // A device that cannot be noted, or an alert that cannot be written, must not undo a correct sign-in.
    logger.error({ err: error, user_id: user.id }, "noting the sign-in device failed");
    return set_cookies;
  }
}

async function sendLoginAlert(db: Db, user: SignedInUser, meta: RequestMeta, set_cookies: string[], now: Date) {
  const settings = await getMemberSettings(db, user.id);
  if (!settings.login_alerts) return;
  const session_id = await sessionIdFromSetCookies(db, set_cookies);
  const query = session_id ? `?session=${encodeURIComponent(session_id)}` : "";
  const device = describeUserAgent(meta.user_agent).label;
  await sendEmail(db, {
    ...loginAlertEmail({
      at: now,
      ip: meta.ip,
      device,
      end_session_url: `${publicBaseUrl()}/settings/account${query}#sessions`,
    }),
    to: user.email,
    user_id: user.id,
  });
  // A member's bell tells it too, as every alert they choose (docs/product.md#alerts); staff have no bell.
  if (user.role === "user")
    await notify(db, {
      member_id: user.id,
      kind: "sign_in_alert",
      title: "New sign-in to your account",
      body: `Signed in from ${device}, a device we had not seen before. If this was not you, end that session under Account Settings → Sessions and devices, then reset your password.`,
    });
}

/** The id of the session whose cookie a sign-in just set (to link to it), or null. */
async function sessionIdFromSetCookies(db: Db, set_cookies: string[]): Promise<string | null> {
  const context = await authFor(db).$context;
  const cookie = set_cookies.map((line) => line.split(";")[0] ?? "").join("; ");
  const token = verifiedCookieValue(cookie, context.authCookies.sessionToken.name, context.secret);
  if (!token) return null;
  const [row] = await db.select({ id: sessions.id }).from(sessions).where(eq(sessions.token, token));
  return row?.id ?? null;
}
