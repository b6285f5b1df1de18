import crypto from "node:crypto";
import { worksInBackOffice } from "~/domain/staff-roles";
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import { symmetricDecrypt } from "better-auth/crypto";
import { createOTP } from "@better-auth/utils/otp";
import { base32 } from "@better-auth/utils/base32";
import { maskEmail } from "~/domain/sign-in";
import {
  OTP_FAILED,
  OTP_INVALID,
  OTP_TOO_MANY,
  SIGN_IN_EXPIRED,
  SIGN_IN_FAILED,
  lockedMessage,
  rateLimitedMessage,
} from "~/domain/sign-in-messages";
import { codedRefusal, type CodedRefusal } from "~/domain/refusals";
import { PASSWORD_MAX_CHARS } from "~/domain/password";
import type { Db } from "~/server/db/client.server";
import {
  authAccounts,
  memberProfiles,
  memberSettings,
  passwordChangeRequirements,
  signInChallenges,
  signInLockouts,
  twoFactors,
  usedTotpCodes,
  users,
} from "~/server/db/schema";
import { sendEmail } from "~/server/mail/outbox.server";
import { accountLockedEmail, codesLockedEmail, loginAlertEmail, signInCodeEmail } from "~/server/mail/templates.server";
import { hitRateLimit } from "~/server/rate-limit/rate-limit.server";
import { keyedHash } from "~/server/security/crypto.server";
import { logger } from "~/server/logger.server";
import { recordSecurityEvent } from "~/server/audit/audit.server";
import { applicationStatus, getMemberSettings } from "~/server/members/members.server";
import { institution } from "~/config/institution.server";
import { usesSecureCookies } from "../http/cookies.server";
import {
  authFor,
  CHALLENGE_VALID_SECONDS,
  EMAIL_CODE_VALID_MINUTES,
  hashPassword,
  publicBaseUrl,
  verifyPassword,
} from "./auth.server";
import { describeUserAgent, noteSignInDevice } from "./devices.server";
import { countPasskeys } from "./passkeys.server";
import { signedCookieValue, verifiedCookieValue } from "./signed-cookie.server";
import { codeMatches, generateCode, hashCode } from "./codes.server";
import { consumeStaffCode } from "./staff-codes.server";
import { mustChangePassword } from "./password-change.server";
import {
  CODE_ATTEMPTS_MAX,
  clearWrongPasswords,
  lockForWrongCodes,
  LOCKOUT_MS,
  lockoutState,
  normaliseEmail,
  recordCodeAttempt,
  recordWrongPassword,
} from "./lockout.server";
import { RATE_LIMITS } from "./rate-limits.server";
import { authHeaders, type RequestMeta } from "./request-meta.server";
import { effectiveRole, type EffectiveRole } from "./roles.server";

/**
 * Two-step sign-in (docs/product.md#two-steps).
 *
 * Step 1 checks the password (argon2id, with Better Auth's own hash functions) and opens a
 * challenge: one row of `sign_in_challenges` (whose it is, the factor it asks for, the emailed
 * code's keyed hash, its wrong codes) named by the signed, HttpOnly `two_factor` cookie, 10
 * minutes. A right password creates no session.
 *
 * Step 2 takes a 6-digit code: the email code, else a staff-issued code for this member, else the
 * app's code. Only then is a session created (Better Auth's row, token and cookie), with a new
 * random id. Five wrong codes end the challenge (back to step 1), whatever kind of code was tried;
 * and because a new challenge only takes the password, codes are also counted per account across
 * challenges: 10 without a sign-in lock the account as wrong passwords do, and the member is
 * emailed (lockout.server.ts).
 *
 * Every read a step needs is one statement (the person, their lock and settings together), so a
 * whole two-step sign-in from a new device is 12 statements (decision 0025;
 * tests/integration/auth/sign-in-statements.test.ts keeps it there).
 */
export const WRONG_CODES_MAX = 5;
/** An authenticator code stays refused this long after use (its window is ±30 s). */
const TOTP_REUSE_WINDOW_MS = 3 * 60 * 1000;
/** Better Auth's `two_factor` cookie name, kept for the challenge cookie (prefix and all). */
const CHALLENGE_COOKIE = "two_factor";

type Coded<Code extends string> = CodedRefusal<Code>;

/**
 * Wrong credentials (a password, a code, a passkey): the page says `message` and nothing more,
 * whichever it was (no account, a ban, a wrong password all read the same).
 */
