import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { packArchive, unpackArchive, type ArchiveFile } from "./archive.server";
import { acquireDataDirLock, DataDirLockedError } from "../files/data-dir-lock.server";
import {
  OWNER_ONLY_DIR_MODE,
  OWNER_ONLY_FILE_MODE,
  ownerOnlyDir,
  restrictTreeToOwner,
} from "../files/owner-only.server";

/**
 * Backups of the embedded database (docs/decisions/0008-backups.md).
 *
 * PGlite's folder may be opened by one process only, so while the server runs, `npm run backup`
 * cannot open it: it asks the server instead, over a Unix socket in DATA_DIR (the folder is the
 * owner's only, and so is the socket: whoever can connect could already read the files). The
 * server copies its data folder between two transactions, so the copy is consistent: PGlite runs
 * one statement at a time in this one process, and nothing else writes the folder.
 */

export const BACKUP_SOCKET_NAME = "backup.sock";
const MANIFEST_NAME = "mutual-backup.json";
const PGDATA_NAME = "pgdata.tar";
const BACKUP_FORMAT = 1;
/** Linux refuses Unix socket paths longer than this (sun_path is 108 bytes with its NUL). */
const SOCKET_PATH_MAX = 107;

interface Manifest {
  format: number;
  created_at: string;
  pgdata_bytes: number;
  upload_files: number;
}

/**
 * The data folder as a tar archive, taken while no transaction is open: the transaction lock
 * keeps every other query and transaction of this process waiting. CHECKPOINT first writes the
 * changed pages from PostgreSQL's memory to the files, so the copy does not depend on replaying
 * the write-ahead log when it is restored (it would be consistent either way, as after a power cut).
 */
export async function dumpPgdata(client: PGlite): Promise<Uint8Array> {
  return client.transaction(async (tx) => {
    await tx.exec("checkpoint");
    const tarball = await client.dumpDataDir("none");
    return new Uint8Array(await tarball.arrayBuffer());
  });
}

export interface BackupService {
  close(): Promise<void>;
}

/**
 * Answers backup requests on DATA_DIR/backup.sock for the process holding the folder's lock (the
 * server, or a script). One line in ("backup"), then one JSON line out, followed on success by the
 * data folder's tar archive of the announced length.
 */
export async function serveBackups(
  dataDir: string,
  dump: () => Promise<Uint8Array>,
  warn: (message: string) => void,
): Promise<BackupService> {
  const socketPath = path.join(dataDir, BACKUP_SOCKET_NAME);
  if (Buffer.byteLength(socketPath) > SOCKET_PATH_MAX) {
    warn(
      `DATA_DIR's path is too long for the backup socket (${socketPath}): npm run backup will work only while the server is stopped`,
    );
    return { close: async () => undefined };
  }
  // This process holds the folder's lock: a socket file here is a previous process's, left by a crash.
  fs.rmSync(socketPath, { force: true });
  const server = net.createServer((socket) => {
    socket.on("error", () => undefined);
    let request = "";
    socket.on("data", (chunk) => {
      request += chunk.toString("utf8");
      if (!request.includes("\n")) {
        if (request.length > 100) socket.destroy();
        return;
      }
      socket.removeAllListeners("data");
      if (request.trim() !== "backup") {
        socket.end(`${JSON.stringify({ ok: false, error: "unknown request" })}\n`);
        return;
      }
      dump().then(
        (tar) => {
          socket.write(`${JSON.stringify({ ok: true, pgdata_bytes: tar.byteLength })}\n`);
          socket.end(tar);
        },
        (error: unknown) => socket.end(`${JSON.stringify({ ok: false, error: (error as Error).message })}\n`),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => {
      server.off("error", reject);
      resolve();
    });
  });
  fs.chmodSync(socketPath, OWNER_ONLY_FILE_MODE);
  // A script that forgets to close its database still exits.
  server.unref();
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        fs.rmSync(socketPath, { force: true });
      }),
  };
}

export class BackupError extends Error {}

