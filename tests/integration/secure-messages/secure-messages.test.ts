import "../identity-support";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, count, desc, eq, sql } from "drizzle-orm";
import type { Database, Db } from "~/server/db/client.server";
import {
  auditLog,
  conversationAttachments,
  conversationMessages,
  conversations,
  notifications,
  outbox,
} from "~/server/db/schema";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { postTransfer } from "~/server/ledger/ledger.server";
import {
  assignConversation,
  CONVERSATION_CLOSED,
  inboxCounts,
  memberConversations,
  memberReply,
  memberUnreadCount,
  openMemberConversation,
  readMessageAttachment,
  setConversationStatus,
  staffConversation,
  staffInbox,
  staffReply,
  startConversation,
} from "~/server/secure-messages/secure-messages.server";
import { MESSAGE_ATTACHMENT_MAX_BYTES, MESSAGE_ATTACHMENT_MESSAGES, NEW_MESSAGE_TITLE } from "~/domain/secure-messages";
import { openTestDatabase } from "../test-database";
import { fundedMember, person } from "../../factories";
import { asFile, checkPng, htmlBytes, pdfBytes } from "../../check-images";

/**
 * Secure messages (docs/product.md#secure-messages): a member starts a conversation (optionally
 * about a transaction, with files checked by content), staff take it, reply and close it; the
 * member sees the reply as unread, is told by bell and email without its words, and replies. The
 * words are encrypted at rest; every staff read is audited; another member's reads as none.
 */
let database: Database;
let db: Db;
let staff: { id: string; email: string };
let reviewer: { id: string; email: string };
const origin = { request_id: "secure-messages", ip: "198.51.100.32" };
const folder = () => path.join(process.env.DATA_DIR!, "uploads", "message-attachments");
const files = () => (fs.existsSync(folder()) ? fs.readdirSync(folder()).length : 0);
const key = () => crypto.randomUUID();

beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
  staff = await person(db, "admin");
  reviewer = await person(db, "reviewer");
});
afterAll(async () => {
  await database?.close();
});

async function member() {
  const m = await fundedMember(db, { checking_cents: 50_000 });
  return m;
}

const audits = async (action: string, subject_id: number) =>
  Number(
    (
      await db
        .select({ n: count() })
        .from(auditLog)
        .where(and(eq(auditLog.action, action), eq(auditLog.subject_id, String(subject_id))))
    )[0]!.n,
  );

