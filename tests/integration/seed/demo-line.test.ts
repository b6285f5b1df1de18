import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asc, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { creditLineCycles, creditLineStatements, creditLines, users } from "~/server/db/schema";
import { seedDemoAtStartup } from "~/server/seed/startup.server";
import { seedDemoLine } from "~/server/seed/demo-line.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { memberLineStatementPdf, memberLineStatements } from "~/server/statements/line-statements.server";
import { businessDate } from "~/domain/ledger-rules";
import { institution } from "~/config/institution.server";
import { addMonths, monthOfDate } from "~/domain/statements";
import { openTestDatabase } from "../test-database";

/**
 * The demo's line of credit (app/server/seed/demo-line.server.ts): Priya Shah's line, opened on
 * the 5th three months ago, drawn and paid since, its cycles closed on each 5th with a periodic
 * statement for each; made once, the ledger in balance.
 */
let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

describe("the demo's line of credit", () => {
  it("is Priya's, three months old, with a closed cycle on each 5th since and a statement for each", async () => {
    const db = database.db;
    await seedDemoAtStartup(database);
    const [priya] = await db.select().from(users).where(eq(users.email, "priya.shah@harborview.example"));
    const lines = await db.select().from(creditLines).where(eq(creditLines.member_id, priya!.id));
    expect(lines).toHaveLength(1);
    const now = new Date();
    const today = businessDate(institution().time_zone, now);
    const this_month = monthOfDate(today);
    expect(lines[0]).toMatchObject({ opened_on: `${addMonths(this_month, -3)}-05`, credit_limit_cents: 5_000_00 });
    const cycles = await db
      .select()
      .from(creditLineCycles)
      .where(eq(creditLineCycles.line_id, lines[0]!.id))
      .orderBy(asc(creditLineCycles.closed_on));
    const closes = [2, 1, 0].map((n) => `${addMonths(this_month, -n)}-05`).filter((d) => d <= today);
    expect(cycles.map((c) => c.closed_on)).toEqual(closes);
    const [listed] = await memberLineStatements(db, priya!.id);
    expect(listed!.cycles.map((c) => c.closed_on)).toEqual([...closes].reverse());
    for (const cycle of cycles) {
      const got = await memberLineStatementPdf(db, priya!.id, String(lines[0]!.id), cycle.closed_on, now);
      expect(got).toMatchObject({ ok: true });
    }
    const kept = await db
      .select()
      .from(creditLineStatements)
      .where(eq(creditLineStatements.line_id, lines[0]!.id))
      .orderBy(asc(creditLineStatements.closed_on));
    expect(kept.map((s) => s.new_balance_cents)).toEqual(cycles.map((c) => c.balance_cents));
    expect(kept[0]).toMatchObject({ previous_balance_cents: 0, draws_cents: 1_200_00 });
    expect(kept[1]).toMatchObject({ payments_cents: 150_00 });
    expect((await verifyLedger(db)).problems).toEqual([]);
    // Once: a second start makes no second line.
    expect(await seedDemoLine(db)).toBe(false);
    expect(await db.select().from(creditLines).where(eq(creditLines.member_id, priya!.id))).toHaveLength(1);
  });
});
