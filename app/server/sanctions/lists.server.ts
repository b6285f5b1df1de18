import type { Actor } from "~/domain/actor";
import crypto from "node:crypto";
import { desc, eq, inArray, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import {
  sanctionsEntries,
  sanctionsListVersions,
  sanctionsRescreens,
  type SanctionsListVersion,
} from "~/server/db/schema";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { today } from "~/server/ledger/ledger.server";
import { ListFormatError, listFileKind, readOfacCsv, type ListFilePart } from "~/domain/sanctions/ofac-csv";
import type { SanctionsEntry, SanctionsSource } from "~/domain/sanctions/entries";
import { SANCTIONS_SOURCE_NAMES } from "~/domain/sanctions/entries";
import { prepareEntry, screeningIndex, type ScreeningIndex } from "~/domain/sanctions/match";
import { isCalendarDate } from "~/domain/calendar-date";

/**
 * Loading the Treasury's sanctions lists (docs/product.md#sanctions-lists): the files the operator
 * downloaded from OFAC, given to `npm run sanctions:load` or uploaded in the back office (admins).
 * The app never fetches a list itself. Each list in the files (the SDN list, the consolidated
 * non-SDN list) becomes a new version with every entry, in one database transaction with its
 * audit row; screening then reads the newest version of each.
 */
export interface ListFile {
  name: string;
  bytes: Uint8Array;
}

export type LoadListsResult =
  | {
      ok: true;
      versions: { id: number; source: SanctionsSource; entry_count: number }[];
      /** Every member is screened again against the new lists (the `sanctions-rescreen` job). */
      rescreen_id: number;
    }
  | { ok: false; field: "files" | "published_on"; message: string };

/** Who loads: a staff member in the back office, or the server command (null). */
export type ListLoader = Actor | null;

/** The size of one list file that is accepted: the SDN list's largest file is about 5 MB. */
export const LIST_FILE_MAX_BYTES = 15 * 1024 * 1024;
const PUBLISHED_EARLIEST = "1995-01-01";

/** UTF-8 when the bytes are valid UTF-8, else Latin-1 (OFAC's files have been both). */
function decode(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder("latin1").decode(bytes);
  }
}

type ListRefusal = Extract<LoadListsResult, { ok: false }>;

function refuse(field: "files" | "published_on", message: string): ListRefusal {
  return { ok: false, field, message };
}

/** One list as read from its files, ready to store: its entries and the files' fingerprint. */
interface ReadList {
  source: SanctionsSource;
  entries: SanctionsEntry[];
  files: ListFile[];
  sha256: string;
}

export async function loadSanctionsLists(
  db: Db,
  input: { files: readonly ListFile[]; published_on: string; loader: ListLoader; origin?: AuditOrigin },
): Promise<LoadListsResult> {
  const published_on = input.published_on.trim();
  if (!isCalendarDate(published_on)) return refuse("published_on", "Enter the list's publication date as YYYY-MM-DD.");
  if (published_on > today() || published_on < PUBLISHED_EARLIEST)
    return refuse("published_on", `The publication date must be between ${PUBLISHED_EARLIEST} and today.`);
  if (input.files.length === 0) return refuse("files", "Choose the list files (SDN.CSV, ALT.CSV, ADD.CSV…).");
  const bySource = filesBySource(input.files);
  if ("ok" in bySource) return bySource;
  // Every list is read before anything is stored: a bad file refuses the whole load.
  const lists: ReadList[] = [];
  for (const [source, parts] of bySource) {
    const list = readList(source, parts);
    if ("ok" in list) return list;
    lists.push(list);
  }
  return db.transaction(async (tx) => {
    // One load at a time: two uploads of the same files at once cannot both pass the check below.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('sanctions-list-load'))`);
    const again = await alreadyLoaded(tx, lists);
    if (again) return again;
    const versions: { id: number; source: SanctionsSource; entry_count: number }[] = [];
    for (const list of lists) versions.push(await storeVersion(tx, list, { ...input, published_on }));
    // A new list means every member is screened again (docs/operations.md#sanctions-re-screen):
    // asked for in the load's own transaction, so no load is left without its re-screen.
    const [rescreen] = await tx
      .insert(sanctionsRescreens)
      .values({ version_ids: versions.map((v) => v.id) })
      .returning({ id: sanctionsRescreens.id });
    return { ok: true as const, versions, rescreen_id: rescreen!.id };
  });
}

