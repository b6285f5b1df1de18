import { withDatabase } from "~/server/db/db.server";
import type { SessionUser } from "~/server/auth/session.server";
import {
  listNotifications,
  markAllRead,
  markRead,
  NOTIFICATIONS_PAGE_MAX,
} from "~/server/notifications/notifications.server";

/** What /dashboard/notifications calls (its view-model): each opens the database itself. */

export const loadNotifications = withDatabase(async (database, user: SessionUser, before_id?: number) => {
  const list = await listNotifications(database, user.id, { limit: NOTIFICATIONS_PAGE_MAX, before_id });
  return list.map((n) => ({ ...n, created_at: n.created_at.toISOString() }));
});

/** Marks one notification read (`id`) or all of them (`intent=read-all`). */
export const notificationAction = withDatabase(
  async (database, user: SessionUser, form: FormData): Promise<{ ok: true; marked: number }> => {
    if (form.get("intent") === "read-all") return { ok: true, marked: await markAllRead(database, user.id) };
    const id = Number(form.get("id"));
    return { ok: true, marked: (await markRead(database, user.id, id)) ? 1 : 0 };
  },
);
