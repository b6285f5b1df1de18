import { sql } from "drizzle-orm";
import { env } from "~/config/env.server";
import type { Db } from "~/server/db/client.server";
import { deliverOutboxMessage, SECRET_KINDS } from "~/server/mail/outbox.server";

/**
 * Delivery retries for the outbox (docs/architecture.md#email): a message is sent by SMTP right
 * after it is written; one whose delivery failed, or never finished (the process stopped), is
 * tried again here, each message waiting longer after each attempt (1, 2, 4 ... minutes after it
 * was written), at most `OUTBOX_ATTEMPTS_MAX` times. A sign-in code or reset link is retried only
 * while it could still be used. Without SMTP_URL the outbox is the mailbox and nothing is sent.
 */
export const OUTBOX_ATTEMPTS_MAX = 8;
/** Longer than any code or link stays valid. */
export const SECRET_RETRY_WINDOW_MS = 30 * 60_000;
/** A message this young may still be in its first delivery, started when it was written. */
export const FIRST_DELIVERY_MS = 60_000;
const BATCH_MAX = 100;

export interface OutboxRetryCounts {
  [name: string]: number | string | boolean | null;
  mail_server: "configured" | "not configured";
  tried: number;
  delivered: number;
  failed: number;
}

export class OutboxDeliveryFailed extends Error {}

export async function retryOutboxDeliveries(
  db: Db,
  job_now: Date,
  options: { smtp?: boolean; deliver?: (db: Db, id: number) => Promise<"sent" | "failed" | "skipped"> } = {},
): Promise<OutboxRetryCounts> {
  const smtp = options.smtp ?? Boolean(env().SMTP_URL);
  if (!smtp) return { mail_server: "not configured", tried: 0, delivered: 0, failed: 0 };
  const deliver = options.deliver ?? deliverOutboxMessage;
  const now = job_now.toISOString();
  const secretKinds = sql.join(
    SECRET_KINDS.map((k) => sql`${k}`),
    sql`, `,
  );
  // The partial index outbox_unsent_idx holds exactly the unsent rows.
  const due = await db.execute<{ id: number }>(sql`
    select id from outbox
     where sent_at is null and attempts < ${OUTBOX_ATTEMPTS_MAX}
       and created_at <= ${now}::timestamptz - ${`${FIRST_DELIVERY_MS} milliseconds`}::interval
       and created_at + interval '1 minute' * power(2, attempts) <= ${now}::timestamptz
       and (kind not in (${secretKinds}) or created_at > ${now}::timestamptz - ${`${SECRET_RETRY_WINDOW_MS} milliseconds`}::interval)
     order by id
     limit ${BATCH_MAX}`);
  let delivered = 0;
  let failed = 0;
  for (const row of due.rows) {
    const outcome = await deliver(db, Number(row.id));
    if (outcome === "sent") delivered++;
    else if (outcome === "failed") failed++;
  }
  const counts: OutboxRetryCounts = { mail_server: "configured", tried: due.rows.length, delivered, failed };
  // The mail server refusing every message is the run's failure, for staff to see and the run to
  // be retried; each message's own error is on its outbox row.
  if (failed > 0 && delivered === 0)
    throw new OutboxDeliveryFailed(
      `The mail server did not accept any of ${failed} message(s); each message's error is in the outbox.`,
    );
  return counts;
}
