import {
  generateRegistrationOptions,
  verifyRegistrationResponse,
  type PublicKeyCredentialCreationOptionsJSON,
} from "@simplewebauthn/server";
import type { Actor } from "~/domain/actor";
import { codedRefusal, type CodedRefusal } from "~/domain/refusals";
import { SETTINGS_MESSAGES } from "~/domain/settings";
import type { Db } from "~/server/db/client.server";
import { passkeys } from "~/server/db/schema";
import { recordSecurityEvent } from "~/server/audit/audit.server";
import { logger } from "~/server/logger.server";
import {
  guardCurrentPassword,
  wrongCurrentPassword,
  type CurrentPasswordLocked,
  type WrongCurrentPassword,
} from "./current-password.server";
import type { RequestMeta } from "./request-meta.server";
import {
  ALGORITHMS,
  CEREMONY_TIMEOUT_MS,
  PASSKEYS_MAX,
  allowedCredentials,
  challengeOf,
  consumeChallenge,
  countPasskeys,
  demoLocked,
  issueChallenge,
  parseAttestation,
  passwordIsRight,
  relyingParty,
  tellOwner,
  type PasskeyView,
} from "./passkeys.server";

/**
 * Adding a passkey in Account Settings (docs/product.md#passkeys): the current password and the
 * options for the browser, then the browser's new credential checked against that challenge and
 * kept. The challenges, the list and the checks are passkeys.server.ts.
 */

/** What adding or removing a passkey is refused with (docs/product.md#messages-settings). */
export const PASSKEY_MESSAGES = {
  too_many: "You have 10 passkeys, the most an account can have. Remove one first.",
  invalid: "The passkey could not be checked. Please try again.",
  already_added: "That passkey is already on your account.",
  not_found: "That passkey is not on your account.",
  last_staff_passkey: "Staff must keep a passkey. Add another one before removing this one.",
  failed: SETTINGS_MESSAGES.try_again,
} as const;

/** The published demo sign-ins change no security setting (every visitor shares them). */
export function demoSettingsLocked(): CodedRefusal<"not_allowed"> {
  return codedRefusal("forbidden", SETTINGS_MESSAGES.demo_locked, "not_allowed");
}

export type StartRegistrationResult =
  | { ok: true; options: PublicKeyCredentialCreationOptionsJSON }
  | WrongCurrentPassword
  | CurrentPasswordLocked
  | CodedRefusal<"too_many" | "not_allowed">;

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
  if (demoLocked(user.email)) return demoSettingsLocked();
  if ((await countPasskeys(db, user.id)) >= PASSKEYS_MAX)
    return codedRefusal("conflict", PASSKEY_MESSAGES.too_many, "too_many");
  return guardCurrentPassword(
    db,
    meta,
    user,
    "passkey_add",
    async (): Promise<StartRegistrationResult> => {
      if (!(await passwordIsRight(db, user.id, current_password))) return wrongCurrentPassword();
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
      return { ok: true, options };
    },
    origin,
    now,
  );
}

export type FinishRegistrationResult =
  { ok: true; passkey: PasskeyView } | CodedRefusal<"invalid" | "already_added" | "not_allowed" | "failed">;

/** Step 2: the browser's new credential, checked against the challenge of step 1, then kept. */
export async function finishPasskeyRegistration(
  db: Db,
  user: Actor,
  input: { name: string; response_json: string },
  origin: { request_id?: string; ip?: string } = {},
  now: Date = new Date(),
): Promise<FinishRegistrationResult> {
  if (demoLocked(user.email)) return demoSettingsLocked();
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
    return codedRefusal("bad_input", PASSKEY_MESSAGES.invalid, "invalid");
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
    if (!row) return codedRefusal("conflict", PASSKEY_MESSAGES.already_added, "already_added");
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
      ok: true,
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
    return codedRefusal("unavailable", PASSKEY_MESSAGES.failed, "failed");
  }
}
