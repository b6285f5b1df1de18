import crypto from "node:crypto";
import fs from "node:fs";
import pg from "pg";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { afterAll, beforeAll, inject } from "vitest";
import { migrateDatabase, openDatabase, type Database, type Db } from "~/server/db/client.server";
import * as schema from "~/server/db/schema";

declare module "vitest" {
  export interface ProvidedContext {
    /** A file holding an in-memory PGlite database already migrated (global-setup.ts), or "". */
    pgliteTemplate: string;
  }
}

/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or a new database
 * on the PostgreSQL server named by TEST_DATABASE_URL (CI runs the suite both ways).
 */
export async function openTestDatabase(options: { pool_max?: number } = {}): Promise<Database & { url?: string }> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const database = await openMigratedTemplate() ?? await openDatabase({ kind: "pglite", dataDir: "memory" });
    // On a copy of the template this finds every migration applied and does nothing.
    await migrateDatabase(database);
    return database;
  }
  const name = `mutual_test_${crypto.randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ kind: "postgres", url: url.toString(), pool_max: options.pool_max });
  await migrateDatabase(database);
  return {
    ...database,
    url: url.toString(),
    close: async () => {
      await database.close();
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}

export const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

/**
 * The test file's database, opened before its first test and closed after its last: `.db` is
 * the handle (read it inside a test or hook, once the database is open).
 */
export function fileDatabase(): { readonly db: Db } {
  let database: Database | undefined;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });
  return {
    get db() {
      if (!database) throw new Error("the test database is not open yet: read .db inside a test or hook");
      return database.db;
    },
  };
}

/**
 * A new PGlite database made from the template global-setup.ts migrated once for the whole run.
 * Creating a PGlite database runs initdb inside WebAssembly (about 3 s of CPU) and migrating it
 * another 0.4 s; loading a copy of a migrated one takes under 1 s, once per test file.
 */
async function openMigratedTemplate(): Promise<Database | undefined> {
  const template = inject("pgliteTemplate");
  if (!template || !fs.existsSync(template)) return undefined;
  const client = new PGlite({ loadDataDir: new Blob([fs.readFileSync(template)]) });
  await client.waitReady;
  return {
    db: drizzle(client, { schema }) as unknown as Db,
    kind: "pglite",
    ping: async () => void (await client.query("select 1")),
    close: () => client.close(),
  };
}
