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
    const database = (await openMigratedTemplate()) ?? (await openDatabase({ kind: "pglite", dataDir: "memory" }));
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
 * the handle (read it inside a test or hook, once the database is open); `.url`, on PostgreSQL,
 * opens a second pool on it (a second app process's). `onOpen` runs once it
 * is open (to keep the handle in a variable, or hand it to the app); `beforeClose` runs after the
 * last test while it is still open (a money test verifies the ledger there).
 */
export function fileDatabase(
  options: {
    pool_max?: number;
    onOpen?: (database: Database) => void | Promise<void>;
    beforeClose?: (db: Db) => void | Promise<void>;
  } = {},
): { readonly db: Db; readonly kind: Database["kind"]; readonly url: string | undefined } {
  let database: (Database & { url?: string }) | undefined;
  beforeAll(async () => {
    database = await openTestDatabase({ pool_max: options.pool_max });
    await options.onOpen?.(database);
  });
  afterAll(async () => {
    try {
      if (database) await options.beforeClose?.(database.db);
    } finally {
      await database?.close();
    }
  });
  return {
    get db() {
      if (!database) throw new Error("the test database is not open yet: read .db inside a test or hook");
      return database.db;
    },
    get kind() {
      if (!database) throw new Error("the test database is not open yet: read .kind inside a test or hook");
      return database.kind;
    },
    get url() {
      if (!database) throw new Error("the test database is not open yet: read .url inside a test or hook");
      return database.url;
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

/**
 * The SQL statements the PostgreSQL client sent while `work` ran: each is one call of the
 * client's `query`, so a page's or a job's round trips can be counted (on PostgreSQL only).
 */
export async function statementsOf<T>(work: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const statements: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    statements.push(typeof first === "string" ? first : String(first?.text ?? ""));
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    return { result: await work(), statements };
  } finally {
    pg.Client.prototype.query = query;
  }
}
