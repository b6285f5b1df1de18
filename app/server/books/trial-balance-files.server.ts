import { centsAsDecimal, formatCents } from "~/domain/money";
import { BOOKS_MESSAGES, GL_EXPORT_MESSAGES, type TrialBalance } from "~/domain/books";
import type { GlDayLine } from "./books.server";
import { institution } from "~/config/institution.server";
import { csvDocument, csvField } from "~/server/files/csv.server";
import { letterPdf } from "~/server/files/pdf.server";

/**
 * The trial balance as files (docs/product.md#books): a CSV for a spreadsheet or the accounting
 * system, and a PDF to sign and keep, both from the same TrialBalance the page shows.
 */

export const TRIAL_BALANCE_CSV_HEADER = ["as_of", "code", "account", "debit", "credit"] as const;

/** One line per account, then a TOTAL line; amounts as plain decimals, empty when zero. */
export function trialBalanceCsv(tb: TrialBalance): string {
  const amount = (cents: number) => (cents === 0 ? "" : centsAsDecimal(cents));
  const lines = tb.lines.map((line) => [
    tb.as_of,
    csvField(line.code),
    csvField(line.name),
    amount(line.debit_cents),
    amount(line.credit_cents),
  ]);
  lines.push([tb.as_of, "TOTAL", "Total", centsAsDecimal(tb.total_debit_cents), centsAsDecimal(tb.total_credit_cents)]);
  return csvDocument(TRIAL_BALANCE_CSV_HEADER, lines);
}

/** US Letter, one table: account, debit, credit, the totals and whether they agree. */
export function trialBalancePdf(tb: TrialBalance, prepared_by: string, now: Date = new Date()): Promise<Buffer> {
  const profile = institution();
  const { doc, done } = letterPdf({
    margin: 54,
    info: { Title: `Trial balance as of ${tb.as_of}`, Author: profile.name, Subject: "Trial balance" },
  });
  const left = doc.page.margins.left;
  const right = doc.page.width - doc.page.margins.right;
  const debitX = right - 220;
  const creditX = right - 110;
  const columnWidth = 110;
  doc.font("Helvetica-Bold").fontSize(16).text(profile.name);
  doc.font("Helvetica").fontSize(12).text(`Trial balance as of the end of ${tb.as_of}`);
  doc
    .fontSize(9)
    .fillColor("#444444")
    .text(`Prepared ${now.toISOString().slice(0, 16).replace("T", " ")} UTC by ${prepared_by}`)
    .fillColor("black");
  doc.moveDown();

  const row = (name: string, debit: string, credit: string, bold = false) => {
    if (doc.y > doc.page.height - doc.page.margins.bottom - 30) doc.addPage();
    const y = doc.y;
    doc.font(bold ? "Helvetica-Bold" : "Helvetica").fontSize(10);
    doc.text(name, left, y, { width: debitX - left - 10 });
    const after = doc.y;
    doc.text(debit, debitX, y, { width: columnWidth, align: "right" });
    doc.text(credit, creditX, y, { width: columnWidth, align: "right" });
    doc.x = left;
    doc.y = Math.max(after, doc.y) + 4;
  };
  const money = (cents: number) => (cents === 0 ? "" : formatCents(cents));
  row("Account", "Debit", "Credit", true);
  doc.moveTo(left, doc.y).lineTo(right, doc.y).stroke();
  doc.moveDown(0.3);
  for (const line of tb.lines) row(line.name, money(line.debit_cents), money(line.credit_cents));
  doc.moveTo(left, doc.y).lineTo(right, doc.y).stroke();
  doc.moveDown(0.3);
  row("Total", formatCents(tb.total_debit_cents), formatCents(tb.total_credit_cents), true);
  doc.moveDown();
  doc
    .font("Helvetica-Bold")
    .fontSize(11)
    .text(tb.balanced ? BOOKS_MESSAGES.balanced : BOOKS_MESSAGES.out_of_balance, left);
  doc.end();
  return done;
}

export const GL_EXPORT_CSV_HEADER = ["date", "gl_account", "account", "debit", "credit"] as const;

export type GlExport = { ok: true; csv: string } | { ok: false; message: string; missing: string[] };

/**
 * The day's general-ledger totals as CSV for the credit union's accounting system, one row per
 * line with the profile's GL account code (docs/product.md#books). Without a code for every line
 * nothing is made, and the answer names the lines missing one: a code is never invented.
 */
export function glExportCsv(
  date: string,
  lines: readonly GlDayLine[],
  codes: Partial<Record<string, string>> | undefined,
): GlExport {
  if (!codes || Object.keys(codes).length === 0)
    return { ok: false, message: GL_EXPORT_MESSAGES.no_codes, missing: lines.map((l) => l.name) };
  const missing = lines.filter((l) => !codes[l.code]).map((l) => l.name);
  if (missing.length > 0)
    return { ok: false, message: `${GL_EXPORT_MESSAGES.some_missing} ${missing.join(", ")}.`, missing };
  const rows = lines.map((l) => [
    date,
    csvField(codes[l.code]!),
    csvField(l.name),
    centsAsDecimal(l.debits_cents),
    centsAsDecimal(l.credits_cents),
  ]);
  return { ok: true, csv: csvDocument(GL_EXPORT_CSV_HEADER, rows) };
}
