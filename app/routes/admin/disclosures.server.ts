import { withDatabase } from "~/server/db/db.server";
import { disclosureChangesForStaff } from "~/server/electronic-delivery/change-in-terms.server";

/** The back office's change-in-terms list (its view-model, docs/product.md#disclosures): opens the database itself. */
export const disclosureChangeList = withDatabase(disclosureChangesForStaff);
