/**
 * `npm run staff:passkeys:remove -- --email <address>`: a staff member who lost every passkey
 * while the profile requires staff passkeys (the password path is closed to staff who have one)
 * gets back in. Run on the server with the service's environment: removes all of that person's
 * passkeys and ends their sessions; they sign in with the password and the emailed code, and are
 * led to add a new passkey (docs/operations.md#a-staff-member-lost-their-passkeys). Audited with
 * the command as the actor; the person is emailed. Exits 0 when done, 1 when refused (bad input,
 * nobody with that address, not staff, no passkey), 2 when the database cannot be opened.
 */
import { parseArgs } from "node:util";
import { z } from "zod";
import { scriptDatabase } from "~/server/db/db.server";
import { removeStaffPasskeysFromServer } from "~/server/auth/passkey-removal.server";

const USAGE = "Usage: npm run staff:passkeys:remove -- --email <address>";

async function main(): Promise<number> {
  let email: string | undefined;
  try {
    email = parseArgs({ options: { email: { type: "string" } } }).values.email;
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 1;
  }
  const parsed = z
    .email("The email address is not valid.")
    .max(254)
    .safeParse(email?.trim() ?? "");
  if (!parsed.success) {
    console.error(`${parsed.error.issues.map((i) => i.message).join(" ")}\n${USAGE}`);
    return 1;
  }
  let database;
  try {
    database = await scriptDatabase();
  } catch (error) {
    console.error(`staff:passkeys:remove cannot open the database: ${(error as Error).message}`);
    return 2;
  }
  try {
    const result = await removeStaffPasskeysFromServer(database.db, parsed.data);
    if (!result.ok) {
      console.error(result.message);
      return 1;
    }
    console.log(
      `Removed ${result.removed} passkey${result.removed === 1 ? "" : "s"} of ${parsed.data} and ended ${result.sessions_ended} session${result.sessions_ended === 1 ? "" : "s"}.`,
    );
    console.log("They sign in with their password and the emailed code, then add a new passkey in Account Settings.");
    return 0;
  } finally {
    await database.close();
  }
}

process.exitCode = await main();