/** Asks the process holding DATA_DIR for a copy of its data folder; null when nothing answers there. */
async function requestPgdata(dataDir: string): Promise<Uint8Array | null> {
  const socketPath = path.join(dataDir, BACKUP_SOCKET_NAME);
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    const chunks: Buffer[] = [];
    let connected = false;
    socket.on("connect", () => {
      connected = true;
      socket.write("backup\n");
    });
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (!connected && (error.code === "ENOENT" || error.code === "ECONNREFUSED")) resolve(null);
      else reject(new BackupError(`The backup socket ${socketPath} failed: ${error.message}`));
    });
    socket.on("end", () => {
      const all = Buffer.concat(chunks);
      const newline = all.indexOf(10);
      let answer: { ok: boolean; error?: string; pgdata_bytes?: number };
      try {
        answer = JSON.parse(all.subarray(0, newline).toString("utf8")) as typeof answer;
      } catch {
        reject(new BackupError("The server's answer to the backup request could not be read"));
        return;
      }
      if (!answer.ok) return reject(new BackupError(`The server could not take the backup: ${answer.error}`));
      const tar = all.subarray(newline + 1);
      if (tar.byteLength !== answer.pgdata_bytes)
        return reject(
          new BackupError(`The server's copy arrived incomplete (${tar.byteLength} of ${answer.pgdata_bytes} bytes)`),
        );
      resolve(tar);
    });
  });
}

/** The data folder's copy: from the running server, or, when none runs, by opening the folder here. */
async function copyPgdata(dataDir: string): Promise<{ tar: Uint8Array; from: "running server" | "stopped folder" }> {
  const fromServer = await requestPgdata(dataDir);
  if (fromServer) return { tar: fromServer, from: "running server" };
  let lock;
  try {
    lock = acquireDataDirLock(dataDir);
  } catch (error) {
    if (!(error instanceof DataDirLockedError)) throw error;
    // The holder answers no backup requests: a migration or a ledger check, or a server of an
    // older version. Backing up under it would need a second PGlite on the folder.
    throw new BackupError(
      `${error.message.split(". ")[0]}, which does not answer backup requests. Try again when it has finished.`,
      { cause: error },
    );
  }
  try {
    const { PGlite } = await import("@electric-sql/pglite");
    const client = new PGlite(path.join(dataDir, "pgdata"));
    try {
      await client.waitReady;
      return { tar: await dumpPgdata(client), from: "stopped folder" };
    } finally {
      await client.close();
    }
  } finally {
    lock.release();
  }
}

function filesUnder(root: string, prefix: string): ArchiveFile[] {
  if (!fs.existsSync(root)) return [];
  const files: ArchiveFile[] = [];
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    const full = path.join(root, entry.name);
    const name = `${prefix}/${entry.name}`;
    if (entry.isDirectory()) files.push(...filesUnder(full, name));
    else if (entry.isFile()) files.push({ name, data: fs.readFileSync(full), mtime_ms: fs.statSync(full).mtimeMs });
  }
  return files;
}

export interface BackupResult {
  file: string;
  bytes: number;
  pgdata_bytes: number;
  upload_files: number;
  elapsed_ms: number;
  from: "running server" | "stopped folder";
}

/** A new name in `dir` for a backup taken now: mutual-backup-20260124-101502.tar.gz. */
export function backupFileName(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `mutual-backup-${stamp}.tar.gz`;
}

/**
 * Writes a backup of DATA_DIR's database and uploads to `file` (mode 0600; an existing file is
 * never replaced). The keys (DATA_DIR/secrets.json) are left out on purpose: see the guide.
 */
