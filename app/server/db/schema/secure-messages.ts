import { sql } from "drizzle-orm";
import { bigint, bigserial, check, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

/**
 * Secure messages (docs/product.md#secure-messages): a signed-in member's conversations with the
 * credit union. The subject and every message's text are encrypted at rest (AES-256-GCM with the
 * data encryption key, `~/server/security/crypto.server`); attachments live encrypted in the
 * private store (DATA_DIR/uploads/message-attachments). Nothing is deleted: a conversation is
 * closed, and every staff read is in the audit log.
 */
const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const CONVERSATION_STATUSES = ["open", "closed"] as const;
export const MESSAGE_AUTHORS = ["member", "staff"] as const;

export const conversations = pgTable(
  "conversations",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    member_id: text("member_id").notNull(),
    /** `encryptField(subject, "conversations.subject:<member id>")`. */
    subject_enc: text("subject_enc").notNull(),
    /** A transaction of the member's own history the conversation is about ("Ask about this"). */
    transaction_id: bigint("transaction_id", { mode: "number" }),
    status: text("status", { enum: CONVERSATION_STATUSES }).notNull().default("open"),
    /** The staff member working it; null while unassigned. */
    assigned_to: text("assigned_to"),
    assigned_email: text("assigned_email"),
    /** The form's key: the same message sent twice makes one conversation. */
    idempotency_key: text("idempotency_key").notNull(),
    created_at: timestamptz("created_at").notNull().defaultNow(),
    /** The newest message's time and side: the lists' order and "waiting for us". */
    last_message_at: timestamptz("last_message_at").notNull().defaultNow(),
    last_from: text("last_from", { enum: MESSAGE_AUTHORS }).notNull().default("member"),
    /** When the member last opened it: staff replies after this are unread. */
    member_read_at: timestamptz("member_read_at"),
    closed_at: timestamptz("closed_at"),
    closed_by_email: text("closed_by_email"),
  },
  (t) => [
    uniqueIndex("conversations_member_key_idx").on(t.member_id, t.idempotency_key),
    index("conversations_member_idx").on(t.member_id, t.last_message_at),
    index("conversations_inbox_idx").on(t.status, t.assigned_to, t.last_message_at),
  ],
);

export const conversationMessages = pgTable(
  "conversation_messages",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    conversation_id: bigint("conversation_id", { mode: "number" })
      .notNull()
      .references(() => conversations.id),
    author: text("author", { enum: MESSAGE_AUTHORS }).notNull(),
    author_id: text("author_id").notNull(),
    author_email: text("author_email").notNull(),
    /** `encryptField(text, "conversation_messages.body:<conversation id>")`. */
    body_enc: text("body_enc").notNull(),
    at: timestamptz("at").notNull().defaultNow(),
  },
  (t) => [index("conversation_messages_conversation_idx").on(t.conversation_id, t.id)],
);

/** PDF, JPEG or PNG up to 10 MB, checked by content, kept encrypted in the private store. */
export const conversationAttachments = pgTable(
  "conversation_attachments",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    conversation_id: bigint("conversation_id", { mode: "number" })
      .notNull()
      .references(() => conversations.id),
    message_id: bigint("message_id", { mode: "number" })
      .notNull()
      .references(() => conversationMessages.id),
    /** The stored file's name (random), never the sender's. */
    file: text("file").notNull(),
    mime: text("mime").notNull(),
    bytes: integer("bytes").notNull(),
    at: timestamptz("at").notNull().defaultNow(),
  },
  (t) => [
    index("conversation_attachments_conversation_idx").on(t.conversation_id, t.id),
    check("conversation_attachments_mime", sql`${t.mime} in ('application/pdf', 'image/jpeg', 'image/png')`),
  ],
);

export type ConversationRow = typeof conversations.$inferSelect;
