import { and, asc, desc, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { Actor } from "~/domain/actor";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { conversationAttachments, conversationMessages, conversations, users } from "~/server/db/schema";
import { decryptField, encryptField } from "~/server/security/crypto.server";
import {
  readPrivateUpload,
  removePrivateUpload,
  storePrivateUpload,
  UploadRejectedError,
} from "~/server/uploads/private-uploads.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { notify } from "~/server/notifications/notifications.server";
import { sendEmail } from "~/server/mail/outbox.server";
import { publicBaseUrl } from "~/server/auth/auth.server";
import { institution } from "~/config/institution.server";
import { logger } from "~/server/logger.server";
import { accountLabel, referenceNumber } from "~/domain/account-display";
import { toCents, toId } from "~/domain/ledger-rules";
import { refusal, type Refusal } from "~/domain/refusals";
import { attachmentLabel } from "~/domain/disputes";
import { isStaffRole, STAFF_ROLES } from "~/domain/staff-roles";
import {
  conversationNumber,
  MESSAGE_ATTACHMENT_FIELDS,
  MESSAGE_ATTACHMENT_MAX_BYTES,
  MESSAGE_ATTACHMENT_MESSAGES,
  MESSAGE_ATTACHMENT_TYPES,
  NEW_MESSAGE_TITLE,
  type InboxView,
  type MessageAttachmentField,
} from "~/domain/secure-messages";

/**
 * Secure messages (docs/product.md#secure-messages): a signed-in member writes to the credit union
 * (a subject, the text, up to two files), staff answer from a shared inbox, and the member reads
 * the answer in the app. The subject and every text are encrypted at rest under the data key, each
 * bound to its place (the member for a subject, the conversation for a text) so a copied value does
 * not decrypt; files go to the private store, checked by content and encrypted. The member is told
 * of a reply by the bell and by email, both of which say only that there is a message. Every staff
 * read of a conversation or a file is audited. A member's reads and writes are of their own
 * conversations only: another member's reads as not found and nothing changes.
 */

export const CONVERSATION_NOT_FOUND = "We could not find that conversation.";
export const CONVERSATION_CLOSED = "This conversation is closed. Start a new message instead.";

type Files = Partial<Record<MessageAttachmentField, File | null>>;
type Stored = { file: string; mime: string; bytes: number };

export function subjectContext(member_id: string): string {
  return `conversations.subject:${member_id}`;
}
export function bodyContext(conversation_id: number): string {
  return `conversation_messages.body:${conversation_id}`;
}

/**
 * Checks and stores the files before anything is written; a refused one refuses the whole message
 * by its field, and what was stored is removed. `work` runs with the stored files; when it refuses
 * or throws, they are removed too.
 */
async function withFiles<T extends { ok: boolean }>(
  files: Files | undefined,
  work: (stored: Stored[]) => Promise<T | Refusal>,
): Promise<T | Refusal> {
  const stored: Stored[] = [];
  const forget = () =>
    Promise.all(stored.map((f) => removePrivateUpload("message-attachments", f.file).catch(() => undefined)));
  try {
    for (const field of MESSAGE_ATTACHMENT_FIELDS) {
      const upload = files?.[field] ?? null;
      if (!upload || upload.size === 0) continue;
      try {
        stored.push(
          await storePrivateUpload("message-attachments", upload, {
            allowed: MESSAGE_ATTACHMENT_TYPES,
            max_bytes: MESSAGE_ATTACHMENT_MAX_BYTES,
            messages: MESSAGE_ATTACHMENT_MESSAGES,
          }),
        );
      } catch (error) {
        if (error instanceof UploadRejectedError) {
          await forget();
          return refusal("bad_input", error.message, { field });
        }
        throw error;
      }
    }
    const answer = await work(stored);
    if (!answer.ok) await forget();
    return answer;
  } catch (error) {
    await forget();
    throw error;
  }
}

async function addMessage(
  tx: DbOrTx,
  input: { conversation_id: number; author: "member" | "staff"; actor: Actor; body: string; files: Stored[]; at: Date },
): Promise<number> {
  const [row] = await tx
    .insert(conversationMessages)
    .values({
      conversation_id: input.conversation_id,
      author: input.author,
      author_id: input.actor.id,
      author_email: input.actor.email,
      body_enc: encryptField(input.body, bodyContext(input.conversation_id)),
      at: input.at,
    })
    .returning({ id: conversationMessages.id });
  if (input.files.length > 0)
    await tx
      .insert(conversationAttachments)
      .values(
        input.files.map((f) => ({ conversation_id: input.conversation_id, message_id: row!.id, ...f, at: input.at })),
      );
  return row!.id;
}

// ---------------------------------------------------------------------------------------------
// The member's side

export interface StartInput {
  subject: string;
  body: string;
  transaction_id?: number;
  idempotency_key: string;
}

export type StartAnswer = { ok: true; conversation_id: number; replayed: boolean } | Refusal;

/** A new conversation from the member: audited (without its words), waiting in the inbox, unassigned. */
export async function startConversation(
  db: Db,
  member: Actor,
  input: StartInput,
  origin: AuditOrigin,
  files?: Files,
  now: Date = new Date(),
): Promise<StartAnswer> {
  const [earlier] = await db
    .select({ id: conversations.id })
    .from(conversations)
    .where(and(eq(conversations.member_id, member.id), eq(conversations.idempotency_key, input.idempotency_key)));
  if (earlier) return { ok: true, conversation_id: earlier.id, replayed: true };
  if (input.transaction_id !== undefined) {
    const transaction = await ownTransaction(db, member.id, input.transaction_id);
    if (!transaction)
      return refusal("not_found", "We could not find that transaction in your accounts.", { field: "transaction_id" });
  }
  return withFiles(files, async (stored) => {
    const conversation_id = await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(conversations)
        .values({
          member_id: member.id,
          subject_enc: encryptField(input.subject, subjectContext(member.id)),
          transaction_id: input.transaction_id ?? null,
          idempotency_key: input.idempotency_key,
          created_at: now,
          last_message_at: now,
          last_from: "member",
          member_read_at: now,
        })
        .returning({ id: conversations.id });
      const id = row!.id;
      await addMessage(tx, {
        conversation_id: id,
        author: "member",
        actor: member,
        body: input.body,
        files: stored,
        at: now,
      });
      await recordAudit(tx, {
        actor_id: member.id,
        actor_email: member.email,
        action: "secure_message.start",
        subject_type: "conversation",
        subject_id: id,
        member_id: member.id,
        after: { transaction_id: input.transaction_id ?? null, attachments: stored.length },
        ...origin,
        at: now,
      });
      return id;
    });
    return { ok: true as const, conversation_id, replayed: false };
  });
}

