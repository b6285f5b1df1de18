import { withDatabase } from "~/server/db/db.server";
import { requestPasswordReset as requestPasswordResetIn } from "~/server/auth/password.server";

/** What /forgot-password calls (its view-model): each function opens the database itself, so the route holds no handle. */
export const requestPasswordReset = withDatabase(requestPasswordResetIn);
