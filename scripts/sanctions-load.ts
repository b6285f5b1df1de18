/**
 * `npm run sanctions:load`: loads the Treasury's sanctions lists from the files the operator
 * downloaded from OFAC (docs/operations.md#sanctions-lists); the app never fetches them itself.
 *
 *   npm run sanctions:load -- --published 2026-11-28 SDN.CSV ALT.CSV ADD.CSV SDN_COMMENTS.CSV
 *   npm run sanctions:load -- --published 2026-11-28 CONS_PRIM.CSV CONS_ALT.CSV CONS_ADD.CSV
 *
 * Each list among the files (the SDN list, the consolidated non-SDN list) becomes a new version
 * with its publication date (which the CSV files do not carry: the date on OFAC's page), audited
 * with the server command as the actor. Exits 0 when loaded, 1 when refused (a file that is not
 * one of OFAC's, not in its layout, the same files as the version already loaded), 2 when the
 * database cannot be opened.
 */
import fs from "node:fs";
import { parseArgs } from "node:util";
import { scriptDatabase } from "~/server/db/db.server";
import { loadSanctionsLists, type ListFile } from "~/server/sanctions/lists.server";
import { SANCTIONS_SOURCE_NAMES } from "~/domain/sanctions/entries";
import { enqueueJob } from "~/server/jobs/runner.server";
import { sanctionsRescreenJob } from "~/server/jobs/registry.server";

const USAGE = "Usage: npm run sanctions:load -- --published YYYY-MM-DD FILE…";

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ options: { published: { type: "string" } }, allowPositionals: true });
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 1;
  }
  const { values, positionals } = parsed;
  if (!values.published || positionals.length === 0) {
    console.error(USAGE);
    return 1;
  }
  const files: ListFile[] = [];
  for (const name of positionals) {
    try {
      files.push({ name, bytes: fs.readFileSync(name) });
    } catch (error) {
      console.error(`Cannot read ${name}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      return 1;
    }
  }
  let database;
  try {
    database = await scriptDatabase();
  } catch (error) {
    console.error(`sanctions:load cannot open the database: ${(error as Error).message}`);
    return 2;
  }
  try {
    const result = await loadSanctionsLists(database.db, { files, published_on: values.published, loader: null });
    if (!result.ok) {
      console.error(`Refused: ${result.message}`);
      return 1;
    }
    for (const version of result.versions)
      console.log(
        `Loaded the ${SANCTIONS_SOURCE_NAMES[version.source]} published ${values.published}: ${version.entry_count} entries (version ${version.id}).`,
      );
    // The app's job runner screens every member against the new lists (docs/operations.md#sanctions-re-screen).
    await enqueueJob(database.db, sanctionsRescreenJob, { key: `rescreen:${result.rescreen_id}` });
    console.log("Every member will be screened again against it by the sanctions-rescreen job (see /admin/jobs).");
    return 0;
  } finally {
    await database.close();
  }
}

process.exitCode = await main();
