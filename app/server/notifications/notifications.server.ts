import { and, desc, eq, isNull, lt, sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { notifications, type NotificationKind } from "~/server/db/schema";

/**
 * Notifications (docs/product.md#notifications): the bell's entries. Every entry comes from a real
 * event, written by that event's code with `notify` — inside the event's own database transaction
 * when it has one, so a transfer and its notifications commit together or not at all.
 *
 * Other areas call `notify(db, { member_id, kind: "sign_in_alert" | "application_decision", ... })`.
 */
export interface NotificationInput {
  member_id: string;
  kind: NotificationKind;
  title: string;
  body: string;
  /** When the event happened (defaults to the database's now()). */
  at?: Date;
}

export interface NotificationView {
  id: number;
  kind: NotificationKind;
  title: string;
  body: string;
  read: boolean;
  created_at: Date;
}

/** A notification's title and body are cut to these (the ledger's notifications too). */
export const NOTIFICATION_TITLE_MAX = 140;
export const NOTIFICATION_BODY_MAX = 1000;
export const NOTIFICATIONS_PAGE_MAX = 50;

export async function notify(db: DbOrTx, input: NotificationInput): Promise<void> {
  if (!input.member_id) throw new Error("notify: member_id is required");
  await db.insert(notifications).values({
    member_id: input.member_id,
    kind: input.kind,
    title: input.title.slice(0, NOTIFICATION_TITLE_MAX),
    body: input.body.slice(0, NOTIFICATION_BODY_MAX),
    ...(input.at ? { created_at: input.at } : {}),
  });
}

/**
 * Many notifications at once (an export tells each member whose payment went out): one insert
 * whose rows travel as one JSON parameter. A multi-row insert with a parameter per value cost the
 * ACH export of 10,000 payments about 0.5 s, mostly in building its 50,000 parameters
 * (bench/LOG.md "ACH export").
 */
export async function notifyAll(db: DbOrTx, inputs: readonly NotificationInput[]): Promise<void> {
  if (inputs.some((input) => !input.member_id)) throw new Error("notify: member_id is required");
  if (inputs.length === 0) return;
  const rows = inputs.map((input) => ({
    member_id: input.member_id,
    kind: input.kind,
    title: input.title.slice(0, NOTIFICATION_TITLE_MAX),
    body: input.body.slice(0, NOTIFICATION_BODY_MAX),
    created_at: input.at?.toISOString() ?? null,
  }));
  await db.execute(sql`
    insert into notifications (member_id, kind, title, body, created_at)
    select r.member_id, r.kind, r.title, r.body, coalesce(r.created_at, now())
      from json_to_recordset(${JSON.stringify(rows)}::json) as r(member_id text, kind text, title text, body text, created_at timestamptz)`);
}

/** Newest first; `before_id` pages further back. */
export async function listNotifications(
  db: DbOrTx,
  member_id: string,
  options: { limit?: number; before_id?: number } = {},
): Promise<NotificationView[]> {
  const limit = Math.min(Math.max(options.limit ?? 10, 1), NOTIFICATIONS_PAGE_MAX);
  const rows = await db
    .select()
    .from(notifications)
    .where(
      and(
        eq(notifications.member_id, member_id),
        options.before_id ? lt(notifications.id, options.before_id) : undefined,
      ),
    )
    .orderBy(desc(notifications.member_id), desc(notifications.id))
    .limit(limit);
  return rows.map((r) => ({
    id: Number(r.id),
    kind: r.kind,
    title: r.title,
    body: r.body,
    read: r.read_at !== null,
    created_at: r.created_at,
  }));
}

/**
 * The top bar's bell: the newest `count` notifications and how many are unread, in one query (the
 * count rides on each row; a member without notifications has no rows and nothing unread).
 */
export async function bellNotifications(
  db: DbOrTx,
  member_id: string,
  count: number,
): Promise<{ notifications: NotificationView[]; unread: number }> {
  const rows = await db
    .select({
      id: notifications.id,
      kind: notifications.kind,
      title: notifications.title,
      body: notifications.body,
      read_at: notifications.read_at,
      created_at: notifications.created_at,
      unread: sql<number>`(select count(*)::int from ${notifications} u where u.member_id = ${member_id} and u.read_at is null)`,
    })
    .from(notifications)
    .where(eq(notifications.member_id, member_id))
    .orderBy(desc(notifications.member_id), desc(notifications.id))
    .limit(Math.min(Math.max(count, 1), NOTIFICATIONS_PAGE_MAX));
  return {
    notifications: rows.map((n) => ({
      id: Number(n.id),
      kind: n.kind,
      title: n.title,
      body: n.body,
      read: n.read_at !== null,
      created_at: n.created_at,
    })),
    unread: Number(rows[0]?.unread ?? 0),
  };
}

export async function unreadCount(db: DbOrTx, member_id: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(notifications)
    .where(and(eq(notifications.member_id, member_id), isNull(notifications.read_at)));
  return Number(row?.n ?? 0);
}

/** Marks one of the member's own notifications read (another member's id matches nothing). */
export async function markRead(db: DbOrTx, member_id: string, id: number): Promise<boolean> {
  if (!Number.isSafeInteger(id) || id < 1) return false;
  const rows = await db
    .update(notifications)
    .set({ read_at: sql`now()` })
    .where(and(eq(notifications.member_id, member_id), eq(notifications.id, id), isNull(notifications.read_at)))
    .returning({ id: notifications.id });
  return rows.length > 0;
}

export async function markAllRead(db: DbOrTx, member_id: string): Promise<number> {
  const rows = await db
    .update(notifications)
    .set({ read_at: sql`now()` })
    .where(and(eq(notifications.member_id, member_id), isNull(notifications.read_at)))
    .returning({ id: notifications.id });
  return rows.length;
}
