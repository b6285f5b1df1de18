import { db } from "~/server/db/db.server";
import type { DbOrTx } from "~/server/db/client.server";
import { contactMessages } from "~/server/db/schema";
import { hitRateLimit } from "~/server/rate-limit/rate-limit.server";
import { codedRefusal, type CodedRefusal } from "~/domain/refusals";
import { CONTACT_RATE_LIMITED, type ContactMessage } from "~/domain/contact";

/**
 * Messages from the public contact form (docs/product.md#contact). They are stored for staff to
 * read in the back office inbox (/admin/messages).
 */

/** Five messages per address in ten minutes: plenty for a person, little use to a spammer. */
export const CONTACT_RATE_LIMIT = { limit: 5, window_ms: 10 * 60 * 1000 } as const;

export interface ContactOrigin {
  /** The sender's IP address as the server sees it. */
  source_ip: string;
  request_id: string;
}

/** Stored; or refused (`too_many`) because the address sent its quota: `retry_after_s` until the window ends. */
export type SendContactResult = { ok: true; id: number } | (CodedRefusal<"rate_limited"> & { retry_after_s: number });

/**
 * Stores a validated message, unless this address already sent its quota in the current window:
 * then nothing is stored. Validation is the caller's (ContactMessageSchema); this is the rule
 * that holds whatever the browser does.
 */
export async function sendContactMessage(
  message: ContactMessage,
  origin: ContactOrigin,
  options: { now?: Date; database?: DbOrTx } = {},
): Promise<SendContactResult> {
  const database = options.database ?? (await db());
  const limit = await hitRateLimit(
    { key: `contact:ip:${origin.source_ip}`, ...CONTACT_RATE_LIMIT },
    { now: options.now, database },
  );
  if (!limit.allowed)
    return { ...codedRefusal("too_many", CONTACT_RATE_LIMITED, "rate_limited"), retry_after_s: limit.retry_after_s };
  const [row] = await database
    .insert(contactMessages)
    .values({
      name: message.name,
      email: message.email,
      phone: message.phone ?? null,
      subject: message.subject,
      message: message.message,
      preferred_contact: message.preferred_contact,
      source_ip: origin.source_ip,
      request_id: origin.request_id,
    })
    .returning({ id: contactMessages.id });
  return { ok: true, id: row!.id };
}

/** A short reference the visitor can quote; staff find the message by its request id. */
export function contactReference(request_id: string): string {
  return request_id.replace(/-/g, "").slice(0, 8).toUpperCase();
}
