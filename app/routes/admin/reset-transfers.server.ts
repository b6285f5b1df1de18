import { withDatabase } from "~/server/db/db.server";
import {
  listTransferCounts,
  resetAllMemberTransferCounts,
  resetMemberTransferCount,
} from "~/server/payments/transfer-counts.server";

/** What Reset Transfer Counts calls (its view-model): each opens the database itself. */
export const transferCounts = withDatabase(listTransferCounts);
export const resetAllTransferCounts = withDatabase(resetAllMemberTransferCounts);
export const resetTransferCount = withDatabase(resetMemberTransferCount);
