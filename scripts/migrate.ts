// `npm run db:migrate`: opens the configured database (which applies pending migrations) and exits.
// It never seeds the demo people (published passwords): only a server start on a demo profile
// does that, and a production start refuses the demo profile.
import { appDatabase } from "../app/server/db/db.server";

const database = await appDatabase();
console.log(`Migrations applied (${database.kind}).`);
await database.close();
