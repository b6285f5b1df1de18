import "../member-support";
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { scheduledTransfers } from "~/server/db/schema";
import { decryptField, encryptField } from "~/server/security/crypto.server";
import { reencryptToCurrentKey } from "~/server/maintenance/rotate-data-key.server";
import { achAccountNumberContext, scheduleTransfer } from "~/server/payments/scheduled-transfers.server";
import { institution } from "~/config/institution.server";
import { businessDate } from "~/domain/ledger-rules";
import { businessDayOnOrAfter } from "~/domain/payment-dates";
import { addDays } from "~/domain/schedule";
import { whenSchema } from "~/domain/scheduled-transfers";
import { toUsBankSchema } from "~/domain/transfers";
import { openTestDatabase } from "../test-database";
import { newMember } from "../member-support";

/**
 * A scheduled To US Bank transfer's account number under a rotated data key
 * (docs/operations.md#rotating-the-data-encryption-key): sealed with the old key it is still read,
 * and `npm run data-key:rotate` moves it to the new one.
 */
const OLD_KEY = "e7".repeat(32);
const NEW_KEY = "f8".repeat(32);
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

describe("scheduled To US Bank transfers and the data key's rotation", () => {
  it("an account number sealed with the old key is moved to the new one", async () => {
    const db = database.db;
    const m = await newMember(db, { checking_cents: 10_000 });
    const today = businessDate(institution().time_zone);
    const set = await scheduleTransfer(
      db,
      m.member,
      {
        kind: "ach",
        form: toUsBankSchema.parse({
          from_account_id: String(m.checking.id),
          routing_number: "021000021",
          account_number: "27182818284",
          account_type: "checking",
          account_name: "Old Key",
          amount: "1.00",
          reference: "Rotation",
          idempotency_key: crypto.randomUUID(),
        }),
      },
      whenSchema(today).parse({ when: "date", transfer_date: businessDayOnOrAfter(addDays(today, 1)) })!,
      { request_id: "rotation", ip: "198.51.100.35" },
    );
    if (!set.ok) throw new Error(set.message);
    const context = achAccountNumberContext(m.member.id);
    await db
      .update(scheduledTransfers)
      .set({ ach_account_number_enc: encryptField("27182818284", context, Buffer.from(OLD_KEY, "hex")) })
      .where(eq(scheduledTransfers.id, set.series_id));
    const report = await reencryptToCurrentKey(db);
    expect(report.fields).toBeGreaterThanOrEqual(1);
    const [row] = await db.select().from(scheduledTransfers).where(eq(scheduledTransfers.id, set.series_id));
    expect(decryptField(row!.ach_account_number_enc!, context, Buffer.from(NEW_KEY, "hex"))).toBe("27182818284");
  });
});
