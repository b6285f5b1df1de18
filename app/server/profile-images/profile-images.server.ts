import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { eq } from "drizzle-orm";
import { fileTypeFromBuffer } from "file-type";
import sharp from "sharp";
import { PROFILE_IMAGE_MAX_BYTES, PROFILE_IMAGE_TYPES, SETTINGS_MESSAGES } from "~/domain/settings";
import type { Db } from "~/server/db/client.server";
import { memberProfiles } from "~/server/db/schema";
import { uploadsRoot } from "~/server/files/private-uploads.server";
import { logger } from "~/server/logger.server";

/**
 * Profile images (docs/product.md#settings: at most 5 MB). The upload's type is read from its
 * content (file-type), never from its name or the browser's claim; sharp decodes it and writes a
 * new 256×256 WebP, so no metadata (GPS position, camera serial) and nothing hidden after the
 * image data survives. Files live under DATA_DIR/uploads/profile-images with a random name and are
 * served only through /settings/profile-image/:user_id (the person themself, or staff).
 */
export const PROFILE_IMAGE_SIZE_PX = 256;
const IMAGE_PIXELS_MAX = 40_000_000;
const AREA = "profile-images";
const NAME = /^[0-9a-f]{32}\.webp$/;

export type ProfileImageRefusal = "not_image" | "too_large" | "failed";
export type SetProfileImageResult = { status: "updated"; file: string } | { status: "refused"; reason: ProfileImageRefusal; message: string };

function imagePath(file: string): string {
  // Names are ours; refuse anything else so a stored name can never walk out of the folder.
  if (!NAME.test(file)) throw new Error("Not a stored profile image name.");
  return path.join(uploadsRoot(), AREA, file);
}

/** Checks, re-encodes and stores a member's new profile image, then points their profile at it. */
export async function setProfileImage(db: Db, user_id: string, upload: File | null): Promise<SetProfileImageResult> {
  if (!upload || upload.size === 0) return { status: "refused", reason: "not_image", message: SETTINGS_MESSAGES.image_not_image };
  if (upload.size > PROFILE_IMAGE_MAX_BYTES) return { status: "refused", reason: "too_large", message: SETTINGS_MESSAGES.image_too_large };
  const original = Buffer.from(await upload.arrayBuffer());
  const detected = await fileTypeFromBuffer(original);
  if (!detected || !(PROFILE_IMAGE_TYPES as readonly string[]).includes(detected.mime)) {
    return { status: "refused", reason: "not_image", message: SETTINGS_MESSAGES.image_not_image };
  }
  let content: Buffer;
  try {
    content = await sharp(original, { limitInputPixels: IMAGE_PIXELS_MAX, failOn: "error" })
      .rotate() // apply the EXIF orientation before the metadata is dropped
      .resize(PROFILE_IMAGE_SIZE_PX, PROFILE_IMAGE_SIZE_PX, { fit: "cover", position: "attention" })
      .webp({ quality: 85 })
      .toBuffer();
  } catch {
    // The header said image, the data did not decode: not an image we can use.
    return { status: "refused", reason: "not_image", message: SETTINGS_MESSAGES.image_not_image };
  }

  const file = `${crypto.randomBytes(16).toString("hex")}.webp`;
  const folder = path.join(uploadsRoot(), AREA);
  try {
    await fs.mkdir(folder, { recursive: true, mode: 0o700 });
    await fs.writeFile(path.join(folder, file), content, { mode: 0o600, flag: "wx" });
    const [before] = await db.select({ image_file: memberProfiles.image_file }).from(memberProfiles).where(eq(memberProfiles.user_id, user_id));
    if (!before) {
      await fs.rm(path.join(folder, file), { force: true });
      return { status: "refused", reason: "failed", message: SETTINGS_MESSAGES.image_failed };
    }
    await db.update(memberProfiles).set({ image_file: file, updated_at: new Date() }).where(eq(memberProfiles.user_id, user_id));
    if (before.image_file && NAME.test(before.image_file)) await fs.rm(imagePath(before.image_file), { force: true });
    return { status: "updated", file };
  } catch (error) {
    logger.error({ err: error, user_id }, "storing a profile image failed");
    await fs.rm(path.join(folder, file), { force: true }).catch(() => undefined);
    return { status: "refused", reason: "failed", message: SETTINGS_MESSAGES.image_failed };
  }
}

/** Removes a member's profile image (the avatar falls back to initials). */
export async function removeProfileImage(db: Db, user_id: string): Promise<void> {
  const [before] = await db.select({ image_file: memberProfiles.image_file }).from(memberProfiles).where(eq(memberProfiles.user_id, user_id));
  await db.update(memberProfiles).set({ image_file: null, updated_at: new Date() }).where(eq(memberProfiles.user_id, user_id));
  if (before?.image_file && NAME.test(before.image_file)) await fs.rm(imagePath(before.image_file), { force: true });
}

/**
 * The stored image of `user_id` for `viewer`: only the person themself or staff may see it.
 * Null when not allowed, not set, or the file is gone (the page then shows initials).
 */
export async function readProfileImage(
  db: Db,
  viewer: { id: string; role: string },
  user_id: string,
): Promise<{ content: Buffer; mime: "image/webp"; file: string } | null> {
  if (viewer.id !== user_id && viewer.role !== "admin" && viewer.role !== "reviewer") return null;
  const [row] = await db.select({ image_file: memberProfiles.image_file }).from(memberProfiles).where(eq(memberProfiles.user_id, user_id));
  if (!row?.image_file || !NAME.test(row.image_file)) return null;
  try {
    return { content: await fs.readFile(imagePath(row.image_file)), mime: "image/webp", file: row.image_file };
  } catch {
    return null;
  }
}
