/**
 * `npm run restore -- BACKUP.tar.gz [--keys SECRETS.json]`: restores a backup made by
 * `npm run backup` into DATA_DIR, which must not exist yet or be empty (restore into a new folder,
 * then start the server on it). The keys come from the copy kept apart from the backups
 * (--keys, a secrets.json), or from SESSION_SECRET and DATA_ENCRYPTION_KEY in the environment.
 * Exits 0 when restored, 1 when the backup could not be restored, 2 on a usage problem.
 */
import fs from "node:fs";
import path from "node:path";
import { ConfigurationError, env, type Env } from "~/config/env.server";
import { BackupError, restoreBackup } from "~/server/backup/backup.server";

const USAGE = "Usage: DATA_DIR=/new/folder npm run restore -- BACKUP.tar.gz [--keys /safe/place/secrets.json]";

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const keysAt = args.indexOf("--keys");
  const keysFile = keysAt >= 0 ? args[keysAt + 1] : undefined;
  const rest = args.filter((_, i) => keysAt < 0 || (i !== keysAt && i !== keysAt + 1));
  if (rest.length !== 1 || (keysAt >= 0 && !keysFile)) {
    console.error(USAGE);
    return 2;
  }
  const backup = path.resolve(rest[0]!);
  let config: Env;
  try {
    config = env();
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    console.error(`restore: ${error.message}`);
    return 2;
  }
  if (config.DATABASE_URL) {
    console.error(
      'DATABASE_URL is set: restore PostgreSQL with pg_restore (docs/operations.md, "Backups and restore"). npm run restore restores the embedded database only.',
    );
    return 2;
  }
  if (!fs.existsSync(backup)) {
    console.error(`${backup}: no such file.\n${USAGE}`);
    return 2;
  }
  const keysFromEnvironment = Boolean(config.SESSION_SECRET && config.DATA_ENCRYPTION_KEY);
  if (!keysFile && !keysFromEnvironment) {
    console.error(
      "The keys are needed: give the copy of secrets.json kept apart from the backups with --keys, or set SESSION_SECRET and DATA_ENCRYPTION_KEY.\n" +
        "Without them the restored personal data cannot be read, and the server would make new keys that do not open it.\n" +
        USAGE,
    );
    return 2;
  }
  try {
    const result = await restoreBackup(
      backup,
      config.dataDirAbsolute,
      keysFile ? { secrets_file: path.resolve(keysFile) } : { from_environment: true },
    );
    console.log(
      `Restored the backup of ${result.created_at} into ${result.data_dir} (${result.upload_files} uploaded files) in ${result.elapsed_ms} ms.\n` +
        `Next: DATA_DIR=${result.data_dir} npm run ledger:verify, then start the server with DATA_DIR=${result.data_dir}` +
        (keysFile ? "." : " and the same SESSION_SECRET and DATA_ENCRYPTION_KEY."),
    );
    return 0;
  } catch (error) {
    if (
      error instanceof BackupError ||
      (error as NodeJS.ErrnoException).code === "ENOENT" ||
      error instanceof SyntaxError
    ) {
      console.error(`Restore failed: ${(error as Error).message}`);
      return 1;
    }
    throw error;
  }
}

process.exitCode = await main();
