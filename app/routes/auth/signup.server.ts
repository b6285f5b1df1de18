import { withDatabase } from "~/server/db/db.server";
import { submitApplication as submitApplicationIn } from "~/server/applications/applications.server";

/** What /signup (a membership application) calls (its view-model): each function opens the database itself, so the route holds no handle. */
export const submitApplication = withDatabase(submitApplicationIn);
