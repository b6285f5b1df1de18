import { eq, sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { signInLockouts } from "~/server/db/schema";

/**
 * Password lockout (SPEC 5): 5 wrong passwords for one email address within 15 minutes lock
 * sign-in with that address for 15 minutes. Counted per address whether or not an account uses
 * it, so the lock itself tells nobody which addresses have accounts.
 */
export const WRONG_PASSWORDS_MAX = 5;
export const WRONG_PASSWORD_WINDOW_MS = 15 * 60 * 1000;
export const LOCKOUT_MS = 15 * 60 * 1000;

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Whether sign-in with this address is locked now, and for how many more seconds. */
export async function lockoutState(db: DbOrTx, email: string, now: Date = new Date()): Promise<{ locked: boolean; retry_after_s: number }> {
  const [row] = await db
    .select({ locked_until: signInLockouts.locked_until })
    .from(signInLockouts)
    .where(eq(signInLockouts.email, normaliseEmail(email)));
  const until = row?.locked_until?.getTime() ?? 0;
  if (until <= now.getTime()) return { locked: false, retry_after_s: 0 };
  return { locked: true, retry_after_s: Math.ceil((until - now.getTime()) / 1000) };
}

/**
 * Records a wrong password. Keeps the failures of the last 15 minutes; the fifth locks the
 * address (and starts a fresh count). Returns whether this failure locked it.
 */
export async function recordWrongPassword(db: DbOrTx, email: string, now: Date = new Date()): Promise<{ locked_now: boolean; failures: number }> {
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
    .where(sql`${signInLockouts.email} = ${address} and cardinality(${signInLockouts.failure_times}) >= ${WRONG_PASSWORDS_MAX}`)
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
    .set({ failure_times: [], locked_until: null, updated_at: now })
    .where(eq(signInLockouts.email, normaliseEmail(email)));
}
