import type { Actor } from "~/domain/actor";
import { and, eq } from "drizzle-orm";
import { maskedTaxpayerIds } from "~/server/members/taxpayer-ids.server";
import { symmetricDecrypt } from "better-auth/crypto";
import QRCode from "qrcode";
import { institution } from "~/config/institution.server";
import { SETTINGS_MESSAGES, initialsOf, type NotificationInput, type ProfileInput } from "~/domain/settings";
import type { Db } from "~/server/db/client.server";
import { authAccounts, memberProfiles, memberSettings, twoFactors, usedTotpCodes, users } from "~/server/db/schema";
import { recordSecurityEvent } from "~/server/audit/audit.server";
import { authFor, verifyPassword } from "~/server/auth/auth.server";
import { hashCode } from "~/server/auth/codes.server";
import { changePassword as changeKnownPassword, type ChangePasswordResult } from "~/server/auth/password.server";
import { codedRefusal, type CodedRefusal } from "~/domain/refusals";
import { passwordChanged } from "~/server/admin/create-member.server";
import { authHeaders, type RequestMeta } from "~/server/auth/request-meta.server";
import {
  guardCurrentPassword,
  wrongCurrentPassword,
  type CurrentPasswordLocked,
  type WrongCurrentPassword,
} from "~/server/auth/current-password.server";
import type { EffectiveRole } from "~/server/auth/roles.server";
import { logger } from "~/server/logger.server";
import { getMemberSettings, type MemberSettings } from "~/server/members/members.server";
import { isDemoSignIn } from "~/server/auth/demo-signins.server";

/**
 * Profile Settings and Account Settings (docs/product.md#settings) for the signed-in person: their
 * profile, their notification and security preferences, a password change (which ends every other
 * session) and the authenticator app (TOTP, RFC 6238) that replaces the emailed sign-in code once
 * enrolled.
 *
 * Every user keeps Better Auth's `twoFactorEnabled` on (the email code is everyone's second
 * factor, see auth.server.ts); the authenticator app is the two_factor row being verified. So
 * turning the app off deletes that row and never calls Better Auth's disableTwoFactor, which would
 * drop the second factor altogether.
 */

/** Where a person's profile image is served (only to themself and to staff). */
export function profileImageUrl(user_id: string, file: string | null): string | null {
  // The file name changes with every upload, so it doubles as a cache buster.
  return file ? `/settings/profile-image/${encodeURIComponent(user_id)}?v=${file.slice(0, 8)}` : null;
}

export interface UserDisplay {
  id: string;
  name: string;
  email: string;
  initials: string;
  image_url: string | null;
  role: EffectiveRole;
}

/** What a top bar shows for the signed-in person: name or email, initials, image. */
export async function userDisplay(
  db: Db,
  user: { id: string; email: string; name: string; role: EffectiveRole },
): Promise<UserDisplay> {
  const [profile] = await db
    .select({
      first_name: memberProfiles.first_name,
      last_name: memberProfiles.last_name,
      image_file: memberProfiles.image_file,
    })
    .from(memberProfiles)
    .where(eq(memberProfiles.user_id, user.id));
  const name = profile ? `${profile.first_name} ${profile.last_name}`.trim() : user.name.trim();
  return {
    id: user.id,
    name,
    email: user.email,
    initials: initialsOf(name, user.email),
    image_url: profileImageUrl(user.id, profile?.image_file ?? null),
    role: user.role,
  };
}

export interface ProfileSettings extends ProfileInput {
  email: string;
  initials: string;
  image_url: string | null;
  /** The member's and joint owner's taxpayer numbers, masked ("SSN •••-••-1234"): read-only. */
  taxpayer_ids: { party: "member" | "joint"; label: string; masked: string }[];
}

export async function getProfileSettings(db: Db, user_id: string): Promise<ProfileSettings | null> {
  const [row] = await db
    .select({ email: users.email, name: users.name, profile: memberProfiles })
    .from(users)
    .leftJoin(memberProfiles, eq(memberProfiles.user_id, users.id))
    .where(eq(users.id, user_id));
  if (!row) return null;
  const p = row.profile;
  const [first = "", ...rest] = row.name.trim().split(/\s+/);
  const first_name = p?.first_name ?? first;
  const last_name = p?.last_name ?? rest.join(" ");
  return {
    email: row.email,
    first_name,
    last_name,
    phone: p?.phone ?? "",
    street: p?.street ?? "",
    city: p?.city ?? "",
    state: p?.state ?? "",
    postal_code: p?.postal_code ?? "",
    country: p?.country ?? "",
    initials: initialsOf(`${first_name} ${last_name}`, row.email),
    image_url: profileImageUrl(user_id, p?.image_file ?? null),
    taxpayer_ids: (await maskedTaxpayerIds(db, user_id)).map((t) => ({
      party: t.party,
      label: t.party === "joint" ? `Joint owner's taxpayer ID (${t.type_label})` : `Taxpayer ID (${t.type_label})`,
      masked: t.country ? `${t.masked} · ${t.country}` : t.masked,
    })),
  };
}

