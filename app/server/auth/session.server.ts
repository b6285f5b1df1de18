import { data, redirect } from "react-router";
import { eq, sql } from "drizzle-orm";
import { loginPathFor, safeRedirectTo } from "~/domain/redirect-to";
import type { Db } from "~/server/db/client.server";
import { sessions, users } from "~/server/db/schema";
import { applicationStatus } from "~/server/members/members.server";
import { logger } from "~/server/logger.server";
import { pageUrl } from "~/server/http/page-url.server";
import { authFor, getAuth, SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from "./auth.server";
import { usesSecureCookies } from "../http/cookies.server";
import { effectiveRole, type EffectiveRole } from "./roles.server";
import { worksInBackOffice } from "~/domain/staff-roles";
import { mustChangePassword } from "./password-change.server";
import { verifiedCookieValue } from "./signed-cookie.server";
import { countPasskeys } from "./passkeys.server";
import { institution } from "~/config/institution.server";

/**
 * Sessions and access for loaders and actions (docs/product.md#access-rules,
 * docs/product.md#sessions).
 *
 * Better Auth keeps the session in the database and verifies the signed cookie. On top of it:
 * - 15 minutes idle: every authenticated request moves `last_active_at` (at most every 15 s);
 *   a session idle longer is deleted when next seen. The page shows a warning a minute before
 *   (components/session/session-timeout.tsx) with "Stay signed in", which posts to /session.
 * - 12 hours absolute: counted from the session's creation, whatever the activity.
 */
const TOUCH_EVERY_MS = 15 * 1000;
const SESSION_COOKIE_FRAGMENT = "session_token=";

export type ApplicationState = "pending" | "approved" | "rejected" | null;

export interface SessionUser {
  id: string;
  email: string;
  name: string;
  role: EffectiveRole;
  /** For applicants (role pending): where their application stands. */
  application_status: ApplicationState;
  session_id: string;
  /** Milliseconds until this session ends unless there is activity (idle) or in any case (absolute). */
  expires_in_ms: number;
  /** True when the 12-hour limit, not inactivity, is what ends the session next. */
  ends_absolutely: boolean;
}

type SessionState =
  { state: "none" } | { state: "expired"; reason: "idle" | "absolute" } | { state: "active"; user: SessionUser };

/**
 * One read per page request: a page's loaders (layout and page) run on the same Request and
 * would each read the session (3 queries). Only reads (GET/HEAD) are shared: after an action,
 * React Router runs the loaders on a new Request, so a write never sees a stale session.
 */
const readsByRequest = new WeakMap<Request, Map<boolean, Promise<SessionState>>>();

function readSession(request: Request, options: { touch: boolean; now?: Date }): Promise<SessionState> {
  if (options.now || !isReadRequest(request)) return readSessionNow(request, options);
  let reads = readsByRequest.get(request);
  if (!reads) readsByRequest.set(request, (reads = new Map()));
  let read = reads.get(options.touch);
  if (!read) reads.set(options.touch, (read = readSessionNow(request, options)));
  return read;
}

/**
 * The session behind the request's cookie, read directly: the cookie's signature is checked here
 * (HMAC-SHA256 with the auth secret, exactly as Better Auth signs it) and the session and its
 * user come from one indexed join. Better Auth still creates, signs and ends sessions; its own
 * getSession did the same read with two queries, two asynchronous WebCrypto verifications and
 * its endpoint machinery, which with our idle/absolute check made every signed-in page pay about
 * 6 ms (bench/README.md, "Member app"). Our session settings make that read a pure lookup: no
 * cookie cache, no refresh (`disableSessionRefresh`), and a lifetime equal to the absolute limit.
 */
async function readSessionNow(request: Request, options: { touch: boolean; now?: Date }): Promise<SessionState> {
  const cookie = request.headers.get("cookie") ?? "";
  if (!cookie.includes(SESSION_COOKIE_FRAGMENT)) return { state: "none" };
  const { db } = await getAuth();
  return sessionFromCookie(db, cookie, options);
}

async function sessionFromCookie(
  db: Db,
  cookie: string,
  options: { touch: boolean; now?: Date },
): Promise<SessionState> {
  const { cookie_name, secret } = await sessionCookieKeys(authFor(db));
  const token = verifiedCookieValue(cookie, cookie_name, secret);
  if (!token) return { state: "none" };
  const [found] = await sessionByToken(db).execute({ token });
  if (!found) return { state: "none" };
  return checkSession(db, found, options);
}

/**
 * The session and its user by token, built once per database and prepared under a name: every
 * signed-in request runs it, and building it with the query builder each time, then having
 * PostgreSQL parse and plan it again, was about a tenth of the app's CPU for a member's transfer
 * (bench/LOG.md, "Member transfers over HTTP").
 */
const sessionQueries = new WeakMap<Db, ReturnType<typeof prepareSessionByToken>>();

function sessionByToken(db: Db) {
  let query = sessionQueries.get(db);
  if (!query) sessionQueries.set(db, (query = prepareSessionByToken(db)));
  return query;
}

function prepareSessionByToken(db: Db) {
  return db
    .select({
      session_id: sessions.id,
      expires_at: sessions.expiresAt,
      created_at: sessions.createdAt,
      last_active_at: sessions.lastActiveAt,
      user_id: users.id,
      email: users.email,
      name: users.name,
      role: users.role,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.token, sql.placeholder("token")))
    .prepare("mutual_session_by_token");
}

type FoundSession = {
  session_id: string;
  expires_at: Date;
  created_at: Date;
  last_active_at: Date;
  user_id: string;
  email: string;
  name: string;
  role: string | null;
};

const cookieKeys = new WeakMap<object, Promise<{ cookie_name: string; secret: string }>>();

/** The session cookie's name (with the `__Secure-` prefix when cookies are secure) and the signing secret, from Better Auth's own context. */
function sessionCookieKeys(auth: ReturnType<typeof authFor>): Promise<{ cookie_name: string; secret: string }> {
  let keys = cookieKeys.get(auth);
  if (!keys) {
    keys = auth.$context.then((context) => ({
      cookie_name: context.authCookies.sessionToken.name,
      secret: context.secret,
    }));
    cookieKeys.set(auth, keys);
  }
  return keys;
}

async function checkSession(
  db: Db,
  found: FoundSession,
  options: { touch: boolean; now?: Date },
): Promise<SessionState> {
  const now = (options.now ?? new Date()).getTime();
  const absolute_end = Math.min(found.created_at.getTime() + SESSION_ABSOLUTE_MS, found.expires_at.getTime());
  const idle_end = found.last_active_at.getTime() + SESSION_IDLE_MS;
  if (now >= absolute_end || now >= idle_end) {
    await db.delete(sessions).where(eq(sessions.id, found.session_id));
    return { state: "expired", reason: now >= absolute_end ? "absolute" : "idle" };
  }
  let last_active = found.last_active_at.getTime();
  if (options.touch && now - last_active >= TOUCH_EVERY_MS) {
    await db
      .update(sessions)
      .set({ lastActiveAt: new Date(now) })
      .where(eq(sessions.id, found.session_id));
    last_active = now;
  }
  const role = effectiveRole(found.role);
  const next_idle_end = last_active + SESSION_IDLE_MS;
  return {
    state: "active",
    user: {
      id: found.user_id,
      email: found.email,
      name: found.name,
      role,
      application_status: role === "pending" ? await applicationStatus(db, found.user_id) : null,
      session_id: found.session_id,
      expires_in_ms: Math.min(next_idle_end, absolute_end) - now,
      ends_absolutely: absolute_end <= next_idle_end,
    },
  };
}

/**
 * The signed-in person, or null. Counts as activity unless `touch: false` (the idle warning's
 * status check must not keep a session alive by itself).
 */
export async function getSessionUser(request: Request, options: { touch?: boolean } = {}): Promise<SessionUser | null> {
  const result = await readSession(request, { touch: options.touch ?? true });
  return result.state === "active" ? result.user : null;
}

/** Where a person belongs when they ask for a page that is not theirs. */
export function homePathFor(user: Pick<SessionUser, "role" | "application_status">): string {
  if (user.role === "admin" || user.role === "reviewer") return "/admin";
  if (user.role === "accountant") return "/admin/books";
  if (user.role === "pending") return user.application_status === "rejected" ? "/not-approved" : "/pending-approval";
  return "/dashboard";
}

/**
 * Where to go right after signing in: staff to /admin, members to /dashboard or the page they
 * were going to (when it is a safe path of their own area), applicants to their status page.
 */
export function destinationAfterSignIn(
  user: Pick<SessionUser, "role" | "application_status">,
  redirect_to: unknown,
): string {
  const home = homePathFor(user);
  const target = safeRedirectTo(redirect_to);
  if (!target) return home;
  const isAdminPath = target === "/admin" || target.startsWith("/admin/") || target.startsWith("/admin?");
  if (user.role === "admin" || user.role === "reviewer") return isAdminPath ? target : home;
  if (user.role === "accountant")
    return target === "/admin/books" || target.startsWith("/admin/books/") ? target : home;
  if (user.role === "user") return isAdminPath ? home : target;
  return home;
}

function isReadRequest(request: Request): boolean {
  const method = request.method.toUpperCase();
  return method === "GET" || method === "HEAD";
}

/** The header that removes the session cookie from the browser. */
export async function clearSessionCookieHeader(): Promise<string> {
  const { auth } = await getAuth();
  const name = (await auth.$context).authCookies.sessionToken.name;
  return `${name}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax${usesSecureCookies() ? "; Secure" : ""}`;
}

/**
 * The signed-in person with one of `roles`, for the top of a loader or action.
 * - Signed out: pages redirect to /login?redirectTo=<this page>; actions answer 401.
 * - Signed in with another role: pages redirect to that person's home (an applicant to
 *   /pending-approval, a member asking for /admin to /dashboard); actions answer 403.
 * - Signed in with a temporary password set by staff (docs/product.md#passwords): pages and actions
 *   redirect to /change-password until it is replaced (`allowTemporaryPassword` for that page and
 *   /session).
 */
export async function requireUser(
  request: Request,
  options: { roles: readonly EffectiveRole[]; allowTemporaryPassword?: boolean; allowWithoutPasskey?: boolean },
): Promise<SessionUser> {
  const result = await readSession(request, { touch: true });
  const read = isReadRequest(request);
  if (result.state !== "active") {
    const headers = new Headers();
    if (result.state === "expired") headers.append("Set-Cookie", await clearSessionCookieHeader());
    if (!read) throw data({ form_error: "Your session has ended. Please sign in again." }, { status: 401, headers });
    const url = pageUrl(request);
    throw redirect(
      loginPathFor(`${url.pathname}${url.search}`, result.state === "expired" ? { reason: result.reason } : {}),
      { headers },
    );
  }
  const user = result.user;
  if (
    user.role !== "pending" &&
    !options.allowTemporaryPassword &&
    (await mustChangePassword((await getAuth()).db, user.id))
  ) {
    throw redirect(changePasswordPath(request));
  }
  if (!options.allowWithoutPasskey && (await staffNeedsPasskey(user))) {
    if (!read) throw data({ form_error: STAFF_PASSKEY_NEEDED }, { status: 403 });
    throw redirect("/settings/account?passkey=required#passkeys");
  }
  if (options.roles.includes(user.role)) return user;
  if (!read) throw data({ form_error: "You do not have access to this." }, { status: 403 });
  throw redirect(homePathFor(user));
}

export const STAFF_PASSKEY_NEEDED = "Staff sign in with a passkey. Please add one in Account Settings first.";

/**
 * The profile requires staff to use passkeys and this staff member has none yet
 * (docs/product.md#passkeys): every page but Account Settings (and signing out) leads there.
 */
async function staffNeedsPasskey(user: SessionUser): Promise<boolean> {
  if (!worksInBackOffice(user.role)) return false;
  if (!institution().staff_passkeys_required) return false;
  return (await countPasskeys((await getAuth()).db, user.id)) === 0;
}

/** A signed-in member (role `user`): the top of every /dashboard loader and action. */
export async function requireMember(request: Request): Promise<SessionUser> {
  return requireUser(request, { roles: ["user"] });
}

/** /change-password, remembering the page asked for (a page, not an action's address). */
function changePasswordPath(request: Request): string {
  const url = pageUrl(request);
  const target = isReadRequest(request) ? safeRedirectTo(`${url.pathname}${url.search}`) : null;
  return target && target !== "/change-password"
    ? `/change-password?redirectTo=${encodeURIComponent(target)}`
    : "/change-password";
}

/** An applicant whose application is in the given state (the status pages). */
export async function requireApplicant(request: Request, status: "pending" | "rejected"): Promise<SessionUser> {
  const user = await requireUser(request, { roles: ["pending"] });
  const state = user.application_status === "rejected" ? "rejected" : "pending";
  if (state === status) return user;
  if (!isReadRequest(request)) throw data({ form_error: "You do not have access to this." }, { status: 403 });
  throw redirect(homePathFor(user));
}

/** For the sign-in and sign-up pages: a signed-in person goes to their home instead. */
export async function redirectIfSignedIn(request: Request, redirect_to?: unknown): Promise<void> {
  const user = await getSessionUser(request, { touch: false });
  if (user) throw redirect(destinationAfterSignIn(user, redirect_to));
}

/** Ends the session on the server and returns the headers that clear its cookies. */
export async function signOut(request: Request): Promise<Headers> {
  const { auth } = await getAuth();
  const headers = new Headers();
  try {
    const result = await auth.api.signOut({
      headers: new Headers({ cookie: request.headers.get("cookie") ?? "" }),
      returnHeaders: true,
    });
    for (const line of result.headers.getSetCookie()) headers.append("Set-Cookie", line);
  } catch (error) {
    logger.warn({ err: error }, "sign-out without a live session");
  }
  if (!headers.has("Set-Cookie")) headers.append("Set-Cookie", await clearSessionCookieHeader());
  return headers;
}

/** For tests and services that hold a database: the same checks on an explicit instance. */
export async function sessionUserFromCookie(
  db: Db,
  cookie: string,
  options: { touch?: boolean; now?: Date } = {},
): Promise<SessionUser | null> {
  const result = await sessionFromCookie(db, cookie, { touch: options.touch ?? true, now: options.now });
  return result.state === "active" ? result.user : null;
}
