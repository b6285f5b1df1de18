import { letterPdf } from "~/server/files/pdf.server";
import { formatCents } from "~/domain/money";
import { maskAccountNumber } from "~/domain/account-display";
import type { StatementData } from "./statements.server";

/**
 * The statement as a PDF (pdfkit, docs/decisions/0011-statement-pdf.md), on US Letter paper with
 * the PDF standard fonts (Helvetica: nothing to embed, so a statement is a few kilobytes). The
 * text is real text, in reading order, so a screen reader or a text extractor reads it back.
 */

const PAGE = { margin: 54 };
const COLUMNS = { date: 54, description: 130, amount: 400, balance: 480, right: 558 };
const ROW_HEIGHT = 15;

const TYPE_LABELS: Record<string, string> = {
  checking: "Personal Checking",
  savings: "Personal Savings",
  credit_card: "Credit Card",
};

export function renderStatementPdf(data: StatementData): Promise<Buffer> {
  const { doc, done } = letterPdf({
    margin: PAGE.margin,
    info: { Title: `Statement ${data.period.label}`, Author: data.institution.name, Subject: "Account statement" },
  });

  const f = data.figures;
  const bottom = doc.page.height - PAGE.margin;

  // Heading: the institution on the left, the statement's title and period on the right.
  doc.font("Helvetica-Bold").fontSize(14).text(data.institution.name, PAGE.margin, PAGE.margin);
  doc.font("Helvetica").fontSize(9);
  for (const line of data.institution.address_lines) doc.text(line);
  doc.text(`Routing number ${data.institution.routing_number}`);
  const heading_end = doc.y;
  doc.font("Helvetica-Bold").fontSize(12).text("Account statement", 340, PAGE.margin, { width: 218, align: "right" });
  doc
    .font("Helvetica")
    .fontSize(9)
    .text(`${data.period.label}: ${data.period.start} to ${data.period.end}`, { width: 218, align: "right" });
  doc.y = Math.max(heading_end, doc.y) + 18;

  // The member and the account.
  doc.x = PAGE.margin;
  doc.font("Helvetica-Bold").fontSize(10).text(data.member.name);
  doc.font("Helvetica").fontSize(9);
  for (const line of data.member.address_lines) doc.text(line);
  doc.moveDown(0.8);
  doc.text(
    `${TYPE_LABELS[data.account.type] ?? data.account.name}, account ${maskAccountNumber(data.account.account_number)}`,
  );
  doc.moveDown(0.8);

  // Summary.
  const summary: [string, string][] = [
    ["Opening balance", formatCents(f.opening_cents)],
    ["Money in", formatCents(f.credits_cents)],
    ["Money out", formatCents(f.debits_cents)],
    ["Closing balance", formatCents(f.closing_cents)],
  ];
  // Dividends as a savings statement discloses them: the period's, the year's, and the APY earned.
  const d = data.dividends;
  if (d) {
    summary.push(
      [`Dividends earned this period (${d.days} days)`, formatCents(d.period_cents)],
      ["Dividends earned this year", formatCents(d.year_to_date_cents)],
      ["Average daily balance", formatCents(d.average_daily_balance_cents)],
      ["Annual percentage yield earned", d.apy_earned ?? "0.00%"],
    );
  }
  for (const [label, value] of summary) {
    const y = doc.y;
    doc
      .font(label === "Closing balance" ? "Helvetica-Bold" : "Helvetica")
      .text(label, PAGE.margin, y, { width: 200, lineBreak: false });
    doc.text(value, 254, y, { width: 100, align: "right", lineBreak: false });
    doc.y = y + ROW_HEIGHT;
  }
  doc.moveDown(1);

  // Posted transactions with the balance after each.
  section(doc, "Posted transactions");
  header(doc, ["Date", "Description", "Amount", "Balance"]);
  row(doc, bottom, [data.period.start, "Opening balance", "", formatCents(f.opening_cents)]);
  for (const line of f.posted) {
    const description = line.status === "reversed" ? `${line.description} (reversed)` : line.description;
    row(doc, bottom, [
      line.effective_date,
      description,
      formatCents(line.amount_cents),
      formatCents(line.balance_cents),
    ]);
  }
  row(doc, bottom, [data.period.end, "Closing balance", "", formatCents(f.closing_cents)], true);
  if (f.posted.length === 0) row(doc, bottom, ["", "No posted transactions this month.", "", ""]);
  doc.moveDown(1);

  // Pending: listed apart, in no balance.
  section(doc, "Pending at the time of this statement (not in the balances above)");
  if (f.pending.length === 0) row(doc, bottom, ["", "None.", "", ""]);
  else {
    header(doc, ["Date", "Description", "Amount", ""]);
    for (const line of f.pending)
      row(doc, bottom, [line.effective_date, line.description, formatCents(line.amount_cents), ""]);
  }

  doc.end();
  return done;
}

function section(doc: PDFKit.PDFDocument, title: string): void {
  doc.x = PAGE.margin;
  doc.font("Helvetica-Bold").fontSize(10).text(title, PAGE.margin, doc.y);
  doc.moveDown(0.3);
}

// Each row is ROW_HEIGHT below the last: the row's y is kept, because pdfkit's text() moves
// doc.y down by a line itself and adding ROW_HEIGHT after it spaced the rows 25 points apart.
function header(doc: PDFKit.PDFDocument, cells: string[]): void {
  doc.font("Helvetica-Bold").fontSize(8.5);
  const y = doc.y;
  cellsAt(doc, y, cells);
  doc.y = y + ROW_HEIGHT;
}

function row(doc: PDFKit.PDFDocument, bottom: number, cells: string[], bold = false): void {
  if (doc.y + ROW_HEIGHT > bottom) {
    doc.addPage();
    doc.y = PAGE.margin;
  }
  doc.font(bold ? "Helvetica-Bold" : "Helvetica").fontSize(8.5);
  const y = doc.y;
  cellsAt(doc, y, cells);
  doc.y = y + ROW_HEIGHT;
}

function cellsAt(
  doc: PDFKit.PDFDocument,
  y: number,
  [date = "", description = "", amount = "", balance = ""]: string[],
): void {
  const description_width = COLUMNS.amount - COLUMNS.description - 8;
  doc.text(date, COLUMNS.date, y, { lineBreak: false });
  doc.text(fit(doc, description, description_width), COLUMNS.description, y, { lineBreak: false });
  doc.text(amount, COLUMNS.amount, y, {
    width: COLUMNS.balance - COLUMNS.amount - 4,
    align: "right",
    lineBreak: false,
  });
  doc.text(balance, COLUMNS.balance, y, { width: COLUMNS.right - COLUMNS.balance, align: "right", lineBreak: false });
}

/** The description cut to its column with an ellipsis, so a long memo never runs into the amounts. */
function fit(doc: PDFKit.PDFDocument, text: string, width: number): string {
  if (doc.widthOfString(text) <= width) return text;
  let cut = text;
  while (cut.length > 1 && doc.widthOfString(`${cut}…`) > width) cut = cut.slice(0, -1);
  return `${cut.trimEnd()}…`;
}

/** The table's pieces (a date, a description, an amount and a balance), for the loan statement too (app/server/loans/statement-pdf.server.ts). */
export { COLUMNS as STATEMENT_COLUMNS, section as statementSection, header as statementHeader, row as statementRow };
