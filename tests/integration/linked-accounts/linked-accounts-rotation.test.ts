import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { linkedAccounts } from "~/server/db/schema";
import { decryptField, encryptField } from "~/server/security/crypto.server";
import { reencryptToCurrentKey } from "~/server/maintenance/rotate-data-key.server";
import { accountNumberContext, linkAccount } from "~/server/linked-accounts/linked-accounts.server";
import { linkAccountSchema } from "~/domain/linked-accounts";
import { openTestDatabase } from "../test-database";
import { person } from "../../factories";

/**
 * A linked account's number under a rotated data key (docs/operations.md#rotating-the-data-encryption-key):
 * sealed with the old key it is still read, and `npm run data-key:rotate` moves it to the new one.
 */
const OLD_KEY = "e5".repeat(32);
const NEW_KEY = "f6".repeat(32);
const saved = { current: process.env.DATA_ENCRYPTION_KEY, previous: process.env.DATA_ENCRYPTION_KEY_PREVIOUS };
process.env.DATA_ENCRYPTION_KEY = NEW_KEY;
process.env.DATA_ENCRYPTION_KEY_PREVIOUS = OLD_KEY;

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

describe("linked accounts and the data key's rotation", () => {
  it("an account number sealed with the old key is moved to the new one", async () => {
    const db = database.db;
    const member = await person(db, "user");
    const linked = await linkAccount(
      db,
      member,
      linkAccountSchema.parse({
        routing_number: "021000021",
        account_number: "31415926535",
        account_type: "checking",
        nickname: "Old key",
      }),
      { request_id: "rotation", ip: "198.51.100.34" },
    );
    const context = accountNumberContext(member.id);
    await db
      .update(linkedAccounts)
      .set({ account_number_enc: encryptField("31415926535", context, Buffer.from(OLD_KEY, "hex")) })
      .where(eq(linkedAccounts.id, linked.id));
    const report = await reencryptToCurrentKey(db);
    expect(report.fields).toBeGreaterThanOrEqual(1);
    const [row] = await db.select().from(linkedAccounts).where(eq(linkedAccounts.id, linked.id));
    expect(decryptField(row!.account_number_enc, context, Buffer.from(NEW_KEY, "hex"))).toBe("31415926535");
  });
});
