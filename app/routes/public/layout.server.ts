import { withDatabase } from "~/server/db/db.server";
import { userDisplay as userDisplayIn } from "~/server/settings/settings.server";

/** What the public site's frame (who is signed in, for the header) calls (its view-model): each function opens the database itself, so the route holds no handle. */
export const userDisplay = withDatabase(userDisplayIn);
