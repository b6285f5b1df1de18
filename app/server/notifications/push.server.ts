import webpush from "web-push";
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { env } from "~/config/env.server";
import { institution } from "~/config/institution.server";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { pushDeliveries as pushDeliveriesTable, pushSubscriptions } from "~/server/db/schema";
import { recordSecurityEvent } from "~/server/audit/audit.server";
import { decryptField, encryptField, keyedHash } from "~/server/security/crypto.server";
import { logger } from "~/server/logger.server";
import { refusal, type Refusal } from "~/domain/refusals";

/**
 * Web Push (docs/product.md#notifications, docs/decisions/0023-web-push.md): a member's devices
 * that show the bell's notifications as system notifications.
 *
 * A device is added when the member presses "Allow notifications on this device" and the browser
 * hands over its push subscription (the push service's URL and the keys to encrypt to). Every
 * notification then queues one push per live device, in the notification's own transaction (a
 * trigger on `notifications`, migration 0048_web_push); the push-delivery job sends each queued
 * push once, encrypted (RFC 8291, aes128gcm) and signed with the VAPID key (RFC 8292). A device the
 * push service says is gone (404, 410) is removed and never sent to again.
 *
 * What a push carries is what the bell shows: the notification's title and body, and the link to
 * the notifications page; nothing else about the member.
 */

/** The browsers' push services: the server posts pushes only to these (and WEB_PUSH_EXTRA_ORIGINS). */
const PUSH_SERVICE_HOSTS = [
  "fcm.googleapis.com", // Chrome, Edge on Android, Opera, Samsung Internet
  "updates.push.services.mozilla.com", // Firefox
  "web.push.apple.com", // Safari
];
const PUSH_SERVICE_HOST_SUFFIXES = [".notify.windows.com", ".push.apple.com"]; // Edge on Windows, Safari

/** A device list is short; more than this is a script, not a person's phones and computers. */
export const PUSH_DEVICES_MAX = 10;
/** How long a push service keeps a push for a device that is offline. */
const PUSH_TTL_S = 24 * 60 * 60;
const ENDPOINT_MAX_CHARS = 1_000;
const SEND_TIMEOUT_MS = 10_000;
export const PUSH_ATTEMPTS_MAX = 6;
const BATCH_MAX = 200;

export interface PushKeys {
  public_key: string;
  private_key: string;
}

/** The VAPID key pair, or null when Web Push is not configured (then no device is offered it). */
export function pushKeys(): PushKeys | null {
  const { VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY } = env();
  return VAPID_PUBLIC_KEY && VAPID_PRIVATE_KEY
    ? { public_key: VAPID_PUBLIC_KEY, private_key: VAPID_PRIVATE_KEY }
    : null;
}

/** Whether a push service URL is one the server may post to: https at a known push service, or an extra origin. */
export function allowedPushEndpoint(endpoint: string, extra_origins: readonly string[] = extraOrigins()): boolean {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return false;
  }
  if (extra_origins.includes(url.origin)) return true;
  if (url.protocol !== "https:" || url.username || url.password || url.port) return false;
  return PUSH_SERVICE_HOSTS.includes(url.hostname) || PUSH_SERVICE_HOST_SUFFIXES.some((s) => url.hostname.endsWith(s));
}

function extraOrigins(): string[] {
  return (env().WEB_PUSH_EXTRA_ORIGINS ?? "").split(",").filter(Boolean);
}

export interface BrowserSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** A browser's PushSubscription.toJSON(), checked; null when it is not one we can send to. */
export function readSubscription(json: string, extra_origins?: readonly string[]): BrowserSubscription | null {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return null;
  }
  if (!value || typeof value !== "object") return null;
  const { endpoint, keys } = value as { endpoint?: unknown; keys?: { p256dh?: unknown; auth?: unknown } };
  if (typeof endpoint !== "string" || endpoint.length > ENDPOINT_MAX_CHARS) return null;
  if (!allowedPushEndpoint(endpoint, extra_origins)) return null;
  const p256dh = keys?.p256dh;
  const auth = keys?.auth;
  // An uncompressed P-256 point is 65 bytes (87 base64url characters); the auth secret 16 (22).
  if (typeof p256dh !== "string" || !/^[A-Za-z0-9_-]{87}=?$/.test(p256dh)) return null;
  if (typeof auth !== "string" || !/^[A-Za-z0-9_-]{22}(==)?$/.test(auth)) return null;
  if (Buffer.from(p256dh, "base64url")[0] !== 0x04) return null;
  return { endpoint, keys: { p256dh: p256dh.replace(/=+$/, ""), auth: auth.replace(/=+$/, "") } };
}

