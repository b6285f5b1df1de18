import { afterAll, beforeAll, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import type { Database, Db } from "~/server/db/client.server";
import { externalPayments } from "~/server/db/schema";
import { plainPaymentsToSeal, SEAL_BATCH, sealPlainDestinations } from "~/server/payments/payment-destination.server";
import { openTestDatabase } from "../test-database";
import { newMember } from "../member-support";
import { queueAch } from "../rails-support";

/**
 * The start-up pass that seals older payments' account numbers (decision 0034) reads a partial
 * index of the rows still plain, not the payments table: once they are sealed it finds nothing
 * without reading the table, however many payments there are.
 */
let database: Database;
let db: Db;

beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
});
afterAll(async () => {
  await database?.close();
});

/** The plan of the pass's query, as PostgreSQL would run it on the table's current statistics. */
async function planOfThePass(): Promise<string> {
  await db.execute(sql`analyze external_payments`);
  const result = await db.execute(sql`explain (format json) ${plainPaymentsToSeal(db, SEAL_BATCH)}`);
  return JSON.stringify(result.rows);
}

it("reads the partial index of plain rows: it seals an older row, then a start finds none among thousands sealed", async () => {
  const { member, checking } = await newMember(db, { checking_cents: 100_000 });
  const queued = await queueAch(db, member, checking.id, { amount: "1.00", account_number: "900012718281" });
  const [row] = await db.select().from(externalPayments).where(eq(externalPayments.id, queued.payment_id));
  // Five thousand sealed payments like it (copies, cancelled: the pass only reads their details).
  await db.execute(sql`
    insert into external_payments
      (member_id, kind, status, from_account_id, hold_transaction_id, amount_cents, details, idempotency_key)
    select member_id, kind, 'cancelled', from_account_id, -g, amount_cents, details, 'sealed-copy-' || g
      from external_payments, generate_series(1, 5000) as g
     where id = ${queued.payment_id}`);
  // One as an earlier version stored it: the number plain.
  const { account_number_enc: _enc, account_last4: _last4, ...rest } = row!.details;
  await db
    .update(externalPayments)
    .set({ details: { ...rest, account_number: "900012718281" } })
    .where(eq(externalPayments.id, queued.payment_id));

  expect(await planOfThePass()).toContain("external_payments_plain_numbers_idx");
  expect(await sealPlainDestinations(db)).toBe(1);
  // Sealed: the index is empty and the next start's pass reads it, not the 5,001 payments.
  const plan = await planOfThePass();
  expect(plan).toContain("external_payments_plain_numbers_idx");
  expect(plan).not.toContain("Seq Scan");
  expect(await sealPlainDestinations(db)).toBe(0);
});
