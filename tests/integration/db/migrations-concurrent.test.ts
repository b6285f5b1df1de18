import crypto from "node:crypto";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { migrateDatabase, openDatabase } from "~/server/db/client.server";
import { onPostgres } from "../test-database";

// Several app servers started at once against one empty PostgreSQL database (a rolling deploy,
// or two replicas) must not race on the same CREATE statements. PGlite has one process per
// folder (the DATA_DIR lock), so this is PostgreSQL only.
describe.runIf(onPostgres)("migrations on PostgreSQL", () => {
  it("three servers migrating one empty database at once all succeed, and the schema is applied once (even with a pool of one connection each)", async () => {
    const serverUrl = process.env.TEST_DATABASE_URL!;
    const name = `mutual_migrate_${crypto.randomBytes(6).toString("hex")}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    const databases = await Promise.all(
      [1, 2, 3].map(() => openDatabase({ kind: "postgres", url: url.toString(), pool_max: 1 })),
    );
    try {
      const results = await Promise.allSettled(databases.map((database) => migrateDatabase(database)));
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "fulfilled"]);
      const check = new pg.Client({ connectionString: url.toString() });
      await check.connect();
      const applied = await check.query<{ n: string }>("select count(*) as n from drizzle.__drizzle_migrations");
      const journal = await import("~/server/db/migrations/meta/_journal.json", { with: { type: "json" } });
      expect(Number(applied.rows[0]!.n)).toBe(journal.default.entries.length);
      await check.end();
    } finally {
      await Promise.all(databases.map((database) => database.close()));
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });
});
