import { withDatabase } from "~/server/db/db.server";
import type { SessionUser } from "~/server/auth/session.server";
import type { AuditOrigin } from "~/server/audit/audit.server";
import { memberPayments } from "~/server/rails/queues.server";
import { cancelPayment } from "~/server/rails/cancel.server";

/** What /dashboard/payments calls (its view-model): each opens the database itself. */

/** The member's own payments to other banks, dates as ISO text. */
export const loadPayments = withDatabase(async (database, user: SessionUser) => {
  const payments = await memberPayments(database, user.id);
  return payments.map((p) => ({ ...p, created_at: p.created_at.toISOString() }));
});

/** The member cancels one of their own pending payments (anyone else's is not found). */
export const cancelOwnPayment = withDatabase((database, user: SessionUser, payment_id: number, origin: AuditOrigin) =>
  cancelPayment(database, payment_id, { kind: "member", id: user.id, email: user.email }, origin),
);
