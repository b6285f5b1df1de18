import type { Actor } from "~/domain/actor";
import { withDatabase, withReadDatabase } from "~/server/db/db.server";
import {
  auditActions,
  exportAuditCsv,
  listAudit,
  recordAudit,
  type AuditFilter,
  type AuditOrigin,
} from "~/server/audit/audit.server";

/** What /admin/audit and its CSV export call (their view-model): each opens the database itself. */

export const auditActionNames = withReadDatabase(auditActions);
export const auditEntries = withReadDatabase(listAudit);

/** The filtered log as CSV; the export itself goes into the log, with its filter and size. */
export const exportAuditLog = withDatabase(
  async (database, input: { staff: Actor; origin: AuditOrigin; filter: AuditFilter }) => {
    const { staff, origin, filter } = input;
    const result = await exportAuditCsv(database, filter);
    await recordAudit(database, {
      actor_id: staff.id,
      actor_email: staff.email,
      action: "audit.export",
      subject_type: "audit_log",
      after: { filter, rows: result.rows, truncated: result.truncated },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return result;
  },
);
