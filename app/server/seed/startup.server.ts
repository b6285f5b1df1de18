import pg from "pg";
import type { Database } from "~/server/db/client.server";
import { describeDatabaseError } from "~/server/db/unavailable.server";
import { institution } from "~/config/institution.server";
import { logger } from "~/server/logger.server";
import { seedDemoIfEmpty } from "./demo.server";
import { seedDemoHistory } from "./demo-history.server";
import { seedDemoLoan } from "./demo-loan.server";
import { seedDemoLine } from "./demo-line.server";

/**
 * Demo mode at start-up: the demo institution's people on an empty database. The server calls
 * this once the database is open (server.ts); scripts that only inspect or migrate the database
 * (ledger:verify, db:migrate) never do.
 */
export async function seedDemoIfDemo(database: Database): Promise<void> {
  if (institution().demo) await seedDemoAtStartup(database);
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
  lockClient.on("error", (error) =>
    logger.warn({ database: describeDatabaseError(error) }, "database connection lost"),
  );
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
  await oneProcessAtATime(database, async () => {
    await seedDemoIfEmpty(database);
    // Six months of history for the demo members, posted through the ledger (once: it does
    // nothing for members who already have history).
    await seedDemoHistory(database.db);
    // Sam Okafor's personal loan, three months old (once, on a demo with no loan yet).
    await seedDemoLoan(database.db);
    // Priya Shah's line of credit, three months old with its closed cycles (once, on a demo with no line yet).
    await seedDemoLine(database.db);
  });
}
