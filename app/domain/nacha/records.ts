/**
 * NACHA record layouts (the ACH file format exchanged with the Federal Reserve or a
 * correspondent): every record is 94 characters, one per line, grouped in blocks of ten with
 * records of all nines filling the last block. Each layout is a list of fields with its 1-based
 * start column and length, written once here so the writer (`writer.ts`) and an inbound parser
 * read the same columns.
 *
 * Field kinds: "N" numeric, right-justified and zero-filled; "AN" alphanumeric, left-justified
 * and space-filled (upper case, printable ASCII only); "B" blank (spaces); a `constant` is fixed.
 */
import transliterate from "@sindresorhus/transliterate";

export const RECORD_LENGTH = 94;
export const BLOCKING_FACTOR = 10;
export const PADDING_RECORD = "9".repeat(RECORD_LENGTH);

export type FieldKind = "N" | "AN" | "B";

export interface FieldLayout {
  name: string;
  /** 1-based first column, as the NACHA Operating Rules number them. */
  start: number;
  length: number;
  kind: FieldKind;
  constant?: string;
  /** Text fields are left-justified unless this says right (the routing fields of the file header). */
  align?: "right";
}

function layout<const T extends readonly FieldLayout[]>(fields: T): T {
  let column = 1;
  for (const field of fields) {
    if (field.start !== column)
      throw new Error(`NACHA layout: ${field.name} starts at ${field.start}, expected ${column}`);
    if (field.constant !== undefined && field.constant.length !== field.length)
      throw new Error(`NACHA layout: ${field.name} constant has the wrong length`);
    column += field.length;
  }
  if (column !== RECORD_LENGTH + 1) throw new Error(`NACHA layout ends at column ${column - 1}, not ${RECORD_LENGTH}`);
  return fields;
}

/** Record type 1. */
export const FILE_HEADER = layout([
  { name: "record_type", start: 1, length: 1, kind: "N", constant: "1" },
  { name: "priority_code", start: 2, length: 2, kind: "N", constant: "01" },
  /** A space then the receiving point's 9-digit routing number. */
  { name: "immediate_destination", start: 4, length: 10, kind: "AN", align: "right" },
  /** A space then the sending institution's 9-digit routing number. */
  { name: "immediate_origin", start: 14, length: 10, kind: "AN", align: "right" },
  { name: "file_creation_date", start: 24, length: 6, kind: "N" }, // YYMMDD
  { name: "file_creation_time", start: 30, length: 4, kind: "N" }, // HHMM
  /** A to Z then 0 to 9: tells apart files made the same day. */
  { name: "file_id_modifier", start: 34, length: 1, kind: "AN" },
  { name: "record_size", start: 35, length: 3, kind: "N", constant: "094" },
  { name: "blocking_factor", start: 38, length: 2, kind: "N", constant: "10" },
  { name: "format_code", start: 40, length: 1, kind: "N", constant: "1" },
  { name: "immediate_destination_name", start: 41, length: 23, kind: "AN" },
  { name: "immediate_origin_name", start: 64, length: 23, kind: "AN" },
  { name: "reference_code", start: 87, length: 8, kind: "AN" },
] as const);

/** Record type 5. */
export const BATCH_HEADER = layout([
  { name: "record_type", start: 1, length: 1, kind: "N", constant: "5" },
  /** 200 mixed, 220 credits only, 225 debits only. */
  { name: "service_class_code", start: 2, length: 3, kind: "N" },
  { name: "company_name", start: 5, length: 16, kind: "AN" },
  { name: "company_discretionary_data", start: 21, length: 20, kind: "AN" },
  { name: "company_identification", start: 41, length: 10, kind: "AN" },
  { name: "standard_entry_class_code", start: 51, length: 3, kind: "AN" },
  { name: "company_entry_description", start: 54, length: 10, kind: "AN" },
  { name: "company_descriptive_date", start: 64, length: 6, kind: "AN" },
  { name: "effective_entry_date", start: 70, length: 6, kind: "N" }, // YYMMDD
  /** Filled in by the ACH operator; blank when sent. */
  { name: "settlement_date", start: 76, length: 3, kind: "B" },
  { name: "originator_status_code", start: 79, length: 1, kind: "AN", constant: "1" },
  { name: "originating_dfi_identification", start: 80, length: 8, kind: "N" },
  { name: "batch_number", start: 88, length: 7, kind: "N" },
] as const);

