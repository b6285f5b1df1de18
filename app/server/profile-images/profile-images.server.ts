import { eq } from "drizzle-orm";
import { PROFILE_IMAGE_MAX_BYTES, PROFILE_IMAGE_TYPES, SETTINGS_MESSAGES } from "~/domain/settings";
import type { Db } from "~/server/db/client.server";
import { memberProfiles } from "~/server/db/schema";
import {
  isUploadName,
  readPrivateUpload,
  reencodeImage,
  removePrivateUpload,
  uploadType,
  writePrivateUpload,
} from "~/server/uploads/private-uploads.server";
import { logger } from "~/server/logger.server";
import { refusal, type Refusal } from "~/domain/refusals";

/**
 * Profile images (docs/product.md#settings: at most 5 MB). A person's face is personal data: the
 * image is checked, re-encoded and kept by the private store (app/server/uploads/private-uploads.server.ts:
 * type by content, whole image decoded, metadata dropped, random name, encrypted at rest) as a new
 * 256×256 WebP, and served only through /settings/profile-image/:user_id (the person themself, or staff).
 */
export const PROFILE_IMAGE_SIZE_PX = 256;
const AREA = "profile-images";

export type SetProfileImageResult = { ok: true; file: string } | Refusal;

const NOT_AN_IMAGE = refusal("bad_input", SETTINGS_MESSAGES.image_not_image, { field: "image" });

/** Checks, re-encodes and stores a member's new profile image, then points their profile at it. */
export async function setProfileImage(db: Db, user_id: string, upload: File | null): Promise<SetProfileImageResult> {
  if (!upload || upload.size === 0) return NOT_AN_IMAGE;
  if (upload.size > PROFILE_IMAGE_MAX_BYTES)
    return refusal("bad_input", SETTINGS_MESSAGES.image_too_large, { field: "image" });
  const original = Buffer.from(await upload.arrayBuffer());
  // The header said image and the data did not decode: not an image we can use either.
  const content = (await uploadType(original, PROFILE_IMAGE_TYPES))
    ? await reencodeImage(original, (image) =>
        image
          .resize(PROFILE_IMAGE_SIZE_PX, PROFILE_IMAGE_SIZE_PX, { fit: "cover", position: "attention" })
          .webp({ quality: 85 }),
      )
    : null;
  if (!content) return NOT_AN_IMAGE;

  let file: string | null = null;
  try {
    file = await writePrivateUpload(AREA, "webp", content);
    const [before] = await db
      .select({ image_file: memberProfiles.image_file })
      .from(memberProfiles)
      .where(eq(memberProfiles.user_id, user_id));
    if (!before) {
      await removePrivateUpload(AREA, file);
      return refusal("not_found", SETTINGS_MESSAGES.image_failed);
    }
    await db
      .update(memberProfiles)
      .set({ image_file: file, updated_at: new Date() })
      .where(eq(memberProfiles.user_id, user_id));
    if (before.image_file && isUploadName(AREA, before.image_file)) await removePrivateUpload(AREA, before.image_file);
    return { ok: true, file };
  } catch (error) {
    logger.error({ err: error, user_id }, "storing a profile image failed");
    if (file) await removePrivateUpload(AREA, file).catch(() => undefined);
    return refusal("unavailable", SETTINGS_MESSAGES.image_failed);
  }
}

/** Removes a member's profile image (the avatar falls back to initials). */
export async function removeProfileImage(db: Db, user_id: string): Promise<void> {
  const [before] = await db
    .select({ image_file: memberProfiles.image_file })
    .from(memberProfiles)
    .where(eq(memberProfiles.user_id, user_id));
  await db
    .update(memberProfiles)
    .set({ image_file: null, updated_at: new Date() })
    .where(eq(memberProfiles.user_id, user_id));
  if (before?.image_file && isUploadName(AREA, before.image_file)) await removePrivateUpload(AREA, before.image_file);
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
  const [row] = await db
    .select({ image_file: memberProfiles.image_file })
    .from(memberProfiles)
    .where(eq(memberProfiles.user_id, user_id));
  if (!row?.image_file || !isUploadName(AREA, row.image_file)) return null;
  try {
    return { content: await readPrivateUpload(AREA, row.image_file), mime: "image/webp", file: row.image_file };
  } catch {
    return null;
  }
}
