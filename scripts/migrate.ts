// `npm run db:migrate`: opens the configured database (which applies pending migrations) and exits.
// It never seeds the demo people (published passwords): only a server start on a demo profile
// does that, and a production start refuses the demo profile.
// Exits 0 when applied, 2 when the database cannot be opened (the message says why).
import { scriptDatabase } from "../app/server/db/db.server";

async function main(): Promise<number> {
  let database;
  try {
    database = await scriptDatabase();
  } catch (error) {
    console.error(`db:migrate cannot open the database: ${(error as Error).message}`);
    return 2;
  }
  console.log(`Migrations applied (${database.kind}).`);
  await database.close();
  return 0;
}

process.exitCode = await main();
