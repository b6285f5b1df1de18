import type { Actor } from "~/domain/actor";
import { refusal, type Refusal } from "~/domain/refusals";
import { inRefusableTransaction, refuse } from "~/server/db/refusable-transaction.server";
import { alias } from "drizzle-orm/pg-core";
import { count, eq } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { achInboundEntries, achInboundFiles, type AchInboundEntry } from "~/server/db/schema";
import { notifyAll, type NotificationInput } from "~/server/notifications/notifications.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { returnReason } from "~/domain/nacha/return-file";
import { formatCents } from "~/domain/money";
import { DUPLICATE_WINDOW_BUSINESS_DAYS } from "./inbound.server";
import { creditReviewsOf, postMoney } from "./inbound-posting.server";
import { recordCreditReviews } from "./inbound-monitoring.server";
import type { Item } from "./inbound-entries.server";

/**
 * Possible duplicates (docs/product.md#ach-in): a credit or debit of an inbound file that repeats
 * one received in the last DUPLICATE_WINDOW_BUSINESS_DAYS (same trace number, amount, effective
 * date and receiving account: a file re-sent under a new header) is held, no money moved, until
 * staff decide: Post (it was a second, real payment: it posts as the upload would have posted
 * it) or Return (a duplicate: R24, "Duplicate entry", it goes back in the next return file).
 * Each decision is one database transaction, audited.
 */

export { DUPLICATE_WINDOW_BUSINESS_DAYS };

export async function heldEntriesCount(db: DbOrTx): Promise<number> {
  const [row] = await db.select({ n: count() }).from(achInboundEntries).where(eq(achInboundEntries.status, "held"));
  return Number(row?.n ?? 0);
}

export interface HeldEntry {
  id: number;
  kind: string;
  company_name: string;
  entry_description: string;
  individual_name: string;
  /** The account number as the entry named it, masked but for the last four. */
  account: string;
  amount_cents: number;
  trace_number: string;
  effective_date: string;
  file_name: string;
  line: number;
  received_at: Date;
  /** The earlier entry it repeats: its file, and what became of it. */
  earlier: { file_name: string; line: number; status: string; received_at: Date } | null;
}

export const HELD_ROWS_MAX = 100;

function mask(account_number: string): string {
  return account_number.length <= 4 ? account_number : `••${account_number.slice(-4)}`;
}

const EARLIER_STATUS: Record<string, string> = {
  posted: "posted",
  returned: "returned",
  held: "held too",
  received: "being posted",
};

export async function heldEntries(db: DbOrTx): Promise<HeldEntry[]> {
  const earlier = alias(achInboundEntries, "earlier");
  const earlier_file = alias(achInboundFiles, "earlier_file");
  const rows = await db
    .select({
      e: achInboundEntries,
      file_name: achInboundFiles.file_name,
      uploaded_at: achInboundFiles.uploaded_at,
      earlier,
      earlier_file_name: earlier_file.file_name,
      earlier_uploaded_at: earlier_file.uploaded_at,
    })
    .from(achInboundEntries)
    .innerJoin(achInboundFiles, eq(achInboundFiles.id, achInboundEntries.file_id))
    .leftJoin(earlier, eq(earlier.id, achInboundEntries.duplicate_of_entry_id))
    .leftJoin(earlier_file, eq(earlier_file.id, earlier.file_id))
    .where(eq(achInboundEntries.status, "held"))
    .orderBy(achInboundEntries.id)
    .limit(HELD_ROWS_MAX);
  return rows.map(({ e, file_name, uploaded_at, earlier: first, earlier_file_name, earlier_uploaded_at }) => ({
    id: Number(e.id),
    kind: e.kind,
    company_name: e.company_name,
    entry_description: e.entry_description,
    individual_name: e.individual_name,
    account: mask(e.account_number),
    amount_cents: Number(e.amount_cents),
    trace_number: e.trace_number,
    effective_date: e.effective_date,
    file_name,
    line: e.line,
    received_at: uploaded_at,
    earlier:
      first && earlier_file_name && earlier_uploaded_at
        ? {
            file_name: earlier_file_name,
            line: first.line,
            status: EARLIER_STATUS[first.status] ?? first.status,
            received_at: earlier_uploaded_at,
          }
        : null,
  }));
}

export type HeldResult = { ok: true; message: string } | Refusal;