describe("a conversation from start to close", () => {
  it("starts, is taken and answered, read by the member, answered back and closed", async () => {
    const m = await member();
    const started = await startConversation(
      db,
      m.member,
      { subject: "Question about my card", body: "When does my new card arrive?", idempotency_key: key() },
      origin,
      { attachment_1: asFile(pdfBytes(), "letter.pdf", "application/pdf") },
    );
    expect(started).toMatchObject({ ok: true, replayed: false });
    if (!started.ok) throw new Error(started.message);
    const id = started.conversation_id;
    expect(await audits("secure_message.start", id)).toBe(1);

    // In the inbox, unassigned and waiting; the member has nothing unread.
    expect((await staffInbox(db, staff.id, { view: "unassigned", status: "open" })).map((c) => c.id)).toContain(id);
    expect((await inboxCounts(db, staff.id)).unassigned).toBeGreaterThan(0);
    expect(await memberUnreadCount(db, m.member.id)).toBe(0);

    // Staff open it (audited), take it and reply.
    const seen = await staffConversation(db, staff, id, origin);
    expect(seen).toMatchObject({ subject: "Question about my card", member_email: m.member.email });
    expect(seen!.messages[0]).toMatchObject({ author: "member", body: "When does my new card arrive?" });
    expect(seen!.messages[0]!.attachments).toHaveLength(1);
    expect(await audits("secure_message.view", id)).toBe(1);
    expect(await assignConversation(db, staff, id, staff.id, origin)).toMatchObject({
      ok: true,
      message: "Assigned to you.",
    });
    expect((await staffInbox(db, staff.id, { view: "mine", status: "open" })).map((c) => c.id)).toContain(id);
    expect((await staffInbox(db, staff.id, { view: "unassigned", status: "open" })).map((c) => c.id)).not.toContain(id);
    expect(await staffReply(db, staff, id, "It was mailed yesterday; allow 7 to 10 days.", origin)).toMatchObject({
      ok: true,
    });

    // The member: one unread conversation, a bell notification and an email that say nothing of it.
    expect(await memberUnreadCount(db, m.member.id)).toBe(1);
    const [listed] = await memberConversations(db, m.member.id);
    expect(listed).toMatchObject({ id, unread: true, last_from: "staff" });
    const [bell] = await db
      .select()
      .from(notifications)
      .where(eq(notifications.member_id, m.member.id))
      .orderBy(desc(notifications.id))
      .limit(1);
    expect(bell).toMatchObject({ kind: "secure_message", title: NEW_MESSAGE_TITLE });
    expect(bell!.body).not.toContain("mailed yesterday");
    const [mail] = await db
      .select()
      .from(outbox)
      .where(eq(outbox.user_id, m.member.id))
      .orderBy(desc(outbox.id))
      .limit(1);
    expect(mail).toMatchObject({ kind: "secure_message", subject: NEW_MESSAGE_TITLE, to_email: m.member.email });
    expect(mail!.text_body).toContain(`/dashboard/messages/${id}`);
    expect(mail!.text_body).not.toContain("mailed yesterday");
    expect(mail!.text_body).not.toContain("Question about my card");

    // Opening it reads it.
    const opened = await openMemberConversation(db, m.member.id, id);
    expect(opened!.messages.map((x) => x.author)).toEqual(["member", "staff"]);
    expect(opened!.messages[1]).not.toHaveProperty("author_email");
    expect(await memberUnreadCount(db, m.member.id)).toBe(0);

    // The member answers back: waiting for us again.
    expect(await memberReply(db, m.member, id, "Thank you!", origin)).toMatchObject({ ok: true });
    expect((await staffInbox(db, staff.id, { view: "mine", status: "open" })).find((c) => c.id === id)).toMatchObject({
      waiting: true,
    });

    // Closed: read-only to the member, in the closed view; reopened, open again.
    expect(await setConversationStatus(db, staff, id, "closed", origin)).toMatchObject({ ok: true });
    expect(await memberReply(db, m.member, id, "One more thing", origin)).toMatchObject({
      ok: false,
      kind: "conflict",
      message: CONVERSATION_CLOSED,
    });
    expect(await staffReply(db, staff, id, "Late reply", origin)).toMatchObject({ ok: false, kind: "conflict" });
    expect((await staffInbox(db, staff.id, { view: "all", status: "closed" })).map((c) => c.id)).toContain(id);
    expect(await audits("secure_message.close", id)).toBe(1);
    expect(await setConversationStatus(db, staff, id, "open", origin)).toMatchObject({ ok: true });
    expect(await audits("secure_message.reopen", id)).toBe(1);
  });

  it("the same form sent twice makes one conversation", async () => {
    const m = await member();
    const idempotency_key = key();
    const first = await startConversation(db, m.member, { subject: "Hello", body: "Once", idempotency_key }, origin);
    const second = await startConversation(db, m.member, { subject: "Hello", body: "Once", idempotency_key }, origin);
    expect(second).toMatchObject({ ok: true, replayed: true, conversation_id: first.ok ? first.conversation_id : -1 });
    expect(await memberConversations(db, m.member.id)).toHaveLength(1);
  });

  it("a staff reply to an unassigned conversation makes it the replier's; a reviewer may work it", async () => {
    const m = await member();
    const s = await startConversation(
      db,
      m.member,
      { subject: "Hours", body: "Open Saturday?", idempotency_key: key() },
      origin,
    );
    if (!s.ok) throw new Error(s.message);
    expect(await staffReply(db, reviewer, s.conversation_id, "Yes, 9 to noon.", origin)).toMatchObject({ ok: true });
    const [row] = await db.select().from(conversations).where(eq(conversations.id, s.conversation_id));
    expect(row).toMatchObject({ assigned_to: reviewer.id, assigned_email: reviewer.email });
    // Assigned to a colleague; a member is no colleague.
    expect(await assignConversation(db, reviewer, s.conversation_id, staff.id, origin)).toMatchObject({ ok: true });
    expect(await assignConversation(db, staff, s.conversation_id, m.member.id, origin)).toMatchObject({
      ok: false,
      field: "assignee",
    });
  });
});

describe("a transaction the conversation is about", () => {
  it("is the member's own, or the message is refused", async () => {
    const m = await member();
    const other = await member();
    const card = await institutionAccount(db, "card_settlement");
    const answer = await postTransfer(db, {
      idempotency_key: key(),
      initiator: `member:${m.member.id}`,
      kind: "card_payment",
      created_by: m.member.id,
      memo: "CORNER BOOKS",
      entries: [
        { account_id: m.checking.id, amount_cents: -1_250 },
        { account_id: card.id, amount_cents: 1_250 },
      ],
    });
    if (!answer.ok) throw new Error(answer.code);
    const transaction_id = answer.transaction.id;
    const own = await startConversation(
      db,
      m.member,
      { subject: "About CORNER BOOKS", body: "What is this?", transaction_id, idempotency_key: key() },
      origin,
    );
    if (!own.ok) throw new Error(own.message);
    expect((await openMemberConversation(db, m.member.id, own.conversation_id))!.transaction).toMatchObject({
      id: transaction_id,
      description: "CORNER BOOKS",
      amount_cents: -1_250,
    });
    const before = await db.select({ n: count() }).from(conversations);
    expect(
      await startConversation(
        db,
        other.member,
        { subject: "Not mine", body: "?", transaction_id, idempotency_key: key() },
        origin,
      ),
    ).toMatchObject({ ok: false, kind: "not_found", field: "transaction_id" });
    expect(await db.select({ n: count() }).from(conversations)).toEqual(before);
  });
});

