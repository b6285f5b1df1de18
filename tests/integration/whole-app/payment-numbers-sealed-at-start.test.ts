import "../member-support";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { AppProcess, appEnvironment } from "../app-server";
import { onPostgres, openTestDatabase } from "../test-database";
import type { Database } from "~/server/db/client.server";
import { externalPayments } from "~/server/db/schema";
import { openNumber } from "~/server/payments/payment-destination.server";
import { newMember } from "../member-support";
import { queueAch } from "../rails-support";

/**
 * An upgrade to the release that seals payments' account numbers (decision 0034): the payments an
 * earlier release queued hold them plain; two app processes starting together on the database
 * seal each one once, in the background, and keep serving meanwhile. PostgreSQL only: several
 * processes cannot share one embedded database (the pass itself is tested on both in
 * tests/integration/payments/payment-destination-sealed.test.ts).
 */
let database: (Database & { url?: string }) | undefined;
const apps: AppProcess[] = [];
let dataDir: string | undefined;
afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop()));
  await database?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

const plainCount = async (db: Database["db"]) =>
  Number(
    (
      await db.execute(
        sql`select count(*)::int as n from external_payments where details->>'account_number' is not null`,
      )
    ).rows[0]!.n,
  );

describe("payments queued by an earlier release", () => {
  const test = onPostgres ? it : it.skip;
  test(
    onPostgres
      ? "two app processes starting together seal every plain account number once"
      : "SKIPPED on PGlite: several app processes need a shared PostgreSQL server (set TEST_DATABASE_URL)",
    async () => {
      database = await openTestDatabase({ pool_max: 4 });
      const db = database.db;
      const numbers: Array<{ id: number; number: string }> = [];
      for (let i = 0; i < 5; i++) {
        const m = await newMember(db, { checking_cents: 10_000 });
        const number = `55${i}0011223344`;
        const queued = await queueAch(db, m.member, m.checking.id, { amount: "1.00", account_number: number });
        const [row] = await db.select().from(externalPayments).where(eq(externalPayments.id, queued.payment_id));
        const { account_number_enc: _enc, account_last4: _last4, ...rest } = row!.details;
        await db
          .update(externalPayments)
          .set({ details: { ...rest, account_number: number } })
          .where(eq(externalPayments.id, queued.payment_id));
        numbers.push({ id: queued.payment_id, number });
      }
      expect(await plainCount(db)).toBe(5);

      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-seal-"));
      // The keys the rows were sealed with here (tests/integration/member-support.ts): the app's.
      const environment = appEnvironment(database.url!, dataDir, {
        DATA_ENCRYPTION_KEY: process.env.DATA_ENCRYPTION_KEY!,
        SESSION_SECRET: process.env.SESSION_SECRET!,
        DATABASE_POOL_MAX: "4",
      });
      apps.push(new AppProcess(environment), new AppProcess(environment));
      await Promise.all(apps.map((app) => app.serving()));
      for (let tries = 0; tries < 100 && (await plainCount(db)) > 0; tries++)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await plainCount(db)).toBe(0);
      // Each payment sealed by one process: the counts they logged add up to the five.
      const sealed = apps.flatMap((app) =>
        app.lines
          .filter((line) => line.includes("payment account numbers sealed at rest"))
          .map((line) => (JSON.parse(line) as { payments: number }).payments),
      );
      expect(sealed.reduce((sum, n) => sum + n, 0)).toBe(5);
      for (const { id, number } of numbers) {
        const [row] = await db.select().from(externalPayments).where(eq(externalPayments.id, id));
        expect(JSON.stringify(row!.details)).not.toContain(number);
        expect(openNumber(row!, "account_number")).toBe(number);
      }
      // No log line of either process holds a number.
      for (const app of apps) for (const { number } of numbers) expect(app.lines.join("\n")).not.toContain(number);
    },
  );
});
