import crypto from "node:crypto";
import net from "node:net";
import { lt, sql } from "drizzle-orm";
import { db } from "~/server/db/db.server";
import type { DbOrTx } from "~/server/db/client.server";
import { rateLimitCounters } from "~/server/db/schema";

/**
 * Fixed-window rate limits kept in the database, so every app process counts the same hits
 * (docs/architecture.md#drivers: any number of app processes share one PostgreSQL). Used for the
 * contact form, and meant for sign-in, one-time codes and applications.
 *
 * A window is `window_ms` long and aligned to the Unix epoch; a key's hits in one window are one
 * row, bumped by a single atomic `INSERT ... ON CONFLICT DO UPDATE ... RETURNING`, so two
 * processes racing on the same key both count. A fixed window lets through at most 2 x limit
 * across a window boundary; that is the accepted price of one row per key and window.
 */
export interface RateLimitRule {
  /**
   * What is being limited and for whom, e.g. `contact:ip:203.0.113.9`. A key longer than 200
   * characters is stored as its start and a hash of the whole (`boundedRateLimitKey`).
   */
  key: string;
  /** Hits allowed per window; the hit after that is refused. */
  limit: number;
  window_ms: number;
}

export interface RateLimitResult {
  allowed: boolean;
  /** Hits in this window, this one included (refused hits count too). */
  hits: number;
  /** How many more hits this window allows after this one. */
  remaining: number;
  /** Seconds until the window ends: a Retry-After value when refused (0 when allowed). */
  retry_after_s: number;
  window_start: Date;
}

export const RATE_LIMIT_KEY_MAX_CHARS = 200;
const KEEP_CHARS = 120;

/**
 * A key of at most RATE_LIMIT_KEY_MAX_CHARS: a longer one becomes its first 120 characters, "#"
 * and the SHA-256 of the whole key, so two different long keys still count apart. Keys hold
 * what a request says (an email, a client address from X-Forwarded-For), so their length is the
 * client's choice: a limit must never fail on it.
 */
export function boundedRateLimitKey(key: string): string {
  if (key.length <= RATE_LIMIT_KEY_MAX_CHARS) return key;
  return `${key.slice(0, KEEP_CHARS)}#${crypto.createHash("sha256").update(key).digest("hex")}`;
}

/**
 * The client address as a rate-limit key part and for the records: a valid IPv4 or IPv6 address
 * as is (an IPv4 address written as IPv6, `::ffff:203.0.113.9`, as IPv4, so both count
 * together); anything else, which only a client that bypasses the proxy can send as
 * X-Forwarded-For, as `invalid:` and a short hash of it, so it is bounded and cannot pass for a
 * real address.
 */
export function clientAddressKey(address: string): string {
  const trimmed = address.trim();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(trimmed)?.[1];
  if (mapped && net.isIPv4(mapped)) return mapped;
  if (net.isIP(trimmed) !== 0) return trimmed.toLowerCase();
  if (trimmed === "" || trimmed === "unknown") return "unknown";
  return `invalid:${crypto.createHash("sha256").update(trimmed).digest("hex").slice(0, 32)}`;
}

/** Counts one hit against `key` and says whether it is within the limit. */
export async function hitRateLimit(
  rule: RateLimitRule,
  options: { now?: Date; database?: DbOrTx } = {},
): Promise<RateLimitResult> {
  const { limit, window_ms } = rule;
  if (rule.key.length === 0) throw new RangeError("rate limit key must not be empty");
  const key = boundedRateLimitKey(rule.key);
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError("rate limit must be a positive whole number");
  if (!Number.isSafeInteger(window_ms) || window_ms < 1000)
    throw new RangeError("rate limit window must be at least 1,000 ms");

  const now_ms = (options.now ?? new Date()).getTime();
  const window_start = new Date(Math.floor(now_ms / window_ms) * window_ms);
  const database = options.database ?? (await db());
  const [row] = await database
    .insert(rateLimitCounters)
    .values({ key, window_start, hits: 1 })
    .onConflictDoUpdate({
      target: [rateLimitCounters.key, rateLimitCounters.window_start],
      set: { hits: sql`${rateLimitCounters.hits} + 1` },
    })
    .returning({ hits: rateLimitCounters.hits });
  const hits = row!.hits;
  const allowed = hits <= limit;
  const window_end_ms = window_start.getTime() + window_ms;
  return {
    allowed,
    hits,
    remaining: Math.max(0, limit - hits),
    retry_after_s: allowed ? 0 : Math.max(1, Math.ceil((window_end_ms - now_ms) / 1000)),
    window_start,
  };
}

/**
 * Deletes counters of windows that started before `before`. Windows are short, so anything
 * older than the longest window in use can go; the hourly prune-expired job calls it
 * (app/server/jobs/prune.server.ts).
 * Returns how many rows it removed.
 */
export async function pruneRateLimitCounters(before: Date, options: { database?: DbOrTx } = {}): Promise<number> {
  const database = options.database ?? (await db());
  const removed = await database
    .delete(rateLimitCounters)
    .where(lt(rateLimitCounters.window_start, before))
    .returning({ key: rateLimitCounters.key });
  return removed.length;
}
