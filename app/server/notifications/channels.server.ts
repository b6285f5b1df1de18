import { eq, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { notificationChannelChoices, type NotificationKind } from "~/server/db/schema";
import { recordSecurityEvent } from "~/server/audit/audit.server";
import {
  channelChoices,
  NOTIFICATION_GROUPS,
  NOTIFICATION_KIND_GROUPS,
  type ChannelChoices,
  type NotificationChannel,
  type NotificationGroup,
} from "~/domain/notification-channels";

/**
 * What a member chose to receive by push and by text message, per group of notification kinds
 * (docs/product.md#notification-channels). The trigger on `notifications` reads the same rows when
 * it queues pushes and texts (migration notification_channels); this module reads and writes them
 * for Account Settings.
 */

// Every notification kind has a group: a kind added to the schema without one fails to compile here.
const EVERY_KIND_GROUPED: Record<NotificationKind, NotificationGroup> = NOTIFICATION_KIND_GROUPS;
void EVERY_KIND_GROUPED;

export async function getChannelChoices(
  db: DbOrTx,
  member_id: string,
): Promise<Record<NotificationChannel, ChannelChoices>> {
  const rows = await db
    .select({
      channel: notificationChannelChoices.channel,
      group_key: notificationChannelChoices.group_key,
      chosen: notificationChannelChoices.chosen,
    })
    .from(notificationChannelChoices)
    .where(eq(notificationChannelChoices.member_id, member_id));
  return {
    push: channelChoices(
      "push",
      rows.filter((r) => r.channel === "push"),
    ),
    sms: channelChoices(
      "sms",
      rows.filter((r) => r.channel === "sms"),
    ),
  };
}

/**
 * Stores a member's choices for one channel (every group answered, so later defaults never change
 * what the member saw). Recorded in the audit log with what changed.
 */
export async function saveChannelChoices(
  db: Db,
  member: { id: string; email: string },
  channel: NotificationChannel,
  choices: ChannelChoices,
  origin: { request_id?: string | null; ip?: string | null },
): Promise<{ changed: NotificationGroup[] }> {
  return db.transaction(async (tx) => {
    const before = (await getChannelChoices(tx, member.id))[channel];
    const changed = NOTIFICATION_GROUPS.filter((g) => before[g] !== choices[g]);
    await tx
      .insert(notificationChannelChoices)
      .values(NOTIFICATION_GROUPS.map((g) => ({ member_id: member.id, channel, group_key: g, chosen: choices[g] })))
      .onConflictDoUpdate({
        target: [
          notificationChannelChoices.member_id,
          notificationChannelChoices.channel,
          notificationChannelChoices.group_key,
        ],
        set: { chosen: sql`excluded.chosen`, updated_at: sql`now()` },
      });
    if (changed.length)
      await recordSecurityEvent(tx, {
        action: `auth.notifications.${channel}_choices_changed`,
        user_id: member.id,
        email: member.email,
        detail: Object.fromEntries(changed.map((g) => [g, choices[g]])),
        request_id: origin.request_id ?? null,
        ip: origin.ip ?? null,
      });
    return { changed };
  });
}
