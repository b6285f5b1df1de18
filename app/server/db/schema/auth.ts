import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  check,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from "drizzle-orm/pg-core";

/**
 * Identity (docs/product.md#people-and-roles, docs/product.md#sign-in). The first six tables are
 * Better Auth's (core, two-factor plugin, admin plugin, rate limits in the database), generated
 * from its schema description with our table and column names (snake_case columns; `auth_` where
 * "account" would be confused with a bank account). The property names are Better Auth's field
 * names: its Drizzle adapter addresses columns by them, and it checks at start-up that every field
 * it writes exists.
 *
 * The tables after them are ours: staff-issued sign-in codes, password lockouts, and the
 * bookkeeping of a sign-in attempt's second step.
 */

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const USER_ROLES = ["user", "pending", "admin", "reviewer", "accountant"] as const;
export type UserRole = (typeof USER_ROLES)[number];

export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    /** Lower-cased by Better Auth before it is stored. */
    email: text("email").notNull().unique("users_email_unique"),
    emailVerified: boolean("email_verified").default(false).notNull(),
    image: text("image"),
    createdAt: timestamptz("created_at").defaultNow().notNull(),
    updatedAt: timestamptz("updated_at").defaultNow().notNull(),
    /**
     * Always true here: the email code is every member's default second factor
     * (docs/product.md#second-factors).
     */
    twoFactorEnabled: boolean("two_factor_enabled").default(false),
    /**
     * user (member), pending (applicant), admin (staff), reviewer (staff without money powers) or
     * accountant (the institution's books only, no member powers); null counts as user
     * (docs/product.md#people-and-roles).
     */
    role: text("role"),
    banned: boolean("banned").default(false),
    banReason: text("ban_reason"),
    banExpires: timestamptz("ban_expires"),
  },
  (t) => [
    check(
      "users_role_valid",
      sql`${t.role} is null or ${t.role} in ('user', 'pending', 'admin', 'reviewer', 'accountant')`,
    ),
  ],
);

export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    expiresAt: timestamptz("expires_at").notNull(),
    /** The random id the cookie carries (signed). */
    token: text("token").notNull().unique("sessions_token_unique"),
    createdAt: timestamptz("created_at").defaultNow().notNull(),
    updatedAt: timestamptz("updated_at").defaultNow().notNull(),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    impersonatedBy: text("impersonated_by"),
    /** Ours, not Better Auth's: the last request of this session, for the 15-minute idle limit. */
    lastActiveAt: timestamptz("last_active_at").defaultNow().notNull(),
  },
  (t) => [index("sessions_user_id_idx").on(t.userId)],
);

/** Better Auth's "account" model: how a user signs in (here: the credential with its password hash). */
export const authAccounts = pgTable(
  "auth_accounts",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    providerId: text("provider_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    accessToken: text("access_token"),
    refreshToken: text("refresh_token"),
    idToken: text("id_token"),
    accessTokenExpiresAt: timestamptz("access_token_expires_at"),
    refreshTokenExpiresAt: timestamptz("refresh_token_expires_at"),
    scope: text("scope"),
    /** argon2id PHC string. */
    password: text("password"),
    createdAt: timestamptz("created_at").defaultNow().notNull(),
    updatedAt: timestamptz("updated_at").defaultNow().notNull(),
  },
  (t) => [index("auth_accounts_user_id_idx").on(t.userId)],
);

/**
 * Better Auth's short-lived values: sign-in challenges, email codes (as keyed hashes), password
 * reset tokens. Identifiers are stored hashed (`verification.storeIdentifier: "hashed"`).
 */
export const verifications = pgTable(
  "verifications",
  {
    id: text("id").primaryKey(),
    identifier: text("identifier").notNull(),
    value: text("value").notNull(),
    expiresAt: timestamptz("expires_at").notNull(),
    createdAt: timestamptz("created_at").defaultNow().notNull(),
    updatedAt: timestamptz("updated_at").defaultNow().notNull(),
  },
  (t) => [
    index("verifications_identifier_idx").on(t.identifier),
    index("verifications_expires_at_idx").on(t.expiresAt),
  ],
);

