import crypto from "node:crypto";
import { secrets } from "~/server/config/secrets.server";

/**
 * Personal data at rest (docs/product.md#personal-data-guarded): AES-256-GCM with
 * DATA_ENCRYPTION_KEY.
 *
 * Stored form: `v1.<iv>.<ciphertext>.<tag>` (base64url parts). The 12-byte IV is random per value;
 * the 16-byte tag makes any change to the stored text fail to decrypt. The associated data names
 * where the value belongs (e.g. `member_profiles.id_number:<user id>`), so a ciphertext copied
 * onto another row or column does not decrypt either.
 *
 * Key rotation (docs/operations.md#rotating-the-data-encryption-key): values are always written
 * with the current key; a value that does not decrypt with it is tried with each previous key
 * (DATA_ENCRYPTION_KEY_PREVIOUS), so the server reads everything while `npm run data-key:rotate`
 * re-encrypts the old values to the current key.
 */
const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

export class DecryptionError extends Error {}

function checkKey(key: Buffer): Buffer {
  if (key.length !== KEY_BYTES)
    throw new Error(`The data encryption key must be ${KEY_BYTES} bytes, got ${key.length}.`);
  return key;
}

export function encryptField(
  plaintext: string,
  associated_data: string,
  key: Buffer = secrets().data_encryption_key,
): string {
  const iv = crypto.randomBytes(IV_BYTES);
  const cipher = crypto.createCipheriv("aes-256-gcm", checkKey(key), iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(associated_data, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, iv.toString("base64url"), ciphertext.toString("base64url"), tag.toString("base64url")].join(".");
}

/**
 * Whether stored text (or a file's bytes) is in the encrypted form: it starts with the version.
 * No JPEG, PNG, WebP or PDF starts so, which tells an encrypted file from one written before.
 */
export function isEncryptedField(stored: string | Buffer): boolean {
  return (
    (typeof stored === "string"
      ? stored.slice(0, VERSION.length + 1)
      : stored.subarray(0, VERSION.length + 1).toString("latin1")) === `${VERSION}.`
  );
}

/** Decrypts with the current key, else with a previous one (see above); an explicit key is the only one tried. */
export function decryptField(stored: string, associated_data: string, key?: Buffer): string {
  if (key) return decryptWithKey(stored, associated_data, key);
  const { data_encryption_key, data_encryption_keys_previous } = secrets();
  try {
    return decryptWithKey(stored, associated_data, data_encryption_key);
  } catch (error) {
    for (const previous of data_encryption_keys_previous) {
      try {
        return decryptWithKey(stored, associated_data, previous);
      } catch {
        // the next previous key
      }
    }
    throw error;
  }
}

/**
 * For the rotation: the value encrypted again with the current key when it was encrypted with a
 * previous one, or null when it is already under the current key. Throws when no key opens it.
 */
export function reencryptedField(stored: string, associated_data: string): string | null {
  const { data_encryption_key } = secrets();
  try {
    decryptWithKey(stored, associated_data, data_encryption_key);
    return null;
  } catch {
    return encryptField(decryptField(stored, associated_data), associated_data);
  }
}

function decryptWithKey(stored: string, associated_data: string, key: Buffer): string {
  const parts = stored.split(".");
  if (parts.length !== 4 || parts[0] !== VERSION)
    throw new DecryptionError("Not an encrypted value of a known version.");
  const iv = Buffer.from(parts[1]!, "base64url");
  const ciphertext = Buffer.from(parts[2]!, "base64url");
  const tag = Buffer.from(parts[3]!, "base64url");
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new DecryptionError("Malformed encrypted value.");
  try {
    const decipher = crypto.createDecipheriv("aes-256-gcm", checkKey(key), iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(associated_data, "utf8"));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString("utf8");
  } catch {
    // Wrong key, wrong row, or tampered text: never return garbage.
    throw new DecryptionError("The encrypted value could not be verified.");
  }
}

/**
 * A keyed hash (HMAC-SHA-256) for short secrets such as 6-digit codes. A plain hash of a 6-digit
 * code is reversed by trying a million values; with a server-held key, a copy of the database
 * alone reveals nothing. `purpose` separates uses so a hash made for one cannot match another.
 */
export function keyedHash(purpose: string, value: string, session_secret: string = secrets().session_secret): string {
  const key = crypto.createHmac("sha256", session_secret).update(`mutual:${purpose}`).digest();
  return crypto.createHmac("sha256", key).update(value, "utf8").digest("base64url");
}

/** Constant-time comparison of two hashes in the same encoding. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}
