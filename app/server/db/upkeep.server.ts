import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import type { Db } from "./client.server";

/**
 * Table upkeep for the embedded database (PGlite), which has no autovacuum.
 *
 * PostgreSQL keeps its tables healthy with autovacuum, background workers that refresh the
 * planner's statistics (ANALYZE) and reclaim dead row versions (VACUUM) once enough of a table
 * has changed. PGlite runs PostgreSQL in the app's process without background workers, so on
 * the embedded database nothing did either, ever: the planner went on judging every table by
 * the size it had when the database was created. That is not a slow query here and there: the
 * trigger that keeps the daily totals joins a posting's entries to `ledger_transactions`, and
 * with no statistics the planner scanned every transaction ever posted, on every posting; a
 * posting took 2.3 ms at first and 4.2 ms six thousand postings later, growing without end
 * (bench/LOG.md, "The last look: PGlite without autovacuum"). The `database-upkeep` job runs
 * this every 5 minutes; it applies autovacuum's own rules with the database's own settings,
 * table by table:
 *  - ANALYZE a table never analyzed, or one where more rows changed since its last ANALYZE than
 *    `autovacuum_analyze_threshold` + `autovacuum_analyze_scale_factor` × its rows (50 + 10%);
 *  - VACUUM (with ANALYZE) one whose dead rows pass `autovacuum_vacuum_threshold` +
 *    `autovacuum_vacuum_scale_factor` × its rows (50 + 20%), whose rows inserted since its last
 *    VACUUM pass the insert threshold and scale factor (1,000 + 20%: it marks them all-visible),
 *    or whose oldest unfrozen transaction id is older than `autovacuum_freeze_max_age`
 *    (transaction id wraparound would stop the database).
 * PGlite serves one statement at a time, so requests wait while a table is vacuumed; the work
 * is what autovacuum would do, in the same small steps.
 *
 * On PostgreSQL autovacuum does all of this: nothing is done (docs/operations.md, "Scheduled jobs").
 */
export interface UpkeepResult {
  [name: string]: number | string;
  tables_analyzed: number;
  tables_vacuumed: number;
}

/** Autovacuum's rules, per table of the app's schemas, with the database's own settings. */
const TABLES_DUE = sql`
  WITH setting AS (
    SELECT current_setting('autovacuum_analyze_threshold')::float8 AS analyze_threshold,
           current_setting('autovacuum_analyze_scale_factor')::float8 AS analyze_scale,
           current_setting('autovacuum_vacuum_threshold')::float8 AS vacuum_threshold,
           current_setting('autovacuum_vacuum_scale_factor')::float8 AS vacuum_scale,
           current_setting('autovacuum_vacuum_insert_threshold')::float8 AS insert_threshold,
           current_setting('autovacuum_vacuum_insert_scale_factor')::float8 AS insert_scale,
           current_setting('autovacuum_freeze_max_age')::float8 AS freeze_max_age
  )
  SELECT quote_ident(s.schemaname) || '.' || quote_ident(s.relname) AS table_name,
         s.n_dead_tup > setting.vacuum_threshold + setting.vacuum_scale * greatest(c.reltuples, 0)
           OR s.n_ins_since_vacuum > setting.insert_threshold + setting.insert_scale * greatest(c.reltuples, 0)
           OR age(c.relfrozenxid) > setting.freeze_max_age AS vacuum
    FROM pg_stat_user_tables s
    JOIN pg_class c ON c.oid = s.relid
   CROSS JOIN setting
   WHERE c.reltuples < 0
      OR s.n_mod_since_analyze > setting.analyze_threshold + setting.analyze_scale * greatest(c.reltuples, 0)
      OR s.n_dead_tup > setting.vacuum_threshold + setting.vacuum_scale * greatest(c.reltuples, 0)
      OR s.n_ins_since_vacuum > setting.insert_threshold + setting.insert_scale * greatest(c.reltuples, 0)
      OR age(c.relfrozenxid) > setting.freeze_max_age
   ORDER BY s.schemaname, s.relname`;

function isEmbeddedDatabase(db: Db): boolean {
  return (db as { $client?: unknown }).$client instanceof PGlite;
}

export async function upkeepEmbeddedDatabase(db: Db): Promise<UpkeepResult | { database: string }> {
  if (!isEmbeddedDatabase(db)) return { database: "PostgreSQL: its autovacuum does this" };
  const due = (await db.execute(TABLES_DUE)).rows as { table_name: string; vacuum: boolean }[];
  let vacuumed = 0;
  for (const table of due) {
    // The name comes from quote_ident above; VACUUM and ANALYZE take no parameters.
    await db.execute(sql.raw(table.vacuum ? `VACUUM (ANALYZE) ${table.table_name}` : `ANALYZE ${table.table_name}`));
    if (table.vacuum) vacuumed++;
  }
  return { tables_analyzed: due.length, tables_vacuumed: vacuumed };
}