export const HELD_MESSAGES = {
  not_found: "This held entry was not found.",
  decided: "This entry was already posted or returned.",
} as const;

async function lockHeld(tx: DbOrTx, entry_id: number): Promise<AchInboundEntry> {
  if (!Number.isSafeInteger(entry_id) || entry_id <= 0) return refuse(refusal("not_found", HELD_MESSAGES.not_found));
  const [entry] = await tx.select().from(achInboundEntries).where(eq(achInboundEntries.id, entry_id)).for("update");
  if (!entry || (entry.kind !== "credit" && entry.kind !== "debit"))
    return refuse(refusal("not_found", HELD_MESSAGES.not_found));
  if (entry.status !== "held") return refuse(refusal("conflict", HELD_MESSAGES.decided));
  return entry;
}

/** A decision in one database transaction; a refusal inside it (`refuse`) rolls it back. */
function decide(db: Db, work: (tx: DbOrTx) => Promise<HeldResult>): Promise<HeldResult> {
  return inRefusableTransaction(db, work);
}

/**
 * Post: staff found it is a real payment (the company sent it twice on purpose). It is decided
 * against the member's account now, as the upload decides (a closed, frozen or missing account,
 * or a debit beyond the available balance, returns it instead), and the member is notified.
 */
export async function postHeldEntry(
  db: Db,
  entry_id: number,
  staff: Actor,
  origin: AuditOrigin,
  options: { now?: Date } = {},
): Promise<HeldResult> {
  return decide(db, async (tx) => {
    const entry = await lockHeld(tx, entry_id);
    const item: Item = { ...entry, change: null };
    const notes: NotificationInput[] = [];
    const [decision] = await postMoney(tx, [item], staff, options.now ?? new Date(), `ach-in-held:${entry.id}`, notes);
    if (!decision || (decision.status !== "posted" && decision.status !== "returned"))
      throw new Error(`ACH in: a held entry was decided ${decision?.status ?? "nothing"}`);
    await tx
      .update(achInboundEntries)
      .set({
        status: decision.status,
        return_code: decision.return_code ?? null,
        account_id: decision.account_id ?? null,
        transaction_id: decision.transaction_id ?? null,
        resolved_at: new Date(),
      })
      .where(eq(achInboundEntries.id, entry.id));
    await recordCreditReviews(tx, creditReviewsOf([decision]));
    await notifyAll(tx, notes);
    await recordAudit(tx, {
      actor_id: staff.id,
      actor_email: staff.email,
      action: "ach_inbound.duplicate_posted",
      subject_type: "ach_inbound_entry",
      subject_id: entry.id,
      before: { status: "held", duplicate_of_entry_id: entry.duplicate_of_entry_id },
      after: {
        status: decision.status,
        return_code: decision.return_code ?? null,
        transaction_id: decision.transaction_id ?? null,
        amount_cents: Number(entry.amount_cents),
      },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    const amount = formatCents(Number(entry.amount_cents));
    return decision.status === "posted"
      ? { ok: true, message: `The ${entry.kind} of ${amount} was posted.` }
      : {
          ok: true,
          message: `The ${entry.kind} of ${amount} could not post (${decision.return_code}: ${returnReason(decision.return_code ?? "")}); it waits in Returned items for the return file.`,
        };
  });
}

/** Return: a duplicate. It goes back as R24 (Duplicate entry) in the next return file; nothing moved, so nothing is undone. */
export async function returnHeldEntry(
  db: Db,
  entry_id: number,
  staff: Actor,
  origin: AuditOrigin,
): Promise<HeldResult> {
  return decide(db, async (tx) => {
    const entry = await lockHeld(tx, entry_id);
    await tx
      .update(achInboundEntries)
      .set({ status: "returned", return_code: "R24", resolved_at: new Date() })
      .where(eq(achInboundEntries.id, entry.id));
    await recordAudit(tx, {
      actor_id: staff.id,
      actor_email: staff.email,
      action: "ach_inbound.duplicate_returned",
      subject_type: "ach_inbound_entry",
      subject_id: entry.id,
      before: { status: "held", duplicate_of_entry_id: entry.duplicate_of_entry_id },
      after: { status: "returned", return_code: "R24", amount_cents: Number(entry.amount_cents) },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return {
      ok: true,
      message: `The ${entry.kind} of ${formatCents(Number(entry.amount_cents))} was marked as a duplicate (R24); it waits in Returned items for the return file.`,
    };
  });
}
