import { and, eq, isNull } from "drizzle-orm";
import type { PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/server";
import type { Actor } from "~/domain/actor";
import { codedRefusal, type CodedRefusal } from "~/domain/refusals";
import { worksInBackOffice } from "~/domain/staff-roles";
import { institution } from "~/config/institution.server";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { passkeys, sessions, users } from "~/server/db/schema";
import { keyedHash } from "~/server/security/crypto.server";
import { recordAudit, recordSecurityEvent } from "~/server/audit/audit.server";
import {
  guardCurrentPassword,
  wrongCurrentPassword,
  type CurrentPasswordLocked,
  type WrongCurrentPassword,
} from "./current-password.server";
import { PASSKEY_MESSAGES, demoSettingsLocked } from "./passkey-registration.server";
import type { RequestMeta } from "./request-meta.server";
import {
  allowedCredentials,
  assertionOptions,
  checkAssertion,
  countPasskeys,
  demoLocked,
  passwordIsRight,
  tellOwner,
} from "./passkeys.server";

/**
 * Removing passkeys: one of the person's own in Account Settings (docs/product.md#passkeys),
 * confirmed with the current password or with another of their passkeys; and all of a staff
 * member's, by the server command for one who lost them. The challenges, the list and the checks
 * are passkeys.server.ts.
 */

function removalBinding(user_id: string, passkey_id: number): string {
  return keyedHash("passkey-remove", `${user_id}\u0000${passkey_id}`);
}

// --- A staff member who lost their passkeys --------------------------------------------------------

/** Who the audit log names for the server command (no staff member signs in to run it). */
export const PASSKEYS_SERVER_COMMAND_ACTOR = "server command: npm run staff:passkeys:remove";

/**
 * Done, with how many passkeys were removed and sessions ended; or refused with what the command
 * prints: nobody has the address (`not_found`), a member (`not_staff`: `forbidden`), or no passkey
 * to remove (`none`: `conflict`, nothing to do). The command picks its exit code.
 */
export type RemoveStaffPasskeysResult =
  { ok: true; removed: number; sessions_ended: number } | CodedRefusal<"not_found" | "not_staff" | "none">;

/**
 * `npm run staff:passkeys:remove` (docs/operations.md#a-staff-member-lost-their-passkeys): while
 * the profile requires staff passkeys, a staff member with one may not sign in with the password,
 * so one who lost every device holding theirs (or the only admin) cannot sign in at all. Run on
 * the server, this removes all of that person's passkeys and ends their sessions (a lost phone
 * may hold one): they then sign in with the password and the emailed code and are led to add a
 * new passkey. Staff only: a member keeps the password path and removes passkeys in Account
 * Settings. Audited with the command as the actor; the person is emailed for each passkey.
 */
export async function removeStaffPasskeysFromServer(
  db: Db,
  email: string,
  now: Date = new Date(),
): Promise<RemoveStaffPasskeysResult> {
  const [user] = await db
    .select({ id: users.id, email: users.email, role: users.role })
    .from(users)
    .where(eq(users.email, email.trim().toLowerCase()));
  if (!user) return codedRefusal("not_found", `Refused: nobody has the email ${email}.`, "not_found");
  if (!worksInBackOffice(user.role))
    return codedRefusal(
      "forbidden",
      `Refused: ${email} is not staff. Members remove passkeys in Account Settings and can always sign in with their password.`,
      "not_staff",
    );
  const done = await db.transaction(async (tx) => {
    const removed = await tx
      .update(passkeys)
      .set({ removed_at: now })
      .where(and(eq(passkeys.user_id, user.id), isNull(passkeys.removed_at)))
      .returning({ id: passkeys.id, name: passkeys.name });
    if (removed.length === 0) return null;
    const ended = await tx.delete(sessions).where(eq(sessions.userId, user.id)).returning({ id: sessions.id });
    await recordAudit(tx, {
      actor_id: null,
      actor_email: PASSKEYS_SERVER_COMMAND_ACTOR,
      action: "staff.passkeys.removed",
      subject_type: "user",
      subject_id: user.id,
      before: { passkey_ids: removed.map((p) => p.id) },
      after: { passkeys: 0, sessions_ended: ended.length },
    });
    return { removed, sessions_ended: ended.length };
  });
  if (!done) return codedRefusal("conflict", `Nothing to do: ${email} has no passkey.`, "none");
  for (const passkey of done.removed) await tellOwner(db, user, "removed", passkey.name, now);
  return { ok: true, removed: done.removed.length, sessions_ended: done.sessions_ended };
}

// --- Removing one ---------------------------------------------------------------------------------

export type RemovePasskeyResult =
  | { ok: true }
  | WrongCurrentPassword
  | CurrentPasswordLocked
  | CodedRefusal<"invalid" | "not_found" | "last_staff_passkey" | "not_allowed">;

const notYourPasskey = () => codedRefusal("not_found", PASSKEY_MESSAGES.not_found, "not_found");
const staffKeepOne = () => codedRefusal("conflict", PASSKEY_MESSAGES.last_staff_passkey, "last_staff_passkey");

/** Staff must keep a passkey while the profile requires them (docs/product.md#passkeys). */
async function mustKeep(db: DbOrTx, user: { id: string; role: string }): Promise<boolean> {
  return (
    institution().staff_passkeys_required && worksInBackOffice(user.role) && (await countPasskeys(db, user.id)) <= 1
  );
}

async function ownPasskey(db: DbOrTx, user_id: string, passkey_id: number) {
  const [row] = await db
    .select({ id: passkeys.id, name: passkeys.name })
    .from(passkeys)
    .where(and(eq(passkeys.id, passkey_id), eq(passkeys.user_id, user_id), isNull(passkeys.removed_at)));
  return row ?? null;
}

/** Removes one of the person's passkeys, confirmed with the current password. */
export async function removePasskeyWithPassword(
  db: Db,
  meta: RequestMeta,
  user: Actor & { role: string },
  input: { passkey_id: number; current_password: string },
  origin: { request_id?: string } = {},
  now: Date = new Date(),
): Promise<RemovePasskeyResult> {
  if (demoLocked(user.email)) return demoSettingsLocked();
  const passkey = await ownPasskey(db, user.id, input.passkey_id);
  if (!passkey) return notYourPasskey();
  if (await mustKeep(db, user)) return staffKeepOne();
  return guardCurrentPassword(
    db,
    meta,
    user,
    "passkey_remove",
    async (): Promise<RemovePasskeyResult> => {
      if (!(await passwordIsRight(db, user.id, input.current_password))) return wrongCurrentPassword();
      return markRemoved(db, user, passkey, "password", { ...origin, ip: meta.ip }, now);
    },
    origin,
    now,
  );
}

/** The challenge for confirming a removal with another of the person's passkeys (null: no other one). */
export async function passkeyRemovalOptions(
  db: Db,
  user: Actor,
  passkey_id: number,
  now: Date = new Date(),
): Promise<PublicKeyCredentialRequestOptionsJSON | null> {
  if (!(await ownPasskey(db, user.id, passkey_id))) return null;
  const others = await allowedCredentials(db, user.id, passkey_id);
  if (others.length === 0) return null;
  return assertionOptions(
    db,
    "remove",
    { user_id: user.id, bound_hash: removalBinding(user.id, passkey_id), except_passkey_id: passkey_id },
    now,
  );
}

/** Removes one of the person's passkeys, confirmed with another of their passkeys. */
export async function removePasskeyWithPasskey(
  db: Db,
  user: Actor & { role: string },
  input: { passkey_id: number; response_json: string },
  origin: { request_id?: string; ip?: string } = {},
  now: Date = new Date(),
): Promise<RemovePasskeyResult> {
  if (demoLocked(user.email)) return demoSettingsLocked();
  const passkey = await ownPasskey(db, user.id, input.passkey_id);
  if (!passkey) return notYourPasskey();
  if (await mustKeep(db, user)) return staffKeepOne();
  const check = await checkAssertion(
    db,
    input.response_json,
    {
      purpose: "remove",
      user_id: user.id,
      bound_hash: removalBinding(user.id, input.passkey_id),
      except_passkey_id: input.passkey_id,
    },
    now,
  );
  if (!check.ok) {
    await recordSecurityEvent(db, {
      action: "auth.passkey.remove_refused",
      user_id: user.id,
      email: user.email,
      detail: { passkey_id: input.passkey_id, reason: check.reason },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return codedRefusal("bad_input", PASSKEY_MESSAGES.invalid, "invalid");
  }
  return markRemoved(db, user, passkey, "passkey", origin, now);
}

async function markRemoved(
  db: Db,
  user: Actor,
  passkey: { id: number; name: string },
  confirmed_by: "password" | "passkey",
  origin: { request_id?: string; ip?: string },
  now: Date,
): Promise<RemovePasskeyResult> {
  const removed = await db
    .update(passkeys)
    .set({ removed_at: now })
    .where(and(eq(passkeys.id, passkey.id), eq(passkeys.user_id, user.id), isNull(passkeys.removed_at)))
    .returning({ id: passkeys.id });
  if (removed.length !== 1) return notYourPasskey();
  await recordSecurityEvent(db, {
    action: "auth.passkey.removed",
    user_id: user.id,
    email: user.email,
    detail: { passkey_id: passkey.id, confirmed_by },
    request_id: origin.request_id,
    ip: origin.ip,
  });
  await tellOwner(db, user, "removed", passkey.name, now);
  return { ok: true };
}
