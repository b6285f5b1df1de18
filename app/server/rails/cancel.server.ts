import { referenceNumber } from "~/domain/account-display";
import { eq } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { inRefusableTransaction, refuse } from "~/server/db/refusable-transaction.server";
import { refusal, type Refusal } from "~/domain/refusals";
import { externalPayments, type ExternalPayment } from "~/server/db/schema";
import { releaseHold } from "~/server/ledger/ledger.server";
import { notify } from "~/server/notifications/notifications.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { formatCents } from "~/domain/money";
import { formatCurrencyAmount } from "~/domain/currencies";
import { CANCEL_WINDOW_PASSED, withinCancelWindow } from "~/domain/remittance";

/**
 * Cancelling a payment to another bank before it is sent (docs/product.md#payment-queues): staff
 * from the queue, or the member who made it. In one database transaction the payment row is
 * locked, checked still pending, marked cancelled, its hold released (the member's available
 * balance gets back the amount, and for a wire the fee too), the member notified and the
 * cancellation audited. An export that locked the payment first wins: the cancel then sees it
 * sent and says so.
 *
 * A member's international wire is a remittance transfer (docs/product.md#remittance-transfers):
 * the member's right to cancel lasts 30 minutes (12 CFR 1005.34, `cancel_until`), and the export
 * waits for it, so inside the window the wire is always still here to cancel. After it the member
 * is refused with CANCEL_WINDOW_PASSED; staff can still cancel from the queue until it is sent.
 */

export type Canceller = { kind: "staff"; id: string; email: string } | { kind: "member"; id: string; email: string };

export type CancelRefusalCode = "not_found" | "already_sent" | "already_cancelled" | "window_passed" | "refused";

export type CancelResult = { ok: true; payment_id: number; released_cents: number } | Refusal<CancelRefusalCode>;

export const CANCEL_MESSAGES = {
  not_found: "This payment was not found.",
  already_sent: "This payment was already sent to the other bank and can no longer be cancelled.",
  already_cancelled: "This payment was already cancelled.",
  window_passed: CANCEL_WINDOW_PASSED,
} as const;

/** A payment not found (or another member's) is `not_found`; every other refusal is a conflict with its state. */
function cancelRefusal(code: Exclude<CancelRefusalCode, "refused">): Refusal<CancelRefusalCode> {
  return refusal(code === "not_found" ? "not_found" : "conflict", CANCEL_MESSAGES[code], { code });
}

function describe(p: ExternalPayment): string {
  return p.kind === "ach"
    ? `Transfer of ${formatCents(Number(p.amount_cents))} to ${p.details.account_name ?? "another bank"}`
    : `International transfer of ${formatCurrencyAmount(Number(p.foreign_amount_minor ?? 0), p.currency)} to ${p.details.recipient_name ?? "your recipient"}`;
}

async function release(tx: DbOrTx, payment: ExternalPayment, by: string): Promise<void> {
  const answer = await releaseHold(tx, {
    transaction_id: Number(payment.hold_transaction_id),
    idempotency_key: `cancel:${payment.id}`,
    resolved_by: by,
  });
  if (!answer.ok) refuse(refusal("conflict", `The hold could not be released (${answer.code}).`, { code: "refused" }));
}

export async function cancelPayment(
  db: Db,
  payment_id: number,
  by: Canceller,
  origin: AuditOrigin,
  options: { now?: Date } = {},
): Promise<CancelResult> {
  const now = options.now ?? new Date();
  if (!Number.isSafeInteger(payment_id) || payment_id <= 0) return cancelRefusal("not_found");
  return inRefusableTransaction<CancelResult>(db, async (tx) => {
    const [payment] = await tx.select().from(externalPayments).where(eq(externalPayments.id, payment_id)).for("update");
    // Another member's payment answers as one that does not exist: its existence is not theirs to learn.
    if (!payment || (by.kind === "member" && payment.member_id !== by.id)) return cancelRefusal("not_found");
    if (payment.status === "sent") return cancelRefusal("already_sent");
    if (payment.status === "cancelled") return cancelRefusal("already_cancelled");
    if (by.kind === "member" && payment.cancel_until !== null && !withinCancelWindow(payment.cancel_until, now))
      return cancelRefusal("window_passed");
    const actor = `${by.kind}:${by.id}`;
    await release(tx, payment, actor);
    await tx
      .update(externalPayments)
      .set({ status: "cancelled", resolved_at: now, resolved_by: actor })
      .where(eq(externalPayments.id, payment.id));
    const released_cents = Number(payment.amount_cents) + Number(payment.fee_cents);
    const reference = referenceNumber(Number(payment.hold_transaction_id));
    await notify(tx, {
      member_id: payment.member_id,
      kind: "payment_cancelled",
      title: `${describe(payment)} was cancelled`,
      body:
        by.kind === "member"
          ? `You cancelled it before it was sent. ${formatCents(released_cents)} is available again. Reference ${reference}.`
          : `Our staff cancelled it before it was sent. ${formatCents(released_cents)} is available again. Please contact us if you have questions. Reference ${reference}.`,
    });
    await recordAudit(tx, {
      actor_id: by.id,
      actor_email: by.email,
      action: by.kind === "staff" ? "payment.cancel" : "payment.cancel_by_member",
      subject_type: "external_payment",
      subject_id: payment.id,
      member_id: payment.member_id,
      before: { status: "pending" },
      after: {
        status: "cancelled",
        kind: payment.kind,
        released_cents,
        // A remittance transfer cancelled by the member under 1005.34: when its window closed.
        ...(payment.cancel_until ? { cancel_until: payment.cancel_until.toISOString() } : {}),
      },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return { ok: true, payment_id: Number(payment.id), released_cents } as const;
  });
}
