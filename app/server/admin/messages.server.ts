import { and, count, desc, eq, lt, type SQL } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { contactMessages } from "~/server/db/schema";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { listOutbox, type OutboxMessage } from "~/server/mail/outbox.server";
import type { Actor } from "~/domain/actor";

/**
 * /admin/messages: the public contact form's messages, new and answered
 * (docs/product.md#contact-messages).
 */
export const MESSAGES_PAGE_SIZE = 25;

export interface ContactMessageItem {
  id: number;
  name: string;
  email: string;
  phone: string | null;
  subject: string;
  message: string;
  preferred_contact: string;
  status: "new" | "answered";
  created_at: Date;
}

export async function listContactMessages(
  db: Db,
  input: { status?: "new" | "answered" | null; before_id?: number | null },
): Promise<{ items: ContactMessageItem[]; next_before_id: number | null; counts: { new: number; answered: number } }> {
  const conditions: SQL[] = [];
  if (input.status) conditions.push(eq(contactMessages.status, input.status));
  if (input.before_id) conditions.push(lt(contactMessages.id, input.before_id));
  const rows = await db
    .select({
      id: contactMessages.id,
      name: contactMessages.name,
      email: contactMessages.email,
      phone: contactMessages.phone,
      subject: contactMessages.subject,
      message: contactMessages.message,
      preferred_contact: contactMessages.preferred_contact,
      status: contactMessages.status,
      created_at: contactMessages.created_at,
    })
    .from(contactMessages)
    .where(conditions.length ? and(...conditions) : undefined)
    .orderBy(desc(contactMessages.id))
    .limit(MESSAGES_PAGE_SIZE + 1);
  const grouped = await db
    .select({ status: contactMessages.status, n: count() })
    .from(contactMessages)
    .groupBy(contactMessages.status);
  const counts = { new: 0, answered: 0 };
  for (const g of grouped) counts[g.status] = Number(g.n);
  const items = rows.slice(0, MESSAGES_PAGE_SIZE).map((r) => ({ ...r, created_at: new Date(r.created_at) }));
  return { items, next_before_id: rows.length > MESSAGES_PAGE_SIZE ? items[items.length - 1]!.id : null, counts };
}

/** Marks a message answered (or new again), audited. Returns false when there is no such message. */
export async function setContactMessageStatus(
  db: Db,
  input: { staff: Actor; id: number; status: "new" | "answered"; origin: AuditOrigin },
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ status: contactMessages.status })
      .from(contactMessages)
      .where(eq(contactMessages.id, input.id))
      .for("update");
    if (!row) return false;
    if (row.status === input.status) return true;
    await tx.update(contactMessages).set({ status: input.status }).where(eq(contactMessages.id, input.id));
    await recordAudit(tx, {
      actor_id: input.staff.id,
      actor_email: input.staff.email,
      action: input.status === "answered" ? "contact_message.answered" : "contact_message.reopened",
      subject_type: "contact_message",
      subject_id: input.id,
      before: { status: row.status },
      after: { status: input.status },
      request_id: input.origin.request_id,
      ip: input.origin.ip,
    });
    return true;
  });
}

export const OUTBOX_PAGE_SIZE = 50;

/** /admin/outbox: every email, newest first; secrets already redacted once delivered. */
export async function outboxPage(
  db: Db,
  before_id?: number | null,
): Promise<{ items: OutboxMessage[]; next_before_id: number | null }> {
  const rows = await listOutbox(db, { limit: OUTBOX_PAGE_SIZE + 1, before_id: before_id ?? undefined });
  const items = rows.slice(0, OUTBOX_PAGE_SIZE);
  return { items, next_before_id: rows.length > OUTBOX_PAGE_SIZE ? items[items.length - 1]!.id : null };
}