export type UpdateProfileResult = { status: "updated" } | { status: "failed" };

/** Saves name, phone and address. A person without a profile row (a staff account made by hand) gets one. */
export async function updateProfile(
  db: Db,
  user_id: string,
  input: ProfileInput,
  origin: { request_id?: string; ip?: string } = {},
): Promise<UpdateProfileResult> {
  const blankToNull = (value: string) => (value === "" ? null : value);
  const fields = {
    first_name: input.first_name,
    last_name: input.last_name,
    phone: blankToNull(input.phone),
    street: blankToNull(input.street),
    city: blankToNull(input.city),
    state: blankToNull(input.state),
    postal_code: blankToNull(input.postal_code),
    country: blankToNull(input.country),
  };
  try {
    await db.transaction(async (tx) => {
      const [user] = await tx.select({ id: users.id, role: users.role }).from(users).where(eq(users.id, user_id));
      if (!user) throw new Error("user not found");
      const now = new Date();
      const updated = await tx
        .update(memberProfiles)
        .set({ ...fields, updated_at: now })
        .where(eq(memberProfiles.user_id, user_id))
        .returning({ user_id: memberProfiles.user_id });
      if (updated.length === 0) {
        await tx.insert(memberProfiles).values({
          user_id,
          ...fields,
          status: user.role === "pending" ? "pending" : "approved",
          source: "staff",
          created_at: now,
          updated_at: now,
        });
      }
      await tx
        .update(users)
        .set({ name: `${input.first_name} ${input.last_name}`, updatedAt: now })
        .where(eq(users.id, user_id));
    });
    await recordSecurityEvent(db, {
      action: "auth.profile.updated",
      user_id,
      detail: { fields: Object.keys(fields) },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return { status: "updated" };
  } catch (error) {
    logger.error({ err: error, user_id }, "profile update failed");
    return { status: "failed" };
  }
}

export interface AccountSettings {
  email: string;
  /** The switches Account Settings offers (not the old email, SMS and push switches: push and texts are chosen per group, notifications/channels.server.ts). */
  settings: Pick<MemberSettings, "two_factor" | "login_alerts">;
  /** An authenticator app is enrolled (verified) and replaces the email code at sign-in. */
  totp_enrolled: boolean;
  /** A demo sign-in: password and authenticator app are locked (demo mode only). */
  demo_locked: boolean;
}

function isDemoLocked(email: string): boolean {
  return institution().demo && isDemoSignIn(email);
}

export async function getAccountSettings(db: Db, user_id: string): Promise<AccountSettings | null> {
  const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, user_id));
  if (!user) return null;
  const settings = await getMemberSettings(db, user_id);
  const totp_enrolled = await totpEnrolled(db, user_id);
  // The stored flag follows the enrolment (the enrolment is what sign-in acts on).
  return {
    email: user.email,
    settings: {
      login_alerts: settings.login_alerts,
      two_factor: totp_enrolled,
    },
    totp_enrolled,
    demo_locked: isDemoLocked(user.email),
  };
}

async function totpEnrolled(db: Db, user_id: string): Promise<boolean> {
  const [row] = await db
    .select({ verified: twoFactors.verified })
    .from(twoFactors)
    .where(eq(twoFactors.userId, user_id));
  return row?.verified === true;
}

async function writeSettings(db: Db, user_id: string, values: Partial<Omit<MemberSettings, never>>): Promise<void> {
  const now = new Date();
  await db
    .insert(memberSettings)
    .values({ user_id, ...values, updated_at: now })
    .onConflictDoUpdate({ target: memberSettings.user_id, set: { ...values, updated_at: now } });
}

/** Saves the notification toggles and loginAlerts (twoFactor changes only through enrolment). */
export async function updateNotificationSettings(
  db: Db,
  user_id: string,
  input: NotificationInput,
  origin: { request_id?: string; ip?: string } = {},
): Promise<{ status: "updated" } | { status: "failed" }> {
  try {
    const before = await getMemberSettings(db, user_id);
    await writeSettings(db, user_id, input);
    if (before.login_alerts !== input.login_alerts) {
      await recordSecurityEvent(db, {
        action: "auth.login_alerts.changed",
        user_id,
        detail: { login_alerts: input.login_alerts },
        request_id: origin.request_id,
        ip: origin.ip,
      });
    }
    return { status: "updated" };
  } catch (error) {
    logger.error({ err: error, user_id }, "account settings update failed");
    return { status: "failed" };
  }
}

