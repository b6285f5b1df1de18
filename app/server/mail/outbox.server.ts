import nodemailer, { type Transporter } from "nodemailer";
import { and, desc, eq, inArray, lt, or, sql, type SQL } from "drizzle-orm";
import { env } from "~/config/env.server";
import { institution } from "~/config/institution.server";
import type { Db } from "~/server/db/client.server";
import { notifications, outbox, outboxAttachments, type NotificationKind, type OutboxKind } from "~/server/db/schema";
import { NOTIFICATION_BODY_MAX, NOTIFICATION_TITLE_MAX } from "~/server/notifications/notifications.server";
import { logger } from "~/server/logger.server";

/**
 * The email outbox (docs/architecture.md#email). Every message is first written to the `outbox`
 * table, then delivered by SMTP right away when SMTP_URL is set; a failure is recorded on the row
 * (the outbox-delivery job tries unsent rows again: app/server/jobs/outbox-retry.server.ts). Without SMTP_URL the outbox is the mailbox: staff
 * read it at /admin/outbox, and in demo mode the demo inbox shows the demo accounts' mail.
 *
 * Messages that carry a secret (a sign-in code, a reset link) give a `redacted_text`, stored
 * beside the deliverable text. Staff only ever read the redacted form: a usable code or link in
 * the back office would let staff sign in as the member. Once SMTP has delivered the message, the
 * deliverable text is replaced by the redacted one, so the table keeps no usable secret. Without
 * SMTP the deliverable text stays for delivery, and the demo inbox (demo mode, fictional addresses
 * only) shows it to demo visitors.
 *
 * A message may carry files (a statement PDF): kept in outbox_attachments beside the row, written
 * in the same transaction, read only to deliver them. No staff or demo view reads their content.
 */
export interface OutgoingAttachment {
  file_name: string;
  content_type: string;
  content: Buffer;
}

export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
  html?: string | null;
  kind: OutboxKind;
  user_id?: string | null;
  /** The text with its secret replaced: what staff see, and all that is kept after delivery. */
  redacted_text?: string;
  attachments?: readonly OutgoingAttachment[];
  /**
   * The same news for the member's bell (docs/product.md#notifications), written by the message's
   * own statement: both or neither, and no statement more (a sign-in counts its statements).
   */
  notification?: { member_id: string; kind: NotificationKind; title: string; body: string };
}

export interface OutboxMessage {
  id: number;
  to_email: string;
  subject: string;
  text_body: string;
  kind: string;
  user_id: string | null;
  created_at: Date;
  sent_at: Date | null;
  error: string | null;
}

const SUBJECT_MAX_CHARS = 200;
const BODY_MAX_CHARS = 20_000;
/** All of a message's files together: mail servers commonly refuse messages over 10-25 MB. */
export const ATTACHMENTS_MAX_BYTES = 10 * 1024 * 1024;

/** True when a message's files together are over ATTACHMENTS_MAX_BYTES: callers answer the person before sendEmail refuses it. */
export function attachmentsTooLarge(attachments: readonly { content: { length: number } }[]): boolean {
  return attachments.reduce((sum, a) => sum + a.content.length, 0) > ATTACHMENTS_MAX_BYTES;
}

let transport: Transporter | null | undefined;
function smtpTransport(): Transporter | null {
  if (transport !== undefined) return transport;
  const { SMTP_URL: url, MUTUAL_DRILL } = env();
  // A restore drill's copy holds real members' addresses: nothing leaves it.
  transport = url && MUTUAL_DRILL !== "1" ? nodemailer.createTransport(url) : null;
  return transport;
}

/**
 * Whether messages leave this installation: SMTP_URL is set and this is not a restore drill's
 * copy. When they do not, they stay in the outbox (staff read them at /admin/outbox, the demo at
 * /demo/inbox), and pages must not tell a member "we sent" anything.
 */
export function emailLeaves(): boolean {
  return smtpTransport() !== null;
}

/** Writes the message to the outbox and, when SMTP is configured, starts delivering it. */
export async function sendEmail(db: Db, message: OutgoingEmail): Promise<{ id: number }> {
  const attachments = message.attachments ?? [];
  if (attachmentsTooLarge(attachments)) throw new RangeError("email attachments are over ATTACHMENTS_MAX_BYTES");
  const values = {
    to_email: message.to.trim().toLowerCase(),
    subject: message.subject.slice(0, SUBJECT_MAX_CHARS),
    text_body: message.text.slice(0, BODY_MAX_CHARS),
    redacted_text_body: message.redacted_text?.slice(0, BODY_MAX_CHARS) ?? null,
    html_body: message.html ?? null,
    kind: message.kind,
    user_id: message.user_id ?? null,
  };
  // With files, the row and its files commit together: delivery never finds a message without them.
  const note = message.notification;
  if (note && attachments.length > 0) throw new Error("sendEmail: a notification goes with a message without files");
  const id = note
    ? Number(
        (
          await db.execute(sql`
            with n as (
              insert into ${notifications} (member_id, kind, title, body)
              values (${note.member_id}, ${note.kind}, ${note.title.slice(0, NOTIFICATION_TITLE_MAX)}, ${note.body.slice(0, NOTIFICATION_BODY_MAX)})
            )
            insert into ${outbox} (to_email, subject, text_body, redacted_text_body, html_body, kind, user_id)
            values (${values.to_email}, ${values.subject}, ${values.text_body}, ${values.redacted_text_body}, ${values.html_body}, ${values.kind}, ${values.user_id})
            returning id`)
        ).rows[0]!.id,
      )
    : attachments.length === 0
      ? (await db.insert(outbox).values(values).returning({ id: outbox.id }))[0]!.id
      : await db.transaction(async (tx) => {
          const [row] = await tx.insert(outbox).values(values).returning({ id: outbox.id });
          await tx.insert(outboxAttachments).values(
            attachments.map((a) => ({
              outbox_id: row!.id,
              file_name: a.file_name,
              content_type: a.content_type,
              size_bytes: a.content.length,
              content: a.content,
            })),
          );
          return row!.id;
        });
  if (smtpTransport()) {
    // Not awaited: a slow mail server must not slow the page, nor let response times tell whether
    // an address has an account (password reset). The outcome is recorded on the row.
    void deliverOutboxMessage(db, id);
  }
  return { id };
}