/** The files sorted into their lists (SDN, consolidated) and parts, each an OFAC file of sane size, none twice. */
function filesBySource(
  files: readonly ListFile[],
): Map<SanctionsSource, Partial<Record<ListFilePart, ListFile>>> | ListRefusal {
  const bySource = new Map<SanctionsSource, Partial<Record<ListFilePart, ListFile>>>();
  for (const file of files) {
    const kind = listFileKind(file.name);
    if (!kind)
      return refuse(
        "files",
        `${file.name} is not one of OFAC's list files (SDN.CSV, ALT.CSV, ADD.CSV, SDN_COMMENTS.CSV, CONS_PRIM.CSV, CONS_ALT.CSV, CONS_ADD.CSV, CONS_COMMENTS.CSV).`,
      );
    if (file.bytes.byteLength > LIST_FILE_MAX_BYTES)
      return refuse("files", `${file.name} is larger than ${LIST_FILE_MAX_BYTES / 1024 / 1024} MB.`);
    const parts = bySource.get(kind.source) ?? {};
    if (parts[kind.part]) return refuse("files", `${file.name} is given twice.`);
    parts[kind.part] = file;
    bySource.set(kind.source, parts);
  }
  return bySource;
}

/** One list's entries read from its files (the primary one required), and the fingerprint of those files. */
function readList(source: SanctionsSource, parts: Partial<Record<ListFilePart, ListFile>>): ReadList | ListRefusal {
  if (!parts.primary)
    return refuse(
      "files",
      `${source === "sdn" ? "SDN.CSV" : "CONS_PRIM.CSV"} is missing: the ${SANCTIONS_SOURCE_NAMES[source]} cannot be loaded from its other files alone.`,
    );
  const text = (file: ListFile | undefined) => (file ? { name: file.name, text: decode(file.bytes) } : undefined);
  let entries: SanctionsEntry[];
  try {
    entries = readOfacCsv({
      source,
      primary: text(parts.primary)!,
      alt: text(parts.alt),
      add: text(parts.add),
      comments: text(parts.comments),
    });
  } catch (error) {
    if (error instanceof ListFormatError) return refuse("files", `${error.message}. Nothing was loaded.`);
    throw error;
  }
  if (entries.length === 0) return refuse("files", `${parts.primary.name} has no entries. Nothing was loaded.`);
  const files = (["primary", "alt", "add", "comments"] as const).flatMap((p) => (parts[p] ? [parts[p]] : []));
  const hash = crypto.createHash("sha256");
  for (const file of files) hash.update(file.name.toUpperCase()).update("\0").update(file.bytes).update("\0");
  return { source, entries, files, sha256: hash.digest("hex") };
}

/** The same files as a list's newest version are refused: loading them again would only start a re-screen. */
async function alreadyLoaded(tx: DbOrTx, lists: readonly ReadList[]): Promise<ListRefusal | null> {
  for (const list of lists) {
    const [latest] = await tx
      .select({ sha256: sanctionsListVersions.sha256, loaded_at: sanctionsListVersions.loaded_at })
      .from(sanctionsListVersions)
      .where(eq(sanctionsListVersions.source, list.source))
      .orderBy(desc(sanctionsListVersions.id))
      .limit(1);
    if (latest?.sha256 === list.sha256)
      return refuse(
        "files",
        `These files are the ${SANCTIONS_SOURCE_NAMES[list.source]} already loaded on ${latest.loaded_at.toISOString().slice(0, 10)}. Nothing was loaded.`,
      );
  }
  return null;
}

