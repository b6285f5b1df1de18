import { withDatabase } from "~/server/db/db.server";
import { getApplicantOverview as getApplicantOverviewIn } from "~/server/applications/applications.server";

/** What /not-approved (the applicant told no) calls (its view-model): each function opens the database itself, so the route holds no handle. */
export const getApplicantOverview = withDatabase(getApplicantOverviewIn);
