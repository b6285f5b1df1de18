import type { FormReply } from "~/server/http/form.server";
import type { NotificationGroup } from "~/domain/notification-channels";

/** What the settings routes answer (page actions and the dialogs' fetchers share them). */

export interface ProfileData {
  email: string;
  first_name: string;
  last_name: string;
  phone: string;
  street: string;
  city: string;
  state: string;
  postal_code: string;
  country: string;
  initials: string;
  image_url: string | null;
  /** Masked ("•••-••-1234"); the full number is never sent to the browser. */
  taxpayer_ids: { party: "member" | "joint"; label: string; masked: string }[];
}

export type ProfileIntent = "profile" | "image" | "remove-image";

export interface ProfileActionData {
  intent: ProfileIntent;
  ok: boolean;
  message: string;
  /** The form's messages and values (docs/contributing.md#add-a-form). */
  reply?: FormReply;
}

export interface AccountData {
  email: string;
  settings: {
    two_factor: boolean;
    login_alerts: boolean;
  };
  totp_enrolled: boolean;
  demo_locked: boolean;
  /** An enrolment started and waiting for its confirming code. */
  totp_setup: TotpSetupData | null;
  /** A member's delivery of statements and notices (E-SIGN); null for staff. */
  electronic_delivery?: ElectronicDeliveryData | null;
  /** The person's passkeys in use, oldest first. */
  passkeys: PasskeyData[];
  /** Staff are required by the profile to have a passkey, and this person has none yet. */
  passkey_required: boolean;
  /** The person's live sessions, this one first. */
  sessions: SessionData[];
  /** A session named by the login alert's link (?session=), to show it first and marked. */
  highlighted_session: string | null;
  /**
   * Notifications on the member's devices (Web Push); null when not offered: staff, or no VAPID
   * keys configured (docs/product.md#settings).
   */
  push?: PushData | null;
  /**
   * Text messages: null when not offered (staff, the demo sign-ins, or no SMS provider configured,
   * docs/product.md#text-messages).
   */
  sms?: SmsData | null;
}

/** A choice per group of notifications (app/domain/notification-channels.ts). */
export type ChannelChoicesData = Record<NotificationGroup, boolean>;

export interface SmsData {
  /** The member's number, masked ("•••• 0143"), or null when none was added. */
  number: {
    masked: string;
    verified: boolean;
    /** A code waits to be typed until then (words in the institution's time zone). */
    code_expires_label: string | null;
  } | null;
  choices: ChannelChoicesData;
}

export interface PushData {
  /** The VAPID public key the browser subscribes with (base64url). */
  public_key: string;
  devices: PushDeviceData[];
  /** Which groups of notifications the member's devices show. */
  choices: ChannelChoicesData;
}

export interface PushDeviceData {
  id: number;
  device: string;
  created_at: string;
  created_label: string;
  /** The end of the device's push service URL: tells the browser which entry is itself. */
  endpoint_suffix: string;
}

/** Dates come as ISO strings and as words in the institution's time zone (the same on server and browser). */
export interface PasskeyData {
  id: number;
  name: string;
  created_at: string;
  created_label: string;
  last_used_at: string | null;
  last_used_label: string | null;
  synced: boolean;
}

export interface SessionData {
  id: string;
  browser: string;
  device: string;
  started_at: string;
  started_label: string;
  last_seen_at: string;
  last_seen_label: string;
  /** Approximate, from the network address; null without a city database (docs/product.md#sessions-and-devices). */
  place: string | null;
  current: boolean;
}

export interface ElectronicDeliveryData {
  delivery: "electronic" | "paper";
  /** Whether the member ever answered (consented, declined or withdrew). */
  answered: boolean;
  /** When the latest choice was made (ISO). */
  since: string | null;
  /** The profile's fee for withdrawing, formatted; null when free. */
  withdrawal_fee: string | null;
}

export interface TotpSetupData {
  uri: string;
  secret: string;
  qr_data_url: string;
}

export type AccountIntent =
  | "notifications"
  | "password"
  | "totp-start"
  | "totp-confirm"
  | "totp-cancel"
  | "totp-disable"
  | "paper-delivery"
  | "passkey-options"
  | "passkey-add"
  | "passkey-remove"
  | "passkey-remove-options"
  | "passkey-remove-confirm"
  | "session-end"
  | "sessions-end-others"
  | "push-subscribe"
  | "push-unsubscribe"
  | "push-remove"
  | "channel-choices"
  | "sms-add"
  | "sms-resend"
  | "sms-verify"
  | "sms-remove";

export interface AccountActionData {
  intent: AccountIntent;
  ok: boolean;
  /** One of the settings messages (docs/product.md#messages-settings). */
  message: string;
  /** What exactly happened, under the message. */
  detail?: string;
  /** The form's messages and values (docs/contributing.md#add-a-form). */
  reply?: FormReply;
  totp_setup?: TotpSetupData | null;
  /**
   * WebAuthn options for the browser (JSON as @simplewebauthn/browser takes it): creating a
   * passkey after "passkey-options", or confirming a removal after "passkey-remove-options".
   */
  passkey_options?: unknown;
  /** The passkey a removal is about. */
  passkey_id?: number;
}