/** A list stored as a new version with every entry (a thousand rows an insert), and its audit row. */
async function storeVersion(
  tx: DbOrTx,
  list: ReadList,
  load: { published_on: string; loader: ListLoader; origin?: AuditOrigin },
): Promise<{ id: number; source: SanctionsSource; entry_count: number }> {
  const { published_on, loader } = load;
  const [version] = await tx
    .insert(sanctionsListVersions)
    .values({
      source: list.source,
      published_on,
      loaded_by: loader?.id ?? null,
      loaded_by_label: loader?.email ?? "server command",
      entry_count: list.entries.length,
      file_names: list.files.map((f) => f.name.split(/[\\/]/).pop()).join(", "),
      sha256: list.sha256,
    })
    .returning({ id: sanctionsListVersions.id });
  const version_id = version!.id;
  for (let start = 0; start < list.entries.length; start += 1000) {
    await tx.insert(sanctionsEntries).values(
      list.entries.slice(start, start + 1000).map((e) => ({
        version_id,
        uid: e.uid,
        name: e.name,
        type: e.type,
        programs: e.programs,
        aliases: e.aliases,
        birth_dates: e.birth_dates,
        countries: e.countries,
        remarks: e.remarks,
      })),
    );
  }
  await recordAudit(tx, {
    actor_id: loader?.id ?? null,
    actor_email: loader?.email ?? "server command: npm run sanctions:load",
    action: "sanctions.list.load",
    subject_type: "sanctions_list_version",
    subject_id: version_id,
    after: {
      source: list.source,
      published_on,
      entry_count: list.entries.length,
      files: list.files.map((f) => f.name.split(/[\\/]/).pop()),
      sha256: list.sha256,
      via: loader ? "back office" : "server command",
    },
    request_id: load.origin?.request_id ?? null,
    ip: load.origin?.ip ?? null,
  });
  return { id: version_id, source: list.source, entry_count: list.entries.length };
}

/** Every loaded version, newest first (the back office's list page). */
export async function listVersions(db: DbOrTx, limit_max = 50): Promise<SanctionsListVersion[]> {
  return db.select().from(sanctionsListVersions).orderBy(desc(sanctionsListVersions.id)).limit(limit_max);
}

/** The newest version of each source: what screening uses. */
export async function currentVersions(db: DbOrTx): Promise<SanctionsListVersion[]> {
  const rows = await db.execute<{ id: string }>(
    sql`select distinct on (source) id from sanctions_list_versions order by source, id desc`,
  );
  const ids = rows.rows.map((r) => Number(r.id));
  if (ids.length === 0) return [];
  return db.select().from(sanctionsListVersions).where(inArray(sanctionsListVersions.id, ids));
}

/** A list ready to screen, with each prepared entry's row id and version beside it. */
export interface LoadedIndex {
  key: string;
  index: ScreeningIndex;
  /** Each prepared entry's row id and version. */
  rows: Map<SanctionsEntry, { entry_id: number; version_id: number }>;
  versions: SanctionsListVersion[];
}

let cached: LoadedIndex | null = null;

/**
 * The screening index of the current versions, built once per set of versions and kept in memory
 * (about 20,000 entries; a new version loaded, by this process or another, is seen at the next
 * screening: the current version ids are read each time).
 */
export async function currentScreeningIndex(db: DbOrTx): Promise<LoadedIndex> {
  const versions = await currentVersions(db);
  // The versions' ids and content: ids alone would name another list after a restore, or in a
  // process that opens more than one database (the tests' workers do).
  const key = versions
    .map((v) => `${v.id}:${v.sha256}`)
    .sort()
    .join(",");
  if (cached && cached.key === key) return cached;
  const rows =
    versions.length === 0
      ? []
      : await db
          .select()
          .from(sanctionsEntries)
          .where(
            inArray(
              sanctionsEntries.version_id,
              versions.map((v) => v.id),
            ),
          )
          .orderBy(sanctionsEntries.id);
  const sources = new Map(versions.map((v) => [v.id, v.source]));
  const prepared = rows.map((row) =>
    prepareEntry({
      source: sources.get(row.version_id)!,
      uid: row.uid,
      name: row.name,
      type: row.type as SanctionsEntry["type"],
      programs: row.programs,
      aliases: row.aliases,
      birth_dates: row.birth_dates,
      countries: row.countries,
      remarks: row.remarks,
    }),
  );
  cached = {
    key,
    index: screeningIndex(prepared),
    rows: new Map(prepared.map((p, i) => [p.entry, { entry_id: rows[i]!.id, version_id: rows[i]!.version_id }])),
    versions,
  };
  return cached;
}
