import { eq } from "drizzle-orm";
import type { PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/server";
import { codedRefusal, type CodedRefusal } from "~/domain/refusals";
import { PASSKEY_SIGN_IN_FAILED, SIGN_IN_FAILED_LATER } from "~/domain/sign-in-messages";
import type { Db } from "~/server/db/client.server";
import { users } from "~/server/db/schema";
import { hitRateLimit } from "~/server/rate-limit/rate-limit.server";
import { recordSecurityEvent } from "~/server/audit/audit.server";
import { sendEmail } from "~/server/mail/outbox.server";
import { codesLockedEmail } from "~/server/mail/templates.server";
import { logger } from "~/server/logger.server";
import { authFor } from "./auth.server";
import {
  CODE_ATTEMPTS_MAX,
  clearCodeAttempts,
  lockForWrongCodes,
  LOCKOUT_MS,
  lockoutState,
  recordCodeAttempt,
} from "./lockout.server";
import { assertionOptions, checkAssertion, parseAssertion, passkeyForResponse } from "./passkeys.server";
import { RATE_LIMITS } from "./rate-limits.server";
import { authHeaders, type RequestMeta } from "./request-meta.server";
import {
  createSignInSession,
  finishSignIn,
  signInLocked,
  signInRateLimited,
  signedInUser,
  wrongCredentials,
  type SignedIn,
} from "./sign-in.server";

/**
 * Signing in with a passkey (docs/product.md#passkeys): one step, because a passkey with user
 * verification is both factors (the device held, and the fingerprint, face or PIN that unlocks
 * it). It makes the same session as the two-step path (Better Auth's adapter, a new random id, the
 * same cookie), notes the device and sends the same login alert, and keeps the same protections:
 *
 * - per network address: asking for a challenge counts as a password attempt, sending an
 *   assertion as a code attempt (RATE_LIMITS.sign_in and sign_in_code);
 * - a locked account (wrong passwords or codes) cannot sign in with a passkey either;
 * - an assertion for a known passkey is counted with the account's codes before it is checked
 *   (10 refused in 15 minutes lock sign-in, as codes do) and clears the count when right;
 * - every sign-in and every refused assertion is a security event in the audit log.
 */
export type PasskeyOptionsResult =
  { ok: true; options: PublicKeyCredentialRequestOptionsJSON } | CodedRefusal<"rate_limited">;

/** The challenge for a passkey sign-in (nobody named: the browser offers the passkeys it holds). */
export async function passkeySignInOptions(
  db: Db,
  meta: RequestMeta,
  now: Date = new Date(),
): Promise<PasskeyOptionsResult> {
  const limit = await hitRateLimit({ key: `sign-in:ip:${meta.ip}`, ...RATE_LIMITS.sign_in }, { database: db, now });
  if (!limit.allowed) return signInRateLimited(limit.retry_after_s);
  return { ok: true, options: await assertionOptions(db, "sign_in", {}, now) };
}

export type PasskeySignInResult = SignedIn | CodedRefusal<"invalid" | "locked" | "rate_limited" | "failed">;

export async function signInWithPasskey(
  db: Db,
  meta: RequestMeta,
  input: { response_json: string },
  now: Date = new Date(),
): Promise<PasskeySignInResult> {
  const seen: { user_id?: string; email?: string; reason?: string } = {};
  const result = await checkPasskeySignIn(db, meta, input, now, seen);
  await recordSecurityEvent(db, {
    action: result.ok ? "auth.sign_in" : `auth.passkey.sign_in_${result.code}`,
    user_id: result.ok ? result.user.id : (seen.user_id ?? null),
    email: result.ok ? result.user.email : (seen.email ?? null),
    detail: result.ok ? { method: "passkey" } : { reason: seen.reason ?? result.code },
    ip: meta.ip,
  });
  return result;
}

async function checkPasskeySignIn(
  db: Db,
  meta: RequestMeta,
  input: { response_json: string },
  now: Date,
  seen: { user_id?: string; email?: string; reason?: string },
): Promise<PasskeySignInResult> {
  const limit = await hitRateLimit(
    { key: `sign-in-code:ip:${meta.ip}`, ...RATE_LIMITS.sign_in_code },
    { database: db, now },
  );
  if (!limit.allowed) return signInRateLimited(limit.retry_after_s);

  const response = parseAssertion(input.response_json);
  const known = response ? await passkeyForResponse(db, response) : null;
  let attempts = 0;
  if (known) {
    seen.user_id = known.user_id;
    seen.email = known.email;
    const lock = await lockoutState(db, known.email, now);
    if (lock.locked) return signInLocked(lock.retry_after_s);
    // Counted before it is checked, so simultaneous attempts cannot slip past the limit.
    const counted = await recordCodeAttempt(db, known.email, now);
    if (!counted.allowed) return lockForRefusals(db, known, now);
    attempts = counted.attempts;
  }
  const check = await checkAssertion(db, input.response_json, { purpose: "sign_in" }, now);
  if (!check.ok) {
    seen.reason = check.reason;
    if (known && attempts >= CODE_ATTEMPTS_MAX) return lockForRefusals(db, known, now);
    return wrongCredentials(PASSKEY_SIGN_IN_FAILED);
  }
  const [account] = await db
    .select({ banned: users.banned, email: users.email })
    .from(users)
    .where(eq(users.id, check.owner.user_id));
  if (!account || account.banned) {
    seen.reason = "not_allowed";
    return wrongCredentials(PASSKEY_SIGN_IN_FAILED);
  }
  try {
    // A session already open in this browser ends here: signing in always starts a new one.
    if (/session_token=/.test(meta.cookie)) {
      await authFor(db)
        .api.signOut({ headers: authHeaders(meta) })
        .catch(() => undefined);
    }
    // Refused above when a ban is recorded, so Better Auth's ban check need not read the person again.
    const owner = { id: check.owner.user_id, email: account.email };
    const session = await createSignInSession(db, meta, owner, { ban_recorded: false });
    await clearCodeAttempts(db, account.email, now);
    const user = await signedInUser(db, check.owner.user_id);
    const set_cookies = await finishSignIn(db, user, meta, session, now);
    return { ok: true, set_cookies, user };
  } catch (error) {
    logger.error({ err: error }, "passkey sign-in failed");
    return codedRefusal("unavailable", SIGN_IN_FAILED_LATER, "failed");
  }
}

/** The account has used up its attempts: sign-in is locked (the member emailed once), as for codes. */
async function lockForRefusals(
  db: Db,
  known: { user_id: string; email: string },
  now: Date,
): Promise<PasskeySignInResult> {
  const { locked_now } = await lockForWrongCodes(db, known.email, now);
  if (locked_now)
    await sendEmail(db, {
      ...codesLockedEmail(CODE_ATTEMPTS_MAX, LOCKOUT_MS / 60_000),
      to: known.email,
      user_id: known.user_id,
    });
  const lock = await lockoutState(db, known.email, now);
  return signInLocked(lock.locked ? lock.retry_after_s : LOCKOUT_MS / 1000);
}
