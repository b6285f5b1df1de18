import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { parseDatabaseUrl } from "./database-url";

/**
 * PostgreSQL connection settings when no variable says otherwise; also what a test or script
 * that opens a database itself gets. Sized for one app process: PostgreSQL's default
 * max_connections (100) serves four of them.
 */
export const DATABASE_POOL_DEFAULTS = {
  pool_max: 20,
  connect_timeout_ms: 5_000,
  statement_timeout_ms: 15_000,
  idle_in_transaction_timeout_ms: 30_000,
  tcp_keepalive_ms: 10_000,
} as const;

/** A PostgreSQL connection URL (DATABASE_URL, DATABASE_READ_URL), with what is wrong in it named. */
const postgresUrl = z
  .string()
  .regex(/^postgres(ql)?:\/\//, "must start with postgres:// or postgresql://")
  .superRefine((url, context) => {
    const problem = connectionUrlProblem(url);
    if (problem) context.addIssue({ code: "custom", message: problem });
  })
  .optional();

/**
 * The process environment, parsed once. A bad value stops start-up with a message naming the
 * variable, so a misconfigured bank never half-starts.
 */
const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  // 0: any free port, named in the "Mutual is serving" log line. The tests start processes side
  // by side so: a free port looked up beforehand can be taken by another program before the
  // process listens on it.
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: postgresUrl,
  // A streaming standby that read-only pages may read from (docs/operations.md "Read replicas");
  // a browser that wrote reads there only once the replica has replayed its write, waiting at most
  // DATABASE_READ_WAIT_MS before reading the primary instead.
  DATABASE_READ_URL: postgresUrl,
  DATABASE_READ_WAIT_MS: z.coerce.number().int().min(0).max(10_000).default(250),
  PUBLIC_URL: z.url().optional(),
  SESSION_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  DATA_ENCRYPTION_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, "must be 64 hexadecimal characters (32 bytes)")
    .optional(),
  /**
   * Earlier data encryption keys, comma-separated, while `npm run data-key:rotate` moves what they
   * encrypted to DATA_ENCRYPTION_KEY (docs/operations.md#rotating-the-data-encryption-key).
   */
  DATA_ENCRYPTION_KEY_PREVIOUS: z
    .string()
    .regex(
      /^[0-9a-fA-F]{64}(,[0-9a-fA-F]{64})*$/,
      "must be one or more keys of 64 hexadecimal characters, separated by commas",
    )
    .optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, "must start with smtp:// or smtps://")
    .optional(),
  /**
   * Web Push (docs/operations.md#web-push): the VAPID key pair that signs every push, made once
   * with `npx web-push generate-vapid-keys`. Without both, no device is offered notifications.
   */
  VAPID_PUBLIC_KEY: z
    .string()
    .regex(/^[A-Za-z0-9_-]{87}$/, "must be the public key printed by npx web-push generate-vapid-keys")
    .optional(),
  VAPID_PRIVATE_KEY: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/, "must be the private key printed by npx web-push generate-vapid-keys")
    .optional(),
  /**
   * Push services besides the browsers' own (https origins, comma-separated): a test's local push
   * service. The server only ever posts pushes to these and the known browser push services.
   */
  WEB_PUSH_EXTRA_ORIGINS: z
    .string()
    .regex(/^https?:\/\/[^\s,]+(,https?:\/\/[^\s,]+)*$/, "must be origins (http[s]://host[:port]) separated by commas")
    .optional(),
  /**
   * Text messages (docs/operations.md#text-messages-sms): the account id and auth token of the SMS
   * provider the institution profile's `sms` section names (Twilio's Account SID and Auth Token).
   * Without both, or without that section, no member is offered text messages.
   */
  SMS_ACCOUNT_SID: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, "must be the provider's account id (letters, digits, - and _)")
    .optional(),
  SMS_AUTH_TOKEN: z.string().min(8, "must be the provider's auth token (at least 8 characters)").max(200).optional(),
  INSTITUTION_CONFIG: z.string().min(1).optional(),
  /**
   * A city database in the MaxMind DB format (GeoLite2 City, DB-IP City Lite) the operator
   * downloads: with it, Sessions and devices show each session's approximate place
   * (docs/operations.md#places-of-sessions). Unset: no place is shown, none is guessed.
   */
  CITY_DATABASE_FILE: z.string().min(1).optional(),
  /** "1": exactly one reverse proxy in front; the client address comes from X-Forwarded-For. */
  TRUST_PROXY: z.enum(["0", "1"], "must be 1 (exactly one reverse proxy in front) or 0").optional(),
  /** "1": run the demo profile (published passwords) even in a production deployment, on purpose. */
  MUTUAL_DEMO: z.enum(["0", "1"], "must be 1 (run the demo profile on purpose) or 0").optional(),
  /**
   * "1": a test install, on purpose: a production deployment that may start without SMTP_URL
   * (nobody receives a sign-in code: staff read them in the outbox) and without an https
   * PUBLIC_URL (docs/operations.md#configure).
   */
  MUTUAL_TEST_INSTALL: z.enum(["0", "1"], "must be 1 (a test install, on purpose) or 0").optional(),
  /**
   * "1": a restore drill's copy (docs/operations.md#the-restore-drill): no scheduled job runs and
   * no email leaves (messages stay in the outbox), and every page says it is a drill copy, so a
   * drill on real members' data never reaches them.
   */
  MUTUAL_DRILL: z.enum(["0", "1"], "must be 1 (a restore drill's copy) or 0").optional(),
  /**
   * "1": run on the embedded database in DATA_DIR in production, on purpose (one process, a small
   * installation). Without it a production process with no DATABASE_URL stops: that is what an
   * environment file that was not loaded looks like, and a migration or a ledger check would
   * otherwise report success on an empty database of its own making.
   */
  MUTUAL_EMBEDDED_DATABASE: z
    .enum(["0", "1"], "must be 1 (the embedded database in production, on purpose) or 0")
    .optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  // PostgreSQL connections (with DATABASE_URL), in milliseconds; 0 turns off the statement and
  // idle-in-transaction timeouts and the keepalive.
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(1000).default(DATABASE_POOL_DEFAULTS.pool_max),
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(DATABASE_POOL_DEFAULTS.connect_timeout_ms),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .default(DATABASE_POOL_DEFAULTS.statement_timeout_ms),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .default(DATABASE_POOL_DEFAULTS.idle_in_transaction_timeout_ms),
  DATABASE_TCP_KEEPALIVE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .default(DATABASE_POOL_DEFAULTS.tcp_keepalive_ms),
  // /metrics (docs/operations.md "Metrics and alerts"): on a port of its own, on this address
  // (loopback unless said otherwise), and/or on the main port behind a bearer token.
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  METRICS_TOKEN: z
    .string()
    .min(32, "must be at least 32 characters")
    .max(512)
    .regex(/^\S+$/, "must not contain spaces")
    .optional(),
  // Scheduled jobs (docs/operations.md "Scheduled jobs"): the wait between polls when nothing is
  // due, how long a run stays a stopped process's before another takes it, and the job clock
  // (adjustable: staff and tests may move it forward; the demo profile only).
  JOB_POLL_MS: z.coerce.number().int().min(50).max(600_000).default(5_000),
  JOB_LEASE_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(60_000),
  JOB_CLOCK: z.enum(["system", "adjustable"], "must be system or adjustable").default("system"),
});