/** The associated data a device's encrypted subscription is bound to (its member's row). */
export const pushSubscriptionContext = (member_id: string) => `push_subscriptions.subscription:${member_id}`;
const associated = pushSubscriptionContext;
const endpointHash = (endpoint: string) => keyedHash("push-endpoint", endpoint);

export interface PushDevice {
  id: number;
  device: string;
  created_at: Date;
  /** The last characters of the device's push service URL, for its own browser to recognise it. */
  endpoint_suffix: string;
  /** This browser's own subscription (its URL was given with the request). */
  this_device: boolean;
}

/** The member's live devices, oldest first; `endpoint` marks the one the request came from. */
export async function listPushDevices(db: DbOrTx, member_id: string, endpoint?: string | null): Promise<PushDevice[]> {
  const rows = await db
    .select({
      id: pushSubscriptions.id,
      device: pushSubscriptions.device,
      created_at: pushSubscriptions.created_at,
      endpoint_hash: pushSubscriptions.endpoint_hash,
      subscription: pushSubscriptions.subscription,
    })
    .from(pushSubscriptions)
    .where(and(eq(pushSubscriptions.member_id, member_id), isNull(pushSubscriptions.removed_at)))
    .orderBy(asc(pushSubscriptions.id));
  const mine = endpoint ? endpointHash(endpoint) : null;
  return rows.map((r) => ({
    id: r.id,
    device: r.device,
    created_at: r.created_at,
    endpoint_suffix: endpointSuffix(r.subscription, member_id),
    this_device: r.endpoint_hash === mine,
  }));
}

/** Push service URLs end in a long random token; its last 16 characters tell a member's devices apart. */
export const ENDPOINT_SUFFIX_CHARS = 16;
function endpointSuffix(stored: string, member_id: string): string {
  try {
    const { endpoint } = JSON.parse(decryptField(stored, associated(member_id))) as BrowserSubscription;
    return endpoint.slice(-ENDPOINT_SUFFIX_CHARS);
  } catch {
    return "";
  }
}

/** What a push refusal says (docs/product.md#messages-settings); Account Settings says the rest too. */
export const PUSH_MESSAGES = {
  members_only: "Only members get notifications on their devices.",
  demo: "The published demo sign-ins cannot turn on notifications on a device: every visitor shares them.",
  not_configured: "Notifications on devices are not offered.",
  too_many: "You have 10 devices with notifications on, the most an account can have. Remove one first.",
  invalid: "This browser's notification subscription could not be used. Please try again.",
  not_found: "That device is not on your account, or its notifications are already off.",
} as const;

/** The device's id, and whether it was on the member's devices already; or why not. */
export type AddDeviceResult =
  { ok: true; id: number; already_added: boolean } | Refusal<"invalid" | "too_many" | "not_configured">;

/**
 * Adds the browser's subscription to the member's devices. A subscription already on this member
 * is answered as such; one another member had (a shared computer whose browser subscribed for
 * someone else before) is taken off that member first: a device shows one person's notifications.
 */
