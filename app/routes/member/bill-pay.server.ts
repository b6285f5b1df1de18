import { withDatabase } from "~/server/db/db.server";
import type { SessionUser } from "~/server/auth/session.server";
import type { AuditOrigin } from "~/server/audit/audit.server";
import { addPayee, removePayee } from "~/server/bill-pay/payees.server";
import { billPayOverview } from "~/server/bill-pay/overview.server";
import { cancelBillPayment, editBillPayment, scheduleBillPayment } from "~/server/bill-pay/bill-pay.server";
import type { BillPayForm, EditBillPaymentForm, PayeeForm } from "~/domain/bill-pay";

/** What /dashboard/bill-pay calls (its view-model): each opens the database itself. */

function asMember(user: SessionUser) {
  return { id: user.id, email: user.email };
}

/** The member's paying accounts, payees, upcoming payments and history; `editing` only if it is one of theirs. */
export const loadBillPay = withDatabase(async (database, user: SessionUser, editing: number) => {
  const page = await billPayOverview(database, user.id);
  return { ...page, editing: page.upcoming.some((p) => p.id === editing) ? editing : null };
});

export const savePayee = withDatabase((database, user: SessionUser, form: PayeeForm, origin: AuditOrigin) =>
  addPayee(database, asMember(user), form, origin),
);

export const deletePayee = withDatabase((database, user: SessionUser, payee_id: number, origin: AuditOrigin) =>
  removePayee(database, asMember(user), payee_id, origin),
);

export const schedulePayment = withDatabase((database, user: SessionUser, form: BillPayForm, origin: AuditOrigin) =>
  scheduleBillPayment(database, asMember(user), form, origin),
);

export const changePayment = withDatabase(
  (database, user: SessionUser, form: EditBillPaymentForm, origin: AuditOrigin) =>
    editBillPayment(database, asMember(user), form, origin),
);

export const cancelPayment = withDatabase((database, user: SessionUser, payment_id: number, origin: AuditOrigin) =>
  cancelBillPayment(database, asMember(user), payment_id, origin),
);