/** Record type 6 (PPD and CCD share it). */
export const ENTRY_DETAIL = layout([
  { name: "record_type", start: 1, length: 1, kind: "N", constant: "6" },
  /** 22 checking credit, 32 savings credit, 27 checking debit, 37 savings debit. */
  { name: "transaction_code", start: 2, length: 2, kind: "N" },
  { name: "receiving_dfi_identification", start: 4, length: 8, kind: "N" },
  { name: "check_digit", start: 12, length: 1, kind: "N" },
  { name: "dfi_account_number", start: 13, length: 17, kind: "AN" },
  { name: "amount", start: 30, length: 10, kind: "N" }, // cents
  { name: "individual_identification_number", start: 40, length: 15, kind: "AN" },
  { name: "individual_name", start: 55, length: 22, kind: "AN" },
  { name: "discretionary_data", start: 77, length: 2, kind: "AN" },
  { name: "addenda_record_indicator", start: 79, length: 1, kind: "N" },
  /** The ODFI's first 8 routing digits then a 7-digit sequence; ascending within a batch. */
  { name: "trace_number", start: 80, length: 15, kind: "N" },
] as const);

/** Record type 7, addenda type 05 (payment related information). */
export const ADDENDA = layout([
  { name: "record_type", start: 1, length: 1, kind: "N", constant: "7" },
  { name: "addenda_type_code", start: 2, length: 2, kind: "N" },
  { name: "payment_related_information", start: 4, length: 80, kind: "AN" },
  { name: "addenda_sequence_number", start: 84, length: 4, kind: "N" },
  /** The last seven digits of the entry's trace number. */
  { name: "entry_detail_sequence_number", start: 88, length: 7, kind: "N" },
] as const);

/** Record type 8. */
export const BATCH_CONTROL = layout([
  { name: "record_type", start: 1, length: 1, kind: "N", constant: "8" },
  { name: "service_class_code", start: 2, length: 3, kind: "N" },
  { name: "entry_addenda_count", start: 5, length: 6, kind: "N" },
  /** The sum of the entries' 8-digit receiving DFI ids, its rightmost ten digits. */
  { name: "entry_hash", start: 11, length: 10, kind: "N" },
  { name: "total_debit_entry_dollar_amount", start: 21, length: 12, kind: "N" },
  { name: "total_credit_entry_dollar_amount", start: 33, length: 12, kind: "N" },
  { name: "company_identification", start: 45, length: 10, kind: "AN" },
  { name: "message_authentication_code", start: 55, length: 19, kind: "B" },
  { name: "reserved", start: 74, length: 6, kind: "B" },
  { name: "originating_dfi_identification", start: 80, length: 8, kind: "N" },
  { name: "batch_number", start: 88, length: 7, kind: "N" },
] as const);

/** Record type 9. */
export const FILE_CONTROL = layout([
  { name: "record_type", start: 1, length: 1, kind: "N", constant: "9" },
  { name: "batch_count", start: 2, length: 6, kind: "N" },
  /** Blocks of ten records, padding included. */
  { name: "block_count", start: 8, length: 6, kind: "N" },
  { name: "entry_addenda_count", start: 14, length: 8, kind: "N" },
  { name: "entry_hash", start: 22, length: 10, kind: "N" },
  { name: "total_debit_entry_dollar_amount", start: 32, length: 12, kind: "N" },
  { name: "total_credit_entry_dollar_amount", start: 44, length: 12, kind: "N" },
  { name: "reserved", start: 56, length: 39, kind: "B" },
] as const);

export type RecordLayout = readonly FieldLayout[];
export type FieldsOf<L extends RecordLayout> = {
  [F in L[number] as F extends { constant: string } ? never : F extends { kind: "B" } ? never : F["name"]]:
    string | number;
};

/** Record type code to layout, for a reader. Addenda and entry share nothing else. */
export const LAYOUTS = {
  "1": FILE_HEADER,
  "5": BATCH_HEADER,
  "6": ENTRY_DETAIL,
  "7": ADDENDA,
  "8": BATCH_CONTROL,
  "9": FILE_CONTROL,
} as const;

export class NachaFieldError extends Error {}

/** NACHA counts a code ending 0 to 4 as a credit, 5 to 9 as a debit (in batch and file totals). */
export function isCreditCode(transaction_code: string): boolean {
  return Number(transaction_code.slice(-1)) <= 4;
}

