import pg from "pg";
import { env } from "~/config/env.server";
import { institution } from "~/config/institution.server";
import { logger } from "~/server/logger.server";
import { secrets } from "~/server/config/secrets.server";
import { migrateDatabase, openDatabase, type Database } from "./client.server";
import { databaseUnavailable, describeDatabaseError } from "./unavailable.server";

/** Waits between start-up attempts: 0.5 s, doubling, at most 10 s. */
const START_WAIT_FIRST_MS = 500;
const START_WAIT_MAX_MS = 10_000;

/**
 * A server started while PostgreSQL is down or still starting (both coming back after a power cut,
 * a database upgrade) waits for it instead of exiting, saying so in the log at each attempt.
 */
async function untilReachable<T>(attempt: () => Promise<T>): Promise<T> {
  for (let attempt_number = 1; ; attempt_number++) {
    try {
      return await attempt();
    } catch (error) {
      if (!databaseUnavailable(error)) throw error;
      const retry_in_ms = Math.min(START_WAIT_MAX_MS, START_WAIT_FIRST_MS * 2 ** (attempt_number - 1));
      logger.warn({ attempt: attempt_number, retry_in_ms, database: describeDatabaseError(error) }, "database unreachable at start-up, waiting for the database");
      await new Promise((resolve) => setTimeout(resolve, retry_in_ms));
    }
  }
}

/** Any fixed 64-bit number, the same in every process of this app: "mutual-demo-seed". */
const SEED_LOCK_KEY = "7310431812462339585";

/**
 * Several app servers starting together on one empty PostgreSQL database would each find it
 * empty and each seed it: two sets of accounts per demo member. A session advisory lock, on a
 * connection of its own (a pool of one connection can still seed), makes them seed one after
 * another; the later ones then find the work done. Closing the connection releases the lock.
 */
async function oneProcessAtATime(database: Database, work: () => Promise<void>): Promise<void> {
  if (database.kind !== "postgres") return work();
  const pool = (database.db as unknown as { $client: pg.Pool }).$client;
  const lockClient = new pg.Client({ ...pool.options, statement_timeout: undefined, query_timeout: undefined });
  lockClient.on("error", (error) => logger.warn({ database: describeDatabaseError(error) }, "database connection lost"));
  try {
    await lockClient.connect();
    await lockClient.query("select pg_advisory_lock($1)", [SEED_LOCK_KEY]);
    await work();
  } finally {
    await lockClient.end().catch(() => undefined);
  }
}

/** The demo institution's people and their history, once, however many processes start together. */
export async function seedDemoAtStartup(database: Database): Promise<void> {
  const { seedDemoIfEmpty } = await import("~/server/seed/demo.server");
  const { seedDemoHistory } = await import("~/server/seed/demo-history.server");
  await oneProcessAtATime(database, async () => {
    await seedDemoIfEmpty(database);
    // Six months of history for the demo members, posted through the ledger (once: it does
    // nothing for members who already have history).
    await seedDemoHistory(database.db);
  });
}

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
      ? await untilReachable(async () => {
          const postgres = await openDatabase({
            kind: "postgres",
            url: e.DATABASE_URL!,
            pool_max: e.DATABASE_POOL_MAX,
            connect_timeout_ms: e.DATABASE_CONNECT_TIMEOUT_MS,
            statement_timeout_ms: e.DATABASE_STATEMENT_TIMEOUT_MS,
            idle_in_transaction_timeout_ms: e.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
            tcp_keepalive_ms: e.DATABASE_TCP_KEEPALIVE_MS,
          });
          try {
            await migrateDatabase(postgres);
            return postgres;
          } catch (error) {
            await postgres.close().catch(() => undefined);
            throw error;
          }
        })
      : // The keys first: on a new folder they are generated before the database exists, and a
        // database found without its keys stops start-up (secrets.server.ts).
        (secrets(), await openDatabase({ kind: "pglite", dataDir: e.dataDirAbsolute }));
    if (database.kind === "pglite") await migrateDatabase(database);
    // Demo mode: the demo institution's people on an empty database (app/server/seed). Scripts
    // that only inspect the database (ledger:verify) open it without seeding.
    if (seedDemo && institution().demo) await seedDemoAtStartup(database);
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