/** An authenticator app (TOTP) per user; the secret is encrypted by Better Auth. */
export const twoFactors = pgTable(
  "two_factors",
  {
    id: text("id").primaryKey(),
    secret: text("secret").notNull(),
    backupCodes: text("backup_codes").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    verified: boolean("verified").default(true),
    failedVerificationCount: integer("failed_verification_count").default(0),
    lockedUntil: timestamptz("locked_until"),
  },
  (t) => [index("two_factors_user_id_idx").on(t.userId)],
);

/** Better Auth's own rate-limit counters (storage "database"). */
export const authRateLimits = pgTable("auth_rate_limits", {
  id: text("id").primaryKey(),
  key: text("key").notNull().unique("auth_rate_limits_key_unique"),
  count: integer("count").notNull(),
  lastRequest: bigint("last_request", { mode: "number" }).notNull(),
});

/**
 * Sign-in codes issued by staff for a member who cannot receive an email code or use an app
 * (docs/product.md#second-factors): bound to one member, single use, 24 hours, stored only as a
 * keyed hash.
 */
export const staffSignInCodes = pgTable(
  "staff_sign_in_codes",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    user_id: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    code_hash: text("code_hash").notNull(),
    issued_by: text("issued_by").references(() => users.id),
    created_at: timestamptz("created_at").defaultNow().notNull(),
    expires_at: timestamptz("expires_at").notNull(),
    used_at: timestamptz("used_at"),
    /** Staff removed the code before it was used. */
    removed_at: timestamptz("removed_at"),
  },
  (t) => [index("staff_sign_in_codes_user_id_idx").on(t.user_id, t.created_at)],
);

/**
 * Wrong passwords per email address (whether or not an account has it, so the lock says nothing
 * about which addresses exist): 5 within 15 minutes lock sign-in for 15 minutes
 * (docs/product.md#sign-in-protection). The same counts and lock serve a member's step-up codes for
 * money actions (app/server/auth/lockout.server.ts), in a row keyed `payment-step-up:<member id>`.
 */
export const signInLockouts = pgTable("sign_in_lockouts", {
  /** The normalised address, or `payment-step-up:<member id>` (no @: never an address). */
  email: text("email").primaryKey(),
  /** Times of the recent wrong passwords, the last 15 minutes only (at most 5). */
  failure_times: timestamptz("failure_times")
    .array()
    .notNull()
    .default(sql`'{}'::timestamptz[]`),
  /**
   * Times of the recent sign-in codes tried for this account, across challenges, the last 15
   * minutes only: a right password does not clear them (whoever guesses codes knows it).
   */
  code_attempt_times: timestamptz("code_attempt_times")
    .array()
    .notNull()
    .default(sql`'{}'::timestamptz[]`),
  locked_until: timestamptz("locked_until"),
  updated_at: timestamptz("updated_at").defaultNow().notNull(),
});

/**
 * The second step of one sign-in attempt, the whole of its state (decision 0025): whose it is,
 * which factor it asks for, the emailed code (a keyed hash; null for an authenticator app), how
 * many wrong codes it has had (5 end it) and whether it ended. It lives 10 minutes from
 * `created_at`. `id` is a keyed hash of the random id in the browser's signed two_factor cookie,
 * so a challenge is never confused with another and the table holds nothing a browser can replay.
 */
export const signInChallenges = pgTable(
  "sign_in_challenges",
  {
    id: text("id").primaryKey(),
    user_id: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    method: text("method", { enum: ["email", "totp"] }).notNull(),
    failures: integer("failures").notNull().default(0),
    /** The emailed code's keyed hash (`hashCode("email-sign-in", user_id, code)`); null for an authenticator app. */
    code_hash: text("code_hash"),
    created_at: timestamptz("created_at").defaultNow().notNull(),
    ended_at: timestamptz("ended_at"),
  },
  (t) => [
    index("sign_in_challenges_created_at_idx").on(t.created_at),
    check("sign_in_challenges_failures_range", sql`${t.failures} >= 0`),
  ],
);

