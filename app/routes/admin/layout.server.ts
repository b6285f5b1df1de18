import { inboxCounts } from "~/server/secure-messages/secure-messages.server";
import { createContext, type RouterContextProvider } from "react-router";
import { withDatabase } from "~/server/db/db.server";
import { queueCounts } from "~/server/rails/queues.server";
import { screeningsWaiting } from "~/server/sanctions/screening.server";

/** What the back office's frame calls (its view-model): opens the database itself. */

type QueueCounts = Awaited<ReturnType<typeof queueCounts>>;
const queueCountsContext = createContext<Promise<QueueCounts> | null>(null);

/**
 * Every queue's count, counted once per request: the frame's navigation shows the total and
 * /admin/queues each section's, and both loaders run for the same page load. The first loader to
 * ask starts the count; the other awaits the same one (loaders share the request's context).
 */
export function queueCountsOnce(context: Readonly<RouterContextProvider>): Promise<QueueCounts> {
  let counts = context.get(queueCountsContext);
  if (!counts) {
    counts = withDatabase(queueCounts)();
    context.set(queueCountsContext, counts);
  }
  return counts;
}

/** Items waiting in every payment queue, for the navigation's Queues count. */
export async function queuesWaiting(context: Readonly<RouterContextProvider>): Promise<number> {
  return (await queueCountsOnce(context)).total;
}

/** Possible sanctions matches waiting for staff, for the navigation's Sanctions count. */
export const screeningsWaitingCount = withDatabase(screeningsWaiting);

/** Open secure messages nobody has taken, for the navigation's Inbox count. */
export const inboxUnassignedCount = withDatabase(
  async (database, staff_id: string) => (await inboxCounts(database, staff_id)).unassigned,
);
