import { withDatabase } from "~/server/db/db.server";
import { approveMobileDeposit, rejectMobileDeposit } from "~/server/deposits/deposits.server";
import { pendingDeposits } from "~/server/deposits/deposit-lists.server";

/**
 * The Mobile deposits section of /admin/queues (its view-model, beside the page's own
 * queues.server.ts): each function opens the database itself.
 */

/** The deposits waiting for review, oldest first, dates as ISO text. */
export const depositQueueRows = withDatabase(async (database) =>
  (await pendingDeposits(database)).map((d) => ({ ...d, created_at: d.created_at.toISOString() })),
);

/** Approve: the credit posts, held until the availability policy's dates. */
export const approveDeposit = withDatabase(approveMobileDeposit);

/** Reject with the reason the member is told: the pending credit fails. */
export const rejectDeposit = withDatabase(rejectMobileDeposit);
