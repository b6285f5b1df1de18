import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";
import { sql } from "drizzle-orm";
import * as schema from "./schema";
import { acquireDataDirLock, type DataDirLock } from "./data-dir-lock.server";
import { ownerOnlyDir, restrictTreeToOwner } from "../files/owner-only.server";

/**
 * Both drivers speak the same SQL through the same Drizzle query builder, so the app is written
 * against one type. PGlite's database object has the same methods; only its driver differs.
 */
export type Db = NodePgDatabase<typeof schema>;
/** A database or an open transaction: what a service function takes. */
export type DbOrTx = Db | Parameters<Parameters<Db["transaction"]>[0]>[0];

export interface Database {
  db: Db;
  kind: "pglite" | "postgres";
  ping(): Promise<void>;
  close(): Promise<void>;
}

export type DatabaseTarget =
  | { kind: "postgres"; url: string; pool_max?: number }
  /** dataDir "memory" keeps everything in memory: for tests. */
  | { kind: "pglite"; dataDir: string | "memory" };

const migrationsFolder = resolveMigrationsFolder();

/** Source checkouts keep migrations beside this file; the server build copies them to build/. */
function resolveMigrationsFolder(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [
    path.join(here, "migrations"),
    path.resolve(here, "../../app/server/db/migrations"),
    path.resolve(process.cwd(), "app/server/db/migrations"),
  ];
  return candidates.find((c) => fs.existsSync(path.join(c, "meta/_journal.json"))) ?? candidates[candidates.length - 1]!;
}

export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  if (target.kind === "postgres") {
    const pool = new pg.Pool({ connectionString: target.url, max: target.pool_max ?? 20 });
    // bigint columns come back as strings by default; the ledger works in cents that fit in
    // a JavaScript number only up to 2^53, so parse int8 explicitly where it is read.
    pool.on("error", (error) => console.error("PostgreSQL pool error", error));
    const db = drizzlePg(pool, { schema });
    return {
      db,
      kind: "postgres",
      ping: async () => void (await pool.query("select 1")),
      close: () => pool.end(),
    };
  }

  let lock: DataDirLock | undefined;
  let client: PGlite;
  if (target.dataDir === "memory") {
    client = new PGlite();
  } else {
    // The owner's only before PGlite writes into it, and again once it has: PGlite creates a new
    // database's files 0666 whatever the umask.
    ownerOnlyDir(target.dataDir);
    lock = acquireDataDirLock(target.dataDir);
    client = new PGlite(path.join(target.dataDir, "pgdata"));
  }
  await client.waitReady;
  if (target.dataDir !== "memory") restrictTreeToOwner(target.dataDir);
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    db,
    kind: "pglite",
    ping: async () => void (await client.query("select 1")),
    close: async () => {
      await client.close();
      lock?.release();
    },
  };
}

/** Any fixed 64-bit number, the same in every process of this app: "mutual-migrations". */
const MIGRATION_LOCK_KEY = "7310431812462339584";

export async function migrateDatabase(database: Database): Promise<void> {
  if (database.kind === "postgres") {
    // Several app servers may start at once against one PostgreSQL: a session advisory lock
    // makes them apply migrations one after another (the later ones then find nothing to do)
    // instead of racing on the same CREATE statements.
    // The lock lives on a connection of its own, outside the pool, so that a pool of one
    // connection can still migrate while it is held.
    const pool = (database.db as unknown as { $client: pg.Pool }).$client;
    const lockClient = new pg.Client(pool.options);
    await lockClient.connect();
    try {
      await lockClient.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
      await migratePg(database.db, { migrationsFolder });
    } finally {
      await lockClient.end();
    }
  } else {
    await migratePglite(database.db as never, { migrationsFolder });
  }
}

/** For tests: every table emptied, sequences restarted. */
export async function truncateAll(db: Db): Promise<void> {
  const rows = await db.execute<{ tablename: string }>(
    sql`select tablename from pg_tables where schemaname = 'public'`,
  );
  const names = rows.rows.map((r) => `"${r.tablename}"`);
  if (names.length) await db.execute(sql.raw(`truncate ${names.join(", ")} restart identity cascade`));
}
