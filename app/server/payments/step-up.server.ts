import type { Actor } from "~/domain/actor";
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { paymentStepUpCodes, type OutboxKind } from "~/server/db/schema";
import { generateCode, CODE_PATTERN } from "~/server/auth/codes.server";
import { keyedHash, sameHash } from "~/server/security/crypto.server";
import { sendEmail } from "~/server/mail/outbox.server";
import { hitRateLimit } from "~/server/rate-limit/rate-limit.server";
import { institution } from "~/config/institution.server";
import {
  CODE_ATTEMPTS_MAX,
  clearCodeAttempts,
  lockForWrongCodes,
  LOCKOUT_MS,
  lockoutState,
  recordCodeAttempt,
  type LockSubject,
} from "~/server/auth/lockout.server";
import { recordSecurityEvent } from "~/server/audit/audit.server";
import { stepUpCodesLockedEmail } from "~/server/mail/templates.server";
import { assertionOptions, checkAssertion, countPasskeys, stepUpBinding } from "~/server/auth/passkeys.server";
import type { PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/server";
import { logger } from "~/server/logger.server";
import { REFUSAL_MESSAGES, codedRefusal, refusalMessage, type CodedRefusal } from "~/domain/refusals";

/**
 * Step-up one-time code that confirms a money action: every payment to another bank (To US Bank,
 * International), a To Another Member transfer above the profile's threshold, and a card's full
 * details or a new PIN (app/server/cards/controls.server.ts). 6 digits sent by
 * email to the member, stored as a keyed hash, valid 10 minutes, 5 tries, used once. Sending a
 * new code voids the older ones. Sends are rate-limited (5 per 10 minutes per member).
 *
 * A code confirms one transfer only: `transfer` (`stepUpTransfer` in transfers.server.ts: the
 * form's key, the accounts, the amount and the payee) is hashed with it, so a code emailed for
 * "$20 to Lee Park" cannot confirm another transfer sent with it; for that one it is a wrong code.
 *
 * Wrong codes are also counted per member across codes (docs/product.md#step-up-codes): 5 tries
 * per code and 5 codes per 10 minutes would otherwise let whoever holds a session guess without
 * end. Every code typed is counted before it is checked, with the sign-in codes' own count and
 * lock (lockout.server.ts, a row of the member's own); 10 in 15 minutes without a right one lock
 * every action that needs a code (sending one too) for 15 minutes. Each wrong code is a security
 * event in the audit log (never the code itself), and so is the lock, which staff also see on the
 * member's details in the back office; the member is emailed once per lock.
 */
export const STEP_UP_VALID_MS = 10 * 60 * 1000;
export const STEP_UP_TRIES_MAX = 5;
const SENDS_PER_WINDOW = 5;

const PURPOSE = "payment-step-up";

function hash(member_id: string, transfer: string, code: string): string {
  return keyedHash(`code:${PURPOSE}`, `${member_id}\u0000${transfer}\u0000${code}`);
}

/** The money actions a step-up code confirms, as the audit log names them. */
export type StepUpAction =
  "transfer_to_member" | "transfer_to_us_bank" | "international_transfer" | "card_details" | "card_pin" | "money_in";

/** Where the request came from, for the audit log (the member's own actions carry none when unknown). */
export interface StepUpOrigin {
  request_id?: string | null;
  ip?: string | null;
}

/**
 * Refused for a while: too many wrong codes (docs/product.md#step-up-codes); `retry_after_s` until
 * the lock ends, and the words say how long.
 */
export type StepUpLocked = CodedRefusal<"otp_locked"> & { retry_after_s: number };

function locked(retry_after_s: number): StepUpLocked {
  const message = refusalMessage("otp_locked", { wait: lockWait(retry_after_s) });
  return { ...codedRefusal("too_many", message, "otp_locked"), retry_after_s };
}

/** A code sent; or none: the codes are locked, or too many were asked for lately (`codes_rate_limited`). */
export type StepUpSendResult =
  { ok: true } | (CodedRefusal<"codes_rate_limited"> & { retry_after_s: number }) | StepUpLocked;

function lockSubject(member_id: string): LockSubject {
  return { step_up_member_id: member_id };
}

/** Whether the member's actions that need a code are locked now (for the back office's member details too). */
export async function stepUpLockState(db: Db, member_id: string, now: Date = new Date()) {
  return lockoutState(db, lockSubject(member_id), now);
}

/** "15 minutes", "1 minute": how long the lock still lasts, as the refusal says it. */
export function lockWait(retry_after_s: number): string {
  const minutes = Math.max(1, Math.ceil(retry_after_s / 60));
  return `${minutes} ${minutes === 1 ? "minute" : "minutes"}`;
}

/** What the email calls the code and the action it confirms: a transfer unless the caller says (a card's details, a PIN). */
export interface StepUpWording {
  subject: string;
  lead: string;
  unasked: string;
  confirms: string;
}
const TRANSFER_WORDING: StepUpWording = {
  subject: "your transfer code",
  lead: "Your transfer confirmation code is",
  unasked: "this transfer",
  confirms: "the transfer",
};

export async function sendStepUpCode(
  db: Db,
  member: Actor,
  summary: string,
  transfer: string,
  wording: StepUpWording = TRANSFER_WORDING,
): Promise<StepUpSendResult> {
  // No new code while the member's codes are locked: it could not be used anyway.
  const lock = await stepUpLockState(db, member.id);
  if (lock.locked) return locked(lock.retry_after_s);
  const limit = await hitRateLimit(
    { key: `payment-step-up:${member.id}`, limit: SENDS_PER_WINDOW, window_ms: 10 * 60 * 1000 },
    { database: db },
  );
  if (!limit.allowed)
    return {
      ...codedRefusal("too_many", REFUSAL_MESSAGES.codes_rate_limited, "codes_rate_limited"),
      retry_after_s: limit.retry_after_s,
    };
  const code = generateCode();
  await db
    .update(paymentStepUpCodes)
    .set({ used_at: sql`now()` })
    .where(and(eq(paymentStepUpCodes.member_id, member.id), isNull(paymentStepUpCodes.used_at)));
  await db.insert(paymentStepUpCodes).values({
    member_id: member.id,
    code_hash: hash(member.id, transfer, code),
    expires_at: new Date(Date.now() + STEP_UP_VALID_MS),
  });
  const name = institution().short_name;
  await sendEmail(db, {
    to: member.email,
    subject: `${name}: ${wording.subject}`,
    text: `${wording.lead}: ${code}\n\n${summary}\n\nIt expires in 10 minutes. If you did not ask for ${wording.unasked}, contact ${institution().support_email} at once.`,
    redacted_text: `Your code to confirm ${wording.confirms} was sent (hidden after delivery).\n\n${summary}`,
    // The sign-in code kind: the demo inbox shows these (demo addresses only).
    kind: "sign_in_code" as OutboxKind,
    user_id: member.id,
  });
  return { ok: true };
}

/** Who and where, for each security event of a check. */
interface EventSource {
  user_id: string;
  email: string;
  request_id: string | null;
  ip: string | null;
}

/** Confirmed; or a wrong code, passkey or transfer (`otp_invalid`, next to the code), or locked. */
export type StepUpCheck = { ok: true } | CodedRefusal<"otp_invalid"> | StepUpLocked;

const wrongCode = () => codedRefusal("unprocessable", REFUSAL_MESSAGES.otp_invalid, "otp_invalid", { field: "otp" });

/**
 * Checks a code against the member's newest live code and the transfer it was sent for; a wrong
 * code (or another transfer) spends a try, the right one is used up. Right only once per code.
 * Before that, the member's count of codes (above): refused while locked, and the 10th wrong code
 * in 15 minutes locks.
 */
export async function verifyStepUpCode(
  db: Db,
  member: Actor,
  input: { code: string; transfer: string; action: StepUpAction; origin?: StepUpOrigin },
  now: Date = new Date(),
): Promise<StepUpCheck> {
  const subject = lockSubject(member.id);
  const event: EventSource = {
    user_id: member.id,
    email: member.email,
    request_id: input.origin?.request_id ?? null,
    ip: input.origin?.ip ?? null,
  };
  const lock = await lockoutState(db, subject, now);
  if (lock.locked) {
    await recordSecurityEvent(db, {
      action: "auth.step_up_code.refused",
      ...event,
      detail: { action: input.action, reason: "locked" },
    });
    return locked(lock.retry_after_s);
  }
  // Counted before it is checked, so simultaneous guesses cannot slip past the limit.
  const counted = await recordCodeAttempt(db, subject, now);
  if (counted.allowed && (await checkCode(db, member.id, input.code, input.transfer, now))) {
    await clearCodeAttempts(db, subject, now);
    return { ok: true };
  }
  const locks = counted.attempts >= CODE_ATTEMPTS_MAX;
  await recordSecurityEvent(db, {
    action: "auth.step_up_code.wrong",
    ...event,
    detail: { action: input.action, recent_codes: counted.attempts, locked: locks },
  });
  if (!locks) return wrongCode();
  return lockForWrongCodesOf(db, member, subject, event, now);
}

/** The member's codes are used up: money actions needing a code are locked (staff see it; the member is emailed once). */
async function lockForWrongCodesOf(
  db: Db,
  member: Actor,
  subject: LockSubject,
  event: EventSource,
  now: Date,
): Promise<StepUpLocked> {
  const { locked_now } = await lockForWrongCodes(db, subject, now);
  if (locked_now) {
    const minutes = LOCKOUT_MS / 60_000;
    await recordSecurityEvent(db, {
      ...event,
      action: "auth.step_up_code.locked",
      detail: { wrong_codes: CODE_ATTEMPTS_MAX, locked_minutes: minutes },
    });
    try {
      await sendEmail(db, {
        ...stepUpCodesLockedEmail(CODE_ATTEMPTS_MAX, minutes),
        to: member.email,
        user_id: member.id,
      });
    } catch (error) {
      // The lock stands without the email; the audit row records it.
      logger.error({ err: error, user_id: member.id }, "step-up lock email failed");
    }
  }
  const lock = await lockoutState(db, subject, now);
  return locked(lock.locked ? lock.retry_after_s : LOCKOUT_MS / 1000);
}

async function checkCode(db: Db, member_id: string, code: string, transfer: string, now: Date): Promise<boolean> {
  const [row] = await db
    .select()
    .from(paymentStepUpCodes)
    .where(and(eq(paymentStepUpCodes.member_id, member_id), isNull(paymentStepUpCodes.used_at)))
    .orderBy(desc(paymentStepUpCodes.member_id), desc(paymentStepUpCodes.id))
    .limit(1);
  if (!row || row.expires_at.getTime() <= now.getTime() || row.attempts >= STEP_UP_TRIES_MAX) return false;
  const matches = CODE_PATTERN.test(code) && sameHash(row.code_hash, hash(member_id, transfer, code));
  if (!matches) {
    await db
      .update(paymentStepUpCodes)
      .set({ attempts: sql`${paymentStepUpCodes.attempts} + 1` })
      .where(eq(paymentStepUpCodes.id, row.id));
    return false;
  }
  // Used once: the update succeeds for exactly one of two racing requests.
  const used = await db
    .update(paymentStepUpCodes)
    .set({ used_at: sql`now()` })
    .where(
      and(
        eq(paymentStepUpCodes.id, row.id),
        isNull(paymentStepUpCodes.used_at),
        sql`${paymentStepUpCodes.attempts} < ${STEP_UP_TRIES_MAX}`,
      ),
    )
    .returning({ id: paymentStepUpCodes.id });
  return used.length === 1;
}

// --- Passkeys (docs/product.md#step-up-codes, docs/product.md#passkeys) ---------------------------

/**
 * What confirms a money action: the emailed code (a string), or a passkey's answer to a challenge
 * issued for this member and this transfer (`stepUpPasskeyOptions`).
 */
export type StepUpProof = string | { passkey_response: string };

/** Nothing was given: no code typed, no passkey answer. */
export function stepUpMissing(proof: StepUpProof): boolean {
  return typeof proof === "string" ? proof.trim() === "" : proof.passkey_response === "";
}

/**
 * The challenge a member's passkey signs to confirm one transfer: bound to the member and to
 * `transfer` (stepUpTransfer: the form's key, the accounts, the amount and the payee), exactly what
 * the emailed code is bound to, so an answer for "$20 to Lee Park" confirms nothing else. Null when
 * the member has no passkey, or while their money actions are locked.
 */
export async function stepUpPasskeyOptions(
  db: Db,
  member: Actor,
  transfer: string,
  now: Date = new Date(),
): Promise<PublicKeyCredentialRequestOptionsJSON | null> {
  if ((await stepUpLockState(db, member.id, now)).locked) return null;
  if ((await countPasskeys(db, member.id)) === 0) return null;
  return assertionOptions(db, "step_up", { user_id: member.id, bound_hash: stepUpBinding(member.id, transfer) }, now);
}

/** Checks the code or the passkey answer that confirms a transfer, with the same count, lock and audit. */
export async function verifyStepUp(
  db: Db,
  member: Actor,
  input: { proof: StepUpProof; transfer: string; action: StepUpAction; origin?: StepUpOrigin },
  now: Date = new Date(),
): Promise<StepUpCheck> {
  if (typeof input.proof === "string") return verifyStepUpCode(db, member, { code: input.proof.trim(), ...input }, now);
  return verifyStepUpPasskey(db, member, { response_json: input.proof.passkey_response, ...input }, now);
}

/**
 * A passkey's answer: refused while the member's codes are locked, counted with their codes before
 * it is checked (a refused answer is a wrong code), and right only for a challenge issued for this
 * member and this transfer, signed by one of their passkeys.
 */
async function verifyStepUpPasskey(
  db: Db,
  member: Actor,
  input: { response_json: string; transfer: string; action: StepUpAction; origin?: StepUpOrigin },
  now: Date,
): Promise<StepUpCheck> {
  const subject = lockSubject(member.id);
  const event: EventSource = {
    user_id: member.id,
    email: member.email,
    request_id: input.origin?.request_id ?? null,
    ip: input.origin?.ip ?? null,
  };
  const lock = await lockoutState(db, subject, now);
  if (lock.locked) {
    await recordSecurityEvent(db, {
      action: "auth.step_up_code.refused",
      ...event,
      detail: { action: input.action, reason: "locked", by: "passkey" },
    });
    return locked(lock.retry_after_s);
  }
  const counted = await recordCodeAttempt(db, subject, now);
  const check = counted.allowed
    ? await checkAssertion(
        db,
        input.response_json,
        { purpose: "step_up", user_id: member.id, bound_hash: stepUpBinding(member.id, input.transfer) },
        now,
      )
    : null;
  if (check?.ok) {
    await clearCodeAttempts(db, subject, now);
    await recordSecurityEvent(db, {
      action: "auth.step_up_passkey.confirmed",
      ...event,
      detail: { action: input.action, passkey_id: check.owner.passkey_id },
    });
    return { ok: true };
  }
  const locks = counted.attempts >= CODE_ATTEMPTS_MAX;
  await recordSecurityEvent(db, {
    action: "auth.step_up_passkey.refused",
    ...event,
    detail: {
      action: input.action,
      reason: check?.reason ?? "attempts",
      recent_codes: counted.attempts,
      locked: locks,
    },
  });
  if (!locks) return wrongCode();
  return lockForWrongCodesOf(db, member, subject, event, now);
}
