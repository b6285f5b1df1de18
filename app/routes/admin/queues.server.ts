import type { Actor } from "~/domain/actor";
import type { RouterContextProvider } from "react-router";
import { withDatabase } from "~/server/db/db.server";
import { loadQueues } from "~/server/rails/queues.server";
import { exportFile, exportPayments } from "~/server/rails/export.server";
import { cancelPayment } from "~/server/rails/cancel.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { adjustmentsAwaitingApproval, moneyControl } from "./index.server";
import { awaitingPostingRequests, postingRequestAction } from "~/server/postings/approvals.server";
import { queueCountsOnce } from "./layout.server";

/**
 * What /admin/queues calls (its view-model): each function opens the database itself, so the
 * route holds no handle. A new queue section adds its rows to `queuesPage` and, for its own
 * buttons, one more `withDatabase(service)` here.
 */

/**
 * Every queue's rows (dates as the ISO text they travel as) and count; the page names each section
 * from QUEUE_TITLES. The counts are the ones the admin frame made for this request.
 */
export async function queuesPage(context: Readonly<RouterContextProvider>) {
  const [view, counts] = await Promise.all([withDatabase(loadQueues)(), queueCountsOnce(context)]);
  const rows = (list: typeof view.ach) => list.map((p) => ({ ...p, created_at: p.created_at.toISOString() }));
  return {
    counts: counts.sections,
    ach: rows(view.ach),
    wire: rows(view.wire),
    files: view.files.map((f) => ({ ...f, created_at: f.created_at.toISOString() })),
    verifications: view.verifications,
    pulls: view.pulls,
  };
}

/**
 * Balance adjustments waiting for a second approval, oldest first, and the decision on one: the
 * very functions of the member's page in /admin (same rows, same decision and answer).
 */
export { adjustmentsAwaitingApproval as adjustmentQueueRows, moneyControl as decideQueuedAdjustment };

/**
 * Add Transactions files and tables waiting for a second approval (docs/security.md#dual-control),
 * listed beside the adjustments, and the decision on one (approve posts every row, all or nothing).
 */
export const postingRequestQueueRows = withDatabase(async (database) =>
  (await awaitingPostingRequests(database)).map((r) => ({ ...r, requested_at: r.requested_at.toISOString() })),
);
export const decideQueuedPostingRequest = withDatabase(
  (database, input: Omit<Parameters<typeof postingRequestAction>[0], "db">) =>
    postingRequestAction({ db: database, ...input }),
);

/** Sends every pending payment of one kind as one file (audited, all or nothing). */
export const exportQueue = withDatabase(exportPayments);

/** Cancels one pending payment, giving the member's money back. */
export const cancelQueuedPayment = withDatabase(cancelPayment);

/** An export file downloaded again (/admin/queues/files/:fileId), byte for byte; every download is audited. */
export const downloadExportFile = withDatabase(
  async (database, input: { staff: Actor; origin: AuditOrigin; id: number }) => {
    const { staff, origin, id } = input;
    const file = await exportFile(database, id);
    if (!file) return null;
    await recordAudit(database, {
      actor_id: staff.id,
      actor_email: staff.email,
      action: "payment_export.download",
      subject_type: "payment_export_file",
      subject_id: file.id,
      after: { file_name: file.file_name, sha256: file.sha256 },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return file;
  },
);
