import type { Actor } from "~/domain/actor";
import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { achInboundEntries, ledgerAccounts, type AchInboundEntry, type SanctionsScreening } from "~/server/db/schema";
import { notifyAll, type NotificationInput } from "~/server/notifications/notifications.server";
import { recordAudit } from "~/server/audit/audit.server";
import { returnReason } from "~/domain/nacha/return-file";
import { formatCents } from "~/domain/money";
import { accountLabel } from "~/domain/account-display";
import type { ReportSubject } from "~/domain/sanctions/report";
import { creditReviewsOf, postMoney } from "./inbound-posting.server";
import { recordCreditReviews } from "./inbound-monitoring.server";
import type { Item } from "./inbound-entries.server";

/**
 * What staff's decision on an IAT entry's possible sanctions match does to the entry
 * (docs/product.md#iat-entries), inside the screening decision's own transaction
 * (app/server/sanctions/screening.server.ts, called from the back office):
 * - cleared: the entry is decided against its account now, as the upload would have (posted, the
 *   member notified; or returned for its account's reason: closed R02, frozen R16...), and a
 *   credit goes through the monitoring of incoming credits like any other;
 * - confirmed: the entry is blocked, never posted; the caller freezes the account it named and
 *   drafts the report to OFAC.
 */

async function lockScreenedEntry(tx: DbOrTx, screening: SanctionsScreening): Promise<AchInboundEntry> {
  const [entry] = await tx
    .select()
    .from(achInboundEntries)
    .where(eq(achInboundEntries.id, Number(screening.subject_id)))
    .for("update");
  if (!entry || entry.status !== "screening")
    throw new Error(`IAT entry ${screening.subject_id} is not waiting for its screening`);
  return entry;
}

/** Cleared: the entry posts (or is returned for its account's reason); the answer says which. */
export async function postClearedIatEntry(
  tx: DbOrTx,
  screening: SanctionsScreening,
  staff: Actor,
  now: Date = new Date(),
): Promise<string> {
  const entry = await lockScreenedEntry(tx, screening);
  const item: Item = { ...entry, change: null };
  const notes: NotificationInput[] = [];
  const [decision] = await postMoney(tx, [item], staff, now, `ach-in-iat:${entry.id}`, notes);
  if (!decision || (decision.status !== "posted" && decision.status !== "returned"))
    throw new Error(`ACH in: a cleared IAT entry was decided ${decision?.status ?? "nothing"}`);
  await tx
    .update(achInboundEntries)
    .set({
      status: decision.status,
      return_code: decision.return_code ?? null,
      account_id: decision.account_id ?? null,
      transaction_id: decision.transaction_id ?? null,
      resolved_at: now,
    })
    .where(eq(achInboundEntries.id, entry.id));
  await recordCreditReviews(tx, creditReviewsOf([decision]));
  await notifyAll(tx, notes);
  await recordAudit(tx, {
    actor_id: staff.id,
    actor_email: staff.email,
    action: "ach_inbound.iat_cleared",
    subject_type: "ach_inbound_entry",
    subject_id: entry.id,
    before: { status: "screening", screening_id: screening.id },
    after: {
      status: decision.status,
      return_code: decision.return_code ?? null,
      transaction_id: decision.transaction_id ?? null,
      amount_cents: Number(entry.amount_cents),
    },
  });
  const amount = formatCents(Number(entry.amount_cents));
  return decision.status === "posted"
    ? `the ${entry.kind} of ${amount} was posted.`
    : `the ${entry.kind} of ${amount} could not post (${decision.return_code}: ${returnReason(decision.return_code ?? "")}); it waits in Returned items for the return file.`;
}

/** Confirmed: the entry is blocked (never posted). Returns the account to freeze (a member's, not closed) and the report's facts. */
export async function blockIatEntry(
  tx: DbOrTx,
  screening: SanctionsScreening,
  staff: Actor,
  now: Date = new Date(),
): Promise<{ account_id: number | null; report: ReportSubject }> {
  const entry = await lockScreenedEntry(tx, screening);
  const [account] = await tx
    .select({
      id: ledgerAccounts.id,
      type: ledgerAccounts.type,
      account_number: ledgerAccounts.account_number,
      status: ledgerAccounts.status,
    })
    .from(ledgerAccounts)
    .where(and(eq(ledgerAccounts.account_number, entry.account_number), eq(ledgerAccounts.owner, "member")));
  await tx
    .update(achInboundEntries)
    .set({ status: "blocked", account_id: account?.id ?? null, resolved_at: now })
    .where(eq(achInboundEntries.id, entry.id));
  await recordAudit(tx, {
    actor_id: staff.id,
    actor_email: staff.email,
    action: "ach_inbound.iat_blocked",
    subject_type: "ach_inbound_entry",
    subject_id: entry.id,
    before: { status: "screening", screening_id: screening.id },
    after: { status: "blocked", amount_cents: Number(entry.amount_cents) },
  });
  const open = account && account.status !== "closed" ? account : null;
  return {
    account_id: open ? Number(open.id) : null,
    report: {
      type: "ach_entry",
      kind: entry.kind === "debit" ? "debit" : "credit",
      amount_cents: Number(entry.amount_cents),
      originator: entry.company_name,
      trace_number: entry.trace_number,
      account: open ? accountLabel(open) : null,
    },
  };
}

/** The screening decision's callbacks for an IAT entry (passed to `decideScreeningCase` by its callers). */
export function iatScreeningDecisions(staff: Actor) {
  return {
    onEntryCleared: (tx: DbOrTx, screening: SanctionsScreening) => postClearedIatEntry(tx, screening, staff),
    onEntryConfirmed: (tx: DbOrTx, screening: SanctionsScreening) => blockIatEntry(tx, screening, staff),
  };
}
