import { withDatabase } from "~/server/db/db.server";
import {
  businessToday,
  disputeQueue,
  memberForStaffReport,
  enterReportForMember,
  readCaseAttachment,
  staffCase,
} from "~/server/disputes/disputes.server";
import {
  addCaseNote,
  markForChargeback,
  provisionallyCredit,
  resolveDispute,
} from "~/server/disputes/staff-steps.server";

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
  return found
    ? {
        ...found,
        chargeback_marked_at: found.chargeback_marked_at?.toISOString() ?? null,
        events: found.events.map((e) => ({ ...e, at: e.at.toISOString() })),
      }
    : null;
});

export const noteCase = withDatabase(addCaseNote);
export const creditCase = withDatabase(provisionallyCredit);
export const resolveCase = withDatabase(resolveDispute);
export const chargebackCase = withDatabase(markForChargeback);

/** A file a member sent with a report (audited). */
export const loadStaffAttachment = withDatabase(readCaseAttachment);

/** The member staff look up by email to enter a report for, with their reportable transactions. */
export const findMemberForReport = withDatabase(memberForStaffReport);

/** A report staff enter for a member who told us by phone, in person or by mail. */
export const enterReport = withDatabase(enterReportForMember);

export { businessToday };
