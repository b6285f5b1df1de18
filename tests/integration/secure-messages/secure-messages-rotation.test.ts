import "../identity-support";
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { conversationMessages, conversations } from "~/server/db/schema";
import { decryptField, encryptField } from "~/server/security/crypto.server";
import { reencryptToCurrentKey } from "~/server/maintenance/rotate-data-key.server";
import {
  bodyContext,
  memberConversations,
  openMemberConversation,
  startConversation,
  subjectContext,
} from "~/server/secure-messages/secure-messages.server";
import { openTestDatabase } from "../test-database";
import { person } from "../../factories";

/**
 * Secure messages under a rotated data key (docs/operations.md#rotating-the-data-encryption-key):
 * a subject and a text the old key encrypted are still read, and `npm run data-key:rotate` moves
 * them to the new key.
 */
const OLD_KEY = "c3".repeat(32);
const NEW_KEY = "d4".repeat(32);
const saved = { current: process.env.DATA_ENCRYPTION_KEY, previous: process.env.DATA_ENCRYPTION_KEY_PREVIOUS };
// Read lazily (on first use), so set before anything encrypts.
process.env.DATA_ENCRYPTION_KEY = NEW_KEY;
process.env.DATA_ENCRYPTION_KEY_PREVIOUS = OLD_KEY;
const oldKey = Buffer.from(OLD_KEY, "hex");
const newKey = Buffer.from(NEW_KEY, "hex");

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
  for (const [name, value] of [
    ["DATA_ENCRYPTION_KEY", saved.current],
    ["DATA_ENCRYPTION_KEY_PREVIOUS", saved.previous],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe("secure messages and the data key's rotation", () => {
  it("old values are read with the previous key and the rotation moves them to the new one", async () => {
    const db = database.db;
    // A member without a stored profile: the factory's funded members carry placeholder profile values.
    const m = { member: await person(db, "user") };
    const started = await startConversation(
      db,
      m.member,
      { subject: "Rotated subject", body: "Rotated words", idempotency_key: crypto.randomUUID() },
      { request_id: "rotation", ip: "198.51.100.33" },
    );
    if (!started.ok) throw new Error(started.message);
    const id = started.conversation_id;
    // As before a rotation: both values under the old key.
    await db
      .update(conversations)
      .set({ subject_enc: encryptField("Rotated subject", subjectContext(m.member.id), oldKey) })
      .where(eq(conversations.id, id));
    await db
      .update(conversationMessages)
      .set({ body_enc: encryptField("Rotated words", bodyContext(id), oldKey) })
      .where(eq(conversationMessages.conversation_id, id));

    expect((await memberConversations(db, m.member.id))[0]!.subject).toBe("Rotated subject");
    expect((await reencryptToCurrentKey(db)).fields).toBeGreaterThanOrEqual(2);

    const [row] = await db.select().from(conversations).where(eq(conversations.id, id));
    expect(decryptField(row!.subject_enc, subjectContext(m.member.id), newKey)).toBe("Rotated subject");
    expect(() => decryptField(row!.subject_enc, subjectContext(m.member.id), oldKey)).toThrow();
    const [message] = await db.select().from(conversationMessages).where(eq(conversationMessages.conversation_id, id));
    expect(decryptField(message!.body_enc, bodyContext(id), newKey)).toBe("Rotated words");
    expect((await openMemberConversation(db, m.member.id, id))!.messages[0]!.body).toBe("Rotated words");
    expect((await reencryptToCurrentKey(db)).fields).toBe(0);
  });
});
