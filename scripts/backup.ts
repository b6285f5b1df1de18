/**
 * `npm run backup [-- FILE_OR_FOLDER]`: a consistent copy of the embedded database (DATA_DIR) and
 * its uploaded files, into one .tar.gz (mode 0600), whether the server is running or not.
 * Without an argument it goes into ./backups/. The keys are NOT in it: see
 * docs/operations.md#backups-and-restore. With DATABASE_URL, use pg_dump (same section).
 * Exits 0 when the backup is written, 1 when it could not be, 2 on a configuration problem.
 */
import fs from "node:fs";
import path from "node:path";
import { ConfigurationError, env, type Env } from "~/config/env.server";
import { BackupError, backupFileName, takeBackup } from "~/server/backup/backup.server";

async function main(): Promise<number> {
  let config: Env;
  try {
    config = env();
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    console.error(`backup: ${error.message}`);
    return 2;
  }
  if (config.DATABASE_URL) {
    console.error(
      'DATABASE_URL is set: back up PostgreSQL with pg_dump or a base backup and WAL archiving (docs/operations.md, "Backups and restore"). npm run backup copies the embedded database only.',
    );
    return 2;
  }
  const argument = process.argv[2];
  const target = path.resolve(argument ?? "backups");
  const file = argument?.endsWith(".tar.gz") ? target : path.join(target, backupFileName());
  if (path.resolve(file).startsWith(config.dataDirAbsolute + path.sep)) {
    console.error(`${file} is inside DATA_DIR: keep backups on another disk, and never among the data they copy.`);
    return 2;
  }
  try {
    const result = await takeBackup(config.dataDirAbsolute, file);
    const megabytes = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
    console.log(
      `Backup written: ${result.file} (${megabytes(result.bytes)} MB compressed; database ${megabytes(result.pgdata_bytes)} MB, ${result.upload_files} uploaded files) ` +
        `in ${result.elapsed_ms} ms, from the ${result.from}.`,
    );
  } catch (error) {
    if (error instanceof BackupError) {
      console.error(`Backup failed: ${error.message}`);
      return 1;
    }
    throw error;
  }
  const keysFile = path.join(config.dataDirAbsolute, "secrets.json");
  const keysFromEnvironment = config.SESSION_SECRET && config.DATA_ENCRYPTION_KEY;
  console.log(
    "\nThe keys are not in the backup, on purpose. " +
      (keysFromEnvironment
        ? "They are SESSION_SECRET and DATA_ENCRYPTION_KEY in this server's environment."
        : fs.existsSync(keysFile)
          ? `They are in ${keysFile}.`
          : "Neither DATA_DIR/secrets.json nor SESSION_SECRET and DATA_ENCRYPTION_KEY were found: find where the server's keys are before you need them.") +
      "\nKeep one copy of them somewhere other than the backups (a password manager or a safe):" +
      "\na stolen backup without the key does not reveal encrypted personal data, and a backup without its key cannot be read.",
  );
  return 0;
}

process.exitCode = await main();
