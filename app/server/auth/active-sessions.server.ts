import { and, desc, eq, gt, ne } from "drizzle-orm";
import type { Actor } from "~/domain/actor";
import { refusal, type Refusal } from "~/domain/refusals";
import type { DbOrTx } from "~/server/db/client.server";
import { sessions } from "~/server/db/schema";
import { recordSecurityEvent } from "~/server/audit/audit.server";
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from "./auth.server";
import { describeUserAgent } from "./devices.server";
import { approximatePlace } from "./places.server";

/**
 * A person's signed-in sessions (docs/product.md#sessions-and-devices): the list Account Settings
 * shows, and ending one or all the others.
 *
 * Sessions live only in the database and every request reads its session there
 * (session.server.ts: no cookie cache, no secondary storage), so a session ended here is refused
 * on its next request in every app process at once.
 */
export interface ActiveSession {
  id: string;
  browser: string;
  device: string;
  started_at: Date;
  last_seen_at: Date;
  /** Approximate, from the network address, when a city database is configured (places.server.ts). */
  place: string | null;
  /** The session of the request that asks. */
  current: boolean;
}

/** Sessions still alive (not idle 15 minutes, not 12 hours old), the current one first, then the most recent. */
export async function listActiveSessions(
  db: DbOrTx,
  user_id: string,
  current_session_id: string,
  now: Date = new Date(),
): Promise<ActiveSession[]> {
  const rows = await db
    .select({
      id: sessions.id,
      user_agent: sessions.userAgent,
      ip_address: sessions.ipAddress,
      created_at: sessions.createdAt,
      last_active_at: sessions.lastActiveAt,
      expires_at: sessions.expiresAt,
    })
    .from(sessions)
    .where(
      and(
        eq(sessions.userId, user_id),
        gt(sessions.lastActiveAt, new Date(now.getTime() - SESSION_IDLE_MS)),
        gt(sessions.createdAt, new Date(now.getTime() - SESSION_ABSOLUTE_MS)),
        gt(sessions.expiresAt, now),
      ),
    )
    .orderBy(desc(sessions.lastActiveAt))
    .limit(50);
  const list = rows.map((row) => {
    const described = describeUserAgent(row.user_agent);
    return {
      id: row.id,
      browser: described.browser,
      device: described.device,
      started_at: row.created_at,
      last_seen_at: row.last_active_at,
      place: approximatePlace(row.ip_address),
      current: row.id === current_session_id,
    };
  });
  return [...list.filter((s) => s.current), ...list.filter((s) => !s.current)];
}

/** What ending a session is refused with (docs/product.md#messages-settings). */
export const END_SESSION_MESSAGES = {
  current: "To end this session, sign out.",
  not_found: "That session has already ended, or is not yours.",
} as const;

export type EndSessionResult = { ok: true } | Refusal<"current" | "not_found">;

/**
 * Ends one of the person's other sessions (this one ends by signing out). Another person's
 * session, or one already ended, is "not found": nothing changes.
 */
export async function endSession(
  db: DbOrTx,
  user: Actor,
  current_session_id: string,
  session_id: string,
  origin: { request_id?: string; ip?: string } = {},
): Promise<EndSessionResult> {
  if (session_id === current_session_id) return refusal("bad_input", END_SESSION_MESSAGES.current, { code: "current" });
  const ended = await db
    .delete(sessions)
    .where(and(eq(sessions.id, session_id), eq(sessions.userId, user.id)))
    .returning({ id: sessions.id });
  if (ended.length === 0) return refusal("not_found", END_SESSION_MESSAGES.not_found, { code: "not_found" });
  await recordSecurityEvent(db, {
    action: "auth.session.ended",
    user_id: user.id,
    email: user.email,
    detail: { sessions_ended: 1 },
    request_id: origin.request_id,
    ip: origin.ip,
  });
  return { ok: true };
}

/** Ends every session of the person but this one; how many ended. */
export async function endOtherSessions(
  db: DbOrTx,
  user: Actor,
  current_session_id: string,
  origin: { request_id?: string; ip?: string } = {},
): Promise<{ ended: number }> {
  const ended = await db
    .delete(sessions)
    .where(and(eq(sessions.userId, user.id), ne(sessions.id, current_session_id)))
    .returning({ id: sessions.id });
  if (ended.length > 0)
    await recordSecurityEvent(db, {
      action: "auth.session.ended",
      user_id: user.id,
      email: user.email,
      detail: { sessions_ended: ended.length, all_others: true },
      request_id: origin.request_id,
      ip: origin.ip,
    });
  return { ended: ended.length };
}