export type ReplyAnswer = { ok: true; message_id: number } | Refusal;

/** The member's reply to one of their own open conversations: back to "waiting for us". */
export async function memberReply(
  db: Db,
  member: Actor,
  conversation_id: number,
  body: string,
  origin: AuditOrigin,
  files?: Files,
  now: Date = new Date(),
): Promise<ReplyAnswer> {
  const found = await ownConversation(db, member.id, conversation_id);
  if (!found) return refusal("not_found", CONVERSATION_NOT_FOUND);
  if (found.status === "closed") return refusal("conflict", CONVERSATION_CLOSED);
  return withFiles(files, async (stored) =>
    db.transaction(async (tx) => {
      // Closed meanwhile by staff: the reply is refused, not added to a closed thread.
      const [open] = await tx
        .update(conversations)
        .set({ last_message_at: now, last_from: "member", member_read_at: now })
        .where(and(eq(conversations.id, conversation_id), eq(conversations.status, "open")))
        .returning({ id: conversations.id });
      if (!open) return refusal("conflict", CONVERSATION_CLOSED);
      const message_id = await addMessage(tx, {
        conversation_id,
        author: "member",
        actor: member,
        body,
        files: stored,
        at: now,
      });
      await recordAudit(tx, {
        actor_id: member.id,
        actor_email: member.email,
        action: "secure_message.member_reply",
        subject_type: "conversation",
        subject_id: conversation_id,
        member_id: member.id,
        after: { message_id, attachments: stored.length },
        ...origin,
        at: now,
      });
      return { ok: true as const, message_id };
    }),
  );
}