export type PasswordChangeResult = ChangePasswordResult;

/** Changes the password; every other session of this person ends, this browser gets a new session. */
export async function changeOwnPassword(
  db: Db,
  meta: RequestMeta,
  user: Actor,
  input: { current_password: string; new_password: string },
  origin: { request_id?: string } = {},
): Promise<PasswordChangeResult> {
  const result = await changeKnownPassword(
    db,
    meta,
    { email: user.email, user_id: user.id, current_password: input.current_password, new_password: input.new_password },
    origin,
  );
  if (result.ok) {
    // A temporary password set by staff is now replaced.
    await passwordChanged(db, user.id);
    await recordSecurityEvent(db, {
      action: "auth.password.changed",
      user_id: user.id,
      email: user.email,
      detail: { other_sessions_ended: true },
      request_id: origin.request_id,
      ip: meta.ip,
    });
  }
  return result;
}

// --- Authenticator app (TOTP) ------------------------------------------------------------------

export interface TotpSetup {
  /** otpauth:// URI, also drawn as the QR code. */
  uri: string;
  /** The secret in base32, for typing into an app by hand (grouped by 4). */
  secret: string;
  /** The QR code as an SVG data URL (CSP allows img-src data:). */
  qr_data_url: string;
}

export type StartTotpResult =
  | { ok: true; status: "started"; setup: TotpSetup }
  /** Already on (enrolled in another tab): nothing to start. */
  | { ok: true; status: "already_enrolled" }
  | WrongCurrentPassword
  | CurrentPasswordLocked
  | CodedRefusal<"not_allowed" | "failed">;

/** The published demo sign-ins change no security setting (every visitor shares them). */
const demoLockedRefusal = () => codedRefusal("forbidden", SETTINGS_MESSAGES.demo_locked, "not_allowed");
const tryAgain = () => codedRefusal("unavailable", SETTINGS_MESSAGES.try_again, "failed");

async function setupFromUri(uri: string): Promise<TotpSetup> {
  const secret = new URL(uri).searchParams.get("secret") ?? "";
  const svg = await QRCode.toString(uri, { type: "svg", errorCorrectionLevel: "M", margin: 1 });
  return {
    uri,
    secret: secret.replace(/(.{4})/g, "$1 ").trim(),
    qr_data_url: `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`,
  };
}

/**
 * Step 1 of enrolment: the password is checked (within the limits of current-password.server.ts),
 * a new secret is made (not yet in use).
 */
export async function startTotpEnrollment(
  db: Db,
  meta: RequestMeta,
  user: Actor,
  password: string,
  origin: { request_id?: string } = {},
): Promise<StartTotpResult> {
  if (isDemoLocked(user.email)) return demoLockedRefusal();
  if (await totpEnrolled(db, user.id)) return { ok: true, status: "already_enrolled" };
  return guardCurrentPassword(db, meta, user, "authenticator_on", () => enableTotp(db, meta, password), origin);
}

async function enableTotp(db: Db, meta: RequestMeta, password: string): Promise<StartTotpResult> {
  try {
    const result = (await authFor(db).api.enableTwoFactor({
      body: { password, method: "totp", issuer: institution().name },
      headers: authHeaders(meta),
    })) as { totpURI?: string };
    if (!result.totpURI) throw new Error("no TOTP URI");
    return { ok: true, status: "started", setup: await setupFromUri(result.totpURI) };
  } catch (error) {
    const code = (error as { body?: { code?: string } }).body?.code;
    if (code === "INVALID_PASSWORD") return wrongCurrentPassword();
    if (code === "TOTP_ALREADY_ENABLED") return { ok: true, status: "already_enrolled" };
    logger.error({ err: error }, "starting authenticator enrolment failed");
    return tryAgain();
  }
}

/** The enrolment waiting for its confirming code (to show the QR code again), or null. */
export async function pendingTotpSetup(db: Db, user: Actor): Promise<TotpSetup | null> {
  const [row] = await db
    .select({ secret: twoFactors.secret, verified: twoFactors.verified })
    .from(twoFactors)
    .where(eq(twoFactors.userId, user.id));
  if (!row || row.verified !== false) return null;
  try {
    const context = await authFor(db).$context;
    const raw = await symmetricDecrypt({ key: context.secretConfig, data: row.secret });
    const issuer = institution().name;
    const params = new URLSearchParams({ secret: base32(Buffer.from(raw, "utf8")), issuer, digits: "6", period: "30" });
    return setupFromUri(
      `otpauth://totp/${encodeURIComponent(issuer)}:${encodeURIComponent(user.email)}?${params.toString()}`,
    );
  } catch (error) {
    logger.error({ err: error }, "reading a pending enrolment failed");
    return null;
  }
}