export function wrongCredentials(message: string): Coded<"invalid"> {
  return codedRefusal("unauthenticated", message, "invalid");
}

/** The account is locked (wrong passwords or codes) for `retry_after_s` more seconds. */
export function signInLocked(retry_after_s: number): Coded<"locked"> {
  return codedRefusal("too_many", lockedMessage(retry_after_s), "locked", { retry_after_s });
}

/** Too many attempts from this network address: again in `retry_after_s` seconds. */
export function signInRateLimited(retry_after_s: number): Coded<"rate_limited"> {
  return codedRefusal("too_many", rateLimitedMessage(retry_after_s), "rate_limited", { retry_after_s });
}

export type StartSignInResult =
  | { ok: true; status: "challenge"; set_cookies: string[]; method: "email" | "totp" }
  /**
   * The right password of staff with a passkey, while the profile requires staff to use one: the
   * password path is closed to them (the page says so, and audits it, without opening a challenge).
   */
  | { ok: true; status: "passkey_required"; set_cookies: string[] }
  | Coded<"invalid" | "locked" | "rate_limited">;

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
  if (!result.ok || result.status === "passkey_required") {
    await recordSecurityEvent(db, {
      action: `auth.sign_in.${result.ok ? result.status : result.code}`,
      email: input.email.trim().toLowerCase(),
      ip: meta.ip,
    });
  }
  return result;
}

/**
 * What step 1 needs to know about an address, in one statement: its lock and wrong passwords
 * (kept per address, account or not), and the account behind it with its password hash and
 * whether an authenticator app is enrolled.
 */
async function readSignInAttempt(db: Db, email: string) {
  const [row] = await db
    .select({
      locked_until: signInLockouts.locked_until,
      wrong_passwords: sql<number>`coalesce(cardinality(${signInLockouts.failure_times}), 0)`.mapWith(Number),
      user_id: users.id,
      email: users.email,
      role: users.role,
      banned: users.banned,
      ban_expires: users.banExpires,
      password_hash: authAccounts.password,
      totp_verified: twoFactors.verified,
      has_totp: sql<boolean>`${twoFactors.id} is not null`.mapWith(Boolean),
    })
    .from(sql`(select ${email}::text as email) as attempt`)
    .leftJoin(signInLockouts, sql`${signInLockouts.email} = attempt.email`)
    .leftJoin(users, sql`${users.email} = attempt.email`)
    .leftJoin(
      authAccounts,
      and(
        eq(authAccounts.userId, users.id),
        eq(authAccounts.providerId, "credential"),
        eq(authAccounts.accountId, users.id),
      ),
    )
    .leftJoin(twoFactors, eq(twoFactors.userId, users.id));
  return row!;
}

async function checkPassword(
  db: Db,
  meta: RequestMeta,
  input: { email: string; password: string },
  now: Date,
): Promise<StartSignInResult> {
  const limit = await hitRateLimit({ key: `sign-in:ip:${meta.ip}`, ...RATE_LIMITS.sign_in }, { database: db, now });
  if (!limit.allowed) return signInRateLimited(limit.retry_after_s);
  // Refused before anything is looked up, as Better Auth's own sign-in refuses them.
  if (!z.email().safeParse(input.email).success || input.password.length > PASSWORD_MAX_CHARS)
    return wrongCredentials(SIGN_IN_FAILED);

  const attempt = await readSignInAttempt(db, normaliseEmail(input.email));
  const locked_ms = (attempt.locked_until?.getTime() ?? 0) - now.getTime();
  if (locked_ms > 0) return signInLocked(Math.ceil(locked_ms / 1000));

  // A session already open in this browser ends here: signing in always starts a new one.
  if (/session_token=/.test(meta.cookie)) {
    await authFor(db)
      .api.signOut({ headers: authHeaders(meta) })
      .catch(() => undefined);
  }

  // No account (or none with a password): the same hashing work as a wrong password, so the time
  // taken tells nobody whether the address has an account.
  const right =
    attempt.user_id && attempt.password_hash
      ? await verifyPassword({ hash: attempt.password_hash, password: input.password })
      : await hashPassword(input.password).then(() => false);
  if (!right || !attempt.user_id || !attempt.email) return wrongPassword(db, input.email, now);
  // A live ban refuses a right password without counting it, as Better Auth's admin plugin did.
  if (attempt.banned && !(attempt.ban_expires && attempt.ban_expires.getTime() < Date.now()))
    return wrongCredentials(SIGN_IN_FAILED);

  if (attempt.wrong_passwords > 0) await clearWrongPasswords(db, input.email, now);
  if (await staffMustUsePasskey(db, attempt.user_id, attempt.role)) {
    // Asked only after the right password, so the refusal tells nobody else who is staff.
    return { ok: true, status: "passkey_required", set_cookies: [await challengeCookie(db, null)] };
  }
  const method = attempt.has_totp && attempt.totp_verified !== false ? "totp" : "email";
  const challenge_id = crypto.randomBytes(32).toString("base64url");
  const code = method === "email" ? generateCode() : null;
  await db.insert(signInChallenges).values({
    id: challengeKey(challenge_id),
    user_id: attempt.user_id,
    method,
    code_hash: code ? hashCode("email-sign-in", attempt.user_id, code) : null,
    created_at: now,
  });
  if (code)
    await sendEmail(db, {
      ...signInCodeEmail(code, EMAIL_CODE_VALID_MINUTES),
      to: attempt.email,
      user_id: attempt.user_id,
    });
  return { ok: true, status: "challenge", set_cookies: [await challengeCookie(db, challenge_id)], method };
}

