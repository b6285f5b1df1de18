import { worksInBackOffice } from "~/domain/staff-roles";
import { withDatabase } from "~/server/db/db.server";
import { isDemoSignIn } from "~/server/auth/demo-signins.server";
import { institution } from "~/config/institution.server";
import { formatCents } from "~/domain/money";
import type { AccountData, ElectronicDeliveryData, PushData, SmsData } from "~/components/settings/types";
import { getChannelChoices, saveChannelChoices } from "~/server/notifications/channels.server";
import {
  addSmsNumber as addSmsNumberIn,
  removeSmsNumber as removeSmsNumberIn,
  resendSmsCode as resendSmsCodeIn,
  smsNumberOf,
  smsProvider,
  verifySmsNumber as verifySmsNumberIn,
} from "~/server/notifications/sms.server";
import {
  addPushDevice as addPushDeviceIn,
  listPushDevices,
  pushKeys,
  removePushDevice as removePushDeviceIn,
} from "~/server/notifications/push.server";
import { listPasskeys } from "~/server/auth/passkeys.server";
import {
  finishPasskeyRegistration as finishPasskeyRegistrationIn,
  startPasskeyRegistration as startPasskeyRegistrationIn,
} from "~/server/auth/passkey-registration.server";
import {
  passkeyRemovalOptions as passkeyRemovalOptionsIn,
  removePasskeyWithPasskey as removePasskeyWithPasskeyIn,
  removePasskeyWithPassword as removePasskeyWithPasswordIn,
} from "~/server/auth/passkey-removal.server";
import {
  endOtherSessions as endOtherSessionsIn,
  endSession as endSessionIn,
  listActiveSessions,
} from "~/server/auth/active-sessions.server";
import { chooseConsentWithdrawal, deliveryStatus } from "~/server/electronic-delivery/electronic-delivery.server";
import {
  cancelTotpEnrollment as cancelTotpEnrollmentIn,
  changeOwnPassword as changeOwnPasswordIn,
  confirmTotpEnrollment as confirmTotpEnrollmentIn,
  disableTotp as disableTotpIn,
  getAccountSettings as getAccountSettingsIn,
  pendingTotpSetup as pendingTotpSetupIn,
  startTotpEnrollment as startTotpEnrollmentIn,
  updateNotificationSettings as updateNotificationSettingsIn,
} from "~/server/settings/settings.server";

/** What Account Settings (password, authenticator app, notifications) calls (its view-model): each function opens the database itself, so the route holds no handle. */
export const cancelTotpEnrollment = withDatabase(cancelTotpEnrollmentIn);
export const changeOwnPassword = withDatabase(changeOwnPasswordIn);
export const confirmTotpEnrollment = withDatabase(confirmTotpEnrollmentIn);
export const disableTotp = withDatabase(disableTotpIn);
export const getAccountSettings = withDatabase(getAccountSettingsIn);
export const pendingTotpSetup = withDatabase(pendingTotpSetupIn);
export const startTotpEnrollment = withDatabase(startTotpEnrollmentIn);
export const updateNotificationSettings = withDatabase(updateNotificationSettingsIn);
export const withdrawElectronicDelivery = withDatabase(chooseConsentWithdrawal);

/** A member's delivery of statements and notices, as the Account Settings section shows it. */
export const electronicDelivery = withDatabase(async (db, member_id: string): Promise<ElectronicDeliveryData> => {
  const status = await deliveryStatus(db, member_id);
  const fee = institution().electronic_delivery.withdrawal_fee_cents;
  return {
    delivery: status.delivery,
    answered: status.latest !== null,
    since: status.latest?.at.toISOString() ?? null,
    withdrawal_fee: fee ? formatCents(fee) : null,
  };
});

/** Notifications on the member's devices (Web Push): offered to members only, and only with the VAPID keys set. */
export const pushSettings = withDatabase(
  async (db, user: { id: string; role: string; email: string }): Promise<PushData | null> => {
    const keys = pushKeys();
    if (!keys || user.role !== "user" || pushLockedForDemo(user.email)) return null;
    const [devices, choices] = await Promise.all([listPushDevices(db, user.id), getChannelChoices(db, user.id)]);
    return {
      public_key: keys.public_key,
      choices: choices.push,
      devices: devices.map((d) => ({
        id: d.id,
        device: d.device,
        created_at: d.created_at.toISOString(),
        created_label: when(d.created_at),
        endpoint_suffix: d.endpoint_suffix,
      })),
    };
  },
);

