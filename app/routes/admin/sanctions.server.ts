import { withDatabase } from "~/server/db/db.server";
import { enqueueJob } from "~/server/jobs/runner.server";
import { sanctionsRescreenJob } from "~/server/jobs/registry.server";
import { listVersions, loadSanctionsLists } from "~/server/sanctions/lists.server";
import { screeningItem, screeningQueue } from "~/server/sanctions/screening.server";
import { decideScreeningCase as decideInBackOffice } from "~/server/admin/screening-decisions.server";
import { iatScreeningDecisions } from "~/server/rails/inbound-iat-decisions.server";

/** The screening queue (possible matches waiting for staff) and staff's decisions on it. */
export const screeningRows = withDatabase(screeningQueue);
export const screeningCase = withDatabase(screeningItem);
/** Staff's decision; an incoming IAT entry is posted or blocked by the rails in the same transaction. */
export const decideScreeningCase = withDatabase(
  (db, input: Omit<Parameters<typeof decideInBackOffice>[1], "onEntryCleared" | "onEntryConfirmed">) =>
    decideInBackOffice(db, { ...input, ...iatScreeningDecisions(input.staff) }),
);

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
