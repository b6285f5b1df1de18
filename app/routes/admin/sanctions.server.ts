import { withDatabase } from "~/server/db/db.server";
import { enqueueJob } from "~/server/jobs/runner.server";
import { sanctionsRescreenJob } from "~/server/jobs/registry.server";
import { listVersions, loadSanctionsLists } from "~/server/sanctions/lists.server";
import { screeningItem, screeningQueue } from "~/server/sanctions/screening.server";
import { decideScreeningCase as decideInBackOffice } from "~/server/admin/screening-decisions.server";

/** The screening queue (possible matches waiting for staff) and staff's decisions on it. */
export const screeningRows = withDatabase(screeningQueue);
export const screeningCase = withDatabase(screeningItem);
export const decideScreeningCase = withDatabase(decideInBackOffice);

/**
 * What /admin/sanctions calls (its view-model): each opens the database itself. An upload queues
 * the re-screen of every member at once (the job also finds it within 5 minutes by itself).
 */
export const uploadSanctionsLists = withDatabase(async (db, input: Parameters<typeof loadSanctionsLists>[1]) => {
  const result = await loadSanctionsLists(db, input);
  if (result.ok) await enqueueJob(db, sanctionsRescreenJob, { key: `rescreen:${result.rescreen_id}` });
  return result;
});

/** The loaded list versions, newest first, with dates as ISO text. */
export const sanctionsListRows = withDatabase(async (db) =>
  (await listVersions(db)).map((v) => ({
    id: v.id,
    source: v.source,
    published_on: v.published_on,
    loaded_at: v.loaded_at.toISOString(),
    loaded_by_label: v.loaded_by_label,
    entry_count: v.entry_count,
    file_names: v.file_names,
  })),
);
