import type { Actor } from "~/domain/actor";
import { codedRefusal, type CodedRefusal, type Refusal } from "~/domain/refusals";
import { SETTINGS_MESSAGES } from "~/domain/settings";
import type { Db } from "~/server/db/client.server";
import { recordSecurityEvent } from "~/server/audit/audit.server";
import { sendEmail } from "~/server/mail/outbox.server";
import { currentPasswordAlertEmail } from "~/server/mail/templates.server";
import { hitRateLimit } from "~/server/rate-limit/rate-limit.server";
import { logger } from "~/server/logger.server";
import { LOCKOUT_MS, lockoutState, recordWrongPassword } from "./lockout.server";
import { RATE_LIMITS } from "./rate-limits.server";
import type { RequestMeta } from "./request-meta.server";

/**
 * The current password, asked again of a signed-in person before a change that matters: a new
 * password, replacing a temporary one, turning the authenticator app on or off, adding or removing a
 * passkey. Someone holding a
 * session (a computer left signed in, a stolen cookie) must not be able to guess it without end:
 *
 * - a wrong current password is a wrong password: it counts towards the sign-in lockout of the
 *   account's address (5 within 15 minutes lock it for 15 minutes), and while the address is
 *   locked these checks are refused too;
 * - at most 10 checks per person per 15 minutes, counted before checking, so simultaneous
 *   requests cannot all get through before the lock lands;
 * - every wrong one is audited, and the member is emailed after the third (someone in a
 *   signed-in session is typing wrong passwords) and when it locks.
 */
export type CurrentPasswordPurpose =
  | "password_change"
  | "temporary_password"
  | "authenticator_on"
  | "authenticator_off"
  | "passkey_add"
  | "passkey_remove";

/** Checks refused for a while (the address locked, or too many checks): `retry_after_s` until they may work. */
export type CurrentPasswordLocked = CodedRefusal<"locked">;

/** A wrong current password: the message goes next to its field. */
export type WrongCurrentPassword = CodedRefusal<"wrong_password">;

export function wrongCurrentPassword(message: string = SETTINGS_MESSAGES.wrong_current_password): WrongCurrentPassword {
  return codedRefusal("bad_input", message, "wrong_password", { field: "current_password" });
}

function currentPasswordLocked(retry_after_s: number): CurrentPasswordLocked {
  return codedRefusal("too_many", currentPasswordLockedMessage(retry_after_s), "locked", {
    field: "current_password",
    retry_after_s,
  });
}

/** Wrong passwords (recent, for the account) after which the member is told. */
export const CURRENT_PASSWORD_ALERT_AFTER = 3;

/** What the person sees next to the password field while checks are refused. */
export function currentPasswordLockedMessage(retry_after_s: number): string {
  const minutes = Math.max(1, Math.ceil(retry_after_s / 60));
  return `Too many wrong passwords. For your security, this is locked for ${minutes} ${minutes === 1 ? "minute" : "minutes"}. We have emailed you.`;
}

/**
 * Runs `check` (which checks the current password and, if right, makes the change) within the
 * limits above. `check` answers `wrongCurrentPassword()` for a wrong password.
 */
export async function guardCurrentPassword<T extends { ok: true } | Refusal>(
  db: Db,
  meta: RequestMeta,
  user: Actor,
  purpose: CurrentPasswordPurpose,
  check: () => Promise<T>,
  origin: { request_id?: string } = {},
  now: Date = new Date(),
): Promise<T | CurrentPasswordLocked> {
  const event = { user_id: user.id, email: user.email, request_id: origin.request_id, ip: meta.ip };
  const lock = await lockoutState(db, user.email, now);
  const limit = lock.locked
    ? null
    : await hitRateLimit(
        { key: `current-password:user:${user.id}`, ...RATE_LIMITS.current_password },
        { database: db, now },
      );
  if (lock.locked || !limit?.allowed) {
    const retry_after_s = lock.locked ? lock.retry_after_s : limit!.retry_after_s;
    await recordSecurityEvent(db, {
      action: "auth.current_password.refused",
      ...event,
      detail: { purpose, reason: lock.locked ? "locked" : "rate_limited" },
    });
    return currentPasswordLocked(retry_after_s);
  }

  const result = await check();
  if (result.ok || result.code !== "wrong_password") return result;

  const { locked_now, failures } = await recordWrongPassword(db, user.email, now);
  await recordSecurityEvent(db, {
    action: "auth.current_password.wrong",
    ...event,
    detail: { purpose, recent_wrong_passwords: failures, locked: locked_now },
  });
  if (locked_now || failures === CURRENT_PASSWORD_ALERT_AFTER) {
    try {
      await sendEmail(db, {
        ...currentPasswordAlertEmail({
          purpose,
          wrong_passwords: failures,
          locked_minutes: locked_now ? LOCKOUT_MS / 60_000 : null,
        }),
        to: user.email,
        user_id: user.id,
      });
    } catch (error) {
      // The refusal stands without the email; the audit row already records it.
      logger.error({ err: error, user_id: user.id }, "current-password alert failed");
    }
  }
  return locked_now ? currentPasswordLocked(LOCKOUT_MS / 1000) : result;
}
