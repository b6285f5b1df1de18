import {
  appliedRow,
  beginStatement,
  balanceOwedTable,
  figureRows,
  statementHeader,
  statementRow,
  statementSection,
} from "./pdf.server";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { formatAprBp, formatRatePpm } from "~/domain/loans/products";
import type { PaymentsByPart } from "~/domain/loans/statement";
import type { LoanStatementData } from "./loan-statements.server";

/**
 * A loan's monthly statement as a PDF (pdfkit and the account statement's table,
 * docs/decisions/0011-statement-pdf.md): what is due and when with the late fee, anything past
 * due, the month's summary, the payments by part, the month's transactions with the balance owed
 * after each, and whom to ask. Real text in reading order, so a text extractor reads it back.
 */

const MARGIN = 54;

export function renderLoanStatementPdf(data: LoanStatementData): Promise<Buffer> {
  const f = data.figures;
  const { doc, done, bottom } = beginStatement(
    { Title: `Loan statement ${data.period.label}`, Author: data.institution.name, Subject: "Loan statement" },
    {
      institution: data.institution,
      contact: `Questions: ${data.institution.phone}, ${data.institution.email}`,
      title: "Loan statement",
      title_width: 218,
      period_lines: [`${data.period.label}: ${data.period.start} to ${data.period.end}`],
      member: data.member,
    },
  );
  doc.text(
    `${data.loan.product_name} ${data.loan.number}: ${formatCents(data.loan.principal_cents)} paid out ${data.loan.disbursed_on}.`,
  );
  doc.text(
    `Interest rate ${formatRatePpm(data.loan.rate_ppm)} (simple interest, actual days, 365-day year). Annual percentage rate ${formatAprBp(data.loan.apr_bp)}.`,
  );
  doc.moveDown(0.8);

  // What is due: first, as a member looks for it. A loan without a schedule (a line of credit)
  // has its own rule for what is due, not this one: the section is left out.
  if (data.loan.scheduled) paymentDue(doc, data);

  statementSection(doc, "This period");
  const summary: [string, string][] = [["Balance owed at the start", formatCents(f.opening.total_cents)]];
  if (f.advanced_cents !== 0) summary.push(["Paid out to you", formatCents(f.advanced_cents)]);
  summary.push(
    ["Interest charged", formatCents(f.interest_charged_cents)],
    ["Fees charged", formatCents(f.fees_charged_cents)],
    ["Payments", formatCents(-f.paid.total_cents)],
    ["Balance owed at the end", formatCents(f.closing.total_cents)],
    ["of which principal outstanding", formatCents(f.closing.principal_cents)],
    ["of which interest unpaid", formatCents(f.closing.interest_cents)],
    ["of which fees unpaid", formatCents(f.closing.fees_cents)],
  );
  figureRows(doc, summary, "Balance owed at the end");
  doc.moveDown(1);

  statementSection(doc, "Your payments");
  statementHeader(doc, ["", "", "This period", "This year"]);
  const parts: [string, keyof PaymentsByPart][] = [
    ["Principal", "principal_cents"],
    ["Interest", "interest_cents"],
    ["Fees", "fees_cents"],
    ["Total paid", "total_cents"],
  ];
  for (const [label, key] of parts)
    statementRow(
      doc,
      bottom,
      ["", label, formatCents(f.paid[key]), formatCents(f.paid_year_to_date[key])],
      key === "total_cents",
    );
  if (f.last_payment) {
    statementRow(doc, bottom, [
      f.last_payment.effective_date,
      "Last payment",
      formatCents(f.last_payment.total_cents),
      "",
    ]);
    appliedRow(doc, bottom, f.last_payment);
  }
  doc.moveDown(1);

  // A payment's application on the line under it (1026.41(d)(3)'s breakdown, for each payment).
  balanceOwedTable(doc, bottom, {
    opening: { on: f.period.start, label: "Balance owed at the start", cents: f.opening.total_cents },
    lines: f.lines,
    none: "No transactions this period.",
    closing: { on: f.period.end, label: "Balance owed at the end", cents: f.closing.total_cents },
  });
  doc.moveDown(1);
  doc
    .font("Helvetica")
    .fontSize(8.5)
    .text(
      `Payments are applied to fees, then interest, then principal. To pay, or for your payoff amount today, sign in and open Loans. Questions about this statement: call ${data.institution.phone} or write to ${data.institution.email}.`,
      MARGIN,
    );

  doc.end();
  return done;
}

/** The amount due and its date, the late fee's terms, anything past due (12 CFR 1026.41(d)(1), (8)). */
function paymentDue(doc: PDFKit.PDFDocument, data: LoanStatementData): void {
  const f = data.figures;
  statementSection(doc, "Payment due");
  const due = f.amount_due;
  if (data.loan.status === "paid_off" && data.loan.closed_on)
    doc.font("Helvetica").text(`Paid in full on ${formatBusinessDate(data.loan.closed_on)}. Nothing is due.`);
  else if (!due) {
    doc
      .font("Helvetica")
      .text(
        f.closing.total_cents > 0
          ? "Nothing is due by your next due date: your payments are ahead of schedule."
          : "Nothing is due.",
      );
  } else {
    const rows: [string, string][] = [
      ["Payment due date", due.due_on ? formatBusinessDate(due.due_on) : "Now"],
      ["Scheduled payment", formatCents(due.regular_cents)],
    ];
    if (due.past_due_cents > 0) rows.push(["Past due", formatCents(due.past_due_cents)]);
    if (due.fees_cents > 0) rows.push(["Fees unpaid", formatCents(due.fees_cents)]);
    rows.push(["Amount due", formatCents(due.amount_cents)]);
    figureRows(doc, rows, "Amount due");
    if (f.late_fee)
      doc
        .font("Helvetica")
        .text(
          `If we have not received the payment due by ${formatBusinessDate(f.late_fee.charged_after)}, a ${formatCents(f.late_fee.late_fee_cents)} late fee will be charged.`,
          MARGIN,
        );
    if (due.past_due_cents > 0)
      doc
        .font("Helvetica-Bold")
        .text(
          `Your loan is past due: ${formatCents(due.past_due_cents)} of the payments due by ${formatBusinessDate(f.period.end)} has not been paid. Please pay it now, or call us at ${data.institution.phone} if you are having trouble paying.`,
          MARGIN,
        );
  }
  doc.moveDown(1);
}
