import { usesSecureCookies } from "../http/cookies.server";
import { betterAuth, type BetterAuthPlugin } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { APIError, createAuthEndpoint } from "better-auth/api";
import { expireCookie, setSessionCookie } from "better-auth/cookies";
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
import { passwordChangedEmail, passwordResetEmail, signInCodeEmail } from "~/server/mail/templates.server";
import { logger } from "~/server/logger.server";
import { keyedHash } from "~/server/security/crypto.server";
import { PASSWORD_MAX_CHARS, PASSWORD_MIN_CHARS } from "~/domain/password";
import { unlockSignIn } from "./lockout.server";
import { consumeStaffCode } from "./staff-codes.server";

/**
 * Better Auth, configured for a bank (docs/product.md#sign-in, docs/architecture.md#identity).
 *
 * - Email + password, hashed with argon2id (@node-rs/argon2; OWASP's parameters: 19 MiB, 2
 *   passes, 1 lane). Sessions live in the database; the cookie carries only the signed random
 *   session token.
 * - Two-factor plugin: every user has it on, with the email code (10 minutes, stored as a keyed
 *   hash, sent through the outbox) as the default and an authenticator app (TOTP) replacing it
 *   once enrolled.
 * - Admin plugin: roles user, pending and admin (new accounts start as pending applicants).
 * - Our plugin `mutual-sign-in`: server-only endpoints to read and end a sign-in challenge and to
 *   finish it with a staff-issued code.
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
 * The state of step 2 of a sign-in, read from Better Auth's signed two_factor cookie and its
 * verification row. Server-only endpoints: they cannot be reached over HTTP.
 */
function mutualSignInPlugin(db: Db) {
  const TWO_FACTOR_COOKIE = "two_factor";

  async function readChallenge(ctx: {
    context: {
      createAuthCookie: (name: string) => { name: string };
      secret: string;
      internalAdapter: { findVerificationValue: (id: string) => Promise<{ value: string; expiresAt: Date } | null> };
    };
    getSignedCookie: (name: string, secret: string) => Promise<string | null | false>;
  }) {
    const cookie = ctx.context.createAuthCookie(TWO_FACTOR_COOKIE);
    const identifier = await ctx.getSignedCookie(cookie.name, ctx.context.secret);
    if (!identifier) return null;
    const row = await ctx.context.internalAdapter.findVerificationValue(identifier);
    if (!row || row.expiresAt.getTime() <= Date.now()) return null;
    return { challenge_id: identifier, user_id: row.value, expires_at: row.expiresAt };
  }

  return {
    id: "mutual-sign-in",
    endpoints: {
      getSignInChallenge: createAuthEndpoint.serverOnly({ method: "POST" }, async (ctx) => {
        return ctx.json({ challenge: await readChallenge(ctx) });
      }),
      endSignInChallenge: createAuthEndpoint.serverOnly({ method: "POST" }, async (ctx) => {
        const challenge = await readChallenge(ctx);
        if (challenge) await ctx.context.internalAdapter.consumeVerificationValue(challenge.challenge_id);
        expireCookie(ctx, ctx.context.createAuthCookie(TWO_FACTOR_COOKIE));
        return ctx.json({ ended: Boolean(challenge) });
      }),
      /**
       * Signs a person in after a passkey proved both factors (sign-in-passkey.server.ts checked the
       * assertion, the lock and the limits): the same kind of session a finished two-step sign-in
       * gets, from Better Auth's own adapter, with its cookie.
       */
      createPasskeySession: createAuthEndpoint.serverOnly(
        { method: "POST", body: z.object({ user_id: z.string() }) },
        async (ctx) => {
          const user = await ctx.context.internalAdapter.findUserById(ctx.body.user_id);
          if (!user) throw APIError.from("UNAUTHORIZED", { code: "USER_NOT_FOUND", message: "User not found" });
          const session = await ctx.context.internalAdapter.createSession(user.id, false);
          await setSessionCookie(ctx, { session, user });
          return ctx.json({ token: session.token, user: { id: user.id } });
        },
      ),
      /**
       * Finishes a sign-in with a staff-issued code (docs/product.md#second-factors): one member,
       * single use, 24 h.
       */
      verifyStaffSignInCode: createAuthEndpoint.serverOnly(
        { method: "POST", body: z.object({ code: z.string() }) },
        async (ctx) => {
          const challenge = await readChallenge(ctx);
          if (!challenge)
            throw APIError.from("UNAUTHORIZED", {
              code: "INVALID_TWO_FACTOR_COOKIE",
              message: "Invalid two factor cookie",
            });
          const used = await consumeStaffCode(db, { user_id: challenge.user_id, code: ctx.body.code });
          if (!used) throw APIError.from("UNAUTHORIZED", { code: "INVALID_CODE", message: "Invalid code" });
          const consumed = await ctx.context.internalAdapter.consumeVerificationValue(challenge.challenge_id);
          if (!consumed || consumed.value !== challenge.user_id) {
            throw APIError.from("UNAUTHORIZED", {
              code: "INVALID_TWO_FACTOR_COOKIE",
              message: "Invalid two factor cookie",
            });
          }
          const user = await ctx.context.internalAdapter.findUserById(challenge.user_id);
          if (!user)
            throw APIError.from("UNAUTHORIZED", {
              code: "INVALID_TWO_FACTOR_COOKIE",
              message: "Invalid two factor cookie",
            });
          const dontRemember = await ctx.getSignedCookie(
            ctx.context.authCookies.dontRememberToken.name,
            ctx.context.secret,
          );
          const session = await ctx.context.internalAdapter.createSession(user.id, Boolean(dontRemember));
          await setSessionCookie(ctx, { session, user });
          expireCookie(ctx, ctx.context.createAuthCookie(TWO_FACTOR_COOKIE));
          return ctx.json({ token: session.token, user: { id: user.id } });
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
        otpOptions: {
          period: EMAIL_CODE_VALID_MINUTES,
          digits: 6,
          allowedAttempts: 5,
          storeOTP: { hash: async (otp: string) => keyedHash("code:email-sign-in", otp) },
          sendOTP: async ({ user, otp }) => {
            await sendEmail(db, {
              ...signInCodeEmail(otp, EMAIL_CODE_VALID_MINUTES),
              to: user.email,
              user_id: user.id,
            });
          },
        },
        totpOptions: { digits: 6, period: 30 },
        accountLockout: { enabled: true, maxFailedAttempts: 10, durationSeconds: 15 * 60 },
      }),
      admin({ ac: accessControl, roles, defaultRole: "pending", adminRoles: ["admin"] }),
      mutualSignInPlugin(db),
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
