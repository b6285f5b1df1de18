import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { fileTypeFromBuffer } from "file-type";
import sharp from "sharp";
import { env } from "~/config/env.server";
import { OWNER_ONLY_FILE_MODE, ownerOnlyDir } from "./owner-only.server";

/**
 * Private uploads (docs/architecture.md#files): kept under DATA_DIR/uploads/<area>/ with a random
 * name, never served by URL (an authorised route streams them). The type is read from the content,
 * never from the name or the browser's claim. Images are decoded and re-encoded by sharp, which
 * drops metadata (GPS position, camera serial) and anything hidden after the image data.
 */
export type UploadArea = "id-documents";

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

const IMAGE_PIXELS_MAX = 40_000_000;
const EXTENSIONS: Record<string, string> = { "image/jpeg": "jpg", "image/png": "png", "image/webp": "webp", "application/pdf": "pdf" };

export function uploadsRoot(): string {
  return path.join(env().dataDirAbsolute, "uploads");
}

export function uploadPath(area: UploadArea, file: string): string {
  // Names are ours (hex + extension); refuse anything else so a stored name can never walk out.
  if (!/^[0-9a-f]{32}\.(jpg|png|webp|pdf)$/.test(file)) throw new Error("Not a stored upload name.");
  return path.join(uploadsRoot(), area, file);
}

/**
 * Checks and stores one uploaded file. `allowed` lists the accepted MIME types; messages are the
 * caller's, so each form words them its own way.
 */
export async function storePrivateUpload(
  area: UploadArea,
  upload: File | null,
  rules: { allowed: readonly string[]; max_bytes: number; messages: Record<UploadRejectedError["reason"], string> },
): Promise<StoredUpload> {
  if (!upload || upload.size === 0) throw new UploadRejectedError("missing", rules.messages.missing);
  if (upload.size > rules.max_bytes) throw new UploadRejectedError("too_large", rules.messages.too_large);
  const original = Buffer.from(await upload.arrayBuffer());
  const detected = await fileTypeFromBuffer(original);
  if (!detected || !rules.allowed.includes(detected.mime)) throw new UploadRejectedError("wrong_type", rules.messages.wrong_type);

  let content: Buffer = original;
  if (detected.mime.startsWith("image/")) {
    try {
      // rotate() applies the EXIF orientation before the metadata is dropped.
      const image = sharp(original, { limitInputPixels: IMAGE_PIXELS_MAX, failOn: "error" }).rotate();
      content =
        detected.mime === "image/png"
          ? await image.png().toBuffer()
          : detected.mime === "image/webp"
            ? await image.webp({ quality: 90 }).toBuffer()
            : await image.jpeg({ quality: 90, mozjpeg: true }).toBuffer();
    } catch {
      throw new UploadRejectedError("unreadable", rules.messages.unreadable);
    }
  } else if (!original.subarray(0, 1024).includes(Buffer.from("%PDF-"))) {
    throw new UploadRejectedError("wrong_type", rules.messages.wrong_type);
  }
  if (content.length > rules.max_bytes) throw new UploadRejectedError("too_large", rules.messages.too_large);

  const file = `${crypto.randomBytes(16).toString("hex")}.${EXTENSIONS[detected.mime]}`;
  const folder = path.join(uploadsRoot(), area);
  // DATA_DIR itself too: on PostgreSQL nothing else may have created (and tightened) it.
  for (const dir of [env().dataDirAbsolute, uploadsRoot(), folder]) ownerOnlyDir(dir);
  await fs.writeFile(path.join(folder, file), content, { mode: OWNER_ONLY_FILE_MODE, flag: "wx" });
  return { file, mime: detected.mime, bytes: content.length };
}

/** Removes a stored upload (used when the record that would point at it could not be saved). */
export async function removePrivateUpload(area: UploadArea, file: string): Promise<void> {
  await fs.rm(uploadPath(area, file), { force: true });
}

/** Reads a stored upload for an authorised route. */
export async function readPrivateUpload(area: UploadArea, file: string): Promise<Buffer> {
  return fs.readFile(uploadPath(area, file));
}
