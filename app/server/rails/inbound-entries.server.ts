import { sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import type { AchInboundEntry } from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { toId } from "~/domain/ledger-rules";
import type { InboundChange } from "~/domain/nacha/reader";
import type { IatDetails } from "~/domain/nacha/iat";
import { traceSequence } from "./export.server";

/**
 * What receiving an ACH file (inbound.server.ts) shares with its notifications of change
 * (inbound-noc.server.ts) and returns (inbound-returns.server.ts), in a module of its own so that
 * neither imports the other.
 */

/** One entry of the file with its batch's fields, as it is stored once decided. */
export type Item = Omit<
  AchInboundEntry,
  "status" | "account_id" | "transaction_id" | "payment_id" | "return_file_id" | "return_trace_number" | "resolved_at"
> & {
  /** A notification of change: its addenda 98 (kept in its own table, not on the entry). */
  change?: InboundChange | null;
  /** An IAT entry: its parties and addenda (kept in their own table, not on the entry). */
  iat?: IatDetails | null;
};

/**
 * The sent ACH payment of ours an original trace number names (our routing number's first eight
 * digits, then the payment's trace sequence), locked; with `amount_cents`, only one of that
 * amount (a return carries the original's amount, a notification of change zero). Null when the
 * trace is not ours or names no sent payment.
 */
export async function sentPaymentByTrace(
  tx: DbOrTx,
  trace: string,
  amount_cents: number | null,
): Promise<number | null> {
  if (!/^\d{15}$/.test(trace) || !trace.startsWith(institution().routing_number.slice(0, 8))) return null;
  const sequence = Number(trace.slice(8));
  const candidates: number[] = [];
  for (let id = sequence; candidates.length < 20; id += 9_999_999) candidates.push(id);
  const found = await tx.execute(sql`
    select id from external_payments
     where id in (select (jsonb_array_elements_text(${JSON.stringify(candidates)}::jsonb))::bigint) and kind = 'ach' and status = 'sent'
       and (${amount_cents}::bigint is null or amount_cents = ${amount_cents})
     order by id desc limit 1
       for update`);
  const payment_id = found.rows[0] ? toId(found.rows[0].id) : null;
  return payment_id === null || traceSequence(payment_id) !== sequence ? null : payment_id;
}
