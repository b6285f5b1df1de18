import { withDatabase } from "~/server/db/db.server";
import {
  mustChangePassword as mustChangePasswordIn,
  replaceTemporaryPassword as replaceTemporaryPasswordIn,
} from "~/server/auth/password-change.server";

/** What /change-password (replacing a temporary password) calls (its view-model): each function opens the database itself, so the route holds no handle. */
export const mustChangePassword = withDatabase(mustChangePasswordIn);
export const replaceTemporaryPassword = withDatabase(replaceTemporaryPasswordIn);
