import { withDatabase } from "~/server/db/db.server";
import { decideApplication } from "~/server/loans/applications.server";
import { applicationQueue, staffApplication } from "~/server/loans/application-views.server";

/** What /admin/loans and /admin/loans/:applicationId call (docs/product.md#loans). */
export const loadLoanQueue = withDatabase((database) => applicationQueue(database));
export const loadStaffApplication = withDatabase((database, application_id: number) =>
  staffApplication(database, application_id),
);
export const decideLoan = withDatabase(decideApplication);
