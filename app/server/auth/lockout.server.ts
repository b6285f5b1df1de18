import { eq, sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { signInLockouts } from "~/server/db/schema";

/**
 * Password lockout (docs/product.md#sign-in-protection): 5 wrong passwords for one email address
 * within 15 minutes lock sign-in with that address for 15 minutes. Counted per address whether or
 * not an account uses it, so the lock itself tells nobody which addresses have accounts. Wrong
 * second-factor codes lead to the same lock (below).
 */
export const WRONG_PASSWORDS_MAX = 5;
export const WRONG_PASSWORD_WINDOW_MS = 15 * 60 * 1000;
export const LOCKOUT_MS = 15 * 60 * 1000;

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * What a lock and a count of codes belong to. An email address (a string): sign-in with it. Or a
 * member's step-up codes, the emailed codes that confirm money actions
 * (app/server/payments/step-up.server.ts): counted and locked by the same rules and functions as
 * sign-in codes, in a row of their own, so a lock of one never locks the other.
 */
export type LockSubject = string | { step_up_member_id: string };

/** The row's key: the normalised address, or `payment-step-up:<member id>` (no @, so never an address). */
function lockKey(subject: LockSubject): string {
  return typeof subject === "string" ? normaliseEmail(subject) : `payment-step-up:${subject.step_up_member_id}`;
}

/** Whether sign-in with this address (or the subject's codes) is locked now, and for how many more seconds. */
export async function lockoutState(
  db: DbOrTx,
  subject: LockSubject,
  now: Date = new Date(),
): Promise<{ locked: boolean; retry_after_s: number; locked_until: Date | null }> {
  const [row] = await db
    .select({ locked_until: signInLockouts.locked_until })
    .from(signInLockouts)
    .where(eq(signInLockouts.email, lockKey(subject)));
  const until = row?.locked_until?.getTime() ?? 0;
  if (until <= now.getTime()) return { locked: false, retry_after_s: 0, locked_until: null };
  return { locked: true, retry_after_s: Math.ceil((until - now.getTime()) / 1000), locked_until: new Date(until) };
}

/**
 * Records a wrong password. Keeps the failures of the last 15 minutes; the fifth locks the
 * address (and starts a fresh count). Returns whether this failure locked it.
 */
export async function recordWrongPassword(
  db: DbOrTx,
  email: string,
  now: Date = new Date(),
): Promise<{ locked_now: boolean; failures: number }> {
  const address = normaliseEmail(email);
  const window_start = new Date(now.getTime() - WRONG_PASSWORD_WINDOW_MS);
  // One atomic statement: the recent failures plus this one. Two racing requests both count.
  const [row] = await db
    .insert(signInLockouts)
    .values({ email: address, failure_times: [now], updated_at: now })
    .onConflictDoUpdate({
      target: signInLockouts.email,
      set: {
        failure_times: sql`array(select t from unnest(${signInLockouts.failure_times}) as t where t > ${window_start.toISOString()}::timestamptz order by t) || ${now.toISOString()}::timestamptz`,
        updated_at: now,
      },
    })
    .returning({ failures: sql<number>`cardinality(${signInLockouts.failure_times})` });
  const failures = Number(row?.failures ?? 1);
  if (failures < WRONG_PASSWORDS_MAX) return { locked_now: false, failures };
  const locked = await db
    .update(signInLockouts)
    .set({ locked_until: new Date(now.getTime() + LOCKOUT_MS), failure_times: [], updated_at: now })
    // Only the request that reached the limit locks (and emails); a racing one sees an empty list.
    .where(
      sql`${signInLockouts.email} = ${address} and cardinality(${signInLockouts.failure_times}) >= ${WRONG_PASSWORDS_MAX}`,
    )
    .returning({ email: signInLockouts.email });
  return { locked_now: locked.length === 1, failures };
}

/** A correct password clears the count of wrong ones. */
export async function clearWrongPasswords(db: DbOrTx, email: string, now: Date = new Date()): Promise<void> {
  await db
    .update(signInLockouts)
    .set({ failure_times: [], updated_at: now })
    .where(eq(signInLockouts.email, normaliseEmail(email)));
}

/** A completed password reset proves control of the mailbox: the lock ends with the old password. */
export async function unlockSignIn(db: DbOrTx, email: string, now: Date = new Date()): Promise<void> {
  await db
    .update(signInLockouts)
    .set({ failure_times: [], code_attempt_times: [], locked_until: null, updated_at: now })
    .where(eq(signInLockouts.email, normaliseEmail(email)));
}

/**
 * Second-factor codes, per account across challenges. Ending a challenge after 5 wrong codes is
 * not enough on its own: whoever knows the password opens a new challenge at will, so codes are
 * also counted per account, and 10 tried without a sign-in within 15 minutes lock sign-in exactly
 * as 5 wrong passwords do. The right password does not reset this count; a completed sign-in
 * or a password reset does.
 *
 * Each code is counted before it is checked (`recordCodeAttempt`), so simultaneous guesses cannot
 * slip past the limit; the right code then clears the count (`clearCodeAttempts`).
 *
 * The same count and lock serve a member's step-up codes (`{ step_up_member_id }`): whoever holds
 * a session could otherwise ask for code after code (5 tries each) without end. 10 wrong codes in
 * 15 minutes lock the money actions that need a code for 15 minutes (docs/product.md#step-up-codes).
 */
export const CODE_ATTEMPTS_MAX = 10;

/** Counts one code about to be checked. Not allowed once the account (or subject) has had its 10 in 15 minutes. */
export async function recordCodeAttempt(
  db: DbOrTx,
  subject: LockSubject,
  now: Date = new Date(),
): Promise<{ allowed: boolean; attempts: number }> {
  const address = lockKey(subject);
  const window_start = new Date(now.getTime() - WRONG_PASSWORD_WINDOW_MS);
  const [row] = await db
    .insert(signInLockouts)
    .values({ email: address, code_attempt_times: [now], updated_at: now })
    .onConflictDoUpdate({
      target: signInLockouts.email,
      set: {
        code_attempt_times: sql`array(select t from unnest(${signInLockouts.code_attempt_times}) as t where t > ${window_start.toISOString()}::timestamptz order by t) || ${now.toISOString()}::timestamptz`,
        updated_at: now,
      },
    })
    .returning({ attempts: sql<number>`cardinality(${signInLockouts.code_attempt_times})` });
  const attempts = Number(row?.attempts ?? 1);
  return { allowed: attempts <= CODE_ATTEMPTS_MAX, attempts };
}

/**
 * After a wrong code that used up the account's attempts: locks sign-in (or the subject's money
 * actions) for 15 minutes. Returns
 * whether this call locked it (only one of several racing requests does, so one email is sent).
 * The attempts stay counted: a guess already under way when the lock lands must still find them
 * used up. They leave the 15-minute window as the lock ends.
 */
export async function lockForWrongCodes(
  db: DbOrTx,
  subject: LockSubject,
  now: Date = new Date(),
): Promise<{ locked_now: boolean }> {
  const address = lockKey(subject);
  const locked = await db
    .update(signInLockouts)
    .set({ locked_until: new Date(now.getTime() + LOCKOUT_MS), updated_at: now })
    .where(
      sql`${signInLockouts.email} = ${address} and cardinality(${signInLockouts.code_attempt_times}) >= ${CODE_ATTEMPTS_MAX}
        and (${signInLockouts.locked_until} is null or ${signInLockouts.locked_until} <= ${now.toISOString()}::timestamptz)`,
    )
    .returning({ email: signInLockouts.email });
  return { locked_now: locked.length === 1 };
}

/** A completed sign-in (or a right step-up code): the codes tried before it no longer count. */
export async function clearCodeAttempts(db: DbOrTx, subject: LockSubject, now: Date = new Date()): Promise<void> {
  await db
    .update(signInLockouts)
    .set({ code_attempt_times: [], updated_at: now })
    .where(eq(signInLockouts.email, lockKey(subject)));
}
