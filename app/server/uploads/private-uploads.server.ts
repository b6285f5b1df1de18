import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { fileTypeFromBuffer } from "file-type";
import sharp, { type Sharp } from "sharp";
import { env } from "~/config/env.server";
import { decryptField, encryptField, isEncryptedField, reencryptedField } from "~/server/security/crypto.server";
import { OWNER_ONLY_FILE_MODE, ownerOnlyDir } from "../files/owner-only.server";

/**
 * The one store of members' private files (docs/architecture.md#files, docs/security.md): ID
 * documents, check photos, profile photos and the attachments of dispute reports. Everything here is kept under
 * DATA_DIR/uploads/<area>/ with a random name, readable by the server's account only, encrypted at
 * rest (AES-256-GCM with the data encryption key, the area and the file's name as associated data,
 * so a file copied over another does not decrypt), and never served by URL: an authorised route
 * reads it through readPrivateUpload.
 *
 * An upload's type is read from its content (its magic number), never its name or the browser's
 * claim. An image is accepted only when sharp decodes all of it: sharp refuses an image whose
 * header claims more than IMAGE_PIXELS_MAX pixels before it allocates anything (a small file that
 * would decompress to gigabytes). What is stored is the image sharp wrote again, so metadata (a
 * phone's GPS position, a camera's serial) and anything hidden after the image data are gone.
 */
export type UploadArea =
  "id-documents" | "mobile-deposits" | "profile-images" | "dispute-attachments" | "message-attachments";

/** 40 megapixels: more than any phone camera, far less than a decompression bomb. */
export const IMAGE_PIXELS_MAX = 40_000_000;

const AREAS: Record<UploadArea, { name: RegExp; associated_data: string; plain_before: boolean }> = {
  // Files written before encryption at rest are plain: still read, and encrypted by encryptPlainUploads.
  "id-documents": {
    name: /^[0-9a-f]{32}\.(jpg|png|webp|pdf)$/,
    associated_data: "uploads.id-documents",
    plain_before: true,
  },
  // Check photos (and their thumbnails) were encrypted from the first day, under this associated data.
  "mobile-deposits": {
    name: /^[0-9a-f]{32}(\.thumb)?\.jpg\.enc$/,
    associated_data: "mobile_deposits.image",
    plain_before: false,
  },
  "profile-images": { name: /^[0-9a-f]{32}\.webp$/, associated_data: "uploads.profile-images", plain_before: true },
  // What members send with a report of a problem (docs/product.md#disputes): encrypted from the first day.
  "dispute-attachments": {
    name: /^[0-9a-f]{32}\.(jpg|png|pdf)$/,
    associated_data: "uploads.dispute-attachments",
    plain_before: false,
  },
  // Files sent with secure messages (docs/product.md#secure-messages): encrypted from the first day.
  "message-attachments": {
    name: /^[0-9a-f]{32}\.(jpg|png|pdf)$/,
    associated_data: "uploads.message-attachments",
    plain_before: false,
  },
};

export interface StoredUpload {
  /** The file's name inside its area folder (random hex plus extension). */
  file: string;
  mime: string;
  bytes: number;
}

export class UploadRejectedError extends Error {
  constructor(
    readonly reason: "missing" | "too_large" | "wrong_type" | "unreadable",
    message: string,
  ) {
    super(message);
  }
}

const EXTENSIONS: Record<string, string> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/webp": "webp",
  "application/pdf": "pdf",
};

export function uploadsRoot(): string {
  return path.join(env().dataDirAbsolute, "uploads");
}

/** Whether `file` is a name this store makes for `area` (anything else could walk out of its folder). */
export function isUploadName(area: UploadArea, file: string): boolean {
  return AREAS[area].name.test(file);
}

export function uploadPath(area: UploadArea, file: string): string {
  // Names are ours; refuse anything else so a stored name can never walk out of its folder.
  if (!isUploadName(area, file)) throw new Error("Not a stored upload name.");
  return path.join(uploadsRoot(), area, file);
}

function associatedData(area: UploadArea, file: string): string {
  return `${AREAS[area].associated_data}:${file}`;
}

function encrypted(area: UploadArea, file: string, content: Buffer): string {
  return encryptField(content.toString("base64"), associatedData(area, file));
}

