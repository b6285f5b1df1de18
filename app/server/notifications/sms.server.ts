import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { env } from "~/config/env.server";
import { institution } from "~/config/institution.server";
import type { Db } from "~/server/db/client.server";
import { smsMessages, smsNumbers } from "~/server/db/schema";
import { recordSecurityEvent } from "~/server/audit/audit.server";
import crypto from "node:crypto";
import { decryptField, encryptField, keyedHash, sameHash } from "~/server/security/crypto.server";
import { logger } from "~/server/logger.server";
import {
  maskPhoneNumber,
  notificationText,
  parseE164,
  SMS_CODE_TRIES,
  SMS_CODE_VALID_MS,
  SMS_CODES_PER_HOUR,
  SMS_CODES_WINDOW_MS,
  verificationText,
} from "~/domain/sms";

/**
 * Text messages (docs/product.md#text-messages, docs/decisions/0029-notification-channels.md).
 *
 * A member adds a mobile number, confirms it with a 6-digit code texted to it, and chooses which
 * groups of notifications also come by text. Every text goes through the `sms_messages` outbox: a
 * verification code is written there by the request (and sent right away), a notification's text
 * by the trigger on `notifications` in the notification's own transaction; the sms-delivery job
 * sends what is due, retrying a refusal with backoff.
 *
 * The provider is the institution profile's `sms` section (Twilio's Messages API) with the account
 * id and auth token from SMS_ACCOUNT_SID and SMS_AUTH_TOKEN; without them nothing is offered or sent.
 * Logs and errors never carry the number or the text.
 */

export interface SmsProvider {
  name: string;
  /** The Messages resource: {api_url}/2010-04-01/Accounts/{account id}/Messages.json. */
  messages_url: string;
  from_number: string;
  account_sid: string;
  auth_token: string;
}

/** The configured provider, or null: then members are not offered text messages and none is sent. */
export function smsProvider(): SmsProvider | null {
  const profile = institution().sms;
  const { SMS_ACCOUNT_SID, SMS_AUTH_TOKEN, MUTUAL_DRILL } = env();
  // A restore drill's copy holds real members' numbers: nothing leaves it.
  if (!profile || !SMS_ACCOUNT_SID || !SMS_AUTH_TOKEN || MUTUAL_DRILL === "1") return null;
  return {
    name: profile.name,
    messages_url: `${profile.api_url.replace(/\/+$/, "")}/2010-04-01/Accounts/${encodeURIComponent(SMS_ACCOUNT_SID)}/Messages.json`,
    from_number: profile.from_number,
    account_sid: SMS_ACCOUNT_SID,
    auth_token: SMS_AUTH_TOKEN,
  };
}

/** The associated data a member's encrypted number is bound to. */
export const smsNumberContext = (member_id: string) => `sms_numbers.number:${member_id}`;
/** The associated data a verification text (it holds the code) is bound to. */
export const smsBodyContext = (member_id: string) => `sms_messages.body:${member_id}`;
const numberContext = smsNumberContext;
const bodyContext = smsBodyContext;
/**
 * A verification code: 6 digits from a cryptographic source, stored only as a keyed hash bound to
 * its number, as the sign-in codes are (app/server/auth/codes.server.ts, a floor this one may not use).
 */
const newCode = () => crypto.randomInt(0, 1_000_000).toString().padStart(6, "0");
const codeHash = (number_id: number, code: string) => keyedHash("code:sms-number", `${number_id}\u0000${code}`);
const codeMatches = (stored: string, number_id: number, code: string) =>
  /^\d{6}$/.test(code) && sameHash(stored, codeHash(number_id, code));

export interface SmsNumberView {
  id: number;
  /** "•••• 0143": the full number is never shown again. */
  masked: string;
  verified_at: Date | null;
  /** A code is waiting to be typed until then (null when verified or no code is pending). */
  code_expires_at: Date | null;
}

/** The member's live number, or null. */
export async function smsNumberOf(db: Db, member_id: string): Promise<SmsNumberView | null> {
  const [row] = await db
    .select()
    .from(smsNumbers)
    .where(and(eq(smsNumbers.member_id, member_id), isNull(smsNumbers.removed_at)));
  if (!row) return null;
  return {
    id: row.id,
    masked: maskPhoneNumber(decryptField(row.number, numberContext(member_id))),
    verified_at: row.verified_at,
    code_expires_at: row.verified_at ? null : row.code_expires_at,
  };
}

