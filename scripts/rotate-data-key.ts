/**
 * `npm run data-key:rotate`: re-encrypts everything DATA_ENCRYPTION_KEY protects (members' dates
 * of birth, ID numbers and card numbers in the database; ID documents, check photos and profile
 * photos in DATA_DIR/uploads) with the current DATA_ENCRYPTION_KEY, reading the old values with
 * DATA_ENCRYPTION_KEY_PREVIOUS. Safe to run again (what is already under the current key is left)
 * and while the server runs on PostgreSQL. See docs/operations.md#rotating-the-data-encryption-key.
 * Exits 0 when done, 1 when a value opens with no key given, 2 when the database cannot be opened.
 */
import { scriptDatabase } from "~/server/db/db.server";
import { DecryptionError } from "~/server/security/crypto.server";
import { reencryptToCurrentKey } from "~/server/maintenance/rotate-data-key.server";

async function main(): Promise<number> {
  let database;
  try {
    database = await scriptDatabase();
  } catch (error) {
    console.error(`data-key:rotate cannot open the database: ${(error as Error).message}`);
    return 2;
  }
  try {
    const report = await reencryptToCurrentKey(database.db);
    console.log(
      `Re-encrypted with the current key: ${report.fields} database values, ${report.files} files. Everything is now under DATA_ENCRYPTION_KEY.`,
    );
    return 0;
  } catch (error) {
    if (error instanceof DecryptionError) {
      console.error(
        "A value opens with neither DATA_ENCRYPTION_KEY nor any key in DATA_ENCRYPTION_KEY_PREVIOUS: give the key it was written with in DATA_ENCRYPTION_KEY_PREVIOUS and run again.",
      );
      return 1;
    }
    throw error;
  } finally {
    await database.close();
  }
}

process.exitCode = await main();