/**
 * The published demo sign-ins are shared by every visitor: a device one visitor allowed would show
 * the next visitor's notifications. Demo mode offers them no notifications on devices.
 */
export function pushLockedForDemo(email: string): boolean {
  return institution().demo && isDemoSignIn(email);
}
export const addPushDevice = withDatabase(addPushDeviceIn);
export const saveNotificationChoices = withDatabase(saveChannelChoices);
/** Web Push has its VAPID keys (devices are offered notifications at all). */
export const pushConfigured = (): boolean => pushKeys() !== null;

/**
 * Text messages: offered to members only, with an SMS provider configured, and not to the shared
 * demo sign-ins (a number one visitor added would get the next visitor's notifications).
 */
export function smsOffered(user: { role: string; email: string }): boolean {
  return smsProvider() !== null && user.role === "user" && !pushLockedForDemo(user.email);
}
export const smsSettings = withDatabase(
  async (db, user: { id: string; role: string; email: string }): Promise<SmsData | null> => {
    if (!smsOffered(user)) return null;
    const [number, choices] = await Promise.all([smsNumberOf(db, user.id), getChannelChoices(db, user.id)]);
    return {
      number: number
        ? {
            masked: number.masked,
            verified: number.verified_at !== null,
            code_expires_label: number.code_expires_at ? when(number.code_expires_at) : null,
          }
        : null,
      choices: choices.sms,
    };
  },
);
export const addSmsNumber = withDatabase(addSmsNumberIn);
export const resendSmsCode = withDatabase(resendSmsCodeIn);
export const verifySmsNumber = withDatabase(verifySmsNumberIn);
export const removeSmsNumber = withDatabase(removeSmsNumberIn);
export const removePushDevice = withDatabase(removePushDeviceIn);

/** Passkeys (docs/product.md#passkeys) and sessions (docs/product.md#sessions-and-devices) of the signed-in person. */
export const startPasskeyRegistration = withDatabase(startPasskeyRegistrationIn);
export const finishPasskeyRegistration = withDatabase(finishPasskeyRegistrationIn);
export const removePasskeyWithPassword = withDatabase(removePasskeyWithPasswordIn);
export const removePasskeyWithPasskey = withDatabase(removePasskeyWithPasskeyIn);
export const passkeyRemovalOptions = withDatabase(passkeyRemovalOptionsIn);
export const endSession = withDatabase(endSessionIn);
export const endOtherSessions = withDatabase(endOtherSessionsIn);

/** The passkeys and sessions sections' data, dates as ISO strings for the browser. */
export const securityLists = withDatabase(
  async (
    db,
    user: { id: string; role: string; session_id: string },
    highlighted: string | null,
  ): Promise<Pick<AccountData, "passkeys" | "passkey_required" | "sessions" | "highlighted_session">> => {
    const [keys, live] = await Promise.all([
      listPasskeys(db, user.id),
      listActiveSessions(db, user.id, user.session_id),
    ]);
    const staff = worksInBackOffice(user.role);
    const highlighted_session = live.some((s) => s.id === highlighted && !s.current) ? highlighted : null;
    return {
      passkeys: keys.map((k) => ({
        ...k,
        created_at: k.created_at.toISOString(),
        created_label: when(k.created_at),
        last_used_at: k.last_used_at?.toISOString() ?? null,
        last_used_label: k.last_used_at ? when(k.last_used_at) : null,
      })),
      passkey_required: staff && institution().staff_passkeys_required && keys.length === 0,
      sessions: live.map((s) => ({
        ...s,
        started_at: s.started_at.toISOString(),
        started_label: when(s.started_at),
        last_seen_at: s.last_seen_at.toISOString(),
        last_seen_label: when(s.last_seen_at),
      })),
      highlighted_session,
    };
  },
);

/** "Dec 2, 2026, 1:26 PM EST": in the institution's time zone, so the page reads the same wherever it is drawn. */
function when(date: Date): string {
  return (
    date.toLocaleString("en-US", {
      dateStyle: "medium",
      timeStyle: "short",
      timeZone: institution().time_zone,
    }) + ` ${zoneName(date)}`
  );
}

function zoneName(date: Date): string {
  const part = new Intl.DateTimeFormat("en-US", { timeZone: institution().time_zone, timeZoneName: "short" })
    .formatToParts(date)
    .find((p) => p.type === "timeZoneName");
  return part?.value ?? "";
}