/**
 * Why a PostgreSQL URL cannot be read, or undefined. A password holding `/`, `#` or `?` must be
 * percent-encoded; unencoded, node-postgres fails with a bare "Invalid URL" that names no
 * variable, or (for `#`) connects with a cut password. A Unix-socket URL has no host in the
 * authority (`postgresql://user@/db?host=/run/postgresql`): it is checked with a stand-in host.
 */
export function connectionUrlProblem(url: string): string | undefined {
  // Several servers (a primary and its standby) are libpq's syntax, which URL does not read:
  // the list and target_session_attrs are checked here, the rest on the first server's URL.
  let first_host_url: string;
  try {
    first_host_url = parseDatabaseUrl(url).first_host_url;
  } catch (error) {
    // An unencoded character of the password misleads the list's reading: say that first.
    return singleHostUrlProblem(url) ?? (error as Error).message;
  }
  return singleHostUrlProblem(first_host_url);
}

function singleHostUrlProblem(url: string): string | undefined {
  const probe = url.replace(/^(postgres(?:ql)?:\/\/(?:[^/?#]*@)?)(?=[/?]|$)/, "$1localhost");
  let parsed: URL;
  try {
    parsed = new URL(probe);
  } catch {
    return "is not a valid URL: percent-encode special characters in the user name and password (/ as %2F, # as %23, ? as %3F, @ as %40, % as %25)";
  }
  if (parsed.hash) return "has a # in it: percent-encode it as %23 (a # in a password cuts the URL there)";
  return undefined;
}

export type Env = z.infer<typeof EnvSchema> & { dataDirAbsolute: string };

export class ConfigurationError extends Error {}

export function parseEnv(source: Record<string, string | undefined>): Env {
  // An empty variable means "not set", as shells and .env files usually intend.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const result = EnvSchema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigurationError(`Invalid environment configuration:\n${lines.join("\n")}`);
  }
  const env = result.data;
  if (env.METRICS_PORT !== undefined && env.METRICS_PORT === env.PORT) {
    throw new ConfigurationError(
      "Invalid environment configuration:\n  METRICS_PORT: must differ from PORT (leave it unset to serve /metrics on the main port with METRICS_TOKEN)",
    );
  }
  refuseUnchosenEmbeddedDatabase(env);
  if (Boolean(env.VAPID_PUBLIC_KEY) !== Boolean(env.VAPID_PRIVATE_KEY)) {
    throw new ConfigurationError(
      "Invalid environment configuration:\n  VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY: set both (npx web-push generate-vapid-keys prints the pair) or neither",
    );
  }
  if (Boolean(env.SMS_ACCOUNT_SID) !== Boolean(env.SMS_AUTH_TOKEN)) {
    throw new ConfigurationError(
      "Invalid environment configuration:\n  SMS_ACCOUNT_SID, SMS_AUTH_TOKEN: set both (the SMS provider's account id and auth token) or neither",
    );
  }
  if (env.DATABASE_READ_URL && !env.DATABASE_URL) {
    throw new ConfigurationError(
      "Invalid environment configuration:\n  DATABASE_READ_URL: needs DATABASE_URL (a replica follows a PostgreSQL primary; the embedded database has none)",
    );
  }
  if (env.DATABASE_URL && env.NODE_ENV === "production") {
    for (const name of ["SESSION_SECRET", "DATA_ENCRYPTION_KEY"] as const) {
      if (!env[name])
        throw new ConfigurationError(
          `Invalid environment configuration:\n  ${name}: required with DATABASE_URL in production`,
        );
    }
  }
  return { ...env, dataDirAbsolute: path.resolve(env.DATA_DIR) };
}

/**
 * In production the embedded database is a choice the operator writes down
 * (MUTUAL_EMBEDDED_DATABASE=1), never what a missing DATABASE_URL falls back to: an environment
 * file sourced with `sh` loses a URL holding `&`, and the server then started on a new, empty
 * embedded database, `migrate` said "Migrations applied (pglite)" and `ledger:verify` "Ledger OK".
 */
function refuseUnchosenEmbeddedDatabase(env: z.infer<typeof EnvSchema>): void {
  if (env.NODE_ENV !== "production" || env.DATABASE_URL || env.MUTUAL_EMBEDDED_DATABASE === "1") return;
  throw new ConfigurationError(
    "Invalid environment configuration:\n" +
      "  DATABASE_URL: not set, and NODE_ENV=production: no database was opened or created. Is the environment file loaded " +
      "(run commands with scripts/with-env.mjs, docs/operations.md#configure)? To run on the embedded database in DATA_DIR " +
      "on purpose (one process, a small installation), set MUTUAL_EMBEDDED_DATABASE=1.",
  );
}

/** The secrets systemd may hand over as credentials instead of the environment file. */
export const CREDENTIAL_NAMES = [
  "SESSION_SECRET",
  "DATA_ENCRYPTION_KEY",
  "DATA_ENCRYPTION_KEY_PREVIOUS",
  "DATABASE_URL",
  "DATABASE_READ_URL",
  "SMTP_URL",
  "METRICS_TOKEN",
  "VAPID_PRIVATE_KEY",
  "SMS_AUTH_TOKEN",
] as const;

/**
 * systemd's LoadCredentialEncrypted= (or LoadCredential=) gives the service each secret as a file
 * of its own under $CREDENTIALS_DIRECTORY: decrypted at start (with the machine's TPM or host key)
 * into memory only this service can read, so the keys need not sit in a readable environment file
 * (docs/operations.md#keys). A variable set in the environment wins over its file; the file's
 * final newline is not part of the value. A file that cannot be read stops start-up, naming it.
 */
export function withCredentials(source: Record<string, string | undefined>): Record<string, string | undefined> {
  const folder = source.CREDENTIALS_DIRECTORY;
  if (!folder) return source;
  const merged = { ...source };
  for (const name of CREDENTIAL_NAMES) {
    if (merged[name]) continue;
    const file = path.join(folder, name);
    if (!fs.existsSync(file)) continue;
    try {
      merged[name] = fs.readFileSync(file, "utf8").replace(/\r?\n$/, "");
    } catch (error) {
      throw new ConfigurationError(
        `Invalid environment configuration:\n  ${name}: the credential ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`,
      );
    }
  }
  return merged;
}

let cached: Env | undefined;
export function env(): Env {
  cached ??= parseEnv(withCredentials(process.env));
  return cached;
}