async function wrongPassword(db: Db, email: string, now: Date): Promise<StartSignInResult> {
  const { locked_now } = await recordWrongPassword(db, email, now);
  if (!locked_now) return wrongCredentials(SIGN_IN_FAILED);
  const [user] = await db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(eq(users.email, email.trim().toLowerCase()));
  if (user) await sendEmail(db, { ...accountLockedEmail(LOCKOUT_MS / 60_000), to: user.email, user_id: user.id });
  return signInLocked(LOCKOUT_MS / 1000);
}

/** Our row for a challenge is keyed by a hash of the cookie's random id (a secret of the browser's). */
function challengeKey(challenge_id: string): string {
  return keyedHash("sign-in-challenge", challenge_id);
}

/** The challenge cookie's name and signing secret, from Better Auth's context (its prefix, `__Secure-` on https). */
async function challengeCookieKeys(db: Db): Promise<{ name: string; secret: string }> {
  const context = await authFor(db).$context;
  return { name: context.createAuthCookie(CHALLENGE_COOKIE).name, secret: context.secret };
}

/** The Set-Cookie line naming a challenge for 10 minutes, or (null) ending it. */
async function challengeCookie(db: Db, challenge_id: string | null): Promise<string> {
  const { name, secret } = await challengeCookieKeys(db);
  const value = challenge_id ? signedCookieValue(challenge_id, secret) : "";
  const max_age = challenge_id ? CHALLENGE_VALID_SECONDS : 0;
  const secure = usesSecureCookies() ? "; Secure" : "";
  return `${name}=${value}; Max-Age=${max_age}; Path=/; HttpOnly; SameSite=Lax${secure}`;
}

