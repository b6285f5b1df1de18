import fs from "node:fs";
import path from "node:path";
import { ConfigurationError, env } from "~/config/env.server";
import { logger } from "~/server/logger.server";
import { secrets } from "~/server/config/secrets.server";
import { migrateDatabase, openDatabase, type Database, type Db } from "./client.server";
import { databaseUnavailable, describeDatabaseError } from "./unavailable.server";
import { readDatabase } from "./read-replica.server";

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
      logger.warn(
        { attempt: attempt_number, retry_in_ms, database: describeDatabaseError(error) },
        "database unreachable at start-up, waiting for the database",
      );
      await new Promise((resolve) => setTimeout(resolve, retry_in_ms));
    }
  }
}

/**
 * The process's one database. Kept on globalThis so that the Express entry and the
 * React Router server build (two module graphs in development) share one PGlite instance:
 * a second instance on the same folder would corrupt it.
 */
const KEY = Symbol.for("mutual.database");
type Holder = { [KEY]?: Promise<Database> };

export function appDatabase(): Promise<Database> {
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
    // The demo people are seeded by the server's start-up (app/server/seed/startup.server.ts), not
    // here: the database module depends on no service, so nothing it imports imports it back.
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

/**
 * A service that takes the database first, as a function that opens the process's database
 * itself. A screen's view-model (`app/routes/<area>/<screen>.server.ts`) hands its route these,
 * so a loader or action never holds the database handle (docs/architecture.md#dependency-directions).
 */
export function withDatabase<A extends unknown[], R>(
  service: (database: Db, ...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args) => service(await db(), ...args);
}

/**
 * A read-only service, as a function that opens its database itself: the `withDatabase` of a
 * page that may read from the read replica (DATABASE_READ_URL; read-replica.server.ts). It runs
 * in a READ ONLY transaction wherever it reads, so a service that writes fails in every test of
 * its page, not only on a replica (a statement PDF, kept at its first download, was nearly routed
 * here), and a page's queries see one snapshot.
 */
export function withReadDatabase<A extends unknown[], R>(
  service: (database: Db, ...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args) =>
    (await readDatabase(await appDatabase())).transaction((tx) => service(tx as unknown as Db, ...args), {
      accessMode: "read only",
    });
}

/**
 * The database of a maintenance command (migrate, ledger:verify, data-key:rotate, staff:create). In production,
 * a command that finds no DATABASE_URL and no embedded database in DATA_DIR refuses instead of
 * creating an empty one: that is what an environment file that was not loaded looks like (a
 * `sh`-sourced file whose URL holds `&` leaves DATABASE_URL unset), and "Migrations applied" or
 * "Ledger OK" on an empty new database would say all is well. The server itself creates the
 * embedded database at its first start.
 */
export async function scriptDatabase(): Promise<Database> {
  const e = env();
  const pgdata = path.join(e.dataDirAbsolute, "pgdata");
  if (e.NODE_ENV === "production" && !e.DATABASE_URL && !fs.existsSync(pgdata)) {
    throw new ConfigurationError(
      `NODE_ENV=production, DATABASE_URL is not set and there is no embedded database in ${pgdata}: nothing was opened or created.\n` +
        "Is the environment file loaded? Run the command as docs/operations.md shows (node scripts/with-env.mjs /etc/mutual/mutual.env ...). " +
        "An embedded database is created by the server's first start.",
    );
  }
  return appDatabase();
}