export async function takeBackup(dataDir: string, file: string): Promise<BackupResult> {
  const started_ms = performance.now();
  if (!fs.existsSync(path.join(dataDir, "pgdata", "PG_VERSION"))) {
    throw new BackupError(`${path.join(dataDir, "pgdata")} holds no database: is DATA_DIR right?`);
  }
  if (fs.existsSync(file)) throw new BackupError(`${file} already exists: a backup never replaces another one`);
  const { tar, from } = await copyPgdata(dataDir);
  // Uploads after the database: every upload the copied database names was written before it.
  const uploads = filesUnder(path.join(dataDir, "uploads"), "uploads");
  const manifest: Manifest = {
    format: BACKUP_FORMAT,
    created_at: new Date().toISOString(),
    pgdata_bytes: tar.byteLength,
    upload_files: uploads.length,
  };
  const archive = packArchive([
    { name: MANIFEST_NAME, data: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`) },
    { name: PGDATA_NAME, data: tar },
    ...uploads,
  ]);

  fs.mkdirSync(path.dirname(file), { recursive: true, mode: OWNER_ONLY_DIR_MODE });
  // Written beside its final name, then renamed: a backup file that exists is a whole one.
  const partial = `${file}.partial`;
  const fd = fs.openSync(partial, "wx", OWNER_ONLY_FILE_MODE);
  try {
    fs.writeSync(fd, archive);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(partial, file);
  return {
    file,
    bytes: archive.byteLength,
    pgdata_bytes: tar.byteLength,
    upload_files: uploads.length,
    elapsed_ms: Math.round(performance.now() - started_ms),
    from,
  };
}

export interface RestoreResult {
  data_dir: string;
  created_at: string;
  upload_files: number;
  elapsed_ms: number;
}

/**
 * Restores a backup into `dataDir`, which must not exist yet or be empty: a restore never mixes
 * with or replaces a live folder. `keys` is the secrets.json copy kept apart from the backups;
 * it is put in the folder so the server reads the personal data with the keys that encrypted it
 * (without it, the server would generate new keys, under which the restored data is unreadable).
 */
export async function restoreBackup(
  file: string,
  dataDir: string,
  keys: { secrets_file: string } | { from_environment: true },
): Promise<RestoreResult> {
  const started_ms = performance.now();
  if (fs.existsSync(dataDir) && fs.readdirSync(dataDir).length > 0) {
    throw new BackupError(`${dataDir} is not empty: restore into a new folder, then point DATA_DIR at it`);
  }
  let keysText: string | undefined;
  if ("secrets_file" in keys) {
    keysText = fs.readFileSync(keys.secrets_file, "utf8");
    const parsed = JSON.parse(keysText) as { session_secret?: unknown; data_encryption_key_hex?: unknown };
    if (
      typeof parsed.session_secret !== "string" ||
      typeof parsed.data_encryption_key_hex !== "string" ||
      !/^[0-9a-fA-F]{64}$/.test(parsed.data_encryption_key_hex)
    ) {
      throw new BackupError(
        `${keys.secrets_file} is not a Mutual keys file (secrets.json with session_secret and data_encryption_key_hex)`,
      );
    }
  }
  let files: ArchiveFile[];
  try {
    files = unpackArchive(fs.readFileSync(file));
  } catch (error) {
    throw new BackupError((error as Error).message, { cause: error });
  }
  const manifestFile = files.find((f) => f.name === MANIFEST_NAME);
  const pgdata = files.find((f) => f.name === PGDATA_NAME);
  if (!manifestFile || !pgdata)
    throw new BackupError(`${file} is not a Mutual backup (no ${MANIFEST_NAME} or ${PGDATA_NAME})`);
  const manifest = JSON.parse(Buffer.from(manifestFile.data).toString("utf8")) as Manifest;
  if (manifest.format !== BACKUP_FORMAT)
    throw new BackupError(`${file} has backup format ${manifest.format}; this version reads format ${BACKUP_FORMAT}`);
  const uploads = files.filter((f) => f.name.startsWith("uploads/"));
  if (uploads.length !== manifest.upload_files)
    throw new BackupError(`Backup damaged: ${uploads.length} of ${manifest.upload_files} uploaded files present`);

  ownerOnlyDir(dataDir);
  const lock = acquireDataDirLock(dataDir);
  let restored = false;
  try {
    for (const upload of uploads) {
      const target = path.join(dataDir, upload.name);
      fs.mkdirSync(path.dirname(target), { recursive: true, mode: OWNER_ONLY_DIR_MODE });
      fs.writeFileSync(target, upload.data, { mode: OWNER_ONLY_FILE_MODE, flag: "wx" });
    }
    const { PGlite } = await import("@electric-sql/pglite");
    const client = new PGlite(path.join(dataDir, "pgdata"), { loadDataDir: new Blob([Buffer.from(pgdata.data)]) });
    try {
      await client.waitReady;
      // The copy opens and answers: PostgreSQL has checked it on start-up.
      await client.query("select 1");
    } finally {
      await client.close();
    }
    if (keysText !== undefined)
      fs.writeFileSync(path.join(dataDir, "secrets.json"), keysText, { mode: OWNER_ONLY_FILE_MODE, flag: "wx" });
    restrictTreeToOwner(dataDir);
    restored = true;
  } finally {
    // The folder was empty: a restore that failed half-way leaves it empty again, ready for the next try.
    if (!restored)
      for (const name of fs.readdirSync(dataDir))
        if (name !== "mutual.lock") fs.rmSync(path.join(dataDir, name), { recursive: true, force: true });
    lock.release();
  }
  return {
    data_dir: dataDir,
    created_at: manifest.created_at,
    upload_files: uploads.length,
    elapsed_ms: Math.round(performance.now() - started_ms),
  };
}