/** Authenticator-app codes already used, so a code works once even inside its 30-second window. */
export const usedTotpCodes = pgTable(
  "used_totp_codes",
  {
    user_id: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    code_hash: text("code_hash").notNull(),
    used_at: timestamptz("used_at").defaultNow().notNull(),
  },
  (t) => [primaryKey({ columns: [t.user_id, t.code_hash] })],
);

/**
 * Passkeys (WebAuthn credentials, docs/product.md#passkeys): one row per credential a person
 * registered in Account Settings. Only the public key is kept; the private key never leaves the
 * person's device. `counter` is the authenticator's signature counter (a clone or a replayed
 * assertion shows a counter that did not move). Removing one sets `removed_at`: the row stays for
 * the audit trail, and a removed credential never signs in or confirms again.
 */
export const passkeys = pgTable(
  "passkeys",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    user_id: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The name the person gave it ("Work laptop"). */
    name: text("name").notNull(),
    /** The credential id, base64url, as the browser reports it. */
    credential_id: text("credential_id").notNull().unique("passkeys_credential_id_unique"),
    /** The COSE public key, base64url. */
    public_key: text("public_key").notNull(),
    counter: bigint("counter", { mode: "number" }).notNull().default(0),
    /** How the browser can reach the authenticator (internal, hybrid, usb...), a hint for later requests. */
    transports: text("transports")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** multiDevice: a synced passkey; singleDevice: bound to one authenticator. */
    device_type: text("device_type", { enum: ["singleDevice", "multiDevice"] }).notNull(),
    backed_up: boolean("backed_up").notNull().default(false),
    created_at: timestamptz("created_at").defaultNow().notNull(),
    last_used_at: timestamptz("last_used_at"),
    removed_at: timestamptz("removed_at"),
  },
  (t) => [index("passkeys_user_id_idx").on(t.user_id), check("passkeys_counter_range", sql`${t.counter} >= 0`)],
);

/**
 * WebAuthn challenges the server issued, so each is answered once and only for what it was issued
 * for: adding a passkey (one person), signing in (anyone: the credential names the person),
 * confirming a money action (one member and one transfer: `bound_hash`, the keyed hash of the
 * transfer the emailed code would confirm), or removing a passkey. Stored as a keyed hash; 5
 * minutes; `used_at` set by the conditional update that accepts it.
 */
export const passkeyChallenges = pgTable(
  "passkey_challenges",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    challenge_hash: text("challenge_hash").notNull().unique("passkey_challenges_challenge_hash_unique"),
    purpose: text("purpose", { enum: ["register", "sign_in", "step_up", "remove"] }).notNull(),
    user_id: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    bound_hash: text("bound_hash"),
    created_at: timestamptz("created_at").defaultNow().notNull(),
    expires_at: timestamptz("expires_at").notNull(),
    used_at: timestamptz("used_at"),
  },
  (t) => [index("passkey_challenges_expires_at_idx").on(t.expires_at)],
);

/**
 * Devices a person has signed in from (docs/product.md#sign-in-protection): a long-lived signed
 * cookie names the device; a sign-in from a device not in this list sends the login alert. The
 * cookie's value is stored only as a keyed hash.
 */
export const knownDevices = pgTable(
  "known_devices",
  {
    user_id: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    device_hash: text("device_hash").notNull(),
    first_seen_at: timestamptz("first_seen_at").defaultNow().notNull(),
    last_seen_at: timestamptz("last_seen_at").defaultNow().notNull(),
  },
  (t) => [primaryKey({ columns: [t.user_id, t.device_hash] })],
);
