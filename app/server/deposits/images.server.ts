import crypto from "node:crypto";
import {
  MOBILE_DEPOSIT_IMAGE_MAX_BYTES,
  MOBILE_DEPOSIT_IMAGE_MESSAGES,
  MOBILE_DEPOSIT_IMAGE_TYPES,
  type CheckSide,
} from "~/domain/mobile-deposit";
import {
  readPrivateUpload,
  reencodeImage,
  removePrivateUpload,
  uploadType,
  writeNamedUpload,
  writePrivateUpload,
} from "~/server/uploads/private-uploads.server";

/**
 * The photos of a deposited check (docs/product.md#mobile-deposit). A check shows the payer's
 * account and routing numbers and signature, so its photos are kept like ID documents: in the
 * private store (app/server/uploads/private-uploads.server.ts: random name, owner-only, encrypted at
 * rest) and served only through the staff route.
 *
 * An upload is accepted when its content says JPEG or PNG and the whole image decodes (the store's
 * checks). The stored image is a new JPEG, at most IMAGE_SIDE_MAX_PX on its longer side, with a
 * small thumbnail beside it for the review queue: the queue lists every waiting deposit, and
 * decrypting two full photos per row for a 190-pixel picture would be most of the page's work.
 */
const AREA = "mobile-deposits";
/** Enough to read every line of a check; a 48-megapixel photo becomes a few hundred kilobytes. */
const IMAGE_SIDE_MAX_PX = 2400;
/** The queue's picture: enough to tell one check from another (twice its 192 CSS pixels for sharp screens). */
const THUMBNAIL_SIDE_MAX_PX = 384;

export type CheckImageRefusal = {
  ok: false;
  reason: "missing" | "too_large" | "wrong_type" | "unreadable";
  message: string;
};

/** The thumbnail's name, derived from the photo's, so the deposit needs no second column. */
function thumbnailName(file: string): string {
  return file.replace(/\.jpg\.enc$/, ".thumb.jpg.enc");
}

async function thumbnailOf(content: Buffer): Promise<Buffer | null> {
  return reencodeImage(content, (image) =>
    image
      .resize(THUMBNAIL_SIDE_MAX_PX, THUMBNAIL_SIDE_MAX_PX, { fit: "inside", withoutEnlargement: true })
      .jpeg({ quality: 70, mozjpeg: true }),
  );
}

/** Checks one side's upload without storing anything: the refusal, or the image re-encoded. */
export async function checkCheckImage(
  side: CheckSide,
  upload: File | null,
): Promise<CheckImageRefusal | { ok: true; content: Buffer; sha256: string }> {
  const M = MOBILE_DEPOSIT_IMAGE_MESSAGES;
  if (!upload || upload.size === 0) return { ok: false, reason: "missing", message: M.missing(side) };
  // The size the multipart part declared, before its bytes are copied.
  if (upload.size > MOBILE_DEPOSIT_IMAGE_MAX_BYTES)
    return { ok: false, reason: "too_large", message: M.too_large(side) };
  const original = Buffer.from(await upload.arrayBuffer());
  if (original.length > MOBILE_DEPOSIT_IMAGE_MAX_BYTES)
    return { ok: false, reason: "too_large", message: M.too_large(side) };
  if (!(await uploadType(original, MOBILE_DEPOSIT_IMAGE_TYPES)))
    return { ok: false, reason: "wrong_type", message: M.wrong_type(side) };
  const content = await reencodeImage(original, (image) =>
    image
      .resize(IMAGE_SIDE_MAX_PX, IMAGE_SIDE_MAX_PX, { fit: "inside", withoutEnlargement: true })
      .flatten({ background: "#ffffff" }) // a PNG's transparency becomes paper white
      .jpeg({ quality: 85, mozjpeg: true }),
  );
  // A JPEG or PNG start with a broken or enormous image behind it.
  if (!content) return { ok: false, reason: "unreadable", message: M.unreadable(side) };
  return { ok: true, content, sha256: crypto.createHash("sha256").update(original).digest("hex") };
}

/** Encrypts and writes a checked image and its thumbnail; answers the photo's stored name. */
export async function storeCheckImage(content: Buffer): Promise<string> {
  const file = await writePrivateUpload(AREA, "jpg.enc", content);
  const thumbnail = await thumbnailOf(content);
  if (thumbnail) await writeNamedUpload(AREA, thumbnailName(file), thumbnail);
  return file;
}

/** Removes a stored image (and its thumbnail) whose deposit could not be saved (nothing else refers to it). */
export async function removeCheckImage(file: string): Promise<void> {
  await removePrivateUpload(AREA, thumbnailName(file));
  await removePrivateUpload(AREA, file);
}

/** The JPEG bytes of a stored image, for the staff route; null when the file is gone or was altered. */
export async function readCheckImage(file: string): Promise<Buffer | null> {
  try {
    return await readPrivateUpload(AREA, file);
  } catch {
    return null;
  }
}

/**
 * The thumbnail of a stored image, for the review queue. A deposit sent before thumbnails has
 * none: it is made from the photo once, on its first view, and kept.
 */
export async function readCheckThumbnail(file: string): Promise<Buffer | null> {
  const name = thumbnailName(file);
  try {
    return await readPrivateUpload(AREA, name);
  } catch {
    const photo = await readCheckImage(file);
    const thumbnail = photo ? await thumbnailOf(photo) : null;
    if (!thumbnail) return null;
    // Two first views at once: the second write finds the file there, and either copy is right.
    await writeNamedUpload(AREA, name, thumbnail).catch(() => undefined);
    return thumbnail;
  }
}
