// `npm run db:migrate`: opens the configured database (which applies pending migrations) and exits.
import { appDatabase } from "../app/server/db/db.server";

const database = await appDatabase();
console.log(`Migrations applied (${database.kind}).`);
await database.close();
