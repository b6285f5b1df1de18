import { withDatabase } from "~/server/db/db.server";
import { queueCounts } from "~/server/rails/queues.server";

/** What the back office's frame calls (its view-model): opens the database itself. */

/** Items waiting in every payment queue, for the navigation's Queues count. */
export const queuesWaiting = withDatabase(async (database) => (await queueCounts(database)).total);