async function ownConversation(db: DbOrTx, member_id: string, id: number) {
  if (!Number.isSafeInteger(id) || id <= 0) return null;
  const [row] = await db
    .select()
    .from(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.member_id, member_id)));
  return row ?? null;
}

/** A staff message the member has not opened yet. */
const unreadByMember = sql<boolean>`(${conversations.last_from} = 'staff' and (${conversations.member_read_at} is null or ${conversations.member_read_at} < ${conversations.last_message_at}))`;

/** How many of the member's conversations have a reply they have not read: the top bar's count. */
export async function memberUnreadCount(db: DbOrTx, member_id: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)` })
    .from(conversations)
    .where(and(eq(conversations.member_id, member_id), unreadByMember));
  return Number(row?.n ?? 0);
}

export interface ConversationSummary {
  id: number;
  number: string;
  subject: string;
  status: "open" | "closed";
  last_message_at: Date;
  last_from: "member" | "staff";
  unread: boolean;
}

/** The member's conversations, newest activity first. */
export async function memberConversations(db: DbOrTx, member_id: string): Promise<ConversationSummary[]> {
  const rows = await db
    .select({ c: conversations, unread: unreadByMember })
    .from(conversations)
    .where(eq(conversations.member_id, member_id))
    .orderBy(desc(conversations.last_message_at), desc(conversations.id))
    .limit(200);
  return rows.map(({ c, unread }) => ({
    id: c.id,
    number: conversationNumber(c.id),
    subject: decryptField(c.subject_enc, subjectContext(c.member_id)),
    status: c.status,
    last_message_at: c.last_message_at,
    last_from: c.last_from,
    unread: unread === true || (unread as unknown) === "t",
  }));
}

/** The thread, oldest first, each message with its files. Staff are named "Staff" to the member. */
async function thread(db: DbOrTx, conversation_id: number) {
  const messages = await db
    .select()
    .from(conversationMessages)
    .where(eq(conversationMessages.conversation_id, conversation_id))
    .orderBy(asc(conversationMessages.id));
  const files = await db
    .select({
      id: conversationAttachments.id,
      message_id: conversationAttachments.message_id,
      mime: conversationAttachments.mime,
      bytes: conversationAttachments.bytes,
    })
    .from(conversationAttachments)
    .where(eq(conversationAttachments.conversation_id, conversation_id))
    .orderBy(asc(conversationAttachments.id));
  return messages.map((m) => ({
    id: m.id,
    author: m.author,
    author_email: m.author_email,
    at: m.at,
    body: decryptField(m.body_enc, bodyContext(conversation_id)),
    attachments: files
      .filter((f) => f.message_id === m.id)
      .map((f) => ({ id: f.id, label: attachmentLabel(f.mime, f.bytes) })),
  }));
}

/**
 * A transaction of the member's own accounts (checking, savings or credit card) as both sides see
 * it: what "Ask about this" starts from. Another member's reads as none.
 */
export async function ownTransaction(db: DbOrTx, member_id: string, transaction_id: number) {
  if (!Number.isSafeInteger(transaction_id) || transaction_id <= 0) return null;
  const result = await db.execute(sql`
    select t.id, t.kind, t.effective_date::text as effective_date, t.memo, e.amount_cents, a.type, a.account_number
      from ledger_transactions t
      join ledger_entries e on e.transaction_id = t.id
      join ledger_accounts a on a.id = e.account_id
     where t.id = ${transaction_id} and a.owner = 'member' and a.member_id = ${member_id}
     order by e.id limit 1`);
  const r = result.rows[0];
  if (!r) return null;
  const kind = String(r.kind);
  return {
    id: toId(r.id),
    reference_number: referenceNumber(toId(r.id)),
    description: (r.memo as string | null) ?? kind.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase()),
    amount_cents: toCents(r.amount_cents),
    effective_date: String(r.effective_date),
    account_label: accountLabel({ type: String(r.type), account_number: String(r.account_number) }),
  };
}

/** A transaction the conversation is about. */
async function aboutTransaction(db: DbOrTx, member_id: string, transaction_id: number | null) {
  return transaction_id === null ? null : ownTransaction(db, member_id, transaction_id);
}

/** One of the member's own conversations, marked read as it is opened; null for anyone else's. */
export async function openMemberConversation(db: DbOrTx, member_id: string, id: number, now: Date = new Date()) {
  const row = await ownConversation(db, member_id, id);
  if (!row) return null;
  await db.update(conversations).set({ member_read_at: now }).where(eq(conversations.id, row.id));
  return {
    id: row.id,
    number: conversationNumber(row.id),
    subject: decryptField(row.subject_enc, subjectContext(member_id)),
    status: row.status,
    created_at: row.created_at,
    transaction: await aboutTransaction(db, member_id, row.transaction_id),
    messages: (await thread(db, row.id)).map(({ author_email: _hidden, ...m }) => m),
  };
}

// ---------------------------------------------------------------------------------------------
// Staff's side

/** Staff and reviewers both work the inbox (docs/security.md#secure-messages). */
async function staffMember(db: DbOrTx, user_id: string) {
  const [row] = await db
    .select({ id: users.id, email: users.email, name: users.name, role: users.role })
    .from(users)
    .where(eq(users.id, user_id));
  return row && isStaffRole(row.role) ? row : null;
}

/** The people a conversation can be assigned to. */
export async function colleagues(db: DbOrTx) {
  return db
    .select({ id: users.id, name: users.name, email: users.email })
    .from(users)
    .where(inArray(users.role, [...STAFF_ROLES]))
    .orderBy(asc(users.name))
    .limit(500);
}

/** The counts the back office shows: open and unassigned, open and the staff member's own, waiting on us. */
export async function inboxCounts(db: DbOrTx, staff_id: string) {
  const [row] = await db
    .select({
      unassigned: sql<number>`count(*) filter (where ${conversations.assigned_to} is null)`,
      mine: sql<number>`count(*) filter (where ${conversations.assigned_to} = ${staff_id})`,
      waiting: sql<number>`count(*) filter (where ${conversations.last_from} = 'member')`,
    })
    .from(conversations)
    .where(eq(conversations.status, "open"));
  return { unassigned: Number(row?.unassigned ?? 0), mine: Number(row?.mine ?? 0), waiting: Number(row?.waiting ?? 0) };
}

/** The inbox: one view (unassigned, mine, all), open or closed, newest activity first, members named. */
export async function staffInbox(
  db: DbOrTx,
  staff_id: string,
  options: { view: InboxView; status: "open" | "closed" },
) {
  const where: SQL[] = [eq(conversations.status, options.status)];
  if (options.view === "unassigned") where.push(isNull(conversations.assigned_to));
  if (options.view === "mine") where.push(eq(conversations.assigned_to, staff_id));
  const rows = await db
    .select({ c: conversations, member_name: users.name })
    .from(conversations)
    .leftJoin(users, eq(users.id, conversations.member_id))
    .where(and(...where))
    .orderBy(desc(conversations.last_message_at), desc(conversations.id))
    .limit(200);
  return rows.map(({ c, member_name }) => ({
    id: c.id,
    number: conversationNumber(c.id),
    member_name: member_name ?? "",
    subject: decryptField(c.subject_enc, subjectContext(c.member_id)),
    status: c.status,
    assigned_email: c.assigned_email,
    last_message_at: c.last_message_at,
    waiting: c.last_from === "member",
  }));
}

/** One conversation as staff see it; the read is audited before anything is shown. */
export async function staffConversation(db: DbOrTx, staff: Actor, id: number, origin: AuditOrigin) {
  if (!Number.isSafeInteger(id) || id <= 0) return null;
  const [row] = await db.select().from(conversations).where(eq(conversations.id, id));
  if (!row) return null;
  await recordAudit(db, {
    actor_id: staff.id,
    actor_email: staff.email,
    action: "secure_message.view",
    subject_type: "conversation",
    subject_id: id,
    member_id: row.member_id,
    ...origin,
  });
  const [person] = await db
    .select({ name: users.name, email: users.email })
    .from(users)
    .where(eq(users.id, row.member_id));
  return {
    id: row.id,
    number: conversationNumber(row.id),
    member_id: row.member_id,
    member_name: person?.name ?? "",
    member_email: person?.email ?? "",
    subject: decryptField(row.subject_enc, subjectContext(row.member_id)),
    status: row.status,
    assigned_to: row.assigned_to,
    assigned_email: row.assigned_email,
    closed_at: row.closed_at,
    closed_by_email: row.closed_by_email,
    created_at: row.created_at,
    transaction: await aboutTransaction(db, row.member_id, row.transaction_id),
    messages: await thread(db, row.id),
  };
}

export type StaffStepAnswer = { ok: true; message: string } | Refusal;

/**
 * Staff's reply: the member is told by the bell and by email that there is a message (never what
 * it says). An unassigned conversation becomes the replier's. A closed one is reopened first.
 */
export async function staffReply(
  db: Db,
  staff: Actor,
  conversation_id: number,
  body: string,
  origin: AuditOrigin,
  files?: Files,
  now: Date = new Date(),
): Promise<StaffStepAnswer> {
  const [row] = await db.select().from(conversations).where(eq(conversations.id, conversation_id));
  if (!row) return refusal("not_found", CONVERSATION_NOT_FOUND);
  if (row.status === "closed") return refusal("conflict", "This conversation is closed. Reopen it to reply.");
  const answer = await withFiles(files, async (stored) =>
    db.transaction(async (tx) => {
      const [open] = await tx
        .update(conversations)
        .set({
          last_message_at: now,
          last_from: "staff",
          ...(row.assigned_to ? {} : { assigned_to: staff.id, assigned_email: staff.email }),
        })
        .where(and(eq(conversations.id, conversation_id), eq(conversations.status, "open")))
        .returning({ id: conversations.id });
      if (!open) return refusal("conflict", "This conversation is closed. Reopen it to reply.");
      const message_id = await addMessage(tx, {
        conversation_id,
        author: "staff",
        actor: staff,
        body,
        files: stored,
        at: now,
      });
      await recordAudit(tx, {
        actor_id: staff.id,
        actor_email: staff.email,
        action: "secure_message.staff_reply",
        subject_type: "conversation",
        subject_id: conversation_id,
        member_id: row.member_id,
        after: { message_id, attachments: stored.length },
        ...origin,
        at: now,
      });
      await notify(tx, {
        member_id: row.member_id,
        kind: "secure_message",
        title: NEW_MESSAGE_TITLE,
        body: `Read it in online banking under Messages (conversation ${conversationNumber(conversation_id)}).`,
        at: now,
      });
      return { ok: true as const, message: "Reply sent. The member was told they have a new message." };
    }),
  );
  if (answer.ok) await tellMember(db, row.member_id, conversation_id);
  return answer;
}

/** The email after the commit, through the outbox: that there is a message and where, nothing of it. */
async function tellMember(db: Db, member_id: string, conversation_id: number): Promise<void> {
  try {
    const [person] = await db.select({ email: users.email }).from(users).where(eq(users.id, member_id));
    if (!person) return;
    const profile = institution();
    await sendEmail(db, {
      to: person.email,
      user_id: member_id,
      kind: "secure_message",
      subject: NEW_MESSAGE_TITLE,
      text:
        `You have a new message from ${profile.name}.\n\n` +
        `For your security we do not send its content by email. Sign in to read it:\n` +
        `${publicBaseUrl()}/dashboard/messages/${conversation_id}\n\n` +
        `${profile.name}\n${profile.support_email} · ${profile.support_phone}`,
    });
  } catch (error) {
    // The reply stands (in the thread, the audit log and the bell); the missing email shows in the log.
    logger.error({ err: error }, "could not queue a secure message email");
  }
}

/** Assigns a conversation to a staff member (oneself or a colleague), audited. */
export async function assignConversation(
  db: Db,
  staff: Actor,
  conversation_id: number,
  assignee_id: string,
  origin: AuditOrigin,
  now: Date = new Date(),
): Promise<StaffStepAnswer> {
  const assignee = await staffMember(db, assignee_id);
  if (!assignee) return refusal("bad_input", "Choose a member of staff.", { field: "assignee" });
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(conversations).where(eq(conversations.id, conversation_id));
    if (!row) return refusal("not_found", CONVERSATION_NOT_FOUND);
    await tx
      .update(conversations)
      .set({ assigned_to: assignee.id, assigned_email: assignee.email })
      .where(eq(conversations.id, conversation_id));
    await recordAudit(tx, {
      actor_id: staff.id,
      actor_email: staff.email,
      action: "secure_message.assign",
      subject_type: "conversation",
      subject_id: conversation_id,
      member_id: row.member_id,
      before: { assigned_to: row.assigned_email },
      after: { assigned_to: assignee.email },
      ...origin,
      at: now,
    });
    return {
      ok: true as const,
      message: assignee.id === staff.id ? "Assigned to you." : `Assigned to ${assignee.name}.`,
    };
  });
}

/** Closes or reopens a conversation, audited. A closed conversation is read-only to the member. */
export async function setConversationStatus(
  db: Db,
  staff: Actor,
  conversation_id: number,
  status: "open" | "closed",
  origin: AuditOrigin,
  now: Date = new Date(),
): Promise<StaffStepAnswer> {
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(conversations).where(eq(conversations.id, conversation_id));
    if (!row) return refusal("not_found", CONVERSATION_NOT_FOUND);
    if (row.status === status)
      return refusal(
        "conflict",
        status === "closed" ? "This conversation is already closed." : "This conversation is already open.",
      );
    await tx
      .update(conversations)
      .set(
        status === "closed"
          ? { status, closed_at: now, closed_by_email: staff.email }
          : { status, closed_at: null, closed_by_email: null },
      )
      .where(eq(conversations.id, conversation_id));
    await recordAudit(tx, {
      actor_id: staff.id,
      actor_email: staff.email,
      action: status === "closed" ? "secure_message.close" : "secure_message.reopen",
      subject_type: "conversation",
      subject_id: conversation_id,
      member_id: row.member_id,
      ...origin,
      at: now,
    });
    return { ok: true as const, message: status === "closed" ? "Conversation closed." : "Conversation reopened." };
  });
}

const EXTENSIONS: Record<string, string> = { "application/pdf": "pdf", "image/jpeg": "jpg", "image/png": "png" };

/**
 * One file of a conversation, for the member whose conversation it is (`member_id`) or for staff
 * (every staff view audited first). Null when anything does not match: another member's reads as none.
 */
export async function readMessageAttachment(
  db: DbOrTx,
  input: { conversation_id: number; attachment_id: number; member_id?: string; staff?: Actor; origin?: AuditOrigin },
): Promise<{ bytes: Buffer; mime: string; filename: string } | null> {
  const { conversation_id, attachment_id } = input;
  if (![conversation_id, attachment_id].every((n) => Number.isSafeInteger(n) && n > 0)) return null;
  const [found] = await db
    .select({ a: conversationAttachments, member_id: conversations.member_id })
    .from(conversationAttachments)
    .innerJoin(conversations, eq(conversations.id, conversationAttachments.conversation_id))
    .where(
      and(eq(conversationAttachments.id, attachment_id), eq(conversationAttachments.conversation_id, conversation_id)),
    );
  if (!found) return null;
  if (input.member_id !== undefined && found.member_id !== input.member_id) return null;
  if (input.member_id === undefined && !input.staff) return null;
  if (input.staff)
    await recordAudit(db, {
      actor_id: input.staff.id,
      actor_email: input.staff.email,
      action: "secure_message.attachment_view",
      subject_type: "conversation",
      subject_id: conversation_id,
      member_id: found.member_id,
      after: { attachment_id },
      ...(input.origin ?? { request_id: null, ip: null }),
    });
  return {
    bytes: await readPrivateUpload("message-attachments", found.a.file),
    mime: found.a.mime,
    filename: `${conversationNumber(conversation_id)}-attachment-${attachment_id}.${EXTENSIONS[found.a.mime] ?? "bin"}`,
  };
}