export type ConfirmTotpResult = { ok: true } | CodedRefusal<"invalid_code" | "not_started" | "not_allowed" | "failed">;

/** What confirming the authenticator app is refused with (docs/product.md#messages-settings). */
export const TOTP_CONFIRM_MESSAGES = {
  invalid_code: "That code did not match. Check the time on your device and try the newest code.",
  /** The shorter words next to the code field. */
  invalid_code_field: "That code did not match.",
  not_started: "Please start the set-up again.",
} as const;

/** Step 2: a code from the app proves it holds the secret; from now on sign-in asks for the app's code. */
export async function confirmTotpEnrollment(
  db: Db,
  meta: RequestMeta,
  user: Actor,
  code: string,
  origin: { request_id?: string } = {},
): Promise<ConfirmTotpResult> {
  if (isDemoLocked(user.email)) return demoLockedRefusal();
  const [row] = await db
    .select({ verified: twoFactors.verified })
    .from(twoFactors)
    .where(eq(twoFactors.userId, user.id));
  if (!row) return codedRefusal("bad_input", TOTP_CONFIRM_MESSAGES.not_started, "not_started");
  if (row.verified === true) return { ok: true };
  try {
    await authFor(db).api.verifyTOTP({ body: { code }, headers: authHeaders(meta) });
  } catch (error) {
    const status = (error as { body?: { code?: string } }).body?.code;
    if (status === "INVALID_CODE")
      return codedRefusal("bad_input", TOTP_CONFIRM_MESSAGES.invalid_code, "invalid_code", { field: "code" });
    logger.error({ err: error }, "confirming authenticator enrolment failed");
    return tryAgain();
  }
  const now = new Date();
  // The code just used cannot sign in too (RFC 6238 §5.2: accept a code once).
  await db
    .insert(usedTotpCodes)
    .values({ user_id: user.id, code_hash: hashCode("totp-used", user.id, code), used_at: now })
    .onConflictDoUpdate({ target: [usedTotpCodes.user_id, usedTotpCodes.code_hash], set: { used_at: now } });
  await writeSettings(db, user.id, { two_factor: true });
  await recordSecurityEvent(db, {
    action: "auth.totp.enrolled",
    user_id: user.id,
    email: user.email,
    request_id: origin.request_id,
    ip: meta.ip,
  });
  return { ok: true };
}

export type DisableTotpResult =
  { ok: true } | WrongCurrentPassword | CurrentPasswordLocked | CodedRefusal<"not_allowed" | "failed">;

/**
 * Turns the authenticator app off (password required, within the limits of
 * current-password.server.ts); sign-in goes back to the email code.
 */
export async function disableTotp(
  db: Db,
  meta: RequestMeta,
  user: Actor,
  password: string,
  origin: { request_id?: string } = {},
): Promise<DisableTotpResult> {
  if (isDemoLocked(user.email)) return demoLockedRefusal();
  return guardCurrentPassword(
    db,
    meta,
    user,
    "authenticator_off",
    () => removeTotp(db, meta, user, password, origin),
    origin,
  );
}

async function removeTotp(
  db: Db,
  meta: RequestMeta,
  user: Actor,
  password: string,
  origin: { request_id?: string },
): Promise<DisableTotpResult> {
  try {
    const [account] = await db
      .select({ password: authAccounts.password })
      .from(authAccounts)
      .where(and(eq(authAccounts.userId, user.id), eq(authAccounts.providerId, "credential")));
    if (!account?.password || !(await verifyPassword({ hash: account.password, password })))
      return wrongCurrentPassword();
    await db.transaction(async (tx) => {
      await tx.delete(twoFactors).where(eq(twoFactors.userId, user.id));
      // The email code stays: every user keeps a second factor.
      await tx.update(users).set({ twoFactorEnabled: true }).where(eq(users.id, user.id));
    });
    await writeSettings(db, user.id, { two_factor: false });
    await recordSecurityEvent(db, {
      action: "auth.totp.disabled",
      user_id: user.id,
      email: user.email,
      request_id: origin.request_id,
      ip: meta.ip,
    });
    return { ok: true };
  } catch (error) {
    logger.error({ err: error }, "turning the authenticator off failed");
    return tryAgain();
  }
}

/** Ends an enrolment that was started but never confirmed (Cancel). */
export async function cancelTotpEnrollment(db: Db, user_id: string): Promise<void> {
  await db.delete(twoFactors).where(and(eq(twoFactors.userId, user_id), eq(twoFactors.verified, false)));
}

const BASE32_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** RFC 4648 base32 without padding (what authenticator apps read). */
export function base32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32_ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32_ALPHABET[(value << (5 - bits)) & 31];
  return out;
}
