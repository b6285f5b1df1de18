import { withDatabase } from "~/server/db/db.server";
import {
  answerInfoRequest as answerInfoRequestIn,
  getApplicantOverview as getApplicantOverviewIn,
} from "~/server/applications/applications.server";

/** What /pending-approval (the applicant's status and their answers to staff) calls (its view-model): each function opens the database itself, so the route holds no handle. */
export const answerInfoRequest = withDatabase(answerInfoRequestIn);
export const getApplicantOverview = withDatabase(getApplicantOverviewIn);
