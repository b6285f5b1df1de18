import { lt, sql } from "drizzle-orm";
import { db } from "~/server/db/db.server";
import type { DbOrTx } from "~/server/db/client.server";
import { rateLimitCounters } from "~/server/db/schema";

/**
 * Fixed-window rate limits kept in the database, so every app process counts the same hits
 * (ARCHITECTURE "Scaling out"). Used for the contact form, and meant for sign-in, one-time
 * codes and applications.
 *
 * A window is `window_ms` long and aligned to the Unix epoch; a key's hits in one window are one
 * row, bumped by a single atomic `INSERT ... ON CONFLICT DO UPDATE ... RETURNING`, so two
 * processes racing on the same key both count. A fixed window lets through at most 2 x limit
 * across a window boundary; that is the accepted price of one row per key and window.
 */
export interface RateLimitRule {
  /** What is being limited and for whom, e.g. `contact:ip:203.0.113.9`. At most 200 characters. */
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

/** Counts one hit against `key` and says whether it is within the limit. */
export async function hitRateLimit(rule: RateLimitRule, options: { now?: Date; database?: DbOrTx } = {}): Promise<RateLimitResult> {
  const { key, limit, window_ms } = rule;
  if (key.length === 0 || key.length > RATE_LIMIT_KEY_MAX_CHARS) throw new RangeError(`rate limit key must be 1 to ${RATE_LIMIT_KEY_MAX_CHARS} characters`);
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError("rate limit must be a positive whole number");
  if (!Number.isSafeInteger(window_ms) || window_ms < 1000) throw new RangeError("rate limit window must be at least 1,000 ms");

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
 * older than the longest window in use can go; the jobs loop is meant to call this hourly.
 * Returns how many rows it removed.
 */
export async function pruneRateLimitCounters(before: Date, options: { database?: DbOrTx } = {}): Promise<number> {
  const database = options.database ?? (await db());
  const removed = await database.delete(rateLimitCounters).where(lt(rateLimitCounters.window_start, before)).returning({ key: rateLimitCounters.key });
  return removed.length;
}
