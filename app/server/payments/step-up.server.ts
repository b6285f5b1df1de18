import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { paymentStepUpCodes, type OutboxKind } from "~/server/db/schema";
import { generateCode, CODE_PATTERN } from "~/server/auth/codes.server";
import { keyedHash, sameHash } from "~/server/security/crypto.server";
import { sendEmail } from "~/server/mail/outbox.server";
import { hitRateLimit } from "~/server/rate-limit/rate-limit.server";
import { institution } from "~/config/institution.server";

/**
 * Step-up one-time code that confirms a transfer: every payment to another bank (To US Bank,
 * International) and a To Another Member transfer above the profile's threshold. 6 digits sent by
 * email to the member, stored as a keyed hash, valid 10 minutes, 5 tries, used once. Sending a
 * new code voids the older ones. Sends are rate-limited (5 per 10 minutes per member).
 *
 * A code confirms one transfer only: `transfer` (`stepUpTransfer` in transfers.server.ts: the
 * form's key, the accounts, the amount and the payee) is hashed with it, so a code emailed for
 * "$20 to Lee Park" cannot confirm another transfer sent with it; for that one it is a wrong code.
 */
export const STEP_UP_VALID_MS = 10 * 60 * 1000;
export const STEP_UP_TRIES_MAX = 5;
const SENDS_PER_WINDOW = 5;

const PURPOSE = "payment-step-up";

function hash(member_id: string, transfer: string, code: string): string {
  return keyedHash(`code:${PURPOSE}`, `${member_id}\u0000${transfer}\u0000${code}`);
}

export type StepUpSendResult = { ok: true } | { ok: false; reason: "rate_limited"; retry_after_s: number };

/** What the email calls the code and the action it confirms: a transfer unless the caller says (a card's details, a PIN). */
export interface StepUpWording {
  subject: string;
  lead: string;
  unasked: string;
  confirms: string;
}
const TRANSFER_WORDING: StepUpWording = { subject: "your transfer code", lead: "Your transfer confirmation code is", unasked: "this transfer", confirms: "the transfer" };

export async function sendStepUpCode(db: Db, member: { id: string; email: string }, summary: string, transfer: string, wording: StepUpWording = TRANSFER_WORDING): Promise<StepUpSendResult> {
  const limit = await hitRateLimit({ key: `payment-step-up:${member.id}`, limit: SENDS_PER_WINDOW, window_ms: 10 * 60 * 1000 }, { database: db });
  if (!limit.allowed) return { ok: false, reason: "rate_limited", retry_after_s: limit.retry_after_s };
  const code = generateCode();
  await db
    .update(paymentStepUpCodes)
    .set({ used_at: sql`now()` })
    .where(and(eq(paymentStepUpCodes.member_id, member.id), isNull(paymentStepUpCodes.used_at)));
  await db.insert(paymentStepUpCodes).values({ member_id: member.id, code_hash: hash(member.id, transfer, code), expires_at: new Date(Date.now() + STEP_UP_VALID_MS) });
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

/**
 * Checks a code against the member's newest live code and the transfer it was sent for; a wrong
 * code (or another transfer) spends a try, the right one is used up. True only once per code.
 */
export async function verifyStepUpCode(db: Db, member_id: string, code: string, transfer: string): Promise<boolean> {
  const [row] = await db
    .select()
    .from(paymentStepUpCodes)
    .where(and(eq(paymentStepUpCodes.member_id, member_id), isNull(paymentStepUpCodes.used_at)))
    .orderBy(desc(paymentStepUpCodes.member_id), desc(paymentStepUpCodes.id))
    .limit(1);
  if (!row || row.expires_at.getTime() <= Date.now() || row.attempts >= STEP_UP_TRIES_MAX) return false;
  const matches = CODE_PATTERN.test(code) && sameHash(row.code_hash, hash(member_id, transfer, code));
  if (!matches) {
    await db.update(paymentStepUpCodes).set({ attempts: sql`${paymentStepUpCodes.attempts} + 1` }).where(eq(paymentStepUpCodes.id, row.id));
    return false;
  }
  // Used once: the update succeeds for exactly one of two racing requests.
  const used = await db
    .update(paymentStepUpCodes)
    .set({ used_at: sql`now()` })
    .where(and(eq(paymentStepUpCodes.id, row.id), isNull(paymentStepUpCodes.used_at), sql`${paymentStepUpCodes.attempts} < ${STEP_UP_TRIES_MAX}`))
    .returning({ id: paymentStepUpCodes.id });
  return used.length === 1;
}
