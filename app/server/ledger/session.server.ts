import crypto from "node:crypto";
import pg from "pg";
import { PGlite, type Transaction as PGliteTransaction } from "@electric-sql/pglite";
import { sql, type SQL } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { assert } from "~/domain/ledger-rules";

/**
 * How the ledger talks to the database while it posts: plain SQL text with $n parameters on the
 * driver's own client, in one database transaction. Why not Drizzle's query builder here: on
 * the 2-core machine of bench/README.md the builder and its transaction wrapper cost as much CPU
 * per transfer as PostgreSQL itself, and each statement is a round trip. So the posting path
 * uses fixed SQL, and on node-postgres sends BEGIN with the first statement (the row locks) in
 * one round trip: BEGIN+lock, write, COMMIT.
 *
 * Three ways in, one behaviour:
 *  - the app's node-postgres database: a pooled client, BEGIN ... COMMIT by hand;
 *  - the app's PGlite database: PGlite's own transaction (one connection, so they queue);
 *  - a transaction the caller already opened (a service posting together with its own writes):
 *    statements go through that transaction (Drizzle makes ours a savepoint inside it).
 */
export interface LedgerSession {
  /**
   * Runs one statement; the first call must be `begin` (it opens the database transaction).
   * `prepare` names the statement on node-postgres so each connection parses and plans it once.
   */
  query(text: string, params?: readonly unknown[], options?: { prepare?: boolean }): Promise<Record<string, unknown>[]>;
  /**
   * Opens the transaction and runs `text` (a statement without parameters: the caller inlines
   * only integers it has checked) in the same round trip where the driver allows it.
   */
  begin(text: string): Promise<Record<string, unknown>[]>;
}

type Row = Record<string, unknown>;

export async function inLedgerTransaction<T>(db: DbOrTx, work: (session: LedgerSession) => Promise<T>): Promise<T> {
  const client = (db as { $client?: unknown }).$client;
  if (client instanceof pg.Pool) return onPool(client, work);
  if (client instanceof PGlite) return client.transaction((tx) => work(onPgliteTransaction(tx)));
  return db.transaction((tx) => work(onDrizzle(tx)));
}

async function onPool<T>(pool: pg.Pool, work: (session: LedgerSession) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let begun = false;
  let broken: Error | undefined;
  const session: LedgerSession = {
    async begin(text) {
      assert(!begun, "begin called twice");
      begun = true;
      const results = (await client.query(`BEGIN; ${text}`)) as unknown as pg.QueryResult<Row>[];
      return results[results.length - 1]!.rows;
    },
    async query(text, params = [], options = {}) {
      assert(begun, "query before begin");
      const name = options.prepare ? statementName(text) : undefined;
      return (await client.query<Row>({ name, text, values: params as unknown[] })).rows;
    },
  };
  try {
    const result = await work(session);
    if (begun) await client.query("COMMIT");
    return result;
  } catch (error) {
    if (begun) {
      await client.query("ROLLBACK").catch((rollbackError: Error) => {
        broken = rollbackError; // the connection is unusable: the pool must discard it
      });
    }
    throw error;
  } finally {
    client.release(broken);
  }
}

/** At most this many named statements: the ledger's statement shapes are few (entries <= 50). */
const PREPARED_STATEMENTS_MAX = 200;
const statementNames = new Map<string, string>();

/** A name unique to the text (node-postgres refuses one name for two texts). */
function statementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < PREPARED_STATEMENTS_MAX) {
    name = `ledger_${crypto.createHash("sha256").update(text).digest("hex").slice(0, 16)}`;
    statementNames.set(text, name);
  }
  return name;
}

function onPgliteTransaction(tx: PGliteTransaction): LedgerSession {
  return {
    begin: async (text) => (await tx.query<Row>(text)).rows,
    query: async (text, params = []) => (await tx.query<Row>(text, params as unknown[])).rows,
  };
}

function onDrizzle(tx: DbOrTx): LedgerSession {
  const run = async (statement: SQL) => (await tx.execute(statement)).rows as Row[];
  return {
    begin: (text) => run(sql.raw(text)),
    query: (text, params = []) => run(withParams(text, params)),
  };
}

/**
 * Plain SQL text with $n parameters run on any database or transaction, the shape of a posting
 * check's `query`: a statement a check runs under the locks can be run the same way before them
 * (a limit shown at the review step), written once.
 */
export function textQuery(db: DbOrTx): (text: string, params?: readonly unknown[]) => Promise<Row[]> {
  return async (text, params = []) => (await db.execute(withParams(text, params))).rows as Row[];
}

/** `select $1 + $2` with [1, 2] as a Drizzle SQL object, each $n becoming a bound parameter. */
function withParams(text: string, params: readonly unknown[]): SQL {
  const parts = text.split(/\$(\d+)/);
  const chunks: SQL[] = [];
  for (let i = 0; i < parts.length; i++) {
    if (i % 2 === 0) chunks.push(sql.raw(parts[i]!));
    else {
      const index = Number(parts[i]) - 1;
      assert(index >= 0 && index < params.length, `no parameter $${index + 1}`);
      chunks.push(sql`${params[index]}`);
    }
  }
  return sql.join(chunks, sql``);
}

// A bounded retry of a whole ledger transaction.
const ATTEMPTS_MAX = 5;
/** Deadlock and serialization failure: the database rolled back; the whole attempt is safe to redo. */
const RETRYABLE_SQLSTATES = new Set(["40P01", "40001"]);

function sqlState(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/**
 * Locks in id order rule out deadlocks between postings, and READ COMMITTED with row locks
 * needs no serialization retries; the retry guards against whatever else shares the tables.
 */
export async function withRetry<T>(attempt: () => Promise<T>): Promise<T> {
  for (let attempt_number = 1; ; attempt_number++) {
    try {
      return await attempt();
    } catch (error) {
      const state = sqlState(error);
      if (attempt_number >= ATTEMPTS_MAX || state === undefined || !RETRYABLE_SQLSTATES.has(state)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt_number));
    }
  }
}
