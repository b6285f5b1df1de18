import { parse } from "csv-parse/sync";
import type { BirthDate, SanctionsAlias, SanctionsEntry, SanctionsEntryType, SanctionsSource } from "./entries";
import { ofacCountryCode } from "./countries";

/**
 * Readers for the Treasury's delimited list files, in OFAC's published layout (the SDN "data
 * specification"): the SDN list as SDN.CSV, ALT.CSV (alternate names), ADD.CSV (addresses) and
 * SDN_COMMENTS.CSV (remarks too long for SDN.CSV), and the consolidated non-SDN list in the same
 * layout (CONS_PRIM.CSV, CONS_ALT.CSV, CONS_ADD.CSV, CONS_COMMENTS.CSV). Records are linked by
 * ent_num; "-0-" is the null value; the files end with an end-of-file character (0x1A).
 *
 * SDN.CSV: ent_num, SDN_Name, SDN_Type, Program, Title, Call_Sign, Vess_type, Tonnage, GRT,
 *          Vess_flag, Vess_owner, Remarks
 * ALT.CSV: ent_num, alt_num, alt_type, alt_name, alt_remarks
 * ADD.CSV: ent_num, add_num, address, city/state/postal code, country, add_remarks
 * SDN_COMMENTS.CSV: ent_num, remarks_extended
 *
 * In these formats the weak aliases are not in ALT.CSV but in the entry's remarks, in single
 * quotes: `a.k.a. 'ABU ALI'`. So are the dates of birth ("DOB 12 Mar 1971", "DOB circa 1965",
 * "DOB 1960 to 1962"), nationality and citizenship.
 */

export type ListFilePart = "primary" | "alt" | "add" | "comments";

export interface ListFileKind {
  source: SanctionsSource;
  part: ListFilePart;
}

/** What a file is, from OFAC's published file name (any case, any folder): null when not one of them. */
export function listFileKind(file_name: string): ListFileKind | null {
  const base = (file_name.split(/[\\/]/).pop() ?? "").toUpperCase();
  const known: Record<string, ListFileKind> = {
    "SDN.CSV": { source: "sdn", part: "primary" },
    "ALT.CSV": { source: "sdn", part: "alt" },
    "ADD.CSV": { source: "sdn", part: "add" },
    "SDN_COMMENTS.CSV": { source: "sdn", part: "comments" },
    "CONS_PRIM.CSV": { source: "consolidated", part: "primary" },
    "CONS_ALT.CSV": { source: "consolidated", part: "alt" },
    "CONS_ADD.CSV": { source: "consolidated", part: "add" },
    "CONS_COMMENTS.CSV": { source: "consolidated", part: "comments" },
  };
  return known[base] ?? null;
}

export class ListFormatError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
  }
}

export interface OfacCsvFiles {
  source: SanctionsSource;
  /** SDN.CSV or CONS_PRIM.CSV, as text. */
  primary: { name: string; text: string };
  alt?: { name: string; text: string };
  add?: { name: string; text: string };
  comments?: { name: string; text: string };
}

/** "-0-" (with or without spaces) and empty are null; anything else trimmed. */
function value(field: string | undefined): string | null {
  const v = (field ?? "").trim();
  return v === "" || v === "-0-" ? null : v;
}

function rows(file: { name: string; text: string }, min_columns: number): string[][] {
  // The end-of-file character OFAC appends, and a byte-order mark if an editor added one.
  const text = file.text.replace(/^\uFEFF/, "").replaceAll("\u001a", "");
  let records: string[][];
  try {
    records = parse(text, { relax_column_count: true, skip_empty_lines: true, relax_quotes: true }) as string[][];
  } catch (error) {
    throw new ListFormatError(file.name, `not a comma-separated file (${(error as Error).message})`);
  }
  records.forEach((record, index) => {
    if (record.length < min_columns)
      throw new ListFormatError(
        file.name,
        `record ${index + 1} has ${record.length} columns; OFAC's layout has ${min_columns}`,
      );
    if (!/^\d+$/.test((record[0] ?? "").trim()))
      throw new ListFormatError(file.name, `record ${index + 1} does not start with an entry number`);
  });
  return records;
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/** One "DOB ..." statement: "12 Mar 1971", "Mar 1971", "1971", "circa 1965", "1960 to 1962". */
export function parseBirthDate(text: string): BirthDate | null {
  const t = text.trim().replace(/\.$/, "");
  let m = /^(?:circa|ca\.?|approximately)\s+(\d{4})$/i.exec(t);
  if (m) {
    const y = Number(m[1]);
    return { from_year: y - 1, to_year: y + 1, month: null, day: null, approximate: true };
  }
  m = /^(\d{4})\s*(?:to|-)\s*(\d{4})$/i.exec(t);
  if (m) {
    const [a, b] = [Number(m[1]), Number(m[2])];
    return { from_year: Math.min(a, b), to_year: Math.max(a, b), month: null, day: null, approximate: false };
  }
  m = /^(?:(\d{1,2})\s+)?([A-Za-z]{3})[a-z]*\s+(\d{4})$/.exec(t);
  if (m) {
    const month = MONTHS.indexOf(m[2]!.toLowerCase()) + 1;
    if (month === 0) return null;
    const day = m[1] ? Number(m[1]) : null;
    if (day !== null && (day < 1 || day > 31)) return null;
    const y = Number(m[3]);
    return { from_year: y, to_year: y, month, day, approximate: false };
  }
  m = /^(\d{4})$/.exec(t);
  if (m) return { from_year: Number(m[1]), to_year: Number(m[1]), month: null, day: null, approximate: false };
  return null;
}

export interface RemarksFacts {
  weak_aliases: string[];
  birth_dates: BirthDate[];
  countries: string[];
}

/** What the remarks of an entry state: weak aliases, dates of birth, nationality and citizenship. */
export function parseRemarks(remarks: string | null): RemarksFacts {
  const facts: RemarksFacts = { weak_aliases: [], birth_dates: [], countries: [] };
  if (!remarks) return facts;
  for (const match of remarks.matchAll(/\b(?:a\.k\.a\.|f\.k\.a\.|n\.k\.a\.)\s*'([^']+)'/gi)) {
    const name = match[1]!.trim();
    if (name) facts.weak_aliases.push(name);
  }
  for (const part of remarks.split(";")) {
    const statement = part.trim().replace(/\.$/, "");
    const dob = /^(?:alt\.\s+)?DOB\s+(.+)$/i.exec(statement);
    if (dob) {
      const date = parseBirthDate(dob[1]!);
      if (date) facts.birth_dates.push(date);
      continue;
    }
    const nation = /^(?:alt\.\s+)?(?:nationality|citizen)\s+(.+)$/i.exec(statement);
    if (nation) {
      const code = ofacCountryCode(nation[1]!);
      if (code && !facts.countries.includes(code)) facts.countries.push(code);
    }
  }
  return facts;
}