type Origin = { request_id?: string | null; ip?: string | null };
type Member = { id: string; email: string };
interface SendOptions {
  provider?: SmsProvider | null;
  /** Send the code right away, not awaited (the default); tests send it themselves. */
  send_now?: boolean;
  sender?: SmsSender;
}

export type AddNumberResult =
  | { status: "code_sent"; number_id: number; message_id: number; masked: string }
  | { status: "invalid" }
  | { status: "too_many_codes" }
  | { status: "not_configured" };

/**
 * Adds the member's mobile number (replacing the one they had) and texts it a code. The number
 * receives nothing else until the code is typed back (verifySmsNumber).
 */
export async function addSmsNumber(
  db: Db,
  member: Member,
  input: { number: string },
  origin: Origin,
  options: SendOptions = {},
): Promise<AddNumberResult> {
  const provider = options.provider === undefined ? smsProvider() : options.provider;
  if (!provider) return { status: "not_configured" };
  const e164 = parseE164(input.number);
  if (!e164) return { status: "invalid" };
  const result = await db.transaction(async (tx) => {
    await lockMember(tx, member.id);
    if (await tooManyCodes(tx, member.id)) return { status: "too_many_codes" } as const;
    await tx
      .update(smsNumbers)
      .set({ removed_at: new Date(), removed_reason: "replaced" })
      .where(and(eq(smsNumbers.member_id, member.id), isNull(smsNumbers.removed_at)));
    const [row] = await tx
      .insert(smsNumbers)
      .values({ member_id: member.id, number: encryptField(e164, numberContext(member.id)) })
      .returning({ id: smsNumbers.id });
    const message_id = await queueCode(tx, member.id, row!.id);
    const masked = maskPhoneNumber(e164);
    await recordSecurityEvent(tx, {
      action: "auth.sms.number_added",
      user_id: member.id,
      email: member.email,
      detail: { number: masked },
      request_id: origin.request_id ?? null,
      ip: origin.ip ?? null,
    });
    return { status: "code_sent", number_id: row!.id, message_id, masked } as const;
  });
  if (result.status === "code_sent" && options.send_now !== false)
    void deliverSmsMessage(db, result.message_id, new Date(), { provider, sender: options.sender });
  return result;
}

export type ResendResult =
  | { status: "code_sent"; message_id: number; masked: string }
  | { status: "no_pending" }
  | { status: "too_many_codes" }
  | { status: "not_configured" };

/** A new code for the number waiting to be confirmed; the older code stops working. */
export async function resendSmsCode(
  db: Db,
  member: Member,
  origin: Origin,
  options: SendOptions = {},
): Promise<ResendResult> {
  const provider = options.provider === undefined ? smsProvider() : options.provider;
  if (!provider) return { status: "not_configured" };
  const result = await db.transaction(async (tx) => {
    await lockMember(tx, member.id);
    const [pending] = await tx
      .select({ id: smsNumbers.id, number: smsNumbers.number })
      .from(smsNumbers)
      .where(and(eq(smsNumbers.member_id, member.id), isNull(smsNumbers.removed_at), isNull(smsNumbers.verified_at)));
    if (!pending) return { status: "no_pending" } as const;
    if (await tooManyCodes(tx, member.id)) return { status: "too_many_codes" } as const;
    const message_id = await queueCode(tx, member.id, pending.id);
    await recordSecurityEvent(tx, {
      action: "auth.sms.code_resent",
      user_id: member.id,
      email: member.email,
      request_id: origin.request_id ?? null,
      ip: origin.ip ?? null,
    });
    return {
      status: "code_sent",
      message_id,
      masked: maskPhoneNumber(decryptField(pending.number, numberContext(member.id))),
    } as const;
  });
  if (result.status === "code_sent" && options.send_now !== false)
    void deliverSmsMessage(db, result.message_id, new Date(), { provider, sender: options.sender });
  return result;
}

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

