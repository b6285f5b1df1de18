import type { Actor } from "~/domain/actor";
import { codedRefusal, type CodedRefusal } from "~/domain/refusals";
import { SAME_AS_TEMPORARY_PASSWORD } from "~/domain/password";
import { eq } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { passwordChangeRequirements } from "~/server/db/schema";
import { recordSecurityEvent } from "~/server/audit/audit.server";
import { logger } from "~/server/logger.server";
import { PASSWORD_CHANGE_MESSAGES, changePassword, type ChangePasswordResult } from "./password.server";
import type { RequestMeta } from "./request-meta.server";

/**
 * A temporary password must be replaced at first sign-in (docs/product.md#passwords). Staff who
 * create a user write a `password_change_requirements` row with the user; until it is cleared,
 * every signed-in page and action (requireUser) sends that person to /change-password.
 *
 * The check runs on every signed-in request, so "this user has nothing to change" is remembered
 * per database. That is safe because a requirement is only ever written together with a new user
 * (create-member.server.ts) — before anyone could have been checked — and is only ever cleared
 * afterwards. Should staff one day be able to set a temporary password on an existing user, that
 * code must call `forgetPasswordCheck`.
 */
const known_clear = new WeakMap<object, Set<string>>();
const KNOWN_CLEAR_MAX = 50_000;

function clearSet(db: DbOrTx): Set<string> {
  let set = known_clear.get(db);
  if (!set) known_clear.set(db, (set = new Set()));
  return set;
}

function rememberClear(db: DbOrTx, user_id: string): void {
  const set = clearSet(db);
  if (set.size >= KNOWN_CLEAR_MAX) set.clear();
  set.add(user_id);
}

/** For a future "set a temporary password" on an existing user (see above). */
export function forgetPasswordCheck(db: DbOrTx, user_id: string): void {
  known_clear.get(db)?.delete(user_id);
}

/** Whether this user must choose a new password before using the app (a temporary password set by staff). */
export async function mustChangePassword(db: DbOrTx, user_id: string): Promise<boolean> {
  if (known_clear.get(db)?.has(user_id)) return false;
  const [row] = await db
    .select({ cleared_at: passwordChangeRequirements.cleared_at })
    .from(passwordChangeRequirements)
    .where(eq(passwordChangeRequirements.user_id, user_id));
  const must = Boolean(row && !row.cleared_at);
  if (!must) rememberClear(db, user_id);
  return must;
}

/** The temporary password was replaced (here, or through Account Settings). */
export async function passwordChanged(db: DbOrTx, user_id: string, now: Date = new Date()): Promise<void> {
  await db
    .update(passwordChangeRequirements)
    .set({ cleared_at: now })
    .where(eq(passwordChangeRequirements.user_id, user_id));
}

export type ReplaceTemporaryPasswordResult =
  | { ok: true; status: "changed"; set_cookies: string[] }
  /** Nothing to replace (already done, or never temporary): on to their home. */
  | { ok: true; status: "not_required" }
  | Exclude<ChangePasswordResult, { ok: true }>
  | CodedRefusal<"same_password">;

/**
 * "Choose a new password" after signing in with a temporary one: the temporary password is checked
 * by Better Auth (a wrong one is audited and counted as changePassword does), the new one
 * replaces it and every other session ends (this browser gets a new session id); the requirement
 * is cleared and the change audited.
 */
export async function replaceTemporaryPassword(
  db: Db,
  meta: RequestMeta,
  user: Actor,
  input: { current_password: string; new_password: string },
  origin: { request_id?: string } = {},
): Promise<ReplaceTemporaryPasswordResult> {
  if (!(await mustChangePassword(db, user.id))) return { ok: true, status: "not_required" };
  if (input.current_password === input.new_password)
    return codedRefusal("bad_input", SAME_AS_TEMPORARY_PASSWORD, "same_password", { field: "new_password" });
  const result = await changePassword(
    db,
    meta,
    {
      email: user.email,
      user_id: user.id,
      current_password: input.current_password,
      new_password: input.new_password,
      purpose: "temporary_password",
    },
    origin,
  );
  if (!result.ok) return result;
  try {
    await passwordChanged(db, user.id);
  } catch (error) {
    // The password did change; the requirement would ask again at the next request.
    logger.error({ err: error, user_id: user.id }, "clearing the temporary-password requirement failed");
    return codedRefusal("unavailable", PASSWORD_CHANGE_MESSAGES.temporary_password.failed, "failed");
  }
  await recordSecurityEvent(db, {
    action: "auth.password.temporary_replaced",
    user_id: user.id,
    email: user.email,
    detail: { must_change_password: false, other_sessions_ended: true },
    request_id: origin.request_id,
    ip: meta.ip,
  });
  return { ok: true, status: "changed", set_cookies: result.set_cookies };
}
