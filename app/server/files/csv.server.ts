/**
 * The one CSV writer for every export (a member's history, the audit log): RFC 4180 fields,
 * CRLF line ends, and text a spreadsheet would run as a formula made inert.
 *
 * A spreadsheet treats a cell starting with = + - @ (or a tab or carriage return before them) as
 * a formula, so a memo such as `=HYPERLINK(...)` typed by anyone could run when a member or staff
 * opens the file. Such text is written with a leading apostrophe, which spreadsheets show as text.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export interface CsvFieldOptions {
  /** Quote the field even when it holds no comma, quote or line break (free text the member typed). */
  quote?: "always" | "when_needed";
}

/** One CSV field. null/undefined are empty, dates ISO 8601, objects JSON; formulas neutralised. */
export function csvField(value: unknown, options: CsvFieldOptions = {}): string {
  let text =
    value === null || value === undefined
      ? ""
      : value instanceof Date
        ? value.toISOString()
        : typeof value === "string"
          ? value
          : JSON.stringify(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  const quote = options.quote === "always" || /[",\r\n]/.test(text);
  return quote ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * A whole CSV file from lines of already written fields: each line joined with commas, every line
 * ended with CRLF. Fields that come from the application (dates, amounts, fixed labels) may be
 * passed as they are; anything else goes through csvField.
 */
export function csvDocument(header: readonly string[], lines: Iterable<readonly string[]>): string {
  const out = [header.join(",")];
  for (const line of lines) out.push(line.join(","));
  return `${out.join("\r\n")}\r\n`;
}