async function lockMember(tx: Tx, member_id: string): Promise<void> {
  // One member's number changes one at a time (two tabs pressing Send together).
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`sms:${member_id}`}))`);
}

async function tooManyCodes(tx: Tx, member_id: string): Promise<boolean> {
  const [row] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(smsMessages)
    .where(
      and(
        eq(smsMessages.member_id, member_id),
        eq(smsMessages.purpose, "verification"),
        gt(smsMessages.created_at, sql`now() - ${`${SMS_CODES_WINDOW_MS} milliseconds`}::interval`),
      ),
    );
  return Number(row?.n ?? 0) >= SMS_CODES_PER_HOUR;
}

/** A new code on the number (the older one void, its unsent text withdrawn) and its text queued. */
async function queueCode(tx: Tx, member_id: string, number_id: number): Promise<number> {
  const code = newCode();
  await tx
    .update(smsNumbers)
    .set({
      code_hash: codeHash(number_id, code),
      code_expires_at: sql`now() + ${`${SMS_CODE_VALID_MS} milliseconds`}::interval`,
      code_attempts: 0,
    })
    .where(eq(smsNumbers.id, number_id));
  await tx
    .update(smsMessages)
    .set({ status: "failed", error: "replaced by a newer code" })
    .where(
      and(
        eq(smsMessages.number_id, number_id),
        eq(smsMessages.purpose, "verification"),
        eq(smsMessages.status, "queued"),
      ),
    );
  const [message] = await tx
    .insert(smsMessages)
    .values({
      member_id,
      number_id,
      purpose: "verification",
      body: encryptField(verificationText(institution().short_name, code), bodyContext(member_id)),
    })
    .returning({ id: smsMessages.id });
  return message!.id;
}

export type VerifyResult =
  | { status: "verified"; masked: string }
  | { status: "wrong"; tries_left: number }
  | { status: "tries_used" }
  | { status: "expired" }
  | { status: "no_pending" };

/** Confirms the pending number with the code texted to it: 10 minutes, 5 tries (docs/product.md#text-messages). */
export async function verifySmsNumber(db: Db, member: Member, code: string, origin: Origin): Promise<VerifyResult> {
  return db.transaction(async (tx) => {
    await lockMember(tx, member.id);
    const [pending] = await tx
      .select({
        id: smsNumbers.id,
        number: smsNumbers.number,
        code_hash: smsNumbers.code_hash,
        attempts: smsNumbers.code_attempts,
        expired: sql<boolean>`${smsNumbers.code_expires_at} <= now()`,
      })
      .from(smsNumbers)
      .where(and(eq(smsNumbers.member_id, member.id), isNull(smsNumbers.removed_at), isNull(smsNumbers.verified_at)));
    if (!pending?.code_hash) return { status: "no_pending" } as const;
    if (pending.attempts >= SMS_CODE_TRIES) return { status: "tries_used" } as const;
    if (pending.expired) return { status: "expired" } as const;
    if (!codeMatches(pending.code_hash, pending.id, code.trim())) {
      const attempts = pending.attempts + 1;
      await tx.update(smsNumbers).set({ code_attempts: attempts }).where(eq(smsNumbers.id, pending.id));
      await recordSecurityEvent(tx, {
        action: "auth.sms.code_wrong",
        user_id: member.id,
        email: member.email,
        detail: { attempts },
        request_id: origin.request_id ?? null,
        ip: origin.ip ?? null,
      });
      return attempts >= SMS_CODE_TRIES
        ? ({ status: "tries_used" } as const)
        : ({ status: "wrong", tries_left: SMS_CODE_TRIES - attempts } as const);
    }
    await tx
      .update(smsNumbers)
      .set({ verified_at: new Date(), code_hash: null, code_expires_at: null })
      .where(eq(smsNumbers.id, pending.id));
    const masked = maskPhoneNumber(decryptField(pending.number, numberContext(member.id)));
    await recordSecurityEvent(tx, {
      action: "auth.sms.number_verified",
      user_id: member.id,
      email: member.email,
      detail: { number: masked },
      request_id: origin.request_id ?? null,
      ip: origin.ip ?? null,
    });
    return { status: "verified", masked } as const;
  });
}

/** Removes the member's number: nothing more is texted to it, queued texts included. */
export async function removeSmsNumber(
  db: Db,
  member: Member,
  origin: Origin,
): Promise<{ status: "removed" | "not_found" }> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .update(smsNumbers)
      .set({ removed_at: new Date(), removed_reason: "removed", code_hash: null })
      .where(and(eq(smsNumbers.member_id, member.id), isNull(smsNumbers.removed_at)))
      .returning({ number: smsNumbers.number });
    if (rows.length === 0) return { status: "not_found" } as const;
    await recordSecurityEvent(tx, {
      action: "auth.sms.number_removed",
      user_id: member.id,
      email: member.email,
      detail: { number: maskPhoneNumber(decryptField(rows[0]!.number, numberContext(member.id))) },
      request_id: origin.request_id ?? null,
      ip: origin.ip ?? null,
    });
    return { status: "removed" } as const;
  });
}

/** Tries for one text; waits 1, 2, 4, 8 minutes between them. */
export const SMS_ATTEMPTS_MAX = 5;
/** A notification's text older than this is not sent any more (a late "you signed in" misleads). */
const NOTIFICATION_TEXT_TTL_S = 24 * 60 * 60;
const SEND_TIMEOUT_MS = 10_000;
const BATCH_MAX = 200;

export type SmsSender = (request: {
  url: string;
  headers: Record<string, string>;
  body: string;
}) => Promise<{ status: number; json: unknown }>;

/** Posts one message with fetch: no redirects, a timeout. */
const postToProvider: SmsSender = async ({ url, headers, body }) => {
  const response = await fetch(url, {
    method: "POST",
    headers,
    body,
    redirect: "error",
    signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
  });
  const json: unknown = await response.json().catch(() => null);
  return { status: response.status, json };
};

export type SmsOutcome = "sent" | "retry" | "failed" | "skipped";

/**
 * Sends one queued text, at most once: the row is claimed (`sending`, one more attempt) before the
 * provider is called, so two processes never both send it, and a process that stops before
 * recording the outcome leaves it `sending`, never sent again. A refusal that says the provider
 * did not take it (no connection, 429, 5xx) is retried after 1, 2, 4, 8 minutes; any other answer,
 * and a timeout (the provider may have sent it), ends it as failed. A text never tried is due at
 * once (`next_attempt_at` is the database's clock, `now` the caller's: a verification code must
 * not wait for the two to agree).
 */
export async function deliverSmsMessage(
  db: Db,
  id: number,
  now: Date,
  options: { provider?: SmsProvider | null; sender?: SmsSender } = {},
): Promise<SmsOutcome> {
  const provider = options.provider === undefined ? smsProvider() : options.provider;
  if (!provider) return "skipped";
  try {
    const claimed = await db.execute<{
      id: number;
      member_id: string;
      purpose: "verification" | "notification";
      body: string | null;
      attempts: number;
      number: string | null;
      title: string | null;
      notification_body: string | null;
      too_old: boolean;
    }>(sql`
      with claimed as (
        update sms_messages set status = 'sending', attempts = attempts + 1
         where id = ${id} and status = 'queued'
           and (attempts = 0 or next_attempt_at <= ${now.toISOString()}::timestamptz)
        returning id, member_id, number_id, purpose, body, attempts, notification_id, created_at)
      select c.id, c.member_id, c.purpose, c.body, c.attempts, p.number, n.title, n.body as notification_body,
             case when c.purpose = 'verification' then c.created_at <= now() - ${`${SMS_CODE_VALID_MS} milliseconds`}::interval
                  else c.created_at <= now() - ${`${NOTIFICATION_TEXT_TTL_S} seconds`}::interval end as too_old
        from claimed c
        left join sms_numbers p on p.id = c.number_id and p.removed_at is null
        left join notifications n on n.id = c.notification_id`);
    const row = claimed.rows[0];
    if (!row) return "skipped";
    const finish = (status: "sent" | "failed", error: string | null, provider_message_id: string | null = null) =>
      db
        .update(smsMessages)
        .set({ status, error, provider_message_id, ...(status === "sent" ? { sent_at: new Date() } : {}) })
        .where(eq(smsMessages.id, id));
    if (!row.number) {
      await finish("failed", "the number was removed or replaced");
      return "failed";
    }
    if (row.too_old) {
      await finish("failed", "expired before it could be sent");
      return "failed";
    }
    const to = decryptField(row.number, numberContext(row.member_id));
    const text =
      row.purpose === "verification"
        ? decryptField(row.body!, bodyContext(row.member_id))
        : notificationText(institution().short_name, row.title ?? "", row.notification_body ?? "");
    let outcome: { kind: "sent"; sid: string | null } | { kind: "retry" | "failed"; error: string };
    try {
      const answer = await (options.sender ?? postToProvider)({
        url: provider.messages_url,
        headers: {
          authorization: `Basic ${Buffer.from(`${provider.account_sid}:${provider.auth_token}`).toString("base64")}`,
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
        },
        body: new URLSearchParams({ To: to, From: provider.from_number, Body: text }).toString(),
      });
      outcome = readAnswer(answer);
    } catch (error) {
      outcome =
        (error as Error).name === "TimeoutError"
          ? { kind: "failed", error: "timeout: not tried again, the provider may have sent it" }
          : { kind: "retry", error: `no answer from the provider (${networkCode(error)})` };
    }
    if (outcome.kind === "sent") {
      await finish("sent", null, outcome.sid);
      return "sent";
    }
    logger.warn(
      { sms_message_id: id, attempt: Number(row.attempts), error: outcome.error },
      "a text message was not sent",
    );
    if (outcome.kind === "retry" && Number(row.attempts) < SMS_ATTEMPTS_MAX) {
      await db
        .update(smsMessages)
        .set({
          status: "queued",
          error: outcome.error,
          next_attempt_at: new Date(now.getTime() + 60_000 * 2 ** (Number(row.attempts) - 1)),
        })
        .where(eq(smsMessages.id, id));
      return "retry";
    }
    await finish("failed", outcome.error);
    return "failed";
  } catch (error) {
    // Never the number or the text: the error of a query or a decryption.
    logger.error({ err: { name: (error as Error).name }, sms_message_id: id }, "could not deliver a text message");
    return "failed";
  }
}

/** The provider's answer: Twilio answers 201 with the message's `sid`; errors carry a numeric `code`. */
function readAnswer(answer: {
  status: number;
  json: unknown;
}): { kind: "sent"; sid: string | null } | { kind: "retry" | "failed"; error: string } {
  const json = (answer.json && typeof answer.json === "object" ? answer.json : {}) as { sid?: unknown; code?: unknown };
  if (answer.status >= 200 && answer.status < 300)
    return {
      kind: "sent",
      sid: typeof json.sid === "string" && /^[A-Za-z0-9]{1,64}$/.test(json.sid) ? json.sid : null,
    };
  const code = typeof json.code === "number" && Number.isSafeInteger(json.code) ? ` (provider code ${json.code})` : "";
  const error = `HTTP ${answer.status}${code}`;
  return { kind: answer.status === 429 || answer.status >= 500 ? "retry" : "failed", error };
}

function networkCode(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  return typeof cause?.code === "string" && /^[A-Z_]{2,40}$/.test(cause.code) ? cause.code : "network error";
}

export interface SmsDeliveryCounts {
  [name: string]: number | string | boolean | null;
  sms: "configured" | "not configured";
  tried: number;
  sent: number;
  retrying: number;
  failed: number;
}

export class SmsDeliveryFailed extends Error {}

/** The sms-delivery job: sends the due texts, oldest first. Without a provider it does nothing. */
export async function deliverSms(
  db: Db,
  job_now: Date,
  options: { provider?: SmsProvider | null; sender?: SmsSender } = {},
): Promise<SmsDeliveryCounts> {
  const provider = options.provider === undefined ? smsProvider() : options.provider;
  const counts: SmsDeliveryCounts = {
    sms: provider ? "configured" : "not configured",
    tried: 0,
    sent: 0,
    retrying: 0,
    failed: 0,
  };
  if (!provider) return counts;
  const due = await db
    .select({ id: smsMessages.id })
    .from(smsMessages)
    .where(
      and(
        eq(smsMessages.status, "queued"),
        // A text never tried is due at once, whatever the two clocks say (as in deliverSmsMessage's claim).
        sql`(${smsMessages.attempts} = 0 or ${smsMessages.next_attempt_at} <= ${job_now.toISOString()}::timestamptz)`,
      ),
    )
    .orderBy(smsMessages.id)
    .limit(BATCH_MAX);
  for (const { id } of due) {
    const outcome = await deliverSmsMessage(db, id, job_now, { provider, sender: options.sender });
    if (outcome === "skipped") continue;
    counts.tried++;
    if (outcome === "sent") counts.sent++;
    else if (outcome === "retry") counts.retrying++;
    else counts.failed++;
  }
  // The provider refusing everything it was given is the run's failure, for staff to see at /admin/jobs.
  if (counts.retrying > 0 && counts.sent === 0)
    throw new SmsDeliveryFailed(
      `The SMS provider took none of ${counts.retrying} text(s); each will be tried again, its error on its sms_messages row.`,
    );
  return counts;
}
