import { env } from "~/config/env.server";
import { institution } from "~/config/institution.server";
import { migrateDatabase, openDatabase, type Database } from "./client.server";

/**
 * The process's one database. Kept on globalThis so that the Express entry and the
 * React Router server build (two module graphs in development) share one PGlite instance:
 * a second instance on the same folder would corrupt it.
 */
const KEY = Symbol.for("mutual.database");
type Holder = { [KEY]?: Promise<Database> };

export function appDatabase(options: { seedDemo?: boolean } = {}): Promise<Database> {
  const seedDemo = options.seedDemo ?? true;
  const holder = globalThis as Holder;
  holder[KEY] ??= (async () => {
    const e = env();
    const database = e.DATABASE_URL
      ? await openDatabase({ kind: "postgres", url: e.DATABASE_URL })
      : await openDatabase({ kind: "pglite", dataDir: e.dataDirAbsolute });
    await migrateDatabase(database);
    // Demo mode: the demo institution's people on an empty database (app/server/seed). Scripts
    // that only inspect the database (ledger:verify) open it without seeding.
    if (seedDemo && institution().demo) {
      const { seedDemoIfEmpty } = await import("~/server/seed/demo.server");
      await seedDemoIfEmpty(database);
      // Six months of history for the demo members, posted through the ledger (once: it does
      // nothing for members who already have history).
      const { seedDemoHistory } = await import("~/server/seed/demo-history.server");
      await seedDemoHistory(database.db);
    }
    return database;
  })();
  return holder[KEY];
}

/** Lets tests and scripts install a database they opened themselves. */
export function setAppDatabase(database: Database): void {
  (globalThis as Holder)[KEY] = Promise.resolve(database);
}

export async function db() {
  return (await appDatabase()).db;
}
