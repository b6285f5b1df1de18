import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { uploadsRoot } from "~/server/files/private-uploads.server";
import { OWNER_ONLY_FILE_MODE, ownerOnlyDir } from "~/server/files/owner-only.server";
import { decryptField, encryptField } from "~/server/security/crypto.server";
import { checkImageType, MOBILE_DEPOSIT_IMAGE_MAX_BYTES, MOBILE_DEPOSIT_IMAGE_MESSAGES, type CheckSide } from "~/domain/mobile-deposit";

/**
 * The photos of a deposited check (docs/product.md#mobile-deposit). A check shows the payer's
 * account and routing numbers and signature, so its photos are kept like ID documents: under
 * DATA_DIR/uploads/mobile-deposits with a random name, readable by the server's account only, and
 * encrypted at rest (AES-256-GCM with the data encryption key, the file's name as associated data
 * so a file copied over another does not decrypt). They are served only through the staff route.
 *
 * An upload is accepted when its first bytes say JPEG or PNG (never its name or the browser's
 * claim) AND sharp decodes the whole image. sharp refuses an image whose header claims more than
 * IMAGE_PIXELS_MAX pixels before it allocates anything (a small file that would decompress to
 * gigabytes). The stored image is a new JPEG sharp wrote, at most IMAGE_SIDE_MAX_PX on its longer
 * side: metadata (the phone's GPS position) and anything hidden after the image data are gone.
 */
const AREA = "mobile-deposits";
const NAME = /^[0-9a-f]{32}\.jpg\.enc$/;
/** 40 megapixels: more than any phone camera, far less than a decompression bomb. */
export const IMAGE_PIXELS_MAX = 40_000_000;
/** Enough to read every line of a check; a 48-megapixel photo becomes a few hundred kilobytes. */
const IMAGE_SIDE_MAX_PX = 2400;

export type CheckImageRefusal = { ok: false; reason: "missing" | "too_large" | "wrong_type" | "unreadable"; message: string };
export type StoredCheckImage = { ok: true; file: string; sha256: string; bytes: number };

function imagePath(file: string): string {
  // Names are ours; anything else could walk out of the folder.
  if (!NAME.test(file)) throw new Error("Not a stored check image name.");
  return path.join(uploadsRoot(), AREA, file);
}

function associatedData(file: string): string {
  return `mobile_deposits.image:${file}`;
}

/** Checks one side's upload without storing anything: the refusal, or the image re-encoded. */
export async function checkCheckImage(side: CheckSide, upload: File | null): Promise<CheckImageRefusal | { ok: true; content: Buffer; sha256: string }> {
  const M = MOBILE_DEPOSIT_IMAGE_MESSAGES;
  if (!upload || upload.size === 0) return { ok: false, reason: "missing", message: M.missing(side) };
  // The size the multipart part declared, before its bytes are copied.
  if (upload.size > MOBILE_DEPOSIT_IMAGE_MAX_BYTES) return { ok: false, reason: "too_large", message: M.too_large(side) };
  const original = Buffer.from(await upload.arrayBuffer());
  if (original.length > MOBILE_DEPOSIT_IMAGE_MAX_BYTES) return { ok: false, reason: "too_large", message: M.too_large(side) };
  if (!checkImageType(original)) return { ok: false, reason: "wrong_type", message: M.wrong_type(side) };
  let content: Buffer;
  try {
    content = await sharp(original, { limitInputPixels: IMAGE_PIXELS_MAX, failOn: "error" })
      .rotate() // the phone's orientation, before the metadata goes
      .resize(IMAGE_SIDE_MAX_PX, IMAGE_SIDE_MAX_PX, { fit: "inside", withoutEnlargement: true })
      .flatten({ background: "#ffffff" }) // a PNG's transparency becomes paper white
      .jpeg({ quality: 85, mozjpeg: true })
      .toBuffer();
  } catch {
    // A JPEG or PNG start with a broken or enormous image behind it.
    return { ok: false, reason: "unreadable", message: M.unreadable(side) };
  }
  return { ok: true, content, sha256: crypto.createHash("sha256").update(original).digest("hex") };
}

/** Encrypts and writes a checked image; answers its stored name. */
export async function storeCheckImage(content: Buffer): Promise<string> {
  const file = `${crypto.randomBytes(16).toString("hex")}.jpg.enc`;
  const folder = path.join(uploadsRoot(), AREA);
  for (const dir of [path.dirname(uploadsRoot()), uploadsRoot(), folder]) ownerOnlyDir(dir);
  await fs.writeFile(path.join(folder, file), encryptField(content.toString("base64"), associatedData(file)), { mode: OWNER_ONLY_FILE_MODE, flag: "wx" });
  return file;
}

/** Removes a stored image whose deposit could not be saved (nothing else refers to it). */
export async function removeCheckImage(file: string): Promise<void> {
  await fs.rm(imagePath(file), { force: true });
}

/** The JPEG bytes of a stored image, for the staff route; null when the file is gone or was altered. */
export async function readCheckImage(file: string): Promise<Buffer | null> {
  try {
    const stored = await fs.readFile(imagePath(file), "utf8");
    return Buffer.from(decryptField(stored, associatedData(file)), "base64");
  } catch {
    return null;
  }
}
