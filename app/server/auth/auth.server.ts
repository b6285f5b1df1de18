import { usesSecureCookies } from "../http/cookies.server";
import { betterAuth, type BetterAuthPlugin, type Session, type User } from "better-auth";
import { generateRandomString } from "better-auth/crypto";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { createAuthEndpoint } from "better-auth/api";
import { setSessionCookie } from "better-auth/cookies";
import { admin, twoFactor } from "better-auth/plugins";
import { createAccessControl } from "better-auth/plugins/access";
import { adminAc, defaultStatements, userAc } from "better-auth/plugins/admin/access";
import { hash as argon2Hash, verify as argon2Verify, type Algorithm } from "@node-rs/argon2";
import { z } from "zod";
import { env } from "~/config/env.server";
import { institution } from "~/config/institution.server";
import { secrets } from "~/server/config/secrets.server";
import { appDatabase } from "~/server/db/db.server";
import type { Db } from "~/server/db/client.server";
import { authAccounts, authRateLimits, sessions, twoFactors, users, verifications } from "~/server/db/schema";
import { sendEmail } from "~/server/mail/outbox.server";
import { passwordChangedEmail, passwordResetEmail } from "~/server/mail/templates.server";
import { logger } from "~/server/logger.server";
import { PASSWORD_MAX_CHARS, PASSWORD_MIN_CHARS } from "~/domain/password";
import { unlockSignIn } from "./lockout.server";

/**
 * Better Auth, configured for a bank (docs/product.md#sign-in, docs/architecture.md#identity).
 *
 * - Email + password, hashed with argon2id (@node-rs/argon2; OWASP's parameters: 19 MiB, 2
 *   passes, 1 lane). Sessions live in the database; the cookie carries only the signed random
 *   session token.
 * - Two-factor plugin: the authenticator app (TOTP; its secret encrypted) and the flag that every
 *   user has a second factor. The second step of a sign-in itself (the emailed code, 10 minutes,
 *   stored as a keyed hash and sent through the outbox; the app's code; a staff-issued code) is
 *   ours, in one row per challenge (sign-in.server.ts, decision 0025): Better Auth's version of it
 *   cost 14 database statements a sign-in and made a session before the second factor.
 * - Admin plugin: roles user, pending and admin (new accounts start as pending applicants).
 * - Our plugin `mutual-sign-in`: a server-only endpoint that makes the session at the end of a
 *   sign-in (the row and its signed cookie).
 *
 * Better Auth's HTTP handler is deliberately not mounted: every call comes from our own loaders
 * and actions through `auth.api.*`, behind the request guards (CSRF, body limits) of server.ts,
 * our per-IP rate limits and the password lockout. Its own rate limiter (storage "database") only
 * guards that handler, so it stays configured but idle.
 */

export const EMAIL_CODE_VALID_MINUTES = 10;
export const RESET_LINK_VALID_MINUTES = 30;
/**
 * 12 hours absolute (docs/product.md#sessions); the 15-minute idle limit is enforced in
 * session.server.ts.
 */
export const SESSION_ABSOLUTE_MS = 12 * 60 * 60 * 1000;
export const SESSION_IDLE_MS = 15 * 60 * 1000;
/** How long step 2 of a sign-in stays open (the email code's lifetime). */
export const CHALLENGE_VALID_SECONDS = EMAIL_CODE_VALID_MINUTES * 60;
export const COOKIE_PREFIX = "mutual";
/** The header through which we hand Better Auth the client address Express determined. */
export const CLIENT_IP_HEADER = "x-mutual-client-ip";

/** argon2id, OWASP Password Storage Cheat Sheet: m=19 MiB, t=2, p=1. */
export const ARGON2_OPTIONS = { algorithm: 2 as Algorithm, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return argon2Hash(password, ARGON2_OPTIONS);
}

export async function verifyPassword({ hash, password }: { hash: string; password: string }): Promise<boolean> {
  try {
    return await argon2Verify(hash, password);
  } catch {
    // A hash we cannot parse never verifies.
    return false;
  }
}

