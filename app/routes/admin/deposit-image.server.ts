import { withDatabase } from "~/server/db/db.server";
import { depositImage } from "~/server/deposits/deposit-lists.server";

/** What /admin/queues/deposits/:depositId/:side calls: one check photo, the view audited. */
export const readDepositImage = withDatabase(depositImage);