describe("attachments", () => {
  it("are checked by content: an HTML file named .pdf is refused by its field and nothing is kept", async () => {
    const m = await member();
    const before = files();
    const answer = await startConversation(
      db,
      m.member,
      { subject: "Statement", body: "See attached", idempotency_key: key() },
      origin,
      {
        attachment_1: asFile(await checkPng(), "ok.png", "image/png"),
        attachment_2: asFile(htmlBytes(), "statement.pdf", "application/pdf"),
      },
    );
    expect(answer).toMatchObject({ ok: false, field: "attachment_2", message: MESSAGE_ATTACHMENT_MESSAGES.wrong_type });
    expect(files()).toBe(before);
    expect(await memberConversations(db, m.member.id)).toEqual([]);
  });

  it("larger than 10 MB is refused by its field", async () => {
    const m = await member();
    const big = Buffer.concat([pdfBytes(), Buffer.alloc(MESSAGE_ATTACHMENT_MAX_BYTES)]);
    const answer = await startConversation(
      db,
      m.member,
      { subject: "Big", body: "A big file", idempotency_key: key() },
      origin,
      { attachment_1: asFile(big, "big.pdf", "application/pdf") },
    );
    expect(answer).toMatchObject({ ok: false, field: "attachment_1", message: MESSAGE_ATTACHMENT_MESSAGES.too_large });
  });

  it("are read back by the member and by staff (audited), never by another member, and stored encrypted", async () => {
    const m = await member();
    const other = await member();
    const s = await startConversation(
      db,
      m.member,
      { subject: "Receipt", body: "Attached", idempotency_key: key() },
      origin,
      { attachment_1: asFile(pdfBytes(), "receipt.pdf", "application/pdf") },
    );
    if (!s.ok) throw new Error(s.message);
    const [attachment] = await db
      .select()
      .from(conversationAttachments)
      .where(eq(conversationAttachments.conversation_id, s.conversation_id));
    const ids = { conversation_id: s.conversation_id, attachment_id: attachment!.id };
    const own = await readMessageAttachment(db, { ...ids, member_id: m.member.id });
    expect(own).toMatchObject({ mime: "application/pdf" });
    expect(own!.bytes.equals(pdfBytes())).toBe(true);
    expect(await readMessageAttachment(db, { ...ids, member_id: other.member.id })).toBeNull();
    expect(await readMessageAttachment(db, ids)).toBeNull();
    const before = await audits("secure_message.attachment_view", s.conversation_id);
    expect(await readMessageAttachment(db, { ...ids, staff, origin })).toMatchObject({ mime: "application/pdf" });
    expect(await audits("secure_message.attachment_view", s.conversation_id)).toBe(before + 1);
    const raw = fs.readFileSync(path.join(folder(), attachment!.file));
    expect(raw.includes(Buffer.from("%PDF-"))).toBe(false);
  });
});

describe("encryption at rest and another member", () => {
  it("the raw rows hold no subject or text in the clear", async () => {
    const m = await member();
    const s = await startConversation(
      db,
      m.member,
      { subject: "Private subject 7731", body: "Private words 4419", idempotency_key: key() },
      origin,
    );
    if (!s.ok) throw new Error(s.message);
    const raw = await db.execute(
      sql`select c.subject_enc, m.body_enc from conversations c join conversation_messages m on m.conversation_id = c.id where c.id = ${s.conversation_id}`,
    );
    const row = raw.rows[0] as { subject_enc: string; body_enc: string };
    expect(row.subject_enc).toMatch(/^v1\./);
    expect(row.body_enc).toMatch(/^v1\./);
    expect(JSON.stringify(raw.rows)).not.toContain("Private subject 7731");
    expect(JSON.stringify(raw.rows)).not.toContain("Private words 4419");
    // A subject copied onto another member's conversation does not decrypt.
    const other = await member();
    const o = await startConversation(
      db,
      other.member,
      { subject: "Mine", body: "Mine", idempotency_key: key() },
      origin,
    );
    if (!o.ok) throw new Error(o.message);
    await db.update(conversations).set({ subject_enc: row.subject_enc }).where(eq(conversations.id, o.conversation_id));
    await expect(memberConversations(db, other.member.id)).rejects.toThrow();
  });

  it("another member's conversation reads as none and a reply to it changes nothing", async () => {
    const m = await member();
    const other = await member();
    const s = await startConversation(
      db,
      m.member,
      { subject: "Mine", body: "Only mine", idempotency_key: key() },
      origin,
    );
    if (!s.ok) throw new Error(s.message);
    expect(await openMemberConversation(db, other.member.id, s.conversation_id)).toBeNull();
    const before = await db
      .select({ n: count() })
      .from(conversationMessages)
      .where(eq(conversationMessages.conversation_id, s.conversation_id));
    expect(await memberReply(db, other.member, s.conversation_id, "Sneaky", origin)).toMatchObject({
      ok: false,
      kind: "not_found",
    });
    expect(
      await db
        .select({ n: count() })
        .from(conversationMessages)
        .where(eq(conversationMessages.conversation_id, s.conversation_id)),
    ).toEqual(before);
    expect(await memberConversations(db, other.member.id)).toEqual([]);
  });
});
