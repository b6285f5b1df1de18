import type { Actor } from "~/domain/actor";
import { withDatabase } from "~/server/db/db.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { outboxPage } from "~/server/admin/messages.server";

/**
 * A page of the outbox, newest first, for /admin/outbox (its view-model; opens the database
 * itself). Staff read members' mail here, so every view goes into the audit log.
 */
export const outboxView = withDatabase(
  async (database, input: { staff: Actor; origin: AuditOrigin; before_id: number | null }) => {
    const { staff, origin, before_id } = input;
    const page = await outboxPage(database, before_id);
    const ids = page.items.map((m) => m.id);
    await recordAudit(database, {
      actor_id: staff.id,
      actor_email: staff.email,
      action: "outbox.view",
      subject_type: "outbox",
      after: { before_id, messages: ids.length, newest_id: ids[0] ?? null, oldest_id: ids.at(-1) ?? null },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return page;
  },
);
