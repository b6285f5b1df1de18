import { withDatabase } from "~/server/db/db.server";
import { revealTaxpayerId, taxpayerIdPage } from "~/server/members/taxpayer-ids.server";

/** What the taxpayer-number reveal page calls (its view-model); each opens the database itself. */
export const tinPage = withDatabase(taxpayerIdPage);
export const revealTin = withDatabase(revealTaxpayerId);
