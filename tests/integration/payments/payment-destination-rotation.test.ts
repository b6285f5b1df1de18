import "../member-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { externalPayments } from "~/server/db/schema";
import { decryptField, encryptField } from "~/server/security/crypto.server";
import { reencryptToCurrentKey } from "~/server/maintenance/rotate-data-key.server";
import { destinationContext, openNumber } from "~/server/payments/payment-destination.server";
import { setCurrencyRate } from "~/server/payments/rates.server";
import { openTestDatabase } from "../test-database";
import { newMember } from "../member-support";
import { queueAch, queueWire } from "../rails-support";

/**
 * The account numbers of payments to other banks under a rotated data key
 * (docs/operations.md#rotating-the-data-encryption-key): sealed with the old key they are still
 * read; `npm run data-key:rotate` moves them to the new one, and seals any still plain.
 */
const OLD_KEY = "c3".repeat(32);
const NEW_KEY = "d4".repeat(32);
const oldKey = Buffer.from(OLD_KEY, "hex");
const newKey = Buffer.from(NEW_KEY, "hex");
const saved = { current: process.env.DATA_ENCRYPTION_KEY, previous: process.env.DATA_ENCRYPTION_KEY_PREVIOUS };
process.env.DATA_ENCRYPTION_KEY = NEW_KEY;
process.env.DATA_ENCRYPTION_KEY_PREVIOUS = OLD_KEY;

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
  await setCurrencyRate(database.db, { code: "EUR", usd_per_unit: "1.08375", updated_by: "test" });
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

describe("payments to other banks and the data key's rotation", () => {
  it("numbers sealed with the old key are read, moved to the new one, plain ones sealed, and a second run does nothing", async () => {
    const db = database.db;
    const a = await newMember(db, { checking_cents: 500_000 });
    const b = await newMember(db, { checking_cents: 500_000 });
    const ach = await queueAch(db, a.member, a.checking.id, { amount: "3.00", account_number: "16180339887" });
    const wire = await queueWire(db, b.member, b.checking.id, { amount: "10.00", account_number: "0532013000" });
    const plain = await queueAch(db, b.member, b.checking.id, { amount: "4.00", account_number: "14142135623" });
    const load = async (id: number) =>
      (await db.select().from(externalPayments).where(eq(externalPayments.id, id)))[0]!;
    // As a payment queued before the rotation: sealed with the old key.
    const underOldKey = (stored: string, context: string) =>
      encryptField(decryptField(stored, context, newKey), context, oldKey);
    const achRow = await load(ach.payment_id);
    await db
      .update(externalPayments)
      .set({
        details: {
          ...achRow.details,
          account_number_enc: underOldKey(
            achRow.details.account_number_enc!,
            destinationContext("account_number", a.member.id),
          ),
        },
      })
      .where(eq(externalPayments.id, ach.payment_id));
    const wireRow = await load(wire.payment_id);
    await db
      .update(externalPayments)
      .set({
        details: {
          ...wireRow.details,
          account_number_enc: underOldKey(
            wireRow.details.account_number_enc!,
            destinationContext("account_number", b.member.id),
          ),
          iban_enc: underOldKey(wireRow.details.iban_enc!, destinationContext("iban", b.member.id)),
        },
      })
      .where(eq(externalPayments.id, wire.payment_id));
    // And one from before the numbers were sealed.
    const plainRow = await load(plain.payment_id);
    const { account_number_enc: _enc, account_last4: _last4, ...rest } = plainRow.details;
    await db
      .update(externalPayments)
      .set({ details: { ...rest, account_number: "14142135623" } })
      .where(eq(externalPayments.id, plain.payment_id));

    // Still read with the previous key.
    expect(openNumber(await load(ach.payment_id), "account_number")).toBe("16180339887");
    const report = await reencryptToCurrentKey(db);
    expect(report.fields).toBeGreaterThanOrEqual(4);
    const a_ctx = destinationContext("account_number", a.member.id);
    const b_ctx = destinationContext("account_number", b.member.id);
    expect(decryptField((await load(ach.payment_id)).details.account_number_enc!, a_ctx, newKey)).toBe("16180339887");
    const moved = await load(wire.payment_id);
    expect(decryptField(moved.details.account_number_enc!, b_ctx, newKey)).toBe("0532013000");
    expect(decryptField(moved.details.iban_enc!, destinationContext("iban", b.member.id), newKey)).toBe(
      "DE89370400440532013000",
    );
    const sealed = await load(plain.payment_id);
    expect(sealed.details).not.toHaveProperty("account_number");
    expect(decryptField(sealed.details.account_number_enc!, b_ctx, newKey)).toBe("14142135623");
    // The other details are untouched.
    expect(moved.details).toMatchObject({ bic: "COBADEFFXXX", iban_last4: "3000", recipient_name: "Hans Müller" });
    expect((await reencryptToCurrentKey(db)).fields).toBe(0);
  });
});
