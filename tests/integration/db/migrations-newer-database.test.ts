import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigurationError } from "~/config/env.server";
import { migrateDatabase, type Database } from "~/server/db/client.server";
import { openTestDatabase } from "../test-database";
import journal from "~/server/db/migrations/meta/_journal.json" with { type: "json" };

// Old code started on a database a newer release has migrated (a rolled-back upgrade) used to
// find "nothing to apply" and run against tables it does not know. It stops instead, on PGlite
// and on PostgreSQL alike (docs/operations.md#upgrading).
describe("a database migrated by a newer release", () => {
  let database: Database;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => {
    await database.close();
  });

  it("is opened as usual when every applied migration is known", async () => {
    await expect(migrateDatabase(database)).resolves.toBeUndefined();
  });

  it("stops start-up, naming the newest migration this code knows, and changes nothing", async () => {
    const newest = journal.entries.at(-1)!;
    await database.db.execute(
      sql`insert into drizzle.__drizzle_migrations (hash, created_at) values ('from-a-newer-release', ${newest.when + 60_000})`,
    );
    const before = await database.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
    const attempt = migrateDatabase(database);
    await expect(attempt).rejects.toBeInstanceOf(ConfigurationError);
    await expect(migrateDatabase(database)).rejects.toThrow(
      `The database has 1 migration(s) newer than this version of Mutual knows (its newest is ${newest.tag})`,
    );
    const after = await database.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
  });

  it("stops too when the unknown migration carries an earlier date than this code's newest", async () => {
    // A release's migration dated before ours (its branch merged later): by date alone it looked known.
    await database.db.execute(sql`delete from drizzle.__drizzle_migrations where hash = 'from-a-newer-release'`);
    await expect(migrateDatabase(database)).resolves.toBeUndefined();
    await database.db.execute(
      sql`insert into drizzle.__drizzle_migrations (hash, created_at) values ('dated-earlier', ${journal.entries[0]!.when})`,
    );
    await expect(migrateDatabase(database)).rejects.toThrow("The database has 1 migration(s) newer than this version");
  });
});