function entryType(type: string | null): SanctionsEntryType {
  switch ((type ?? "").toLowerCase()) {
    case "individual":
      return "individual";
    case "vessel":
      return "vessel";
    case "aircraft":
      return "aircraft";
    default:
      // OFAC leaves the type null ("-0-") for entities.
      return "entity";
  }
}

/** "SDGT] [IRGC" (several programs, bracketed in OFAC's text) → ["SDGT", "IRGC"]. */
export function parsePrograms(program: string | null): string[] {
  if (!program) return [];
  return program
    .split(/\]\s*\[/)
    .map((p) => p.replace(/[[\]]/g, "").trim())
    .filter(Boolean);
}

/** Every entry of one list, its aliases, addresses and remarks joined by entry number. */
export function readOfacCsv(files: OfacCsvFiles): SanctionsEntry[] {
  const entries = new Map<string, SanctionsEntry>();
  const remarks = new Map<string, string>();
  for (const r of rows(files.primary, 12)) {
    const uid = r[0]!.trim();
    const name = value(r[1]);
    if (!name) throw new ListFormatError(files.primary.name, `entry ${uid} has no name`);
    if (entries.has(uid)) throw new ListFormatError(files.primary.name, `entry ${uid} is listed twice`);
    const remark = value(r[11]);
    if (remark) remarks.set(uid, remark);
    entries.set(uid, {
      source: files.source,
      uid,
      name,
      type: entryType(value(r[2])),
      programs: parsePrograms(value(r[3])),
      aliases: [],
      birth_dates: [],
      countries: [],
      remarks: remark,
    });
  }
  const linked = (file: { name: string }, uid: string): SanctionsEntry => {
    const entry = entries.get(uid);
    if (!entry) throw new ListFormatError(file.name, `entry number ${uid} is not in ${files.primary.name}`);
    return entry;
  };
  if (files.comments) {
    for (const r of rows(files.comments, 2)) {
      const uid = r[0]!.trim();
      const extra = value(r[1]);
      const entry = linked(files.comments, uid);
      if (extra) {
        const joined = [remarks.get(uid), extra].filter(Boolean).join(" ");
        remarks.set(uid, joined);
        entry.remarks = joined;
      }
    }
  }
  if (files.alt) {
    for (const r of rows(files.alt, 4)) {
      const entry = linked(files.alt, r[0]!.trim());
      const name = value(r[3]);
      if (!name) continue;
      const alias: SanctionsAlias = { name, type: (value(r[2]) ?? "aka").toLowerCase(), weak: false };
      entry.aliases.push(alias);
    }
  }
  if (files.add) {
    for (const r of rows(files.add, 5)) {
      const entry = linked(files.add, r[0]!.trim());
      const country = value(r[4]);
      const code = country ? ofacCountryCode(country) : null;
      if (code && !entry.countries.includes(code)) entry.countries.push(code);
    }
  }
  for (const entry of entries.values()) {
    const facts = parseRemarks(remarks.get(entry.uid) ?? null);
    for (const name of facts.weak_aliases) {
      if (!entry.aliases.some((a) => a.name === name)) entry.aliases.push({ name, type: "aka", weak: true });
    }
    entry.birth_dates = facts.birth_dates;
    for (const code of facts.countries) if (!entry.countries.includes(code)) entry.countries.push(code);
  }
  return [...entries.values()];
}
