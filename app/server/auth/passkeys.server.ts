import crypto from "node:crypto";
import { and, asc, eq, gt, isNull, ne, sql } from "drizzle-orm";
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import type { Actor } from "~/domain/actor";
import { worksInBackOffice } from "~/domain/staff-roles";
export { checkPasskeyName } from "~/domain/passkeys";
import { institution } from "~/config/institution.server";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { authAccounts, passkeyChallenges, passkeys, sessions, users } from "~/server/db/schema";
import { keyedHash } from "~/server/security/crypto.server";
import { recordAudit, recordSecurityEvent } from "~/server/audit/audit.server";
import { sendEmail } from "~/server/mail/outbox.server";
import { passkeyChangedEmail } from "~/server/mail/templates.server";
import { logger } from "~/server/logger.server";
import { isDemoSignIn } from "./demo-signins.server";
import { publicBaseUrl, verifyPassword } from "./auth.server";
import { guardCurrentPassword, type CurrentPasswordLocked } from "./current-password.server";
import type { RequestMeta } from "./request-meta.server";

/**
 * Passkeys (WebAuthn Level 3, docs/product.md#passkeys) with @simplewebauthn/server
 * (docs/decisions/0018-passkeys.md): adding one in Account Settings, the list, removing one, and
 * the two checks other modules build on: an assertion for signing in (sign-in-passkey.server.ts)
 * and one that confirms a money action (step-up.server.ts).
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
const ALGORITHMS = [-8, -7, -257];
/** How long the browser waits for the person at the authenticator. */
const CEREMONY_TIMEOUT_MS = 120_000;

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

function removalBinding(user_id: string, passkey_id: number): string {
  return keyedHash("passkey-remove", `${user_id}\u0000${passkey_id}`);
}

