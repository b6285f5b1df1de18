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
import { acquireDataDirLock, type DataDirLock } from "../files/data-dir-lock.server";
import { DatabaseUnavailableError, describeDatabaseError } from "./unavailable.server";
import { HostSelection, placeOn, roleOf, watchRole, type ServerRole } from "./host-selection.server";
import { parseDatabaseUrl, type DatabaseHost } from "~/config/database-url";
import { ConfigurationError, DATABASE_POOL_DEFAULTS } from "../../config/env.server";
import { logger } from "../logger.server";
import { ownerOnlyDir, restrictTreeToOwner } from "../files/owner-only.server";
import { dumpPgdata, serveBackups, type BackupService } from "../backup/backup.server";

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
  /** PostgreSQL only: the pool's connections now, for /metrics (PGlite is one connection, no pool). */
  poolStats?(): { total: number; idle: number; waiting: number; max: number };
}

/**
 * How the app's connections to PostgreSQL behave (DATABASE_* variables, app/config/env.server.ts).
 * The timeouts keep a database that stopped answering from holding a request until the HTTP
 * request timeout: the request fails (503) and the member can try again.
 */
export interface PoolSettings {
  pool_max: number;
  /** Opening a connection, or waiting for a free one when all are busy. */
  connect_timeout_ms: number;
  /** PostgreSQL cancels a statement running longer (0: no limit). */
  statement_timeout_ms: number;
  /** PostgreSQL closes a connection whose transaction sits idle this long (0: no limit). */
  idle_in_transaction_timeout_ms: number;
  /** Idle time before TCP keepalive probes find a dead server or network (0: keepalive off). */
  tcp_keepalive_ms: number;
}

const DEFAULT_POOL_SETTINGS: PoolSettings = DATABASE_POOL_DEFAULTS;

/**
 * A server that stopped answering altogether (frozen, or the network gone) never sends the
 * statement timeout's error: the client gives up on a statement after the statement timeout and
 * as long again, at most 5 s more (20 s with the defaults).
 */
function queryTimeoutMs(statement_timeout_ms: number): number | undefined {
  return statement_timeout_ms > 0 ? statement_timeout_ms + Math.min(statement_timeout_ms, 5_000) : undefined;
}

export type DatabaseTarget =
  /**
   * `url` may name several servers with target_session_attrs, as libpq reads it
   * (host-selection.server.ts); `name` is the variable it came from, for log lines.
   */
  | ({ kind: "postgres"; url: string; name?: string } & Partial<PoolSettings>)
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
  return (
    candidates.find((c) => fs.existsSync(path.join(c, "meta/_journal.json"))) ?? candidates[candidates.length - 1]!
  );
}