/** The upload's type by its content, when it is one of `allowed`; null otherwise. */
export async function uploadType(original: Buffer, allowed: readonly string[]): Promise<string | null> {
  const detected = await fileTypeFromBuffer(original);
  if (!detected || !allowed.includes(detected.mime)) return null;
  // A PDF is not re-encoded: at least its header must be where a reader looks for it.
  if (detected.mime === "application/pdf" && !original.subarray(0, 1024).includes(Buffer.from("%PDF-"))) return null;
  return detected.mime;
}

/**
 * Decodes the whole image and writes it again through `encode` (resize, format). The EXIF
 * orientation is applied first, before the metadata goes. Null when the image does not decode or
 * claims more than IMAGE_PIXELS_MAX pixels.
 */
export async function reencodeImage(original: Buffer, encode: (image: Sharp) => Sharp): Promise<Buffer | null> {
  try {
    return await encode(sharp(original, { limitInputPixels: IMAGE_PIXELS_MAX, failOn: "error" }).rotate()).toBuffer();
  } catch {
    return null;
  }
}

/** Encrypts and writes checked content under a new random name with `extension`; answers the name. */
export async function writePrivateUpload(area: UploadArea, extension: string, content: Buffer): Promise<string> {
  return writeNamedUpload(area, `${crypto.randomBytes(16).toString("hex")}.${extension}`, content);
}

/** Encrypts and writes content under a name the caller derived from a stored one (a thumbnail's). */
export async function writeNamedUpload(area: UploadArea, file: string, content: Buffer): Promise<string> {
  const target = uploadPath(area, file);
  // DATA_DIR itself too: on PostgreSQL nothing else may have created (and tightened) it.
  for (const dir of [env().dataDirAbsolute, uploadsRoot(), path.dirname(target)]) ownerOnlyDir(dir);
  await fs.writeFile(target, encrypted(area, file, content), { mode: OWNER_ONLY_FILE_MODE, flag: "wx" });
  return file;
}

/**
 * Checks and stores one uploaded file (JPEG, PNG, WebP or PDF). `allowed` lists the accepted MIME
 * types; messages are the caller's, so each form words them its own way.
 */
export async function storePrivateUpload(
  area: UploadArea,
  upload: File | null,
  rules: { allowed: readonly string[]; max_bytes: number; messages: Record<UploadRejectedError["reason"], string> },
): Promise<StoredUpload> {
  if (!upload || upload.size === 0) throw new UploadRejectedError("missing", rules.messages.missing);
  if (upload.size > rules.max_bytes) throw new UploadRejectedError("too_large", rules.messages.too_large);
  const original = Buffer.from(await upload.arrayBuffer());
  const mime = await uploadType(original, rules.allowed);
  if (!mime) throw new UploadRejectedError("wrong_type", rules.messages.wrong_type);

  let content: Buffer | null = original;
  if (mime.startsWith("image/")) {
    content = await reencodeImage(original, (image) =>
      mime === "image/png"
        ? image.png()
        : mime === "image/webp"
          ? image.webp({ quality: 90 })
          : image.jpeg({ quality: 90, mozjpeg: true }),
    );
    if (!content) throw new UploadRejectedError("unreadable", rules.messages.unreadable);
  }
  if (content.length > rules.max_bytes) throw new UploadRejectedError("too_large", rules.messages.too_large);
  const file = await writePrivateUpload(area, EXTENSIONS[mime]!, content);
  return { file, mime, bytes: content.length };
}

/** Removes a stored upload (used when the record that would point at it could not be saved, or it was replaced). */
export async function removePrivateUpload(area: UploadArea, file: string): Promise<void> {
  await fs.rm(uploadPath(area, file), { force: true });
}

/**
 * A stored upload's content, for an authorised route. Throws when the file is gone or does not
 * decrypt (altered, or copied from another name). A plain file written before encryption at rest
 * (told apart by its start: an encrypted one starts with its format's version) is still read.
 */
export async function readPrivateUpload(area: UploadArea, file: string): Promise<Buffer> {
  const stored = await fs.readFile(uploadPath(area, file));
  if (isEncryptedField(stored))
    return Buffer.from(decryptField(stored.toString("utf8"), associatedData(area, file)), "base64");
  if (!AREAS[area].plain_before) throw new Error("A stored upload that should be encrypted is not.");
  return stored;
}

