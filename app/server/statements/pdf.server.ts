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
  const { doc, done, bottom } = beginStatement(
    { Title: `Statement ${data.period.label}`, Author: data.institution.name, Subject: "Account statement" },
    {
      institution: data.institution,
      contact: `Routing number ${data.institution.routing_number}`,
      title: "Account statement",
      title_width: 218,
      period_lines: [`${data.period.label}: ${data.period.start} to ${data.period.end}`],
      member: data.member,
    },
  );
  const f = data.figures;

  // The account.
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
  figureRows(doc, summary, "Closing balance");
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

/**
 * A statement's PDF begun: the page (US Letter, the statements' margin) with its heading written,
 * where a page ends (`bottom`, for the table's rows), and the file once the caller ends `doc`.
 */
export function beginStatement(info: { Title: string; Author: string; Subject: string }, heading: StatementHeading) {
  const { doc, done } = letterPdf({ margin: PAGE.margin, info });
  statementHeading(doc, heading);
  return { doc, done, bottom: doc.page.height - PAGE.margin };
}

/** What opens every statement: who sends it, its title and period, and whom it is for. */
export interface StatementHeading {
  institution: { name: string; address_lines: string[] };
  /** The line under the institution's address: its routing number, or how to reach it. */
  contact: string;
  title: string;
  /** The width of the title's column, against the right margin (a longer title, a wider column). */
  title_width: number;
  /** Under the title, right-aligned: the period or cycle. */
  period_lines: string[];
  member: { name: string; address_lines: string[] };
}

/**
 * The heading of an account's, a loan's and a line's statement: the institution on the left, the
 * title and period on the right, then the member's name and address, the text left at the margin.
 */
function statementHeading(doc: PDFKit.PDFDocument, heading: StatementHeading): void {
  doc.font("Helvetica-Bold").fontSize(14).text(heading.institution.name, PAGE.margin, PAGE.margin);
  doc.font("Helvetica").fontSize(9);
  for (const line of heading.institution.address_lines) doc.text(line);
  doc.text(heading.contact);
  const heading_end = doc.y;
  const width = heading.title_width;
  doc
    .font("Helvetica-Bold")
    .fontSize(12)
    .text(heading.title, COLUMNS.right - width, PAGE.margin, { width, align: "right" });
  doc.font("Helvetica").fontSize(9);
  for (const line of heading.period_lines) doc.text(line, { width, align: "right" });
  doc.y = Math.max(heading_end, doc.y) + 18;

  doc.x = PAGE.margin;
  doc.font("Helvetica-Bold").fontSize(10).text(heading.member.name);
  doc.font("Helvetica").fontSize(9);
  for (const line of heading.member.address_lines) doc.text(line);
  doc.moveDown(0.8);
}

/** Label and amount pairs, the `bold` one in bold. */
export function figureRows(doc: PDFKit.PDFDocument, rows: [string, string][], bold: string): void {
  doc.fontSize(9);
  for (const [label, value] of rows) {
    const y = doc.y;
    doc
      .font(label === bold ? "Helvetica-Bold" : "Helvetica")
      .text(label, PAGE.margin, y, { width: 200, lineBreak: false });
    doc.text(value, 254, y, { width: 100, align: "right", lineBreak: false });
    doc.y = y + ROW_HEIGHT;
  }
}

/** How a payment went to principal, interest and fees (12 CFR 1026.41(d)(3)'s breakdown). */
export interface AppliedParts {
  principal_cents: number;
  interest_cents: number;
  fees_cents: number;
}

/**
 * How a payment was applied, on its own line under it from the description column to the right
 * margin (the amount columns are empty there, so large figures never run into them).
 */
export function appliedRow(doc: PDFKit.PDFDocument, bottom: number, parts: AppliedParts): void {
  if (doc.y + ROW_HEIGHT > bottom) {
    doc.addPage();
    doc.y = PAGE.margin;
  }
  const y = doc.y;
  doc
    .font("Helvetica")
    .fontSize(8.5)
    .text(
      `Applied: principal ${formatCents(parts.principal_cents)}, interest ${formatCents(parts.interest_cents)}, fees ${formatCents(parts.fees_cents)}`,
      COLUMNS.description,
      y,
      { width: COLUMNS.right - COLUMNS.description, lineBreak: false },
    );
  doc.y = y + ROW_HEIGHT;
}

/** A loan's or a line's transactions of the period, as its statement lists them. */
export interface BalanceOwedTable {
  opening: { on: string; label: string; cents: number };
  lines: readonly {
    effective_date: string;
    description: string;
    amount_cents: number;
    balance_cents: number;
    paid: AppliedParts | null;
  }[];
  /** Said when there are no lines. */
  none: string;
  closing: { on: string; label: string; cents: number };
}

/**
 * A loan's or a line's transactions with the balance owed after each, from the balance at the
 * start to the one at the end; a payment's application on the line under it.
 */
export function balanceOwedTable(doc: PDFKit.PDFDocument, bottom: number, table: BalanceOwedTable): void {
  section(doc, "Transactions (a payment lowers the balance owed)");
  header(doc, ["Date", "Description", "Amount", "Balance owed"]);
  row(doc, bottom, [table.opening.on, table.opening.label, "", formatCents(table.opening.cents)]);
  for (const line of table.lines) {
    row(doc, bottom, [
      line.effective_date,
      line.description,
      formatCents(line.amount_cents),
      formatCents(line.balance_cents),
    ]);
    if (line.paid) appliedRow(doc, bottom, line.paid);
  }
  if (table.lines.length === 0) row(doc, bottom, ["", table.none, "", ""]);
  row(doc, bottom, [table.closing.on, table.closing.label, "", formatCents(table.closing.cents)], true);
}

/** The table's pieces (a date, a description, an amount and a balance), for the loan's and the line's statements too. */
export { section as statementSection, header as statementHeader, row as statementRow };
