import { and, isNull, lt, or, sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import {
  authRateLimits,
  jobRuns,
  passkeyChallenges,
  paymentStepUpCodes,
  sessions,
  signInChallenges,
  signInLockouts,
  usedTotpCodes,
  verifications,
} from "~/server/db/schema";
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from "~/server/auth/auth.server";
import { pruneRateLimitCounters } from "~/server/rate-limit/rate-limit.server";

/**
 * Removes short-lived security rows that can no longer be used: expired sign-in codes and
 * challenges, WebAuthn challenges, ended sessions, used authenticator codes past their window, step-up codes, rate-limit
 * counters and lockouts whose windows are over. Nothing about money, nothing from the audit log
 * (which records the sign-ins and codes themselves), and not the staff-issued codes, whose
 * history (used, removed, expired) staff read on the member's page.
 *
 * Each row is kept a day past the moment it stopped counting (`GRACE_MS`), so a member whose
 * session just ended still gets "your session has ended", not "sign in", and no rule that looks a
 * little back in time (lockouts look 15 minutes back) loses what it reads.
 */
export const GRACE_MS = 24 * 60 * 60_000;

/** Finished job runs that succeeded are kept this long for the staff page; failed ones always. */
export const SUCCEEDED_RUNS_KEPT_MS = 30 * 24 * 60 * 60_000;

export interface PruneCounts {
  [name: string]: number;
  verifications: number;
  sessions: number;
  sign_in_challenges: number;
  used_totp_codes: number;
  payment_step_up_codes: number;
  passkey_challenges: number;
  rate_limit_counters: number;
  auth_rate_limits: number;
  sign_in_lockouts: number;
  succeeded_job_runs: number;
}

/**
 * `job_now` is the job clock's time. What expired is judged by the earlier of it and the wall
 * clock: a demo whose job clock was moved a month ahead must not end the sessions of people
 * signed in right now.
 */
export async function pruneExpired(db: DbOrTx, job_now: Date): Promise<PruneCounts> {
  const now = new Date(Math.min(job_now.getTime(), Date.now()));
  const cutoff = new Date(now.getTime() - GRACE_MS);
  const count = async (rows: Promise<unknown[]>) => (await rows).length;
  return {
    // Email sign-in codes, sign-in challenges' Better Auth half, reset tokens.
    verifications: await count(
      db.delete(verifications).where(lt(verifications.expiresAt, cutoff)).returning({ id: verifications.id }),
    ),
    // Ended by its expiry, by 15 minutes idle, or by its 12-hour limit, a day ago.
    sessions: await count(
      db
        .delete(sessions)
        .where(
          or(
            lt(sessions.expiresAt, cutoff),
            lt(sessions.lastActiveAt, new Date(cutoff.getTime() - SESSION_IDLE_MS)),
            lt(sessions.createdAt, new Date(cutoff.getTime() - SESSION_ABSOLUTE_MS)),
          ),
        )
        .returning({ id: sessions.id }),
    ),
    // A challenge lives as long as its verification (minutes); a day-old one is over.
    sign_in_challenges: await count(
      db.delete(signInChallenges).where(lt(signInChallenges.created_at, cutoff)).returning({ id: signInChallenges.id }),
    ),
    used_totp_codes: await count(
      db.delete(usedTotpCodes).where(lt(usedTotpCodes.used_at, cutoff)).returning({ user_id: usedTotpCodes.user_id }),
    ),
    payment_step_up_codes: await count(
      db
        .delete(paymentStepUpCodes)
        .where(lt(paymentStepUpCodes.expires_at, cutoff))
        .returning({ id: paymentStepUpCodes.id }),
    ),
    // WebAuthn challenges live 5 minutes (used or not).
    passkey_challenges: await count(
      db
        .delete(passkeyChallenges)
        .where(lt(passkeyChallenges.expires_at, cutoff))
        .returning({ id: passkeyChallenges.id }),
    ),
    // The longest window in use is an hour.
    rate_limit_counters: await pruneRateLimitCounters(cutoff, { database: db }),
    auth_rate_limits: await count(
      db
        .delete(authRateLimits)
        .where(lt(authRateLimits.lastRequest, cutoff.getTime()))
        .returning({ id: authRateLimits.id }),
    ),
    // No lock in force and nothing recent to count.
    sign_in_lockouts: await count(
      db
        .delete(signInLockouts)
        .where(
          and(
            lt(signInLockouts.updated_at, cutoff),
            or(isNull(signInLockouts.locked_until), lt(signInLockouts.locked_until, cutoff)),
          ),
        )
        .returning({ email: signInLockouts.email }),
    ),
    succeeded_job_runs: await count(
      db
        .delete(jobRuns)
        .where(
          and(
            sql`${jobRuns.state} = 'succeeded'`,
            lt(jobRuns.finished_at, new Date(now.getTime() - SUCCEEDED_RUNS_KEPT_MS)),
          ),
        )
        .returning({ id: jobRuns.id }),
    ),
  };
}
