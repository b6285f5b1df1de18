import { afterAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import { onPostgres, openTestDatabase } from "../test-database";
import { openDatabase, type Database } from "~/server/db/client.server";
import { seedDemoAtStartup } from "~/server/seed/startup.server";
import { ledgerAccounts, users } from "~/server/db/schema";
import { DEMO_SIGNINS } from "~/server/auth/demo-signins.server";

/**
 * Two app processes started together on one empty PostgreSQL database (two systemd instances at
 * boot) must seed the demo institution once: each finding the database empty and seeding it gave
 * demo members two sets of accounts. PostgreSQL only: the embedded database serves one process.
 */

const handles: Database[] = [];
afterAll(async () => {
  for (const handle of handles.reverse()) await handle.close();
});

describe("demo seeding by processes starting together", () => {
  const test = onPostgres ? it : it.skip;
  test(
    onPostgres
      ? "two processes seeding one empty database at once: every demo person once, one checking and one savings each"
      : "SKIPPED on PGlite: needs a PostgreSQL server (set TEST_DATABASE_URL)",
    async () => {
      const database = await openTestDatabase({ pool_max: 4 });
      handles.push(database);
      // A second process: a pool of its own on the same database.
      const other = await openDatabase({ kind: "postgres", url: database.url!, pool_max: 4 });
      handles.push(other);
      const results = await Promise.allSettled([seedDemoAtStartup(database), seedDemoAtStartup(other)]);
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled"]);

      const [{ n: people } = { n: 0 }] = await database.db.select({ n: count() }).from(users);
      expect(people).toBe(DEMO_SIGNINS.length);
      for (const person of DEMO_SIGNINS.filter((p) => p.kind === "member")) {
        const [user] = await database.db.select({ id: users.id }).from(users).where(eq(users.email, person.email));
        const accounts = await database.db
          .select({ type: ledgerAccounts.type })
          .from(ledgerAccounts)
          .where(eq(ledgerAccounts.member_id, user!.id));
        expect({ email: person.email, accounts: accounts.map((a) => a.type).sort() }).toEqual({
          email: person.email,
          accounts: ["checking", "savings"],
        });
      }
    },
  );
});
