import { withDatabase } from "~/server/db/db.server";
import type { SessionUser } from "~/server/auth/session.server";
import type { AuditOrigin } from "~/server/audit/audit.server";
import { institution } from "~/config/institution.server";
import { businessDate } from "~/domain/ledger-rules";
import {
  cancelScheduledTransfer,
  editScheduledTransfer,
  listScheduledTransfers,
  skipNextTransfer,
} from "~/server/payments/scheduled-transfer-changes.server";

/** What /dashboard/scheduled-transfers calls (its view-model): each opens the database itself, for the signed-in member only. */

function asMember(user: SessionUser) {
  return { id: user.id, email: user.email, name: user.name };
}

export const loadScheduledTransfers = withDatabase(async (database, user: SessionUser) => ({
  transfers: await listScheduledTransfers(database, user.id),
  today: businessDate(institution().time_zone),
}));

export const skipOwnTransfer = withDatabase((database, user: SessionUser, series_id: number, origin: AuditOrigin) =>
  skipNextTransfer(database, asMember(user), series_id, origin),
);

export const cancelOwnTransfer = withDatabase((database, user: SessionUser, series_id: number, origin: AuditOrigin) =>
  cancelScheduledTransfer(database, asMember(user), series_id, origin),
);

export const editOwnTransfer = withDatabase(
  (
    database,
    user: SessionUser,
    form: { series_id: number; amount_cents: number; next_date: string },
    origin: AuditOrigin,
  ) => editScheduledTransfer(database, asMember(user), form, origin),
);
