import { withDatabase } from "~/server/db/db.server";
import {
  completePasswordReset as completePasswordResetIn,
  resetTokenIsLive as resetTokenIsLiveIn,
} from "~/server/auth/password.server";

/** What /reset-password calls (its view-model): each function opens the database itself, so the route holds no handle. */
export const completePasswordReset = withDatabase(completePasswordResetIn);
export const resetTokenIsLive = withDatabase(resetTokenIsLiveIn);
