/**
 * `npm run ledger:verify`: recomputes every cached balance from the entries and checks every
 * ledger invariant on the app's own database (DATABASE_URL, or the embedded one in DATA_DIR).
 * Exits 0 when all is well, 1 listing what is wrong, 2 when the database cannot be opened (for
 * the embedded database: while the server runs on it, since one process only may open it).
 */
import { scriptDatabase } from "~/server/db/db.server";
import { verifyLedger } from "~/server/ledger/verify.server";

async function main(): Promise<number> {
  let database;
  try {
    database = await scriptDatabase();
  } catch (error) {
    console.error(`ledger:verify cannot open the database: ${(error as Error).message}`);
    return 2;
  }
  try {
    const started_ms = performance.now();
    const report = await verifyLedger(database.db);
    const elapsed_ms = Math.round(performance.now() - started_ms);
    const { accounts, transactions, entries } = report.counts;
    console.log(
      `Checked ${accounts} accounts, ${transactions} transactions, ${entries} entries in ${elapsed_ms} ms (${database.kind}).`,
    );
    if (report.ok) {
      console.log(
        "Ledger OK: every balance follows from its entries, every transaction sums to zero, no member account is below its limit.",
      );
      return 0;
    }
    console.error(`Ledger has ${report.problems.length} problem(s):`);
    for (const problem of report.problems) console.error(`  - ${problem}`);
    return 1;
  } finally {
    await database.close();
  }
}

process.exitCode = await main();
