import { withDatabase } from "~/server/db/db.server";
import { disputeQueue, staffCase } from "~/server/disputes/disputes.server";
import { addCaseNote, provisionallyCredit, resolveDispute } from "~/server/disputes/staff-steps.server";

/**
 * What /admin/disputes and /admin/disputes/:caseId call (their view-model): each opens the
 * database itself (docs/product.md#disputes).
 */
export const loadDisputeQueue = withDatabase(async (database) => {
  const queue = await disputeQueue(database);
  return queue;
});

export const loadStaffCase = withDatabase(async (database, case_id: number) => {
  const found = await staffCase(database, case_id);
  return found ? { ...found, events: found.events.map((e) => ({ ...e, at: e.at.toISOString() })) } : null;
});

export const noteCase = withDatabase(addCaseNote);
export const creditCase = withDatabase(provisionallyCredit);
export const resolveCase = withDatabase(resolveDispute);
