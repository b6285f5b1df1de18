import { parse } from "csv-parse/sync";
import {
  errorsMessage,
  POSTING_CSV_HEADER,
  POSTING_CSV_MAX_BYTES,
  POSTING_LIMITS_TEXT,
  POSTING_ROWS_MAX,
  templateExampleRow,
  type DraftRow,
  type LineError,
} from "~/domain/staff-postings";
import { csvDocument, csvField } from "~/server/files/csv.server";

/**
 * Reads a staff CSV of transactions (docs/product.md#add-transactions) into draft rows, each with
 * the file line it starts on. Real CSV (csv-parse): quoted fields with commas, quotes and line
 * breaks, a byte-order mark, CRLF or LF. The header must be the template's, in its order; blank
 * lines (and lines of empty fields) are skipped. Anything else is refused with a message saying
 * why; the caller prefixes "Failed to parse CSV file: ".
 */
export type CsvRead =
  { ok: true; rows: { line: number; raw: DraftRow }[] } | { ok: false; message: string; line_errors?: LineError[] };

/** A field longer than this is not a transaction (and is not read further). */
const RECORD_MAX_CHARS = 10_000;

export function tooLargeMessage(bytes: number): string {
  return `the file is ${(bytes / 1024 / 1024).toFixed(1)} MB; the limit is ${POSTING_LIMITS_TEXT} per file (split it into smaller files)`;
}

export function readPostingsCsv(bytes: Uint8Array): CsvRead {
  if (bytes.byteLength === 0) return { ok: false, message: "the file is empty" };
  if (bytes.byteLength > POSTING_CSV_MAX_BYTES) return { ok: false, message: tooLargeMessage(bytes.byteLength) };
  // A binary file (an image, a spreadsheet saved as .xlsx) renamed .csv: not UTF-8 text, or NULs.
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, message: "the file is not a text CSV file (save it from the spreadsheet as CSV UTF-8)" };
  }
  if (text.includes("\u0000"))
    return { ok: false, message: "the file is not a text CSV file (save it from the spreadsheet as CSV UTF-8)" };

  let records: { record: string[]; info: { lines: number; empty_lines: number } }[];
  try {
    records = parse(text, {
      bom: true,
      info: true,
      skip_empty_lines: true,
      skip_records_with_empty_values: true,
      relax_column_count: true,
      max_record_size: RECORD_MAX_CHARS,
      // One more than allowed (the header and the rows), to say "too many" without reading on.
      to: POSTING_ROWS_MAX + 2,
    }) as unknown as typeof records;
  } catch (error) {
    return { ok: false, message: csvErrorMessage(error) };
  }
  if (records.length === 0) return { ok: false, message: "the file has no header line" };

  const [header, ...body] = records;
  const names = header!.record.map((name) => name.trim());
  if (names.join(",") !== POSTING_CSV_HEADER.join(",")) {
    return {
      ok: false,
      message: `line 1 must be the header ${POSTING_CSV_HEADER.join(",")} in this order; the file has ${names.join(",").slice(0, 200)}`,
    };
  }
  if (body.length === 0) return { ok: false, message: "the file has no transactions below the header" };
  if (body.length > POSTING_ROWS_MAX)
    return {
      ok: false,
      message: `the file has more than ${POSTING_ROWS_MAX.toLocaleString("en-US")} rows; the limit is ${POSTING_LIMITS_TEXT} per file (split it into smaller files)`,
    };

  const rows: { line: number; raw: DraftRow }[] = [];
  const line_errors: LineError[] = [];
  // csv-parse says the line a record ends on; a record starts after the previous one and the
  // blank lines skipped since.
  let previous_end = header!.info.lines;
  let previous_empty = header!.info.empty_lines;
  for (const { record, info } of body) {
    const line = previous_end + 1 + (info.empty_lines - previous_empty);
    previous_end = info.lines;
    previous_empty = info.empty_lines;
    if (record.length !== POSTING_CSV_HEADER.length) {
      line_errors.push({
        line,
        message: `has ${record.length} columns; every line needs ${POSTING_CSV_HEADER.length}`,
      });
      continue;
    }
    const [account, type, amount, description, category, date, time, status] = record as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    rows.push({ line, raw: { account, type, amount, description, category, date, time, status } });
  }
  if (line_errors.length) return { ok: false, message: errorsMessage(line_errors, "line"), line_errors };
  return { ok: true, rows };
}

function csvErrorMessage(error: unknown): string {
  const code = (error as { code?: string }).code;
  const lines = (error as { lines?: number }).lines;
  const at = typeof lines === "number" ? ` (line ${lines})` : "";
  switch (code) {
    case "CSV_QUOTE_NOT_CLOSED":
      return `a quoted field is never closed${at}`;
    case "CSV_MAX_RECORD_SIZE":
      return `a line is longer than ${RECORD_MAX_CHARS.toLocaleString("en-US")} characters${at}`;
    case "CSV_INVALID_CLOSING_QUOTE":
    case "CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE":
      return `a quote is misplaced${at}: put quotes around the whole field and double any quote inside it`;
    default:
      return `the file is not valid CSV${at}`;
  }
}

/** The Download Template file: the header and one example row, written by the one CSV writer. */
export function postingsTemplateCsv(today: string): string {
  return csvDocument(POSTING_CSV_HEADER, [templateExampleRow(today).map((field) => csvField(field))]);
}
