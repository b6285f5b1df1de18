import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { upkeepEmbeddedDatabase } from "~/server/db/upkeep.server";
import { postTransfer } from "~/server/ledger/ledger.server";
import { fundedMember } from "../../factories";
import { expectLedgerVerifies } from "../ledger-fixtures";
import { onPostgres, openTestDatabase } from "../test-database";

/**
 * The embedded database's upkeep (app/server/db/upkeep.server.ts): PGlite has no autovacuum, so
 * without it the planner never learned that tables grew, and the daily totals trigger scanned
 * every posted transaction on every posting. Measured here without a clock: the rows PostgreSQL's
 * own statistics say were read by sequential scans of `ledger_transactions`.
 */
let database: Database;

beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await expectLedgerVerifies(database.db);
  await database?.close();
});

/** Rows read from `ledger_transactions` by sequential scans so far (this process's statistics, flushed first). */
async function transactionRowsScanned(): Promise<number> {
  await database.db.execute(sql`select pg_stat_force_next_flush()`);
  const [row] = (
    await database.db.execute(
      sql`select seq_tup_read::int as n from pg_stat_user_tables where relname = 'ledger_transactions'`,
    )
  ).rows as { n: number }[];
  return row!.n;
}

describe.skipIf(onPostgres)("embedded database upkeep (PGlite)", () => {
  it("keeps a posting from reading every transaction ever posted, and does only what is due", async () => {
    const db = database.db;
    const member = await fundedMember(db, { checking_cents: 1_000_000 });
    const post = () =>
      postTransfer(db, {
        kind: "transfer",
        initiator: "staff:upkeep-test",
        idempotency_key: crypto.randomUUID(),
        created_by: "staff:upkeep-test",
        entries: [
          { account_id: member.checking.id, amount_cents: -1 },
          { account_id: member.savings.id, amount_cents: 1 },
        ],
      });
    for (let i = 0; i < 500; i++) await post();

    // As every PGlite database was kept before the upkeep job: each posting scans them all.
    let before = await transactionRowsScanned();
    for (let i = 0; i < 10; i++) await post();
    expect((await transactionRowsScanned()) - before).toBeGreaterThanOrEqual(10 * 500);

    const first = await upkeepEmbeddedDatabase(db);
    expect(first).toMatchObject({ tables_analyzed: expect.any(Number) });
    expect((first as { tables_analyzed: number }).tables_analyzed).toBeGreaterThan(10); // every table never analyzed
    const [ledger] = (
      await db.execute(sql`select reltuples::int as rows from pg_class where relname = 'ledger_transactions'`)
    ).rows as { rows: number }[];
    expect(ledger!.rows).toBeGreaterThanOrEqual(510);

    before = await transactionRowsScanned();
    for (let i = 0; i < 10; i++) await post();
    expect((await transactionRowsScanned()) - before).toBe(0);

    // Nothing changed enough since: nothing to do (autovacuum's thresholds: 50 rows + 10%).
    await transactionRowsScanned();
    expect(await upkeepEmbeddedDatabase(db)).toEqual({ tables_analyzed: 0, tables_vacuumed: 0 });
  });
});

describe.skipIf(!onPostgres)("embedded database upkeep on PostgreSQL", () => {
  it("leaves the tables to PostgreSQL's autovacuum", async () => {
    expect(await upkeepEmbeddedDatabase(database.db)).toEqual({ database: "PostgreSQL: its autovacuum does this" });
  });
});
