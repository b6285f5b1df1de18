import crypto from "node:crypto";
import { and, asc, eq, gt, isNull, ne, sql } from "drizzle-orm";
import {
  generateAuthenticationOptions,
  verifyAuthenticationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import type { Actor } from "~/domain/actor";
export { checkPasskeyName } from "~/domain/passkeys";
import { institution } from "~/config/institution.server";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { authAccounts, passkeyChallenges, passkeys, users } from "~/server/db/schema";
import { keyedHash } from "~/server/security/crypto.server";
import { sendEmail } from "~/server/mail/outbox.server";
import { passkeyChangedEmail } from "~/server/mail/templates.server";
import { logger } from "~/server/logger.server";
import { isDemoSignIn } from "./demo-signins.server";
import { publicBaseUrl, verifyPassword } from "./auth.server";

/**
 * Passkeys (WebAuthn Level 3, docs/product.md#passkeys) with @simplewebauthn/server
 * (docs/decisions/0018-passkeys.md): the challenges, reading what the browser sent, the list, and
 * the two checks other modules build on: an assertion for signing in (sign-in-passkey.server.ts)
 * and one that confirms a money action (step-up.server.ts). Adding one is
 * passkey-registration.server.ts, removing one passkey-removal.server.ts.
 *
 * - The relying party is the site itself: its ID is PUBLIC_URL's host name and every response
 *   must come from PUBLIC_URL's origin, so a passkey used on a lookalike site is refused.
 * - User verification is required (a fingerprint, face or device PIN): a passkey is then both
 *   factors at once, something held and something known or been.
 * - Every challenge is issued by the server, stored as a keyed hash for 5 minutes, and accepted
 *   once (a conditional update) and only for its purpose, its person and, for a money action, the
 *   transfer it was issued for (`bound_hash`).
 * - The signature counter must move on each use when the authenticator keeps one (a replayed or
 *   cloned authenticator's assertion does not); synced passkeys report 0 and rely on the
 *   single-use challenge.
 */
export const PASSKEY_CHALLENGE_VALID_MS = 5 * 60 * 1000;
/** More than enough for a phone, a laptop and two security keys, and a bound on the list. */
export const PASSKEYS_MAX = 10;
/**
 * The signature algorithms accepted for a new passkey: EdDSA, ES256 and RS256 (COSE -8, -7, -257),
 * what authenticators use. Named here rather than the library's default, which also offers
 * ML-DSA-44 when Node's experimental WebCrypto has it (no authenticator makes such keys yet).
 */
export const ALGORITHMS = [-8, -7, -257];
/** How long the browser waits for the person at the authenticator. */
export const CEREMONY_TIMEOUT_MS = 120_000;

export type ChallengePurpose = "register" | "sign_in" | "step_up" | "remove";

/** The relying party: ID and origin from PUBLIC_URL (http://localhost:PORT without it, development only). */
export function relyingParty(): { rp_id: string; origin: string; name: string } {
  const url = new URL(publicBaseUrl());
  return { rp_id: url.hostname, origin: url.origin, name: institution().name };
}

function challengeHash(challenge: string): string {
  return keyedHash("passkey-challenge", challenge);
}

/** What a step-up challenge is bound to: this member and this transfer (the step-up code's own binding). */
export function stepUpBinding(member_id: string, transfer: string): string {
  return keyedHash("passkey-step-up", `${member_id}\u0000${transfer}`);
}

export async function issueChallenge(
  db: DbOrTx,
  purpose: ChallengePurpose,
  binding: { user_id?: string | null; bound_hash?: string | null },
  now: Date,
): Promise<Uint8Array<ArrayBuffer>> {
  // The library sends the bytes base64url-encoded, and the browser signs that text: it is what is stored.
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  await db.insert(passkeyChallenges).values({
    challenge_hash: challengeHash(Buffer.from(bytes).toString("base64url")),
    purpose,
    user_id: binding.user_id ?? null,
    bound_hash: binding.bound_hash ?? null,
    created_at: now,
    expires_at: new Date(now.getTime() + PASSKEY_CHALLENGE_VALID_MS),
  });
  return bytes;
}

/** The challenge the browser says it signed (from clientDataJSON), or null when unreadable. */
export function challengeOf(response: { response: { clientDataJSON: string } }): string | null {
  try {
    const client = JSON.parse(Buffer.from(response.response.clientDataJSON, "base64url").toString("utf8")) as {
      challenge?: unknown;
    };
    return typeof client.challenge === "string" && client.challenge.length > 0 ? client.challenge : null;
  } catch {
    return null;
  }
}

/**
 * Accepts the challenge the response answers, once: it must be live, unused, of this purpose, for
 * this person (when the purpose has one) and bound to the same thing. Used up whether or not the
 * signature then verifies, so no challenge is tried twice.
 */
export async function consumeChallenge(
  db: DbOrTx,
  challenge: string | null,
  purpose: ChallengePurpose,
  binding: { user_id?: string; bound_hash?: string },
  now: Date,
): Promise<string | null> {
  if (!challenge) return null;
  const used = await db
    .update(passkeyChallenges)
    .set({ used_at: now })
    .where(
      and(
        eq(passkeyChallenges.challenge_hash, challengeHash(challenge)),
        eq(passkeyChallenges.purpose, purpose),
        isNull(passkeyChallenges.used_at),
        gt(passkeyChallenges.expires_at, now),
        binding.user_id === undefined ? sql`true` : eq(passkeyChallenges.user_id, binding.user_id),
        binding.bound_hash === undefined ? sql`true` : eq(passkeyChallenges.bound_hash, binding.bound_hash),
      ),
    )
    .returning({ id: passkeyChallenges.id });
  return used.length === 1 ? challenge : null;
}

// --- Reading what the browser sent ---------------------------------------------------------------

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An authentication response as @simplewebauthn/browser sends it, or null (malformed, too large). */
export function parseAssertion(json: string): AuthenticationResponseJSON | null {
  if (json.length > 16_384) return null;
  try {
    const value: unknown = JSON.parse(json);
    if (!isObject(value) || value.type !== "public-key" || typeof value.id !== "string" || !isObject(value.response))
      return null;
    const r = value.response;
    if (
      typeof r.clientDataJSON !== "string" ||
      typeof r.authenticatorData !== "string" ||
      typeof r.signature !== "string"
    )
      return null;
    return value as unknown as AuthenticationResponseJSON;
  } catch {
    return null;
  }
}

export function parseAttestation(json: string): RegistrationResponseJSON | null {
  if (json.length > 65_536) return null;
  try {
    const value: unknown = JSON.parse(json);
    if (!isObject(value) || value.type !== "public-key" || typeof value.id !== "string" || !isObject(value.response))
      return null;
    const r = value.response;
    if (typeof r.clientDataJSON !== "string" || typeof r.attestationObject !== "string") return null;
    return value as unknown as RegistrationResponseJSON;
  } catch {
    return null;
  }
}

// --- The list -----------------------------------------------------------------------------------

export interface PasskeyView {
  id: number;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
  /** A synced passkey (in a password manager or a platform account), not bound to one device. */
  synced: boolean;
}

/** A person's passkeys in use, oldest first. */
export async function listPasskeys(db: DbOrTx, user_id: string): Promise<PasskeyView[]> {
  const rows = await db
    .select({
      id: passkeys.id,
      name: passkeys.name,
      created_at: passkeys.created_at,
      last_used_at: passkeys.last_used_at,
      device_type: passkeys.device_type,
    })
    .from(passkeys)
    .where(and(eq(passkeys.user_id, user_id), isNull(passkeys.removed_at)))
    .orderBy(asc(passkeys.id));
  return rows.map(({ device_type, ...row }) => ({ ...row, synced: device_type === "multiDevice" }));
}

export async function countPasskeys(db: DbOrTx, user_id: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(passkeys)
    .where(and(eq(passkeys.user_id, user_id), isNull(passkeys.removed_at)));
  return Number(row?.n ?? 0);
}

/** The credentials a request may use (the person's passkeys in use), as WebAuthn names them. */
export async function allowedCredentials(db: DbOrTx, user_id: string, except_id?: number) {
  const rows = await db
    .select({ credential_id: passkeys.credential_id, transports: passkeys.transports })
    .from(passkeys)
    .where(
      and(
        eq(passkeys.user_id, user_id),
        isNull(passkeys.removed_at),
        except_id === undefined ? sql`true` : ne(passkeys.id, except_id),
      ),
    )
    .orderBy(asc(passkeys.id));
  return rows.map((r) => ({ id: r.credential_id, transports: r.transports as AuthenticatorTransport[] }));
}

// --- What adding and removing share (passkey-registration, passkey-removal) ---------------------

/** The published demo sign-ins are shared by every visitor: their passkeys are not changed. */
export function demoLocked(email: string): boolean {
  return institution().demo && isDemoSignIn(email);
}

/** The person's current password is right (checked against the stored hash). */
export async function passwordIsRight(db: DbOrTx, user_id: string, password: string): Promise<boolean> {
  const [account] = await db
    .select({ password: authAccounts.password })
    .from(authAccounts)
    .where(and(eq(authAccounts.userId, user_id), eq(authAccounts.providerId, "credential")));
  return Boolean(account?.password) && (await verifyPassword({ hash: account!.password!, password }));
}

/** Emails the person that a passkey was added to or removed from their account. */
export async function tellOwner(db: Db, user: Actor, change: "added" | "removed", name: string, now: Date) {
  try {
    await sendEmail(db, { ...passkeyChangedEmail({ change, name, at: now }), to: user.email, user_id: user.id });
  } catch (error) {
    // The change stands without the email; the audit row records it.
    logger.error({ err: error, user_id: user.id }, "passkey email failed");
  }
}

// --- Checking an assertion ------------------------------------------------------------------------

export interface PasskeyOwner {
  passkey_id: number;
  name: string;
  user_id: string;
  email: string;
}

export type AssertionCheck =
  | { ok: true; owner: PasskeyOwner }
  | {
      ok: false;
      reason: "malformed" | "unknown_credential" | "challenge" | "verification";
      owner: PasskeyOwner | null;
    };

/** The passkey in use that a response names (by its credential id), with its owner. */
export async function passkeyForResponse(db: DbOrTx, response: AuthenticationResponseJSON) {
  const [row] = await db
    .select({
      id: passkeys.id,
      name: passkeys.name,
      user_id: passkeys.user_id,
      public_key: passkeys.public_key,
      counter: passkeys.counter,
      transports: passkeys.transports,
      email: users.email,
    })
    .from(passkeys)
    .innerJoin(users, eq(users.id, passkeys.user_id))
    .where(and(eq(passkeys.credential_id, response.id), isNull(passkeys.removed_at)));
  return row ?? null;
}

/**
 * Checks an assertion: the challenge (consumed first, see `consumeChallenge`), then the signature
 * over it with the stored public key, the origin, the RP ID, user verification and the counter.
 * A right one moves the counter and `last_used_at`.
 */
export async function checkAssertion(
  db: DbOrTx,
  response_json: string,
  expect: {
    purpose: ChallengePurpose;
    /** Only this person's passkeys (a money action, a removal); any person's for signing in. */
    user_id?: string;
    bound_hash?: string;
    /** Not this passkey (removing a passkey is confirmed with another one). */
    except_passkey_id?: number;
  },
  now: Date = new Date(),
): Promise<AssertionCheck> {
  const response = parseAssertion(response_json);
  if (!response) return { ok: false, reason: "malformed", owner: null };
  const found = await passkeyForResponse(db, response);
  const owner: PasskeyOwner | null = found
    ? { passkey_id: found.id, name: found.name, user_id: found.user_id, email: found.email }
    : null;
  const binding = { user_id: expect.user_id, bound_hash: expect.bound_hash };
  const challenge = await consumeChallenge(db, challengeOf(response), expect.purpose, binding, now);
  if (
    !found ||
    (expect.user_id !== undefined && found.user_id !== expect.user_id) ||
    found.id === expect.except_passkey_id
  )
    return { ok: false, reason: "unknown_credential", owner };
  if (!challenge) return { ok: false, reason: "challenge", owner };
  const verified = await verifyAssertionSignature(response, challenge, found, relyingParty());
  if (!verified.ok) return { ok: false, reason: "verification", owner };
  // The counter only moves forward: of two racing assertions with the same count, one wins.
  const moved = await db
    .update(passkeys)
    .set({ counter: verified.new_counter, last_used_at: now })
    .where(
      and(
        eq(passkeys.id, found.id),
        isNull(passkeys.removed_at),
        verified.new_counter === 0 ? sql`true` : sql`${passkeys.counter} < ${verified.new_counter}`,
      ),
    )
    .returning({ id: passkeys.id });
  if (moved.length !== 1) return { ok: false, reason: "verification", owner };
  return { ok: true, owner: owner! };
}

/**
 * The cryptographic check of an assertion, without the database: the signature over the
 * authenticator data and the client data with the stored public key, the challenge, the origin
 * and RP ID, user verification, and a counter that moved past the stored one (when counted).
 */
export async function verifyAssertionSignature(
  response: AuthenticationResponseJSON,
  expected_challenge: string,
  stored: { public_key: string; counter: number; transports: string[] },
  rp: { rp_id: string; origin: string },
): Promise<{ ok: true; new_counter: number } | { ok: false; error: string }> {
  try {
    const verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: expected_challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rp_id,
      credential: {
        id: response.id,
        publicKey: new Uint8Array(Buffer.from(stored.public_key, "base64url")),
        counter: stored.counter,
        transports: stored.transports as AuthenticatorTransport[],
      },
      requireUserVerification: true,
    });
    return verified.verified
      ? { ok: true, new_counter: verified.authenticationInfo.newCounter }
      : { ok: false, error: "not verified" };
  } catch (error) {
    // Wrong origin, wrong RP ID, a bad signature, no user verification, a counter that did not move.
    const message = error instanceof Error ? error.message : String(error);
    logger.warn({ err: message }, "passkey assertion refused");
    return { ok: false, error: message };
  }
}

/** Options for an assertion, with a challenge issued for `purpose` and bound as given. */
export async function assertionOptions(
  db: DbOrTx,
  purpose: ChallengePurpose,
  binding: { user_id?: string; bound_hash?: string; except_passkey_id?: number },
  now: Date = new Date(),
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const challenge = await issueChallenge(db, purpose, binding, now);
  return generateAuthenticationOptions({
    rpID: relyingParty().rp_id,
    challenge,
    timeout: CEREMONY_TIMEOUT_MS,
    userVerification: "required",
    // Signing in names nobody: the browser offers the passkeys it holds for this site.
    allowCredentials: binding.user_id ? await allowedCredentials(db, binding.user_id, binding.except_passkey_id) : [],
  });
}