/** Delivers one stored message by SMTP and records the outcome. Never throws. */
export async function deliverOutboxMessage(db: Db, id: number): Promise<"sent" | "failed" | "skipped"> {
  const smtp = smtpTransport();
  if (!smtp) return "skipped";
  try {
    const [row] = await db.select().from(outbox).where(eq(outbox.id, id));
    if (!row || row.sent_at) return "skipped";
    const profile = institution();
    const files = await db
      .select({
        file_name: outboxAttachments.file_name,
        content_type: outboxAttachments.content_type,
        content: outboxAttachments.content,
      })
      .from(outboxAttachments)
      .where(eq(outboxAttachments.outbox_id, id))
      .orderBy(outboxAttachments.id);
    await smtp.sendMail({
      from: { name: profile.name, address: profile.support_email },
      to: row.to_email,
      subject: row.subject,
      text: row.text_body,
      ...(row.html_body ? { html: row.html_body } : {}),
      ...(files.length
        ? {
            attachments: files.map((f) => ({ filename: f.file_name, content: f.content, contentType: f.content_type })),
          }
        : {}),
    });
    await db
      .update(outbox)
      .set({
        sent_at: new Date(),
        error: null,
        attempts: sql`${outbox.attempts} + 1`,
        ...(row.redacted_text_body !== null ? { text_body: row.redacted_text_body, html_body: null } : {}),
      })
      .where(eq(outbox.id, id));
    return "sent";
  } catch (error) {
    logger.error({ err: error, outbox_id: id }, "email delivery failed");
    try {
      await db
        .update(outbox)
        .set({ error: String((error as Error).message ?? error).slice(0, 500), attempts: sql`${outbox.attempts} + 1` })
        .where(eq(outbox.id, id));
    } catch (recordError) {
      logger.error({ err: recordError, outbox_id: id }, "could not record the email delivery failure");
    }
    return "failed";
  }
}

const PAGE_MAX = 200;

/** The kinds of message that carry a usable secret (a sign-in or transfer code, a reset link). */
export const SECRET_KINDS: readonly OutboxKind[] = ["sign_in_code", "password_reset"];
const WITHHELD_TEXT = "(The text of this message is withheld: it carried a sign-in code or a reset link.)";

/**
 * The staff view of the outbox (/admin/outbox), newest first, keyset-paged by id: who was sent
 * what and when, never a usable secret. `text_body` is the redacted text when the message has one;
 * a message of a secret-carrying kind without one is withheld whole rather than shown.
 */
export async function listOutbox(
  db: Db,
  options: { limit?: number; before_id?: number } = {},
): Promise<OutboxMessage[]> {
  const limit = Math.min(Math.max(options.limit ?? 50, 1), PAGE_MAX);
  return db
    .select({
      ...messageColumns,
      text_body: sql<string>`case
        when ${outbox.redacted_text_body} is not null then ${outbox.redacted_text_body}
        when ${inArray(outbox.kind, [...SECRET_KINDS])} then ${WITHHELD_TEXT}
        else ${outbox.text_body} end`,
    })
    .from(outbox)
    .where(options.before_id ? lt(outbox.id, options.before_id) : undefined)
    .orderBy(desc(outbox.id))
    .limit(limit);
}

/**
 * The messages to the given addresses, and to addresses in the given domains, newest first, with
 * their deliverable text (codes and links included). Only for the demo inbox: every address or
 * domain it is given comes from the caller's allow-list of demo and fictional addresses.
 */
export async function listMessagesTo(
  db: Db,
  filter: { addresses: readonly string[]; domain_suffixes?: readonly string[] },
  options: { limit?: number } = {},
): Promise<OutboxMessage[]> {
  const limit = Math.min(Math.max(options.limit ?? 50, 1), PAGE_MAX);
  const conditions: SQL[] = [];
  const addresses = filter.addresses.map((a) => a.toLowerCase());
  if (addresses.length) conditions.push(inArray(outbox.to_email, addresses));
  for (const suffix of filter.domain_suffixes ?? []) {
    // The suffix is ours (a constant list), but it is still passed as a parameter, with LIKE's
    // wildcards escaped.
    const escaped = suffix.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
    conditions.push(sql`${outbox.to_email} like ${`%@${escaped}`} escape '\\'`);
    conditions.push(sql`${outbox.to_email} like ${`%.${escaped}`} escape '\\'`);
  }
  if (!conditions.length) return [];
  return db
    .select(messageColumns)
    .from(outbox)
    .where(and(or(...conditions)))
    .orderBy(desc(outbox.id))
    .limit(limit);
}

const messageColumns = {
  id: outbox.id,
  to_email: outbox.to_email,
  subject: outbox.subject,
  text_body: outbox.text_body,
  kind: outbox.kind,
  user_id: outbox.user_id,
  created_at: outbox.created_at,
  sent_at: outbox.sent_at,
  error: outbox.error,
};
