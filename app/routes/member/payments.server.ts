import { withDatabase } from "~/server/db/db.server";
import type { SessionUser } from "~/server/auth/session.server";
import type { AuditOrigin } from "~/server/audit/audit.server";
import { memberPayments } from "~/server/rails/queues.server";
import { cancelPayment } from "~/server/rails/cancel.server";
import {
  institutionTime,
  receiptRows,
  remittanceReceipt,
  renderRemittanceReceiptPdf,
  rightsText,
} from "~/server/payments/remittance.server";
import { withinCancelWindow } from "~/domain/remittance";

/** What /dashboard/payments calls (its view-model): each opens the database itself. */

/** The member's own payments to other banks, dates as ISO text. */
export const loadPayments = withDatabase(async (database, user: SessionUser) => {
  const payments = await memberPayments(database, user.id);
  const now = new Date();
  return payments.map(({ cancel_until, ...p }) => ({
    ...p,
    created_at: p.created_at.toISOString(),
    // Pending, and for a wire still inside its 30 minutes: after them the member is refused anyway.
    can_cancel: p.status === "pending" && (cancel_until === null || withinCancelWindow(cancel_until, now)),
  }));
});

/** The member cancels one of their own pending payments (anyone else's is not found). */
export const cancelOwnPayment = withDatabase((database, user: SessionUser, payment_id: number, origin: AuditOrigin) =>
  cancelPayment(database, payment_id, { kind: "member", id: user.id, email: user.email }, origin),
);

/** One of the member's own wires as its remittance transfer receipt (docs/product.md#remittance-transfers), dates as ISO text. */
export const loadReceipt = withDatabase(async (database, user: SessionUser, payment_id: number, now: Date) => {
  const receipt = await remittanceReceipt(database, user.id, payment_id);
  if (!receipt) return null;
  const { paid_at, cancel_until, ...rest } = receipt;
  return {
    ...rest,
    paid_at: paid_at.toISOString(),
    cancel_until: cancel_until?.toISOString() ?? null,
    rows: receiptRows(receipt),
    rights: rightsText(receipt),
    // The button shows only while the member may still cancel: pending (or held for review) and in the window.
    can_cancel:
      (receipt.status === "pending" || receipt.status === "screening") &&
      (cancel_until === null || withinCancelWindow(cancel_until, now)),
  };
});

/** The receipt's PDF, or null when it is not the member's wire. */
export const receiptPdf = withDatabase(async (database, user: SessionUser, payment_id: number) => {
  const receipt = await remittanceReceipt(database, user.id, payment_id);
  if (!receipt) return null;
  return {
    pdf: await renderRemittanceReceiptPdf(receipt, institutionTime),
    file_name: `receipt-${receipt.reference_number}.pdf`,
  };
});

/** The member cancels their own wire from its receipt, inside the 30-minute window (1005.34). */
export const cancelFromReceipt = withDatabase(
  (database, user: SessionUser, payment_id: number, origin: AuditOrigin, now: Date) =>
    cancelPayment(database, payment_id, { kind: "member", id: user.id, email: user.email }, origin, { now }),
);
