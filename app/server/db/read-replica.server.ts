import { AsyncLocalStorage } from "node:async_hooks";
import { sql } from "drizzle-orm";
import { env } from "~/config/env.server";
import { logger } from "../logger.server";
import { openDatabase, type Database, type Db } from "./client.server";
import { lsnAtOrPast, parseLsn } from "./lsn";

/**
 * Read replicas (DATABASE_READ_URL): pages that only read and may be a little behind (history,
 * statements, exports, the staff directory, the audit log) read from a streaming standby, so that
 * the primary keeps its time for what writes. One rule keeps this honest: a person always sees
 * their own last write. Each request that may have written (any method but GET and HEAD) ends by
 * reading the primary's write-ahead-log position and giving it to the browser as a cookie
 * (read-your-writes.server.ts); a later read goes to the replica only once the
 * replica has replayed that far (waiting up to DATABASE_READ_WAIT_MS), and to the primary
 * otherwise. Without DATABASE_READ_URL every read goes to the primary, as before.
 * docs/decisions/0022-read-replicas.md.
 */

/** What one request knows about where it may read. */
interface ReadContext {
  /** The primary's position after this browser's last write (the cookie), if any. */
  after_lsn?: string;
  /** This request writes (a POST...): its own reads stay on the primary. */
  writes: boolean;
  /** Whether the replica may serve this request, once checked (replicaReady). */
  replica_ready?: boolean;
}

const requests = new AsyncLocalStorage<ReadContext>();

/** The cookie that carries the primary's position after the browser's last write. */
export const READ_AFTER_COOKIE = "mutual_read_after";

/** Runs `handle` (a whole request) with what it knows about where it may read. */
export function withReadContext<T>(context: ReadContext, handle: () => Promise<T>): Promise<T> {
  return requests.run(context, handle);
}

export function replicaConfigured(): boolean {
  return Boolean(env().DATABASE_READ_URL);
}

const KEY = Symbol.for("mutual.readReplica");
type Holder = { [KEY]?: Promise<Database> };

/** The replica's pool, opened at its first use (never migrated: it follows the primary). */
function replica(): Promise<Database> {
  const holder = globalThis as Holder;
  holder[KEY] ??= (async () => {
    const e = env();
    return openDatabase({
      kind: "postgres",
      url: e.DATABASE_READ_URL!,
      name: "DATABASE_READ_URL",
      pool_max: e.DATABASE_POOL_MAX,
      connect_timeout_ms: e.DATABASE_CONNECT_TIMEOUT_MS,
      statement_timeout_ms: e.DATABASE_STATEMENT_TIMEOUT_MS,
      idle_in_transaction_timeout_ms: e.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      tcp_keepalive_ms: e.DATABASE_TCP_KEEPALIVE_MS,
    });
  })();
  return holder[KEY];
}

/** The primary's current write-ahead-log position, for the cookie; undefined without a replica. */
export async function primaryLsn(primary: Database): Promise<string | undefined> {
  if (!replicaConfigured()) return undefined;
  const result = await primary.db.execute<{ lsn: string }>(sql`select pg_current_wal_lsn()::text as lsn`);
  return parseLsn(result.rows[0]?.lsn);
}

/** Where the reads of replica-eligible pages went, since the process started (for /metrics). */
export type ReadTarget = "replica" | "primary_replica_behind" | "primary_replica_unreachable";
// On globalThis, like the replica's pool: the compiled server (server.ts, which serves /metrics)
// and the React Router build (which counts the reads) each bundle their own copy of this module,
// and a module-level count read from the other copy was always zero.
const READS_KEY = Symbol.for("mutual.readReplica.reads");
const readsHolder = globalThis as { [READS_KEY]?: Record<ReadTarget, number> };
const reads: Record<ReadTarget, number> = (readsHolder[READS_KEY] ??= {
  replica: 0,
  primary_replica_behind: 0,
  primary_replica_unreachable: 0,
});
export function readCounts(): Readonly<Record<ReadTarget, number>> {
  return reads;
}

/** How often the replica's position is read again while waiting for it. */
const POLL_MS = 20;

/**
 * Whether the replica can serve this request: it answers, it is a standby, and it has replayed
 * `after_lsn` (when the browser wrote before), waiting up to DATABASE_READ_WAIT_MS for that.
 */
async function replicaReady(database: Database, after_lsn: string | undefined): Promise<boolean> {
  const deadline_ms = Date.now() + env().DATABASE_READ_WAIT_MS;
  for (;;) {
    const result = await database.db.execute<{ lsn: string | null }>(sql`select pg_last_wal_replay_lsn()::text as lsn`);
    const replayed = result.rows[0]?.lsn;
    // null: the server is not a standby (promoted, or named by mistake); it may not hold what
    // the primary acknowledged since, so it is not read.
    if (!replayed) return false;
    if (!after_lsn || lsnAtOrPast(replayed, after_lsn)) return true;
    if (Date.now() + POLL_MS > deadline_ms) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * The database a read-only page reads: the replica when allowed, `primary` otherwise. Reads that
 * were never meant for the replica (no replica, a request that writes) are not counted: the
 * counts say how routed reads went.
 */
export async function readDatabase(primary: Database): Promise<Db> {
  const context = requests.getStore();
  if (!replicaConfigured() || !context || context.writes) return primary.db;
  if (context.replica_ready === false) return counted("primary_replica_behind", primary.db);
  try {
    const database = await replica();
    // Checked once per request: a page's several reads all go to the same place.
    context.replica_ready ??= await replicaReady(database, context.after_lsn);
    if (!context.replica_ready) return counted("primary_replica_behind", primary.db);
    return counted("replica", database.db);
  } catch (error) {
    context.replica_ready = false;
    logger.warn({ err: error }, "the read replica could not be reached: reading from the primary");
    return counted("primary_replica_unreachable", primary.db);
  }
}

function counted(target: ReadTarget, database: Db): Db {
  reads[target] += 1;
  return database;
}
