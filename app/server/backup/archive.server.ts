import zlib from "node:zlib";

/**
 * The backup file: a gzip-compressed tar archive (ustar), readable with the system's own `tar`
 * for inspection. Only regular files; names are relative and checked on the way back in, so an
 * altered archive can never write outside the folder being restored.
 */
export interface ArchiveFile {
  name: string;
  data: Uint8Array;
  mtime_ms?: number;
}

const BLOCK = 512;

function field(header: Buffer, offset: number, length: number, value: string): void {
  header.write(value, offset, length, "utf8");
}

function octal(header: Buffer, offset: number, length: number, value: number): void {
  field(header, offset, length, `${value.toString(8).padStart(length - 1, "0")}\0`);
}

export function checkArchiveName(name: string): string {
  const parts = name.split("/");
  if (
    !name ||
    name.startsWith("/") ||
    name.includes("\\") ||
    name.includes("\0") ||
    parts.some((p) => p === "" || p === "." || p === "..")
  ) {
    throw new Error(`Refused archive entry name ${JSON.stringify(name.slice(0, 120))}`);
  }
  if (Buffer.byteLength(name) > 100) throw new Error(`Archive entry name longer than 100 bytes: ${name}`);
  return name;
}

function header(file: ArchiveFile): Buffer {
  const h = Buffer.alloc(BLOCK);
  field(h, 0, 100, checkArchiveName(file.name));
  octal(h, 100, 8, 0o600);
  octal(h, 108, 8, 0);
  octal(h, 116, 8, 0);
  octal(h, 124, 12, file.data.byteLength);
  octal(h, 136, 12, Math.floor((file.mtime_ms ?? Date.now()) / 1000));
  field(h, 148, 8, "        ");
  field(h, 156, 1, "0");
  field(h, 257, 6, "ustar\0");
  field(h, 263, 2, "00");
  let sum = 0;
  for (const byte of h) sum += byte;
  field(h, 148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
  return h;
}

/** The files as one gzip-compressed tar archive. */
export function packArchive(files: ArchiveFile[]): Buffer {
  const parts: Uint8Array[] = [];
  for (const file of files) {
    parts.push(header(file), file.data);
    const padding = (BLOCK - (file.data.byteLength % BLOCK)) % BLOCK;
    if (padding) parts.push(Buffer.alloc(padding));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return zlib.gzipSync(Buffer.concat(parts), { level: 6 });
}

function readString(block: Buffer, offset: number, length: number): string {
  const raw = block.subarray(offset, offset + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? length : end).toString("utf8");
}

/** The regular files of an archive made by packArchive; anything malformed is refused. */
export function unpackArchive(compressed: Buffer): ArchiveFile[] {
  let tar: Buffer;
  try {
    tar = zlib.gunzipSync(compressed);
  } catch (error) {
    throw new Error(`Not a Mutual backup (not gzip-compressed: ${(error as Error).message})`, { cause: error });
  }
  const files: ArchiveFile[] = [];
  let offset = 0;
  while (offset + BLOCK <= tar.length) {
    const block = tar.subarray(offset, offset + BLOCK);
    if (block.every((b) => b === 0)) return files;
    if (readString(block, 257, 6) !== "ustar") throw new Error("Not a Mutual backup (not a tar archive)");
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : block[i]!;
    if (parseInt(readString(block, 148, 8).trim(), 8) !== sum)
      throw new Error("Backup damaged: an archive header's checksum does not match");
    const name = checkArchiveName(readString(block, 0, 100));
    const size = parseInt(readString(block, 124, 12).trim(), 8);
    const type = readString(block, 156, 1);
    if (!Number.isSafeInteger(size) || size < 0 || offset + BLOCK + size > tar.length)
      throw new Error(`Backup damaged: ${name} is cut short`);
    if (type !== "0" && type !== "") throw new Error(`Backup holds ${name}, which is not a regular file`);
    files.push({
      name,
      data: tar.subarray(offset + BLOCK, offset + BLOCK + size),
      mtime_ms: parseInt(readString(block, 136, 12).trim(), 8) * 1000,
    });
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  throw new Error("Backup damaged: the archive ends without its end marker");
}
