import { withDatabase } from "~/server/db/db.server";
import { demoInbox as demoInboxIn } from "~/server/auth/demo-info.server";

/** What the demo inbox calls (its view-model): each function opens the database itself, so the route holds no handle. */
export const demoInbox = withDatabase(demoInboxIn);
