import { withDatabase } from "~/server/db/db.server";
import type { Db } from "~/server/db/client.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { receiveAchFile } from "~/server/rails/inbound.server";
import { exportReturnFile, recentInboundFiles, recentReturnFiles, returnedItems, returnFile } from "~/server/rails/inbound-returns.server";

/**
 * What /admin/queues calls for ACH in (docs/product.md#ach-in), opening the database itself so
 * the route holds no handle: the upload, the Returned items section's rows, the return file
 * export and its download.
 */

/** A row with its dates as ISO text. */
function iso<T extends object>(row: T): { [K in keyof T]: T[K] extends Date ? string : T[K] } {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v])) as { [K in keyof T]: T[K] extends Date ? string : T[K] };
}

/** The Returned items and ACH in sections' rows, dates as the ISO text they travel as. */
export const achInPage = withDatabase(async (database: Db) => {
  const [returned, inbound, returns] = await Promise.all([returnedItems(database), recentInboundFiles(database), recentReturnFiles(database)]);
  return {
    returned: returned.map(iso),
    inbound_files: inbound.map(iso),
    return_files: returns.map(iso),
  };
});

/** Reads and posts an uploaded inbound NACHA file (refused whole, or posted entry by entry). */
export const uploadAchFile = withDatabase(receiveAchFile);

/** Sends the waiting returns as one return file. */
export const exportReturns = withDatabase(exportReturnFile);

/** A return file downloaded (/admin/queues/returns/:fileId), byte for byte; every download is audited. */
export const downloadReturnFile = withDatabase(async (database: Db, input: { staff: { id: string; email: string }; origin: AuditOrigin; id: number }) => {
  const file = await returnFile(database, input.id);
  if (!file) return null;
  await recordAudit(database, {
    actor_id: input.staff.id,
    actor_email: input.staff.email,
    action: "ach_return_file.download",
    subject_type: "ach_return_file",
    subject_id: file.id,
    after: { file_name: file.file_name, sha256: file.sha256 },
    request_id: input.origin.request_id,
    ip: input.origin.ip,
  });
  return file;
});
