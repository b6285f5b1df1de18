import {
  balanceOwedTable,
  beginStatement,
  figureRows,
  statementHeader,
  statementRow,
  statementSection,
} from "./pdf.server";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { formatRatePpm } from "~/domain/loans/products";
import { dailyPeriodicRate } from "~/domain/loans/line-of-credit";
import type { LineStatementData } from "./line-statements.server";

/**
 * A line of credit's periodic statement as a PDF (pdfkit and the account statement's table,
 * docs/decisions/0011-statement-pdf.md), in the order of Regulation Z 12 CFR 1026.7(b) and
 * 1026.7(b)(11): the minimum payment, its due date and the late fee first, then the cycle's summary
 * (previous balance, draws, payments, interest and fees, new balance), each rate that applied in
 * the cycle with its days, the balance it was figured on and its interest, the year's interest and fees, every transaction with the balance after
 * it, and where to write about a billing error. Real text in reading order, so a text extractor
 * reads it back.
 */

const MARGIN = 54;

export function renderLineStatementPdf(data: LineStatementData): Promise<Buffer> {
  const f = data.figures;
  const { doc, done, bottom } = beginStatement(
    {
      Title: `Line of credit statement ${data.cycle.closed_on}`,
      Author: data.institution.name,
      Subject: "Line of credit statement",
    },
    {
      institution: data.institution,
      contact: `Questions: ${data.institution.phone}, ${data.institution.email}`,
      title: "Line of credit statement",
      title_width: 258,
      period_lines: [
        `Billing cycle ${f.period.start} to ${f.period.last_day} (${f.period.days} days)`,
        `Closing date ${f.period.closed_on}`,
      ],
      member: data.member,
    },
  );
  doc.text(`${data.line.product_name} ${data.line.number}`);
  doc.moveDown(0.8);

  // 1026.7(b)(11): the due date and the minimum payment, with the late fee beside them.
  statementSection(doc, "Payment due");
  if (data.cycle.minimum_due_cents === 0) doc.font("Helvetica").text("Nothing is due: you owed nothing at the close.");
  else {
    figureRows(
      doc,
      [
        ["New balance", formatCents(f.new_balance.total_cents)],
        ["Minimum payment due", formatCents(data.cycle.minimum_due_cents)],
        ["Payment due date", formatBusinessDate(data.cycle.due_on)],
      ],
      "Minimum payment due",
    );
    if (data.late_fee_after)
      doc
        .font("Helvetica")
        .text(
          `Late payment warning: if we do not receive your minimum payment by ${formatBusinessDate(data.late_fee_after)}, a late fee of ${formatCents(data.line.late_fee_cents)} will be charged.`,
          MARGIN,
        );
  }
  doc.moveDown(1);

  // 1026.7(b)(1), (3), (6), (8): the cycle's summary.
  statementSection(doc, "Account summary");
  figureRows(
    doc,
    [
      ["Previous balance", formatCents(f.previous_balance_cents)],
      ["Draws", formatCents(f.draws_cents)],
      ["Payments and credits", formatCents(-f.payments_cents)],
      ["Interest charged", formatCents(f.interest_cents)],
      ["Fees charged", formatCents(f.fees_cents)],
      [`New balance on ${f.period.closed_on}`, formatCents(f.new_balance.total_cents)],
      ["Credit limit", formatCents(data.line.credit_limit_cents)],
      ["Available credit", formatCents(data.available_credit_cents)],
    ],
    `New balance on ${f.period.closed_on}`,
  );
  doc.moveDown(1);

  // 1026.7(b)(4), (5), (7): each rate that applied in the cycle, the balance it was applied to
  // and the interest posted for its days; how the balance is figured.
  statementSection(doc, "Interest charge calculation");
  statementHeader(doc, ["From", "Draws", "Balance", "Interest"]);
  for (const period of f.rate_periods)
    statementRow(doc, bottom, [
      period.start,
      `${period.days} ${period.days === 1 ? "day" : "days"}: APR ${formatRatePpm(period.rate_ppm)}, daily periodic rate ${dailyPeriodicRate(period.rate_ppm)}`,
      formatCents(period.average_daily_balance_cents),
      formatCents(period.interest_cents),
    ]);
  const changes = f.rate_periods.slice(1);
  doc
    .font("Helvetica")
    .fontSize(8.5)
    .text(
      [
        changes.length > 0
          ? `Your APR changed during this cycle: ${f.rate_periods
              .map((p) => `${formatRatePpm(p.rate_ppm)} from ${p.start} to ${p.last_day}`)
              .join(", then ")}. Each rate is shown with the days it applied.`
          : null,
        `Balance subject to interest rate: the average daily balance of the principal drawn over the ${changes.length > 0 ? "days each rate applied" : `cycle's ${f.period.days} days`}. Each day's interest is that day's principal times the daily periodic rate (the APR divided by 365); there is no grace period, so interest begins on the day of each draw. Interest is posted nightly and shown below as it was posted.`,
      ]
        .filter(Boolean)
        .join(" "),
      MARGIN,
    );
  doc.moveDown(1);

  // 1026.7(b)(6)(iii): the year's totals.
  statementSection(doc, `Totals year to date (${f.year_to_date.year})`);
  figureRows(
    doc,
    [
      ["Total interest charged this year", formatCents(f.year_to_date.interest_cents)],
      ["Total fees charged this year", formatCents(f.year_to_date.fees_cents)],
    ],
    "",
  );
  doc.moveDown(1);

  // 1026.7(b)(2): every transaction of the cycle.
  balanceOwedTable(doc, bottom, {
    opening: { on: f.period.start, label: "Previous balance", cents: f.previous_balance_cents },
    lines: f.lines,
    none: "No transactions this cycle.",
    closing: { on: f.period.closed_on, label: "New balance", cents: f.new_balance.total_cents },
  });
  doc.moveDown(1);

  // 1026.7(b)(9): where to send a billing-error notice, kept on one page with its heading.
  if (doc.y + 90 > bottom) {
    doc.addPage();
    doc.y = MARGIN;
  }
  statementSection(doc, "Billing rights");
  doc
    .font("Helvetica")
    .fontSize(8.5)
    .text(
      `If you think this statement is wrong, or you need more information about a transaction on it, write to us within 60 days of the statement's closing date at: ${data.institution.name}, ${data.institution.address_lines.join(", ")}. Give your name, the line's number ${data.line.number}, the amount and why you believe there is an error. You may also send us a secure message in online banking or call ${data.institution.phone}, but a call does not preserve your rights. While we look into it, you need not pay the amount in question. Payments are applied to fees, then interest, then principal.`,
      MARGIN,
    );

  doc.end();
  return done;
}
