import fs from "node:fs";
import path from "node:path";
import { ConfigurationError } from "~/config/env.server";

/**
 * DATA_DIR holds the embedded database, the generated secrets and members' ID documents: only
 * the account the server runs as may read or change anything in it. Folders are 0700, files 0600.
 */
export const OWNER_ONLY_DIR_MODE = 0o700;
export const OWNER_ONLY_FILE_MODE = 0o600;

/** Creates `dir` (and missing parents) for the owner only; an existing one is tightened. */
export function ownerOnlyDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: OWNER_ONLY_DIR_MODE });
  if ((fs.statSync(dir).mode & 0o777) !== OWNER_ONLY_DIR_MODE) chmod(dir, OWNER_ONLY_DIR_MODE);
}

/** chmod, with a message an operator can act on when the path belongs to another account. */
function chmod(p: string, mode: number) {
  try {
    fs.chmodSync(p, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") throw error;
    throw new ConfigurationError(
      `${p} belongs to another account, so Mutual cannot make it readable by its own account only (mode ${mode.toString(8)}). ` +
        "Give DATA_DIR and everything in it to the account the server runs as (chown -R).",
    );
  }
}

/**
 * Tightens every folder and file under `root` (itself included) that lets anyone but the owner
 * in. PGlite writes the files of a new database 0666 whatever the umask, and folders made by
 * older versions were 0755, so this runs each time the database is opened. Symbolic links are
 * left alone (chmod would follow them out of the folder).
 */
export function restrictTreeToOwner(root: string): void {
  const walk = (p: string) => {
    const stat = fs.lstatSync(p);
    if (stat.isSymbolicLink()) return;
    const wanted = stat.isDirectory() ? OWNER_ONLY_DIR_MODE : OWNER_ONLY_FILE_MODE;
    if ((stat.mode & 0o777) !== wanted) chmod(p, wanted);
    if (stat.isDirectory()) for (const name of fs.readdirSync(p)) walk(path.join(p, name));
  };
  walk(root);
}