export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  if (target.kind === "postgres") {
    const settings = poolSettings(target);
    // bigint columns come back as strings by default; the ledger works in cents that fit in
    // a JavaScript number only up to 2^53, so parse int8 explicitly where it is read.
    const address = parseDatabaseUrl(target.url);
    const connection: pg.ClientConfig = {
      connectionString: address.first_host_url,
      connectionTimeoutMillis: settings.connect_timeout_ms,
      keepAlive: settings.tcp_keepalive_ms > 0,
      keepAliveInitialDelayMillis: settings.tcp_keepalive_ms,
    };
    // One server and any role: node-postgres as it is. Otherwise each connection goes where the
    // selection says, and is dropped when its server leaves the role.
    const selection =
      address.hosts.length > 1 || address.target_session_attrs !== "any"
        ? new HostSelection(address, connection, target.name ?? "DATABASE_URL")
        : undefined;
    const pool = new pg.Pool({
      ...connection,
      selection,
      Client: AppClient,
      max: settings.pool_max,
      statement_timeout: settings.statement_timeout_ms || undefined,
      query_timeout: queryTimeoutMs(settings.statement_timeout_ms),
      idle_in_transaction_session_timeout: settings.idle_in_transaction_timeout_ms || undefined,
    } as pg.PoolConfig);
    // The pool reports an idle connection's failure here too, after the connection's own
    // listener (AppClient) has logged it and the pool has dropped the connection.
    pool.on("error", () => undefined);
    const db = drizzlePg(pool, { schema });
    return {
      db,
      kind: "postgres",
      ping: async () => void (await pool.query("select 1")),
      close: () => pool.end(),
      poolStats: () => ({
        total: pool.totalCount,
        idle: pool.idleCount,
        waiting: pool.waitingCount,
        max: settings.pool_max,
      }),
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
  let backups: BackupService | undefined;
  if (target.dataDir !== "memory") {
    restrictTreeToOwner(target.dataDir);
    // Only this process may open the folder, so `npm run backup` asks it for the copy.
    backups = await serveBackups(
      target.dataDir,
      () => dumpPgdata(client),
      (message) => logger.warn(message),
    );
  }
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    db,
    kind: "pglite",
    ping: async () => void (await client.query("select 1")),
    close: async () => {
      await backups?.close();
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
    // The lock and the migrations run on a connection of their own, outside the pool (a pool of
    // one connection can still migrate), without the statement timeouts: waiting for another
    // server's migrations, or building an index on a large table, may rightly take minutes.
    const pool = (database.db as unknown as { $client: pg.Pool }).$client;
    const lockClient = new AppClient({ ...pool.options, statement_timeout: undefined, query_timeout: undefined });
    try {
      await lockClient.connect();
      await lockClient.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
      await refuseNewerDatabase(drizzlePg(lockClient, { schema }) as unknown as Db);
      await migratePg(drizzlePg(lockClient, { schema }), { migrationsFolder });
    } finally {
      await lockClient.end().catch(() => undefined);
    }
  } else {
    await refuseNewerDatabase(database.db);
    await migratePglite(database.db as never, { migrationsFolder });
  }
}

/**
 * Old code on a database a newer version has migrated would run quietly against tables it does
 * not know (Drizzle's migrator applies only what is newer than the newest applied migration, so
 * it finds nothing to do): stop instead, naming both. This happens when a release is rolled back
 * after its migrations ran (docs/operations.md#upgrading).
 */
async function refuseNewerDatabase(db: Db): Promise<void> {
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder, "meta/_journal.json"), "utf8")) as {
    entries: { tag: string; when: number }[];
  };
  const newest_known = journal.entries.at(-1);
  if (!newest_known) return;
  const exists = await db.execute(sql`select to_regclass('drizzle.__drizzle_migrations') is not null as present`);
  if (!exists.rows[0]?.present) return;
  // Newer by date, or more than this code has at all: a release's migration can carry an earlier
  // date than ours (a branch merged later), and Drizzle's migrator goes by dates only.
  const applied = await db.execute(
    sql`select count(*) filter (where created_at > ${newest_known.when})::int as newer, count(*)::int as total from drizzle.__drizzle_migrations`,
  );
  const newer = Number(applied.rows[0]?.newer ?? 0);
  const beyond_known = Number(applied.rows[0]?.total ?? 0) - journal.entries.length;
  const unknown = Math.max(newer, beyond_known);
  if (unknown > 0) {
    throw new ConfigurationError(
      `The database has ${unknown} migration(s) newer than this version of Mutual knows (its newest is ${newest_known.tag}).\n` +
        "A newer release has migrated it: run that release (or newer), or restore the backup taken before the upgrade.",
    );
  }
}

function poolSettings(target: Partial<PoolSettings>): PoolSettings {
  const defined = Object.entries(target).filter(
    ([name, value]) => name in DEFAULT_POOL_SETTINGS && value !== undefined,
  );
  return { ...DEFAULT_POOL_SETTINGS, ...Object.fromEntries(defined) };
}