export function publicBaseUrl(): string {
  const e = env();
  return (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
}

const accessControl = createAccessControl(defaultStatements);
const roles = {
  admin: accessControl.newRole(adminAc.statements),
  user: accessControl.newRole(userAc.statements),
  pending: accessControl.newRole(userAc.statements),
  // Staff without money powers: in Better Auth's terms an ordinary user (no user administration).
  reviewer: accessControl.newRole(userAc.statements),
  // The institution's books only (docs/product.md#books): no user administration either.
  accountant: accessControl.newRole(userAc.statements),
};

/** Better Auth's models -> our Drizzle tables (property names are Better Auth's field names). */
const authModels = {
  user: users,
  session: sessions,
  account: authAccounts,
  verification: verifications,
  twoFactor: twoFactors,
  rateLimit: authRateLimits,
};

/**
 * Our server-only endpoint (not reachable over HTTP): the session at the end of a sign-in.
 *
 * The two-step sign-in keeps its own state (sign-in.server.ts, decision 0025) and asks Better Auth
 * only for the session: its row, its random token and its signed cookie, with Better Auth's own
 * cookie helper. A passkey sign-in ends here too.
 */
function mutualSignInPlugin() {
  return {
    id: "mutual-sign-in",
    endpoints: {
      /**
       * The caller read the person in the same statement as the rest of its sign-in and says
       * whether a ban is recorded. Without one, the row is written through Better Auth's adapter
       * as its `createSession` writes it, without that method's one hook here (the admin plugin's
       * ban check, which would read the person again). With one, live or lapsed, it goes through
       * `createSession`, whose hook refuses a live ban and lifts a lapsed one exactly as before.
       */
      createSignInSession: createAuthEndpoint.serverOnly(
        {
          method: "POST",
          body: z.object({
            user_id: z.string(),
            email: z.string(),
            ban_recorded: z.boolean(),
            /** A browser session: a cookie without Max-Age and a row that ends within a day. */
            dont_remember: z.boolean().optional(),
          }),
        },
        async (ctx) => {
          const { user_id, email, ban_recorded, dont_remember } = ctx.body;
          const session = ban_recorded
            ? await ctx.context.internalAdapter.createSession(user_id, dont_remember ?? false)
            : await ctx.context.adapter.create<Session>({
                model: "session",
                data: {
                  ipAddress: ctx.headers?.get(CLIENT_IP_HEADER) ?? "",
                  userAgent: ctx.headers?.get("user-agent") ?? "",
                  expiresAt: new Date(Date.now() + (dont_remember ? 24 * 60 * 60 : SESSION_ABSOLUTE_MS / 1000) * 1000),
                  userId: user_id,
                  token: generateRandomString(32, "a-z", "A-Z", "0-9"),
                  createdAt: new Date(),
                  updatedAt: new Date(),
                },
              });
          // With the cookie cache off, Better Auth's cookie helper uses only the session's token; the
          // person is passed for its type.
          await setSessionCookie(ctx, { session, user: { id: user_id, email } as User }, dont_remember);
          return ctx.json({ session_id: session.id, token: session.token });
        },
      ),
    },
  } satisfies BetterAuthPlugin;
}

export function createAuth(db: Db) {
  const profile = institution();
  const secure = usesSecureCookies();
  return betterAuth({
    appName: profile.name,
    baseURL: publicBaseUrl(),
    secret: secrets().session_secret,
    telemetry: { enabled: false },
    logger: {
      level: "error",
      log: (level, message, ...args) =>
        logger[level === "debug" ? "debug" : level]({ args }, `better-auth: ${message}`),
    },
    database: drizzleAdapter(db, { provider: "pg", schema: authModels }),
    emailAndPassword: {
      enabled: true,
      minPasswordLength: PASSWORD_MIN_CHARS,
      maxPasswordLength: PASSWORD_MAX_CHARS,
      autoSignIn: true,
      requireEmailVerification: false,
      password: { hash: hashPassword, verify: verifyPassword },
      resetPasswordTokenExpiresIn: RESET_LINK_VALID_MINUTES * 60,
      revokeSessionsOnPasswordReset: true,
      onPasswordReset: async ({ user }) => {
        // The reset proved control of the mailbox: the password lock ends, and the member is told.
        await unlockSignIn(db, user.email);
        await sendEmail(db, { ...passwordChangedEmail(), to: user.email, user_id: user.id });
      },
      sendResetPassword: async ({ user, token }) => {
        const url = `${publicBaseUrl()}/reset-password?token=${encodeURIComponent(token)}`;
        await sendEmail(db, { ...passwordResetEmail(url, RESET_LINK_VALID_MINUTES), to: user.email, user_id: user.id });
      },
    },
    session: {
      expiresIn: SESSION_ABSOLUTE_MS / 1000,
      disableSessionRefresh: true,
      cookieCache: { enabled: false },
    },
    verification: { storeIdentifier: "hashed" },
    rateLimit: { enabled: true, storage: "database", window: 60, max: 30 },
    advanced: {
      cookiePrefix: COOKIE_PREFIX,
      useSecureCookies: secure,
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax", path: "/", secure },
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
    },
    databaseHooks: {
      user: {
        create: {
          // The email code is every member's second factor (docs/product.md#second-factors): Better
          // Auth asks for a second factor only when this flag is on.
          before: async (user) => ({ data: { ...user, twoFactorEnabled: true } }),
        },
      },
    },
    plugins: [
      twoFactor({
        issuer: profile.name,
        twoFactorCookieMaxAge: CHALLENGE_VALID_SECONDS,
        totpOptions: { digits: 6, period: 30 },
        accountLockout: { enabled: true, maxFailedAttempts: 10, durationSeconds: 15 * 60 },
      }),
      admin({ ac: accessControl, roles, defaultRole: "pending", adminRoles: ["admin"] }),
      mutualSignInPlugin(),
    ],
  });
}

export type Auth = ReturnType<typeof createAuth>;

const cache = new WeakMap<Db, Auth>();

/** The Better Auth instance bound to a database (one per database, built on first use). */
export function authFor(db: Db): Auth {
  let auth = cache.get(db);
  if (!auth) {
    auth = createAuth(db);
    cache.set(db, auth);
  }
  return auth;
}

/** The process's Better Auth instance, on the app database. */
export async function getAuth(): Promise<{ auth: Auth; db: Db }> {
  const { db } = await appDatabase();
  return { auth: authFor(db), db };
}
