import { withDatabase } from "~/server/db/db.server";
import type { SessionUser } from "~/server/auth/session.server";
import type { AuditOrigin } from "~/server/audit/audit.server";
import type { AccountAlertKind } from "~/domain/alerts";
import { addAlert, editAlertAmount, loadAlerts, removeAlert } from "~/server/alerts/alerts.server";
import { updateNotificationSettings } from "~/server/settings/settings.server";

/** What /settings/alerts calls (its view-model): each opens the database itself, for the signed-in member only. */

function asMember(user: SessionUser) {
  return { id: user.id, email: user.email };
}

export const loadOwnAlerts = withDatabase((database, user: SessionUser) => loadAlerts(database, user.id));

export const addOwnAlert = withDatabase(
  (
    database,
    user: SessionUser,
    input: { account_id: number | "all"; kind: AccountAlertKind; amount_cents: number | null },
    origin: AuditOrigin,
  ) => addAlert(database, asMember(user), input, origin),
);

export const editOwnAlert = withDatabase(
  (database, user: SessionUser, input: { alert_id: number; amount_cents: number }, origin: AuditOrigin) =>
    editAlertAmount(database, asMember(user), input, origin),
);

export const removeOwnAlert = withDatabase((database, user: SessionUser, alert_id: number, origin: AuditOrigin) =>
  removeAlert(database, asMember(user), alert_id, origin),
);

/** The sign-in from a new device alert is the loginAlerts setting: changed by the one function that changes it. */
export const setNewDeviceAlert = withDatabase((database, user: SessionUser, on: boolean, origin: AuditOrigin) =>
  updateNotificationSettings(
    database,
    user.id,
    { login_alerts: on },
    {
      request_id: origin.request_id ?? undefined,
      ip: origin.ip ?? undefined,
    },
  ),
);
