import type { Actor } from "~/domain/actor";
import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { achInboundEntries, externalPayments, ledgerTransactions, type ExternalPayment } from "~/server/db/schema";
import { releaseHold, reverseTransaction } from "~/server/ledger/ledger.server";
import { type NotificationInput } from "~/server/notifications/notifications.server";
import { recordAudit } from "~/server/audit/audit.server";
import { formatCents } from "~/domain/money";
import { returnReason } from "~/domain/nacha/return-file";
import { sentPaymentByTrace, type Item } from "./inbound-entries.server";
import { INBOUND_INITIATOR, type Decision } from "./inbound-posting.server";
import { applyLinkedAccountReturn } from "~/server/linked-accounts/money-in-returns.server";

/**
 * A return of one of the credit union's own ACH entries: the original trace number names the
 * payment (our routing number's first eight digits, then its trace sequence). The amount must
 * match. A settled payment is reversed (the member's money comes back from the settlement
 * account), a still-held one released; the member is told why. Anything else is left for staff
 * as unmatched.
 */
export async function applyReturn(
  tx: DbOrTx,
  entry: Item,
  staff: Actor,
  notes: NotificationInput[],
): Promise<Decision> {
  const unmatched = (payment_id: number | null = null): Decision => ({ entry, status: "unmatched", payment_id });
  // A pull from a linked account or a micro-deposit (their own individual ids) is not a payment.
  const own = await applyLinkedAccountReturn(tx, entry, staff, notes);
  if (own) return own.status === "applied" ? { entry, ...own } : unmatched();
  const trace = entry.original_trace_number ?? "";
  const payment_id = await sentPaymentByTrace(tx, trace, entry.amount_cents);
  if (payment_id === null) return unmatched();
  const [payment] = await tx.select().from(externalPayments).where(eq(externalPayments.id, payment_id));
  const [already] = await tx
    .select({ id: achInboundEntries.id })
    .from(achInboundEntries)
    .where(and(eq(achInboundEntries.payment_id, payment_id), eq(achInboundEntries.status, "applied")))
    .limit(1);
  if (!payment || already) return unmatched(payment_id);

  const hold_id = Number(payment.hold_transaction_id);
  const [hold] = await tx
    .select({ status: ledgerTransactions.status })
    .from(ledgerTransactions)
    .where(eq(ledgerTransactions.id, hold_id));
  const reason = `${returnReason(entry.return_code ?? "")} (${entry.return_code})`;
  const answer =
    hold?.status === "pending"
      ? await releaseHold(tx, {
          transaction_id: hold_id,
          idempotency_key: `ach-return:${entry.file_id}:${entry.line}`,
          resolved_by: `staff:${staff.id}`,
        })
      : await reverseTransaction(tx, {
          transaction_id: hold_id,
          idempotency_key: `ach-return:${entry.file_id}:${entry.line}`,
          initiator: INBOUND_INITIATOR,
          created_by: staff.id,
          memo: `Returned by the other bank: ${reason}`,
        });
  if (!answer.ok) return unmatched(payment_id);
  notes.push(returnedNotice(payment, reason));
  await recordAudit(tx, {
    actor_id: staff.id,
    actor_email: staff.email,
    action: "ach_inbound.return_applied",
    subject_type: "external_payment",
    subject_id: payment_id,
    member_id: payment.member_id,
    after: {
      return_code: entry.return_code,
      original_trace_number: trace,
      amount_cents: entry.amount_cents,
      transaction_id: answer.transaction.id,
      inbound_file_id: entry.file_id,
      line: entry.line,
    },
  });
  return {
    entry,
    status: "applied",
    payment_id,
    transaction_id: answer.transaction.id,
    account_id: Number(payment.from_account_id),
  };
}

function returnedNotice(payment: ExternalPayment, reason: string): NotificationInput {
  return {
    member_id: payment.member_id,
    kind: "ach_returned",
    title: `Your transfer of ${formatCents(Number(payment.amount_cents))} to ${payment.details.account_name ?? "another bank"} was returned`,
    body: `The other bank sent it back: ${reason}. The money is back in your account.`,
  };
}