/** Whether a file starts as an encrypted one does. */
async function startsEncrypted(file: string): Promise<boolean> {
  const handle = await fs.open(file, "r");
  try {
    const start = Buffer.alloc(8);
    const { bytesRead } = await handle.read(start, 0, start.length, 0);
    return isEncryptedField(start.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/** Replaces a stored file by new content: written beside it, flushed to disk, renamed over it. */
async function replaceFile(target: string, content: string): Promise<void> {
  const temporary = path.join(
    path.dirname(target),
    `.${crypto.randomBytes(8).toString("hex")}.${path.basename(target)}.tmp`,
  );
  try {
    const handle = await fs.open(temporary, "wx", OWNER_ONLY_FILE_MODE);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temporary, target);
  } finally {
    await fs.rm(temporary, { force: true });
  }
}

/** Every stored file's area, name and path (the names the store made; nothing else). */
async function storedFiles(): Promise<{ area: UploadArea; file: string; target: string }[]> {
  const all: { area: UploadArea; file: string; target: string }[] = [];
  for (const area of Object.keys(AREAS) as UploadArea[]) {
    const names = await fs.readdir(path.join(uploadsRoot(), area)).catch(() => [] as string[]); // no folder: nothing uploaded there
    for (const file of names.filter((n) => AREAS[area].name.test(n)))
      all.push({ area, file, target: uploadPath(area, file) });
  }
  return all;
}

/**
 * Written in DATA_DIR once a pass of encryptPlainUploads has found every stored file encrypted (or
 * encrypted it): every later write encrypts, so no plain file can appear, and later starts read
 * nothing. Beside uploads/ rather than in it, so it never travels with a copy of the files (a
 * restored backup is checked once again). Deleting it has the next start check every file again.
 */
export function allEncryptedMarker(): string {
  return path.join(env().dataDirAbsolute, "uploads-all-encrypted");
}

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code;

/**
 * Encrypts every plain file left from before encryption at rest (run at start-up; safe to run
 * again or alongside readers), once: a pass that checked every file leaves allEncryptedMarker,
 * and the passes after it read nothing. Each file is written encrypted beside the plain one,
 * flushed to disk, then renamed over it: a crash leaves either the plain file or the encrypted
 * one, both readable. Answers how many files it encrypted; fails, leaving no marker, when a file
 * could not be read (the next start tries again).
 */
export async function encryptPlainUploads(): Promise<number> {
  const marker = allEncryptedMarker();
  if (
    await fs.stat(marker).then(
      () => true,
      () => false,
    )
  )
    return 0;
  // Nothing uploaded yet: nothing to mark either (the folder appears with the first upload).
  if (
    !(await fs.stat(uploadsRoot()).then(
      () => true,
      () => false,
    ))
  )
    return 0;
  let done = 0;
  const unread: string[] = [];
  for (const { area, file, target } of await storedFiles()) {
    if (!AREAS[area].plain_before) continue;
    let stored: Buffer;
    try {
      // The start tells the two forms apart: an encrypted file is not read whole.
      if (await startsEncrypted(target)) continue;
      stored = await fs.readFile(target);
    } catch (error) {
      // Removed meanwhile: nothing to encrypt. Anything else leaves the pass incomplete.
      if (errorCode(error) !== "ENOENT") unread.push(`${area}/${file}: ${errorCode(error) ?? String(error)}`);
      continue;
    }
    if (isEncryptedField(stored)) continue;
    await replaceFile(target, encrypted(area, file, stored));
    done += 1;
  }
  if (unread.length > 0)
    throw new Error(
      `could not read ${unread.length} stored upload(s) (${unread.slice(0, 3).join(", ")}); ${done} encrypted`,
    );
  await fs.writeFile(
    marker,
    "Every stored upload is encrypted at rest (checked by Mutual at start-up). Delete this file to have the next start check them all again.\n",
    { mode: OWNER_ONLY_FILE_MODE },
  );
  return done;
}

/**
 * Key rotation (docs/operations.md#rotating-the-data-encryption-key): every stored file that is
 * encrypted with a previous key (or still plain) is written again with the current key, the same
 * safe way. Answers how many files it rewrote; a second run rewrites none.
 */
export async function reencryptUploads(): Promise<number> {
  let done = 0;
  for (const { area, file, target } of await storedFiles()) {
    const stored = await fs.readFile(target).catch(() => null);
    if (!stored) continue;
    if (!isEncryptedField(stored)) {
      if (!AREAS[area].plain_before) continue;
      await replaceFile(target, encrypted(area, file, stored));
      done += 1;
      continue;
    }
    const again = reencryptedField(stored.toString("utf8"), associatedData(area, file));
    if (again === null) continue;
    await replaceFile(target, again);
    done += 1;
  }
  return done;
}
