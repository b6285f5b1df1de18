import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { ConfigurationError, env, type Env } from "~/config/env.server";
import { OWNER_ONLY_FILE_MODE, ownerOnlyDir } from "~/server/files/owner-only.server";

/**
 * The two process secrets (docs/architecture.md#secrets):
 * - SESSION_SECRET signs cookies and keys Better Auth's own encryption (TOTP secrets) and the
 *   keyed hashes of one-time codes;
 * - DATA_ENCRYPTION_KEY (32 bytes) encrypts personal data at rest (AES-256-GCM);
 *   DATA_ENCRYPTION_KEY_PREVIOUS lists earlier ones, still accepted for reading while a rotation
 *   re-encrypts what they encrypted.
 *
 * From the environment when set. Otherwise they are generated once into DATA_DIR/secrets.json
 * (mode 0600) so a fresh clone runs with no setup. With PostgreSQL in production the
 * environment must provide them (env.server.ts refuses to start otherwise): several app
 * processes must share one value, and a local file would differ per machine.
 */
export interface Secrets {
  session_secret: string;
  data_encryption_key: Buffer;
  /** Earlier keys, for reading only (newest first as given). */
  data_encryption_keys_previous: Buffer[];
}

interface SecretsFile {
  session_secret: string;
  data_encryption_key_hex: string;
}

const FILE_NAME = "secrets.json";

export function loadSecrets(
  config: Pick<Env, "SESSION_SECRET" | "DATA_ENCRYPTION_KEY" | "dataDirAbsolute"> &
    Partial<Pick<Env, "DATA_ENCRYPTION_KEY_PREVIOUS">>,
): Secrets {
  const data_encryption_keys_previous = (config.DATA_ENCRYPTION_KEY_PREVIOUS ?? "")
    .split(",")
    .filter(Boolean)
    .map((hex) => Buffer.from(hex, "hex"));
  if (config.SESSION_SECRET && config.DATA_ENCRYPTION_KEY) {
    return {
      session_secret: config.SESSION_SECRET,
      data_encryption_key: Buffer.from(config.DATA_ENCRYPTION_KEY, "hex"),
      data_encryption_keys_previous,
    };
  }
  const stored = readOrCreateSecretsFile(config.dataDirAbsolute);
  return {
    session_secret: config.SESSION_SECRET ?? stored.session_secret,
    data_encryption_key: Buffer.from(config.DATA_ENCRYPTION_KEY ?? stored.data_encryption_key_hex, "hex"),
    data_encryption_keys_previous,
  };
}

function readOrCreateSecretsFile(dataDir: string): SecretsFile {
  const file = path.join(dataDir, FILE_NAME);
  ownerOnlyDir(dataDir);
  const fresh: SecretsFile = {
    session_secret: crypto.randomBytes(32).toString("base64url"),
    data_encryption_key_hex: crypto.randomBytes(32).toString("hex"),
  };
  // A database already here without its keys file (a folder copied by hand, a lost file): new
  // keys could not read its encrypted personal data, and would silently replace the old ones.
  if (!fs.existsSync(file) && fs.existsSync(path.join(dataDir, "pgdata"))) {
    throw new ConfigurationError(
      `${dataDir} holds a database but no ${FILE_NAME}: new keys could not read its encrypted personal data. ` +
        `Put back the ${FILE_NAME} kept apart from the backups, or set SESSION_SECRET and DATA_ENCRYPTION_KEY.`,
    );
  }
  try {
    // "wx": created only if absent, so two starts never overwrite each other's key (which would
    // make every encrypted field unreadable).
    fs.writeFileSync(file, `${JSON.stringify(fresh, null, 2)}\n`, { mode: OWNER_ONLY_FILE_MODE, flag: "wx" });
    return fresh;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  // A copy restored from a backup may have come back readable by others.
  if ((fs.statSync(file).mode & 0o777) !== OWNER_ONLY_FILE_MODE) fs.chmodSync(file, OWNER_ONLY_FILE_MODE);
  let parsed: Partial<SecretsFile>;
  try {
    parsed = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<SecretsFile>;
  } catch (error) {
    throw new ConfigurationError(
      `${file}: cannot be read as JSON (${(error as Error).message}). Restore it from a backup: without it, encrypted personal data cannot be read.`,
    );
  }
  if (typeof parsed.session_secret !== "string" || parsed.session_secret.length < 32) {
    throw new ConfigurationError(`${file}: session_secret is missing or shorter than 32 characters.`);
  }
  if (typeof parsed.data_encryption_key_hex !== "string" || !/^[0-9a-fA-F]{64}$/.test(parsed.data_encryption_key_hex)) {
    throw new ConfigurationError(`${file}: data_encryption_key_hex must be 64 hexadecimal characters.`);
  }
  return { session_secret: parsed.session_secret, data_encryption_key_hex: parsed.data_encryption_key_hex };
}

let cached: Secrets | undefined;

/** The process's secrets, loaded (or generated) once. */
export function secrets(): Secrets {
  cached ??= loadSecrets(env());
  return cached;
}