/** The key of the challenge this browser's cookie names, or null. */
async function challengeKeyFromCookie(db: Db, meta: RequestMeta): Promise<string | null> {
  if (!meta.cookie.includes(`${CHALLENGE_COOKIE}=`)) return null;
  const { name, secret } = await challengeCookieKeys(db);
  const challenge_id = verifiedCookieValue(meta.cookie, name, secret);
  return challenge_id ? challengeKey(challenge_id) : null;
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

/** An open challenge with what step 2 needs to finish it, all read in one statement. */
interface OpenChallenge extends SignInStep {
  code_hash: string | null;
  role: string | null;
  ban_recorded: boolean;
  locked_until: Date | null;
  login_alerts: boolean;
  application_status: "pending" | "approved" | "rejected" | null;
  must_change_password: boolean;
}

/** The open challenge this browser's cookie names (not ended, not past its 10 minutes), or null. */
async function readChallenge(db: Db, meta: RequestMeta, now: Date): Promise<OpenChallenge | null> {
  const key = await challengeKeyFromCookie(db, meta);
  if (!key) return null;
  const [row] = await db
    .select({
      key: signInChallenges.id,
      user_id: signInChallenges.user_id,
      method: signInChallenges.method,
      failures: signInChallenges.failures,
      code_hash: signInChallenges.code_hash,
      created_at: signInChallenges.created_at,
      email: users.email,
      role: users.role,
      banned: users.banned,
      locked_until: signInLockouts.locked_until,
      login_alerts: memberSettings.login_alerts,
      application_status: memberProfiles.status,
      has_password_requirement: sql<boolean>`${passwordChangeRequirements.user_id} is not null`.mapWith(Boolean),
      password_requirement_cleared_at: passwordChangeRequirements.cleared_at,
    })
    .from(signInChallenges)
    .innerJoin(users, eq(users.id, signInChallenges.user_id))
    .leftJoin(signInLockouts, sql`${signInLockouts.email} = lower(${users.email})`)
    .leftJoin(memberSettings, eq(memberSettings.user_id, users.id))
    .leftJoin(memberProfiles, eq(memberProfiles.user_id, users.id))
    .leftJoin(passwordChangeRequirements, eq(passwordChangeRequirements.user_id, users.id))
    .where(and(eq(signInChallenges.id, key), isNull(signInChallenges.ended_at)));
  if (!row) return null;
  const expires_at = new Date(row.created_at.getTime() + CHALLENGE_VALID_SECONDS * 1000);
  if (expires_at.getTime() <= now.getTime()) return null;
  return {
    key: row.key,
    user_id: row.user_id,
    method: row.method,
    failures: row.failures,
    email: row.email,
    email_masked: maskEmail(row.email),
    expires_at,
    code_hash: row.code_hash,
    role: row.role,
    ban_recorded: Boolean(row.banned),
    locked_until: row.locked_until,
    login_alerts: row.login_alerts ?? true,
    application_status: row.application_status ?? null,
    must_change_password: row.has_password_requirement && !row.password_requirement_cleared_at,
  };
}

/** The open second step of this browser's sign-in, or null. */
export async function getSignInStep(db: Db, meta: RequestMeta, now: Date = new Date()): Promise<SignInStep | null> {
  const challenge = await readChallenge(db, meta, now);
  if (!challenge) return null;
  const { key, user_id, method, failures, email, email_masked, expires_at } = challenge;
  return { key, user_id, method, failures, email, email_masked, expires_at };
}

/** Ends this browser's open sign-in challenge ("Back", or too many wrong codes). */
export async function endSignInStep(
  db: Db,
  meta: RequestMeta,
  now: Date = new Date(),
): Promise<{ set_cookies: string[] }> {
  const key = await challengeKeyFromCookie(db, meta);
  if (key)
    await db
      .update(signInChallenges)
      .set({ ended_at: now })
      .where(and(eq(signInChallenges.id, key), isNull(signInChallenges.ended_at)));
  return { set_cookies: [await challengeCookie(db, null)] };
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

/** A sign-in made: the session's cookies, and who signed in (their first page depends on it). */
export type SignedIn = { ok: true; set_cookies: string[]; user: SignedInUser };

export type VerifyCodeResult =
  | SignedIn
  /** A wrong code; `remaining` more may be tried in this challenge. */
  | (Coded<"invalid"> & { remaining: number })
  /**
   * The challenge is over (too many wrong codes, expired or already used, the account locked):
   * `set_cookies` ends it in the browser, which starts again at step 1.
   */
  | (Coded<"ended" | "expired" | "locked"> & { set_cookies: string[] })
  | Coded<"rate_limited" | "failed">;

/** The challenge has ended for `code`'s reason: its cookie ends too. */
async function challengeOver<Code extends "ended" | "expired" | "locked">(
  db: Db,
  meta: RequestMeta,
  now: Date,
  code: Code,
  retry_after_s?: number,
): Promise<Coded<Code> & { set_cookies: string[] }> {
  const wait = retry_after_s ?? LOCKOUT_MS / 1000;
  const said =
    code === "locked"
      ? codedRefusal("too_many", lockedMessage(wait), code, { retry_after_s: wait })
      : code === "ended"
        ? codedRefusal("too_many", OTP_TOO_MANY, code)
        : codedRefusal("unauthenticated", SIGN_IN_EXPIRED, code);
  return { ...said, ...(await endSignInStep(db, meta, now)) };
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
  await recordSecurityEvent(db, {
    action: result.ok ? "auth.sign_in" : `auth.code.${result.code}`,
    user_id: result.ok ? result.user.id : null,
    // A refused code names the account it was tried for, as a wrong password does.
    email: result.ok ? result.user.email : (seen.step?.email ?? null),
    ip: meta.ip,
  });
  return result;
}

/**
 * Which of the member's codes this is, if any: the emailed code, else a staff-issued code (used
 * up by this check when it matches), else the authenticator app's code not used in the last
 * minutes. An object so a test can count the codes that reach a check
 * (tests/integration/auth/sign-in-code-lockout.test.ts).
 */
export const secondFactor = {
  async check(db: Db, challenge: OpenChallenge, code: string, now: Date): Promise<"email" | "staff" | "totp" | null> {
    if (challenge.code_hash && codeMatches(challenge.code_hash, "email-sign-in", challenge.user_id, code))
      return "email";
    if (await consumeStaffCode(db, { user_id: challenge.user_id, code, now })) return "staff";
    if (
      challenge.method === "totp" &&
      !(await totpCodeRecentlyUsed(db, challenge.user_id, code, now)) &&
      (await authenticatorCodeIsRight(db, challenge.user_id, code))
    )
      return "totp";
    return null;
  },
};

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
  if (!limit.allowed) return signInRateLimited(limit.retry_after_s);

  const challenge = await readChallenge(db, meta, now);
  if (!challenge) return challengeOver(db, meta, now, "expired");
  seen.step = challenge;
  if (challenge.failures >= WRONG_CODES_MAX) return challengeOver(db, meta, now, "ended");
  // A challenge opened before the account was locked cannot be finished during the lock.
  const locked_ms = (challenge.locked_until?.getTime() ?? 0) - now.getTime();
  if (locked_ms > 0) return challengeOver(db, meta, now, "locked", Math.ceil(locked_ms / 1000));
  // Counted before it is checked, so simultaneous guesses cannot slip past the limit.
  const counted = await recordCodeAttempt(db, challenge.email, now);
  if (!counted.allowed) return lockForCodes(db, meta, challenge, now);

  const right = /^\d{6}$/.test(input.code) ? await secondFactor.check(db, challenge, input.code, now) : null;
  if (!right) {
    if (counted.attempts >= CODE_ATTEMPTS_MAX) return lockForCodes(db, meta, challenge, now);
    const [row] = await db
      .update(signInChallenges)
      .set({ failures: sql`${signInChallenges.failures} + 1` })
      .where(eq(signInChallenges.id, challenge.key))
      .returning({ failures: signInChallenges.failures });
    const failures = row?.failures ?? WRONG_CODES_MAX;
    if (failures >= WRONG_CODES_MAX) return challengeOver(db, meta, now, "ended");
    return { ...wrongCredentials(OTP_INVALID), remaining: WRONG_CODES_MAX - failures };
  }

  // The challenge works once: of two right codes sent together, one signs in.
  if (!(await endChallengeAndClearCodes(db, challenge, now))) return challengeOver(db, meta, now, "expired");
  if (right === "totp") await recordTotpUse(db, challenge.user_id, input.code, now);
  const user: SignedInUser = {
    id: challenge.user_id,
    email: challenge.email,
    role: effectiveRole(challenge.role),
    application_status: effectiveRole(challenge.role) === "pending" ? challenge.application_status : null,
    must_change_password: effectiveRole(challenge.role) !== "pending" && challenge.must_change_password,
  };
  let session: { session_id: string; set_cookies: string[] };
  try {
    session = await createSignInSession(db, meta, user, { ban_recorded: challenge.ban_recorded, dont_remember: true });
  } catch (error) {
    // Better Auth refused the session (a ban recorded since step 1) or could not write it.
    logger.error({ err: error }, "sign-in step 2 failed");
    return codedRefusal("unavailable", OTP_FAILED, "failed");
  }
  const set_cookies = await finishSignIn(
    db,
    user,
    meta,
    { ...session, set_cookies: [...session.set_cookies, await challengeCookie(db, null)] },
    now,
    challenge.login_alerts,
  );
  return { ok: true, set_cookies, user };
}

/**
 * A right code: the challenge ends (only if still open: it works once) and the account's count of
 * codes tried is cleared, in one statement. True when this call ended it.
 */
async function endChallengeAndClearCodes(db: Db, challenge: OpenChallenge, now: Date): Promise<boolean> {
  const result = await db.execute<{ ended: number }>(sql`
    with ended as (
      update ${signInChallenges} set ended_at = ${now.toISOString()}::timestamptz
       where id = ${challenge.key} and ended_at is null
      returning id
    ), cleared as (
      update ${signInLockouts} set code_attempt_times = '{}', updated_at = ${now.toISOString()}::timestamptz
       where email = ${normaliseEmail(challenge.email)} and exists (select 1 from ended)
    )
    select count(*)::int as ended from ended`);
  return Number(result.rows[0]?.ended ?? 0) === 1;
}

/**
 * The session at the end of a sign-in, from Better Auth (its row, random token and signed cookie):
 * our server-only endpoint `createSignInSession` (auth.server.ts).
 */
export async function createSignInSession(
  db: Db,
  meta: RequestMeta,
  user: { id: string; email: string },
  options: { ban_recorded: boolean; dont_remember?: boolean },
): Promise<{ session_id: string; set_cookies: string[] }> {
  const made = await authFor(db).api.createSignInSession({
    body: { user_id: user.id, email: user.email, ...options },
    headers: authHeaders(meta),
    returnHeaders: true,
  });
  return { session_id: made.response.session_id, set_cookies: made.headers.getSetCookie() };
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
  return challengeOver(db, meta, now, "locked", lock.locked ? lock.retry_after_s : LOCKOUT_MS / 1000);
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
 * Whether this is the authenticator app's code now (±30 s), checked as Better Auth's two-factor
 * plugin checks it: the secret it stored, decrypted with its key, and its TOTP (RFC 6238).
 */
async function authenticatorCodeIsRight(db: Db, user_id: string, code: string): Promise<boolean> {
  const [row] = await db
    .select({ secret: twoFactors.secret, verified: twoFactors.verified })
    .from(twoFactors)
    .where(eq(twoFactors.userId, user_id));
  if (!row?.secret || row.verified === false) return false;
  const context = await authFor(db).$context;
  const stored = await symmetricDecrypt({ key: context.secretConfig, data: row.secret });
  // A secret imported from another provider is stored as `base32:<secret>` (Better Auth's rule).
  const secret = stored.startsWith("base32:") ? base32.decode(stored.slice(7).toUpperCase()) : stored;
  return createOTP(secret, { digits: 6, period: 30 }).verify(code);
}

/**
 * Whether the password path is closed to this person: the profile requires staff to use passkeys
 * and this staff member has one (docs/product.md#passkeys). Staff without one still sign in with
 * the password and a code, and are then led to add one (session.server.ts). The role is read here
 * unless the caller has it.
 */
export async function staffMustUsePasskey(db: Db, user_id: string, role?: string | null): Promise<boolean> {
  if (!institution().staff_passkeys_required) return false;
  if (role === undefined) {
    const [row] = await db.select({ role: users.role }).from(users).where(eq(users.id, user_id));
    role = row?.role ?? null;
  }
  if (!worksInBackOffice(effectiveRole(role))) return false;
  return (await countPasskeys(db, user_id)) > 0;
}

/**
 * What every finished sign-in does, whichever way it was made (code or passkey): notes the device
 * (its cookie joins the response's cookies) and, from a device not seen before, sends the login
 * alert when the person's loginAlerts is on (docs/product.md#sign-in-protection). `login_alerts`
 * is read here unless the caller has it.
 */
export async function finishSignIn(
  db: Db,
  user: SignedInUser,
  meta: RequestMeta,
  session: { session_id: string; set_cookies: string[] },
  now: Date,
  login_alerts?: boolean,
): Promise<string[]> {
  try {
    const device = await noteSignInDevice(db, user.id, meta.cookie, now);
    if (!device.known) {
      const alerts = login_alerts ?? (await getMemberSettings(db, user.id)).login_alerts;
      if (alerts) await sendLoginAlert(db, user, meta, session.session_id, now);
    }
    return [...session.set_cookies, device.set_cookie];
  } catch (error) {
    // A device that cannot be noted, or an alert that cannot be written, must not undo a correct sign-in.
    logger.error({ err: error, user_id: user.id }, "noting the sign-in device failed");
    return session.set_cookies;
  }
}

async function sendLoginAlert(db: Db, user: SignedInUser, meta: RequestMeta, session_id: string, now: Date) {
  const device = describeUserAgent(meta.user_agent).label;
  await sendEmail(db, {
    ...loginAlertEmail({
      at: now,
      ip: meta.ip,
      device,
      end_session_url: `${publicBaseUrl()}/settings/account?session=${encodeURIComponent(session_id)}#sessions`,
    }),
    to: user.email,
    user_id: user.id,
    // A member's bell tells it too, as every alert they choose (docs/product.md#alerts), in the
    // email's own statement; staff have no bell.
    ...(user.role === "user"
      ? {
          notification: {
            member_id: user.id,
            kind: "sign_in_alert" as const,
            title: "New sign-in to your account",
            body: `Signed in from ${device}, a device we had not seen before. If this was not you, end that session under Account Settings → Sessions and devices, then reset your password.`,
          },
        }
      : {}),
  });
}
