import crypto from "node:crypto";
import Bowser from "bowser";
import { sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { knownDevices } from "~/server/db/schema";
import { keyedHash, sameHash } from "~/server/security/crypto.server";
import { COOKIE_PREFIX } from "./auth.server";
import { usesSecureCookies } from "../http/cookies.server";

/**
 * Devices (docs/product.md#sessions-and-devices): what a browser is, from its user agent (Bowser,
 * a maintained parser; no place is guessed from the network address, as no local geolocation
 * database is configured), and whether a person has signed in from it before.
 *
 * A device is named by a long-lived cookie holding a random id and its keyed signature
 * (HttpOnly, SameSite=Lax, 400 days, the longest browsers keep a cookie). The id is stored only as
 * a keyed hash, per person: the same browser is a new device for each person who signs in on it.
 * Clearing cookies makes the next sign-in a new device again, which errs on the side of telling.
 */
export const DEVICE_COOKIE = `${COOKIE_PREFIX}.device`;
const DEVICE_COOKIE_MAX_AGE_S = 400 * 24 * 60 * 60;

export interface DeviceDescription {
  /** "Chrome 131", "Safari 18", or "Unknown browser". */
  browser: string;
  /** "macOS", "iPhone (iOS 18.1)", "Windows 10", or "Unknown device". */
  device: string;
  /** "Chrome 131 on macOS": one line for lists and emails. */
  label: string;
}

/** The browser and device a user agent names, as a person would say them. */
export function describeUserAgent(user_agent: string | null | undefined): DeviceDescription {
  const ua = (user_agent ?? "").trim();
  if (!ua) return { browser: "Unknown browser", device: "Unknown device", label: "Unknown browser on unknown device" };
  const parsed = Bowser.parse(ua);
  const major = parsed.browser.version?.split(".")[0];
  const browser = parsed.browser.name ? `${parsed.browser.name}${major ? ` ${major}` : ""}` : "Unknown browser";
  const os = parsed.os.name ? `${parsed.os.name}${parsed.os.versionName ? ` ${parsed.os.versionName}` : ""}` : "";
  const model = parsed.platform.model;
  const kind = parsed.platform.type;
  let device: string;
  if (model && os) device = `${model} (${os})`;
  else if (model) device = model;
  else if (os && (kind === "mobile" || kind === "tablet")) device = `${os} ${kind === "tablet" ? "tablet" : "phone"}`;
  else device = os || "Unknown device";
  return { browser, device, label: `${browser} on ${device}` };
}

function sign(id: string): string {
  return keyedHash("device-cookie", id);
}

/** The device id this browser's cookie carries, when its signature is ours. */
export function deviceIdFromCookie(cookie_header: string): string | null {
  for (const part of cookie_header.split(";")) {
    const i = part.indexOf("=");
    if (i <= 0 || part.slice(0, i).trim() !== DEVICE_COOKIE) continue;
    const [id, signature] = decodeURIComponent(part.slice(i + 1).trim()).split(".");
    if (!id || !signature || !/^[A-Za-z0-9_-]{22,64}$/.test(id)) return null;
    return sameHash(signature, sign(id)) ? id : null;
  }
  return null;
}

function deviceCookie(id: string): string {
  const secure = usesSecureCookies() ? "; Secure" : "";
  return `${DEVICE_COOKIE}=${encodeURIComponent(`${id}.${sign(id)}`)}; Max-Age=${DEVICE_COOKIE_MAX_AGE_S}; Path=/; HttpOnly; SameSite=Lax${secure}`;
}

/**
 * At a sign-in: whether this person has signed in from this browser before, and the cookie that
 * names it from now on (set again at each sign-in, so it lives 400 days from the last one).
 */
export async function noteSignInDevice(
  db: DbOrTx,
  user_id: string,
  cookie_header: string,
  now: Date = new Date(),
): Promise<{ known: boolean; set_cookie: string }> {
  const cookie_id = deviceIdFromCookie(cookie_header);
  const id = cookie_id ?? crypto.randomBytes(24).toString("base64url");
  const device_hash = keyedHash("device", `${user_id}\u0000${id}`);
  // One statement: noted if new, its time moved if known. `xmax = 0` is PostgreSQL's mark of a row
  // this statement inserted rather than updated. A browser without our cookie is new for certain.
  const [row] = await db
    .insert(knownDevices)
    .values({ user_id, device_hash, first_seen_at: now, last_seen_at: now })
    .onConflictDoUpdate({ target: [knownDevices.user_id, knownDevices.device_hash], set: { last_seen_at: now } })
    .returning({ inserted: sql<boolean>`(xmax = 0)` });
  const known = cookie_id !== null && row?.inserted === false;
  return { known, set_cookie: deviceCookie(id) };
}
