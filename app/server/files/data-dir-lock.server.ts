import fs from "node:fs";
import path from "node:path";

export interface DataDirLock {
  release(): void;
}

export class DataDirLockedError extends Error {}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * PGlite's folder may be opened by one process only: two processes on it hang or corrupt it.
 * The lock is a file created exclusively with our pid; a lock left by a process that no longer
 * exists (a crash, a SIGKILL) is taken over.
 */
export function acquireDataDirLock(dataDir: string): DataDirLock {
  const file = path.join(dataDir, "mutual.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(file, "wx", 0o600);
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        try {
          if (fs.readFileSync(file, "utf8").trim() === String(process.pid)) fs.unlinkSync(file);
        } catch {
          // already gone
        }
      };
      process.once("exit", release);
      return { release };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number(fs.readFileSync(file, "utf8").trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && processIsAlive(holder)) {
        throw new DataDirLockedError(
          `DATA_DIR ${path.resolve(dataDir)} is in use by another Mutual process (pid ${holder}). ` +
            "The embedded database can be opened by one process only: stop the other process, " +
            "or set DATABASE_URL to run several processes against PostgreSQL.",
        );
      }
      fs.rmSync(file, { force: true });
    }
  }
  throw new DataDirLockedError(`Could not lock DATA_DIR ${path.resolve(dataDir)}`);
}