export async function addPushDevice(
  db: Db,
  member: { id: string; email: string },
  input: { subscription_json: string; device: string },
  origin: { request_id?: string | null; ip?: string | null },
  options: { extra_origins?: readonly string[]; keys?: PushKeys | null } = {},
): Promise<AddDeviceResult> {
  if (!(options.keys === undefined ? pushKeys() : options.keys))
    return refusal("not_found", PUSH_MESSAGES.not_configured, { code: "not_configured" });
  const subscription = readSubscription(input.subscription_json, options.extra_origins);
  if (!subscription) return refusal("bad_input", PUSH_MESSAGES.invalid, { code: "invalid" });
  const hash = endpointHash(subscription.endpoint);
  const device = input.device.slice(0, 200) || "Unknown browser on unknown device";
  return db.transaction(async (tx): Promise<AddDeviceResult> => {
    // One member's devices change one at a time (two tabs pressing Allow together).
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`push:${member.id}`}))`);
    const [existing] = await tx
      .select({ id: pushSubscriptions.id, member_id: pushSubscriptions.member_id })
      .from(pushSubscriptions)
      .where(and(eq(pushSubscriptions.endpoint_hash, hash), isNull(pushSubscriptions.removed_at)));
    if (existing?.member_id === member.id) return { ok: true, id: existing.id, already_added: true };
    const live = await listPushDevices(tx, member.id);
    if (live.length >= PUSH_DEVICES_MAX) return refusal("conflict", PUSH_MESSAGES.too_many, { code: "too_many" });
    if (existing)
      await tx
        .update(pushSubscriptions)
        .set({ removed_at: new Date(), removed_reason: "turned_off" })
        .where(eq(pushSubscriptions.id, existing.id));
    const [row] = await tx
      .insert(pushSubscriptions)
      .values({
        member_id: member.id,
        subscription: encryptField(JSON.stringify(subscription), associated(member.id)),
        endpoint_hash: hash,
        device,
      })
      .returning({ id: pushSubscriptions.id });
    await recordSecurityEvent(tx, {
      action: "auth.push.device_added",
      user_id: member.id,
      email: member.email,
      detail: { device },
      request_id: origin.request_id ?? null,
      ip: origin.ip ?? null,
    });
    return { ok: true, id: row!.id, already_added: false };
  });
}

/**
 * Turns notifications off for one of the member's devices, named by its id (the device list's
 * Remove) or by its push service URL (this browser's "Turn off"). Another member's device, or one
 * already off, matches nothing.
 */
export async function removePushDevice(
  db: Db,
  member: { id: string; email: string },
  which: { id: number } | { endpoint: string },
  origin: { request_id?: string | null; ip?: string | null },
): Promise<{ ok: true } | Refusal<"not_found">> {
  const match =
    "id" in which
      ? eq(pushSubscriptions.id, which.id)
      : eq(pushSubscriptions.endpoint_hash, endpointHash(which.endpoint.slice(0, ENDPOINT_MAX_CHARS)));
  return db.transaction(async (tx): Promise<{ ok: true } | Refusal<"not_found">> => {
    const rows = await tx
      .update(pushSubscriptions)
      .set({ removed_at: new Date(), removed_reason: "turned_off" })
      .where(and(match, eq(pushSubscriptions.member_id, member.id), isNull(pushSubscriptions.removed_at)))
      .returning({ device: pushSubscriptions.device });
    if (rows.length === 0) return refusal("not_found", PUSH_MESSAGES.not_found, { code: "not_found" });
    await recordSecurityEvent(tx, {
      action: "auth.push.device_removed",
      user_id: member.id,
      email: member.email,
      detail: { device: rows[0]!.device },
      request_id: origin.request_id ?? null,
      ip: origin.ip ?? null,
    });
    return { ok: true };
  });
}

/** What the service worker receives (public/push-worker.js): the bell's words and where to go. */
export interface PushPayload {
  title: string;
  body: string;
  url: string;
  /** The same notification pushed twice replaces itself on the device rather than showing twice. */
  tag: string;
}

export function pushPayload(notification: { id: number; title: string; body: string }): PushPayload {
  return {
    title: notification.title,
    body: notification.body,
    url: "/dashboard/notifications",
    tag: `notification-${notification.id}`,
  };
}

export interface PushDeliveryCounts {
  [name: string]: number | string | boolean | null;
  web_push: "configured" | "not configured";
  tried: number;
  delivered: number;
  failed: number;
  devices_removed: number;
}

export class PushDeliveryFailed extends Error {}

type Sender = (request: { endpoint: string; headers: Record<string, string>; body: Buffer | null }) => Promise<number>;

/** Posts one push with fetch (web-push's own sender speaks https only; a test's push service may be http). */
const postPush: Sender = async ({ endpoint, headers, body }) => {
  const response = await fetch(endpoint, {
    method: "POST",
    headers,
    body: body ? new Uint8Array(body) : null,
    redirect: "error",
    signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
  });
  await response.body?.cancel();
  return response.status;
};

/**
 * Sends the queued pushes, oldest first: each is tried at most PUSH_ATTEMPTS_MAX times, waiting
 * 1, 2, 4 ... minutes after a failure. A retried push carries the same Topic header, so a push
 * service still holding the first replaces it, and the same tag, so a device that showed it shows
 * it once. A push is not sent after its device was removed, nor once it is older than its TTL.
 * The TTL is counted on the database's clock, as the push services count it: the job clock may run
 * ahead (JOB_CLOCK=adjustable, moved days forward by the demo or the browser tests), which made
 * every new push look expired; the retries' waits follow the job clock, as every job does.
 */
export async function deliverPushes(
  db: Db,
  job_now: Date,
  options: { keys?: PushKeys | null; send?: Sender; extra_origins?: readonly string[] } = {},
): Promise<PushDeliveryCounts> {
  const keys = options.keys === undefined ? pushKeys() : options.keys;
  const counts: PushDeliveryCounts = {
    web_push: keys ? "configured" : "not configured",
    tried: 0,
    delivered: 0,
    failed: 0,
    devices_removed: 0,
  };
  if (!keys || env().MUTUAL_DRILL === "1") return counts;
  const send = options.send ?? postPush;
  const now = job_now.toISOString();
  const due = await db.execute<{
    id: number;
    notification_id: number;
    title: string;
    body: string;
    subscription_id: number;
    member_id: string;
    subscription: string;
  }>(sql`
    select d.id, d.notification_id, n.title, n.body, s.id as subscription_id, s.member_id, s.subscription
      from push_deliveries d
      join notifications n on n.id = d.notification_id
      join push_subscriptions s on s.id = d.subscription_id and s.removed_at is null
     where d.sent_at is null and d.attempts < ${PUSH_ATTEMPTS_MAX}
       and d.created_at > now() - ${`${PUSH_TTL_S} seconds`}::interval
       and (d.attempts = 0 or d.created_at + interval '1 minute' * power(2, d.attempts - 1) <= ${now}::timestamptz)
     order by d.id
     limit ${BATCH_MAX}`);
  const vapidDetails = {
    subject: `mailto:${institution().support_email}`,
    publicKey: keys.public_key,
    privateKey: keys.private_key,
  };
  const gone = new Set<number>();
  for (const row of due.rows) {
    const subscription_id = Number(row.subscription_id);
    if (gone.has(subscription_id)) continue;
    counts.tried++;
    let outcome: string;
    try {
      const subscription = JSON.parse(decryptField(row.subscription, associated(row.member_id))) as BrowserSubscription;
      if (!allowedPushEndpoint(subscription.endpoint, options.extra_origins))
        throw new Error("push service not allowed");
      const payload = pushPayload({ id: Number(row.notification_id), title: row.title, body: row.body });
      const request = webpush.generateRequestDetails(subscription, JSON.stringify(payload), {
        vapidDetails,
        TTL: PUSH_TTL_S,
        urgency: "normal",
        topic: `n${row.notification_id}`,
      });
      const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)]));
      const status = await send({ endpoint: request.endpoint, headers, body: request.body as Buffer | null });
      outcome = status >= 200 && status < 300 ? "sent" : status === 404 || status === 410 ? "gone" : `HTTP ${status}`;
    } catch (error) {
      outcome = (error as Error).name === "TimeoutError" ? "timeout" : String((error as Error).message).slice(0, 200);
    }
    if (outcome === "sent") {
      counts.delivered++;
      await db
        .update(pushDeliveriesTable)
        .set({ sent_at: new Date(), attempts: sql`attempts + 1`, error: null })
        .where(eq(pushDeliveriesTable.id, Number(row.id)));
    } else {
      counts.failed++;
      if (outcome === "gone") {
        gone.add(subscription_id);
        counts.devices_removed++;
        await db
          .update(pushSubscriptions)
          .set({ removed_at: new Date(), removed_reason: "gone" })
          .where(and(eq(pushSubscriptions.id, subscription_id), isNull(pushSubscriptions.removed_at)));
      }
      await db
        .update(pushDeliveriesTable)
        .set({ attempts: sql`attempts + 1`, error: outcome === "gone" ? "the device is gone (404/410)" : outcome })
        .where(eq(pushDeliveriesTable.id, Number(row.id)));
    }
  }
  if (counts.failed > 0) logger.warn({ push: counts }, "some pushes were not accepted");
  // Only every push refused by a reachable service is the run's failure (a device that is gone is no outage).
  if (counts.failed > counts.devices_removed && counts.delivered === 0)
    throw new PushDeliveryFailed(
      `No push service accepted any of ${counts.failed - counts.devices_removed} push(es); each error is on its push_deliveries row.`,
    );
  return counts;
}