async function issueChallenge(
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
async function consumeChallenge(
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

function parseAttestation(json: string): RegistrationResponseJSON | null {
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
async function allowedCredentials(db: DbOrTx, user_id: string, except_id?: number) {
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

function demoLocked(email: string): boolean {
  return institution().demo && isDemoSignIn(email);
}

// --- Adding one -----------------------------------------------------------------------------------

export type StartRegistrationResult =
  | { status: "options"; options: PublicKeyCredentialCreationOptionsJSON }
  | { status: "wrong_password" }
  | CurrentPasswordLocked
  | { status: "too_many" }
  | { status: "not_allowed" };

/**
 * Step 1 of adding a passkey: the current password (within the limits of
 * current-password.server.ts, so a session left open cannot add its holder's own passkey), then
 * the options for the browser: a discoverable credential (the passkey names the person at
 * sign-in), user verification required, no attestation (no device model is collected), and the
 * person's passkeys excluded so one authenticator is not registered twice.
 */
export async function startPasskeyRegistration(
  db: Db,
  meta: RequestMeta,
  user: Actor & { name: string },
  current_password: string,
  origin: { request_id?: string } = {},
  now: Date = new Date(),
): Promise<StartRegistrationResult> {
  if (demoLocked(user.email)) return { status: "not_allowed" };
  if ((await countPasskeys(db, user.id)) >= PASSKEYS_MAX) return { status: "too_many" };
  return guardCurrentPassword(
    db,
    meta,
    user,
    "passkey_add",
    async (): Promise<StartRegistrationResult> => {
      if (!(await passwordIsRight(db, user.id, current_password))) return { status: "wrong_password" };
      const rp = relyingParty();
      const challenge = await issueChallenge(db, "register", { user_id: user.id }, now);
      const options = await generateRegistrationOptions({
        rpName: rp.name,
        rpID: rp.rp_id,
        userName: user.email,
        userDisplayName: user.name || user.email,
        // The user handle is our random user id, never the email address.
        userID: new TextEncoder().encode(user.id),
        challenge,
        timeout: CEREMONY_TIMEOUT_MS,
        attestationType: "none",
        excludeCredentials: await allowedCredentials(db, user.id),
        authenticatorSelection: { residentKey: "required", userVerification: "required" },
        supportedAlgorithmIDs: ALGORITHMS,
      });
      return { status: "options", options };
    },
    origin,
    now,
  );
}

async function passwordIsRight(db: DbOrTx, user_id: string, password: string): Promise<boolean> {
  const [account] = await db
    .select({ password: authAccounts.password })
    .from(authAccounts)
    .where(and(eq(authAccounts.userId, user_id), eq(authAccounts.providerId, "credential")));
  return Boolean(account?.password) && (await verifyPassword({ hash: account!.password!, password }));
}

export type FinishRegistrationResult =
  | { status: "added"; passkey: PasskeyView }
  | { status: "invalid" }
  | { status: "already_added" }
  | { status: "not_allowed" }
  | { status: "failed" };

/** Step 2: the browser's new credential, checked against the challenge of step 1, then kept. */
export async function finishPasskeyRegistration(
  db: Db,
  user: Actor,
  input: { name: string; response_json: string },
  origin: { request_id?: string; ip?: string } = {},
  now: Date = new Date(),
): Promise<FinishRegistrationResult> {
  if (demoLocked(user.email)) return { status: "not_allowed" };
  const response = parseAttestation(input.response_json);
  const challenge = response
    ? await consumeChallenge(db, challengeOf(response), "register", { user_id: user.id }, now)
    : null;
  const refused = async (reason: string): Promise<FinishRegistrationResult> => {
    await recordSecurityEvent(db, {
      action: "auth.passkey.add_refused",
      user_id: user.id,
      email: user.email,
      detail: { reason },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return { status: "invalid" };
  };
  if (!response) return refused("malformed");
  if (!challenge) return refused("challenge");
  const rp = relyingParty();
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rp_id,
      requireUserVerification: true,
      supportedAlgorithmIDs: ALGORITHMS,
    });
  } catch (error) {
    logger.warn({ err: error instanceof Error ? error.message : String(error) }, "passkey registration refused");
    return refused("verification");
  }
  if (!verified.verified || !verified.registrationInfo) return refused("verification");
  const info = verified.registrationInfo;
  try {
    const [row] = await db
      .insert(passkeys)
      .values({
        user_id: user.id,
        name: input.name,
        credential_id: info.credential.id,
        public_key: Buffer.from(info.credential.publicKey).toString("base64url"),
        counter: info.credential.counter,
        transports: info.credential.transports ?? response.response.transports ?? [],
        device_type: info.credentialDeviceType,
        backed_up: info.credentialBackedUp,
        created_at: now,
      })
      .onConflictDoNothing({ target: passkeys.credential_id })
      .returning({ id: passkeys.id, device_type: passkeys.device_type });
    if (!row) return { status: "already_added" };
    await recordSecurityEvent(db, {
      action: "auth.passkey.added",
      user_id: user.id,
      email: user.email,
      detail: { passkey_id: row.id, synced: row.device_type === "multiDevice" },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    await tellOwner(db, user, "added", input.name, now);
    return {
      status: "added",
      passkey: {
        id: row.id,
        name: input.name,
        created_at: now,
        last_used_at: null,
        synced: row.device_type === "multiDevice",
      },
    };
  } catch (error) {
    logger.error({ err: error, user_id: user.id }, "saving a passkey failed");
    return { status: "failed" };
  }
}

async function tellOwner(db: Db, user: Actor, change: "added" | "removed", name: string, now: Date) {
  try {
    await sendEmail(db, { ...passkeyChangedEmail({ change, name, at: now }), to: user.email, user_id: user.id });
  } catch (error) {
    // The change stands without the email; the audit row records it.
    logger.error({ err: error, user_id: user.id }, "passkey email failed");
  }
}

// --- A staff member who lost their passkeys --------------------------------------------------------

/** Who the audit log names for the server command (no staff member signs in to run it). */
export const PASSKEYS_SERVER_COMMAND_ACTOR = "server command: npm run staff:passkeys:remove";

export type RemoveStaffPasskeysResult =
  { ok: true; removed: number; sessions_ended: number } | { ok: false; code: "not_found" | "not_staff" | "none" };

/**
 * `npm run staff:passkeys:remove` (docs/operations.md#a-staff-member-lost-their-passkeys): while
 * the profile requires staff passkeys, a staff member with one may not sign in with the password,
 * so one who lost every device holding theirs (or the only admin) cannot sign in at all. Run on
 * the server, this removes all of that person's passkeys and ends their sessions (a lost phone
 * may hold one): they then sign in with the password and the emailed code and are led to add a
 * new passkey. Staff only: a member keeps the password path and removes passkeys in Account
 * Settings. Audited with the command as the actor; the person is emailed for each passkey.
 */
export async function removeStaffPasskeysFromServer(
  db: Db,
  email: string,
  now: Date = new Date(),
): Promise<RemoveStaffPasskeysResult> {
  const [user] = await db
    .select({ id: users.id, email: users.email, role: users.role })
    .from(users)
    .where(eq(users.email, email.trim().toLowerCase()));
  if (!user) return { ok: false, code: "not_found" };
  if (!worksInBackOffice(user.role)) return { ok: false, code: "not_staff" };
  const done = await db.transaction(async (tx) => {
    const removed = await tx
      .update(passkeys)
      .set({ removed_at: now })
      .where(and(eq(passkeys.user_id, user.id), isNull(passkeys.removed_at)))
      .returning({ id: passkeys.id, name: passkeys.name });
    if (removed.length === 0) return null;
    const ended = await tx.delete(sessions).where(eq(sessions.userId, user.id)).returning({ id: sessions.id });
    await recordAudit(tx, {
      actor_id: null,
      actor_email: PASSKEYS_SERVER_COMMAND_ACTOR,
      action: "staff.passkeys.removed",
      subject_type: "user",
      subject_id: user.id,
      before: { passkey_ids: removed.map((p) => p.id) },
      after: { passkeys: 0, sessions_ended: ended.length },
    });
    return { removed, sessions_ended: ended.length };
  });
  if (!done) return { ok: false, code: "none" };
  for (const passkey of done.removed) await tellOwner(db, user, "removed", passkey.name, now);
  return { ok: true, removed: done.removed.length, sessions_ended: done.sessions_ended };
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

// --- Removing one ---------------------------------------------------------------------------------

export type RemovePasskeyResult =
  | { status: "removed" }
  | { status: "wrong_password" }
  | CurrentPasswordLocked
  | { status: "invalid" }
  | { status: "not_found" }
  | { status: "last_staff_passkey" }
  | { status: "not_allowed" };

/** Staff must keep a passkey while the profile requires them (docs/product.md#passkeys). */
async function mustKeep(db: DbOrTx, user: { id: string; role: string }): Promise<boolean> {
  return (
    institution().staff_passkeys_required && worksInBackOffice(user.role) && (await countPasskeys(db, user.id)) <= 1
  );
}

async function ownPasskey(db: DbOrTx, user_id: string, passkey_id: number) {
  const [row] = await db
    .select({ id: passkeys.id, name: passkeys.name })
    .from(passkeys)
    .where(and(eq(passkeys.id, passkey_id), eq(passkeys.user_id, user_id), isNull(passkeys.removed_at)));
  return row ?? null;
}

/** Removes one of the person's passkeys, confirmed with the current password. */
export async function removePasskeyWithPassword(
  db: Db,
  meta: RequestMeta,
  user: Actor & { role: string },
  input: { passkey_id: number; current_password: string },
  origin: { request_id?: string } = {},
  now: Date = new Date(),
): Promise<RemovePasskeyResult> {
  if (demoLocked(user.email)) return { status: "not_allowed" };
  const passkey = await ownPasskey(db, user.id, input.passkey_id);
  if (!passkey) return { status: "not_found" };
  if (await mustKeep(db, user)) return { status: "last_staff_passkey" };
  return guardCurrentPassword(
    db,
    meta,
    user,
    "passkey_remove",
    async (): Promise<RemovePasskeyResult> => {
      if (!(await passwordIsRight(db, user.id, input.current_password))) return { status: "wrong_password" };
      return markRemoved(db, user, passkey, "password", { ...origin, ip: meta.ip }, now);
    },
    origin,
    now,
  );
}

/** The challenge for confirming a removal with another of the person's passkeys (null: no other one). */
export async function passkeyRemovalOptions(
  db: Db,
  user: Actor,
  passkey_id: number,
  now: Date = new Date(),
): Promise<PublicKeyCredentialRequestOptionsJSON | null> {
  if (!(await ownPasskey(db, user.id, passkey_id))) return null;
  const others = await allowedCredentials(db, user.id, passkey_id);
  if (others.length === 0) return null;
  return assertionOptions(
    db,
    "remove",
    { user_id: user.id, bound_hash: removalBinding(user.id, passkey_id), except_passkey_id: passkey_id },
    now,
  );
}

/** Removes one of the person's passkeys, confirmed with another of their passkeys. */
export async function removePasskeyWithPasskey(
  db: Db,
  user: Actor & { role: string },
  input: { passkey_id: number; response_json: string },
  origin: { request_id?: string; ip?: string } = {},
  now: Date = new Date(),
): Promise<RemovePasskeyResult> {
  if (demoLocked(user.email)) return { status: "not_allowed" };
  const passkey = await ownPasskey(db, user.id, input.passkey_id);
  if (!passkey) return { status: "not_found" };
  if (await mustKeep(db, user)) return { status: "last_staff_passkey" };
  const check = await checkAssertion(
    db,
    input.response_json,
    {
      purpose: "remove",
      user_id: user.id,
      bound_hash: removalBinding(user.id, input.passkey_id),
      except_passkey_id: input.passkey_id,
    },
    now,
  );
  if (!check.ok) {
    await recordSecurityEvent(db, {
      action: "auth.passkey.remove_refused",
      user_id: user.id,
      email: user.email,
      detail: { passkey_id: input.passkey_id, reason: check.reason },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return { status: "invalid" };
  }
  return markRemoved(db, user, passkey, "passkey", origin, now);
}

async function markRemoved(
  db: Db,
  user: Actor,
  passkey: { id: number; name: string },
  confirmed_by: "password" | "passkey",
  origin: { request_id?: string; ip?: string },
  now: Date,
): Promise<RemovePasskeyResult> {
  const removed = await db
    .update(passkeys)
    .set({ removed_at: now })
    .where(and(eq(passkeys.id, passkey.id), eq(passkeys.user_id, user.id), isNull(passkeys.removed_at)))
    .returning({ id: passkeys.id });
  if (removed.length !== 1) return { status: "not_found" };
  await recordSecurityEvent(db, {
    action: "auth.passkey.removed",
    user_id: user.id,
    email: user.email,
    detail: { passkey_id: passkey.id, confirmed_by },
    request_id: origin.request_id,
    ip: origin.ip,
  });
  await tellOwner(db, user, "removed", passkey.name, now);
  return { status: "removed" };
}