/**
 * Text fit for an alphanumeric field: upper-case printable ASCII, the only characters receiving
 * banks' systems read. Accents are dropped from Latin letters (É to E, Ü to U, as banks have
 * always written them); letters with no accent to drop and other scripts are transliterated by
 * a maintained table (`@sindresorhus/transliterate`: Ø to O, Ł to L, ß to SS, Æ to AE, Þ to TH,
 * Cyrillic and Greek by their usual romanization); anything still outside printable ASCII
 * becomes a space, runs of spaces one. A script with no romanization there (Chinese, Japanese,
 * Korean, Hebrew, Thai) comes out blank: `nachaLostCharacters` finds those before a payment is
 * accepted (docs/product.md#to-us-bank).
 */
export function nachaText(value: string): string {
  // Most fields are already plain ASCII: skip the Unicode work (a third of the writer's time on 10,000 entries).
  if (/^[\x20-\x7e]*$/.test(value) && !value.includes("  ")) return value.toUpperCase().trim();
  const latin_plain = value
    .normalize("NFD")
    .replace(/(\p{Script=Latin})\p{M}+/gu, "$1")
    .normalize("NFC");
  // Twice: the table knows Greek and Cyrillic letters, not all of their accented forms (polytonic
  // Greek). Then the Serbian table, which the default leaves out (its Latin đ would clash with
  // Vietnamese), for the Serbian Cyrillic letters still left (Ђ, Ћ, Џ, Љ, Њ): every Latin letter
  // is plain ASCII by then.
  const romanized = transliterate(
    transliterate(
      transliterate(latin_plain)
        .normalize("NFKD")
        .replace(/\p{M}+/gu, "")
        .normalize("NFC"),
    ),
    { locale: "sr" },
  );
  return romanized
    .replace(/[^\x20-\x7e]/g, " ")
    .toUpperCase()
    .replace(/ {2,}/g, " ")
    .trim();
}

/**
 * The letters and digits of `value` that a NACHA field cannot carry in any form (nothing of them
 * is left by `nachaText`), each once, in order: empty when the whole text can be written.
 */
export function nachaLostCharacters(value: string): string[] {
  const lost = new Set<string>();
  for (const character of value.normalize("NFC")) {
    if (/[\p{L}\p{N}]/u.test(character) && !/[A-Z0-9]/.test(nachaText(character))) lost.add(character);
  }
  return [...lost];
}

/** One field as it is written: numbers zero-filled on the left, text space-filled on the right (cut to length). */
export function formatField(field: FieldLayout, value: string | number | undefined): string {
  if (field.constant !== undefined) return field.constant;
  if (field.kind === "B") return " ".repeat(field.length);
  if (field.kind === "N") {
    const digits =
      typeof value === "number" ? (Number.isSafeInteger(value) && value >= 0 ? String(value) : "") : (value ?? "");
    if (!/^\d+$/.test(digits))
      throw new NachaFieldError(`${field.name} must be a whole number, got ${JSON.stringify(value)}`);
    if (digits.length > field.length)
      throw new NachaFieldError(`${field.name} ${digits} does not fit in ${field.length} digits`);
    return digits.padStart(field.length, "0");
  }
  const text = nachaText(String(value ?? ""));
  const kept = text.slice(0, field.length);
  return field.align === "right" ? kept.padStart(field.length, " ") : kept.padEnd(field.length, " ");
}

/** A whole record from its layout and values (constants and blanks filled in). */
export function formatRecord<L extends RecordLayout>(fields: L, values: FieldsOf<L>): string {
  const record = fields
    .map((field) => formatField(field, (values as Record<string, string | number | undefined>)[field.name]))
    .join("");
  if (record.length !== RECORD_LENGTH)
    throw new NachaFieldError(`record is ${record.length} characters, not ${RECORD_LENGTH}`);
  return record;
}

/** The fields of one record, as text, by the layout (for a reader). */
export function sliceRecord(fields: RecordLayout, record: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const field of fields) out[field.name] = record.slice(field.start - 1, field.start - 1 + field.length);
  return out;
}

/** YYYY-MM-DD as NACHA's YYMMDD. */
export function yymmdd(date: string): string {
  const match = /^\d{2}(\d{2})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) throw new NachaFieldError(`date ${JSON.stringify(date)} is not YYYY-MM-DD`);
  return `${match[1]}${match[2]}${match[3]}`;
}