/**
 * Every connection the app opens to PostgreSQL. node-postgres reports a connection that dies
 * (the server restarted, the backend was terminated, the network failed) as an "error" event on
 * its client, and an event nobody listens to ends the process. The pool listens only while a
 * client sits idle in it; a client checked out (every transaction, the ledger's posting) or of
 * its own (the migration lock) had no listener. Each one listens from birth: the loss is
 * logged as one line and the work on that connection fails, which the request answers with 503.
 */
type ConnectCallback = ((error: Error) => void) | ((error: null, client: pg.Client) => void);

class AppClient extends pg.Client {
  /** With several servers or a wanted role: which server to connect to (host-selection.server.ts). */
  private readonly selection: HostSelection | undefined;
  private server: DatabaseHost | undefined;
  private readonly reported: Partial<ServerRole>;

  constructor(config?: pg.ClientConfig & { selection?: HostSelection }) {
    super(config);
    this.selection = config?.selection;
    this.reported = watchRole(this);
    this.on("error", (error) => {
      logger.warn({ database: describeDatabaseError(error) }, "database connection lost");
      this.leftRole();
    });
  }

  /**
   * pg-pool connects with a callback, migrations with the promise. With a selection the client
   * connects to the chosen server and checks the role it reports there; a server found in the
   * wrong role (a standby promoted meanwhile, an old primary back as a standby) is not kept.
   */
  override connect(): Promise<pg.Client>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.Client> | void {
    const connected = this.selection ? this.connectToSelected(this.selection) : super.connect();
    if (!callback) return connected.then(() => this);
    connected.then(
      () => (callback as (error: null, client: pg.Client) => void)(null, this),
      (error: Error) => (callback as (error: Error) => void)(error),
    );
  }

  private async connectToSelected(selection: HostSelection): Promise<void> {
    const server = await selection.host();
    this.server = server;
    // One server in the URL: node-postgres already has its host, port or socket folder.
    if (selection.address.hosts.length > 1) placeOn(this, server);
    try {
      await super.connect();
    } catch (error) {
      selection.forget(server);
      throw error;
    }
    let role: ServerRole;
    try {
      role = await roleOf(this, this.reported);
    } catch (error) {
      selection.forget(server);
      await this.end().catch(() => undefined);
      throw error;
    }
    if (!selection.accepts(role)) {
      selection.forget(server);
      await this.end().catch(() => undefined);
      throw new DatabaseUnavailableError(
        new Error(
          `the database server is ${role.in_hot_standby ? "a standby" : "read-only"} now, not ${selection.attrs}`,
        ),
        "no_server_in_role",
      );
    }
  }

  /** The connection's server is gone or changed role: the next connection looks again. */
  private leftRole(): void {
    if (this.selection && this.server) this.selection.forget(this.server);
  }

  /**
   * node-postgres's query_timeout fails the statement but leaves it running on the connection,
   * so the next statement (the transaction's ROLLBACK, the next request's query) would queue
   * behind it and wait just as long. The connection is closed instead: its queued statements fail
   * at once and the pool replaces it.
   */
  override query(...args: unknown[]): never {
    const abandonIfTimedOut = (error: unknown) => {
      const timed_out = error instanceof Error && error.message === "Query read timeout";
      // 25006: a write refused because the server is read-only now (a primary demoted under an
      // open connection): the connection is of no use for writing; the next goes to the new primary.
      const read_only = (error as { code?: unknown } | null)?.code === "25006" && this.selection !== undefined;
      if (timed_out || read_only) {
        if (read_only) this.leftRole();
        (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      }
    };
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === "function") {
      args[last] = (error: unknown, result: unknown) => {
        abandonIfTimedOut(error);
        (callback as (error: unknown, result: unknown) => void)(error, result);
      };
    }
    const result = (super.query as (...a: unknown[]) => unknown).apply(this, args);
    if (result instanceof Promise) {
      return result.catch((error: unknown) => {
        abandonIfTimedOut(error);
        throw error;
      }) as never;
    }
    return result as never;
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
