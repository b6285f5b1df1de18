import { RECORD_LENGTH, sliceRecord, type RecordLayout } from "./records";

/**
 * Reading one record of an inbound NACHA file (reader.ts): its fields by the layout, digits and
 * constants checked, dates, and the records of the file. A broken rule throws a Refusal, which
 * `readInboundNachaFile` turns into its answer.
 */

/** A rule the file breaks: the line (0 for the whole file) and the rule, in words. */
export class Refusal extends Error {
  constructor(
    readonly line: number,
    readonly rule: string,
  ) {
    super(line > 0 ? `line ${line}: ${rule}` : rule);
  }
}

export function refuse(line: number, rule: string): never {
  throw new Refusal(line, rule);
}

export const trim = (value: string) => value.trim();

/** The fields of a record by its layout, with every numeric field checked as digits. */
export function fields(layout: RecordLayout, record: string, line: number): Record<string, string> {
  const values = sliceRecord(layout, record);
  for (const field of layout) {
    const value = values[field.name]!;
    if (field.kind === "N" && !/^\d+$/.test(value))
      refuse(
        line,
        `${field.name.replaceAll("_", " ")} (columns ${field.start}-${field.start + field.length - 1}) must be digits, not ${JSON.stringify(value)}`,
      );
    // The originator status code is 1 for a bank, 2 for a government agency: read, not enforced.
    if (field.constant !== undefined && value !== field.constant && field.name !== "originator_status_code")
      refuse(
        line,
        `${field.name.replaceAll("_", " ")} (columns ${field.start}-${field.start + field.length - 1}) must be ${field.constant}, not ${JSON.stringify(value)}`,
      );
  }
  return values;
}

/** A YYMMDD field as YYYY-MM-DD, refused when it is no calendar date. */
export function date(yymmdd: string, line: number, name: string): string {
  const yy = Number(yymmdd.slice(0, 2));
  const mm = Number(yymmdd.slice(2, 4));
  const dd = Number(yymmdd.slice(4, 6));
  const iso = `20${yymmdd.slice(0, 2)}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4, 6)}`;
  const parsed = new Date(`${iso}T00:00:00Z`);
  if (mm < 1 || mm > 12 || dd < 1 || Number.isNaN(parsed.getTime()) || parsed.getUTCDate() !== dd || yy > 99)
    refuse(line, `${name} ${yymmdd} is not a date (YYMMDD)`);
  return iso;
}

/** The records of the file: lines, or one unbroken run of 94-character records. */
export function records(bytes: Uint8Array): string[] {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 0x0a || b === 0x0d) continue;
    if (b < 0x20 || b > 0x7e) {
      const line = 1 + bytes.subarray(0, i).filter((c) => c === 0x0a).length;
      refuse(
        line,
        `byte ${i + 1} is not printable text (0x${b.toString(16).padStart(2, "0")}): a NACHA file holds only ASCII records`,
      );
    }
  }
  const text = new TextDecoder("latin1").decode(bytes);
  if (!text.includes("\n") && !text.includes("\r")) {
    if (text.length % RECORD_LENGTH !== 0)
      refuse(1, `the file is one line of ${text.length} characters, not a run of ${RECORD_LENGTH}-character records`);
    return text.match(new RegExp(`.{${RECORD_LENGTH}}`, "g")) ?? [];
  }
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}
