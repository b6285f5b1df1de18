import { letterPdf } from "~/server/files/pdf.server";
import { institution } from "~/config/institution.server";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { formatAprBp, formatRatePpm } from "~/domain/loans/products";
import type { LoanOfferDisclosure } from "~/domain/loans/offer";

/**
 * The accepted loan's Truth in Lending disclosure as a PDF (Regulation Z, 12 CFR 1026.17-18;
 * pdfkit as the statements, docs/decisions/0011-statement-pdf.md): the box of the four figures,
 * the payment schedule, then every payment. Real text, so a reader or extractor reads it back.
 */
export function renderLoanDisclosurePdf(input: {
  application: { id: number; product_name: string };
  disclosure: LoanOfferDisclosure;
  member_name: string;
}): Promise<Buffer> {
  const profile = institution();
  const d = input.disclosure;
  const { doc, done } = letterPdf({
    margin: 54,
    info: { Title: "Truth in Lending disclosure", Author: profile.name, Subject: input.application.product_name },
  });
  doc.font("Helvetica-Bold").fontSize(14).text(profile.name);
  doc.font("Helvetica").fontSize(9);
  doc.text(
    `${profile.address.street}, ${profile.address.city}, ${profile.address.state} ${profile.address.postal_code}`,
  );
  doc.moveDown(1);
  doc.font("Helvetica-Bold").fontSize(12).text(`Truth in Lending disclosure: ${input.application.product_name}`);
  doc.font("Helvetica").fontSize(9);
  doc.text(
    `Borrower: ${input.member_name}. Application ${input.application.id}. Date: ${formatBusinessDate(d.disbursed_on)}.`,
  );
  doc.moveDown(1);
  const box: [string, string, string][] = [
    ["Annual percentage rate", "The cost of your credit as a yearly rate.", formatAprBp(d.apr_bp)],
    ["Finance charge", "The dollar amount the credit will cost you.", formatCents(d.finance_charge_cents)],
    [
      "Amount financed",
      "The amount of credit provided to you or on your behalf.",
      formatCents(d.amount_financed_cents),
    ],
    [
      "Total of payments",
      "The amount you will have paid after you have made all payments as scheduled.",
      formatCents(d.total_of_payments_cents),
    ],
  ];
  for (const [label, meaning, value] of box) {
    const y = doc.y;
    doc.font("Helvetica-Bold").text(label, 54, y, { width: 150 });
    doc.font("Helvetica").text(meaning, 210, y, { width: 250 });
    doc.font("Helvetica-Bold").text(value, 470, y, { width: 88, align: "right" });
    doc.y = Math.max(doc.y, y + 24);
  }
  doc.x = 54;
  doc.moveDown(1);
  doc.font("Helvetica-Bold").text("Your payment schedule", 54);
  doc.font("Helvetica");
  for (const g of d.payment_schedule)
    doc.text(
      `${g.count} ${g.count === 1 ? "payment" : "payments"} of ${formatCents(g.amount_cents)}, monthly from ${formatBusinessDate(g.first_due_on)}`,
    );
  doc.moveDown(0.5);
  doc.text(
    `Interest rate ${formatRatePpm(d.rate_ppm)}, simple interest on the unpaid balance for the actual days, 365-day year. ` +
      `Prepayment: if you pay off early, you will not have to pay a penalty.`,
  );
  if (d.security_interest) {
    doc.moveDown(0.5);
    doc.text(`Security: ${d.security_interest}`);
  }
  doc.moveDown(1);
  doc.font("Helvetica-Bold").text("Every payment", 54);
  doc.font("Helvetica").fontSize(8);
  for (const p of d.payments) {
    if (doc.y > doc.page.height - 72) doc.addPage();
    const y = doc.y;
    doc.text(`${p.number}`, 54, y, { width: 30, lineBreak: false });
    doc.text(formatBusinessDate(p.due_on), 90, y, { width: 110, lineBreak: false });
    doc.text(formatCents(p.payment_cents), 200, y, { width: 80, align: "right", lineBreak: false });
    doc.text(`interest ${formatCents(p.interest_cents)}`, 290, y, { width: 110, align: "right", lineBreak: false });
    doc.text(`balance ${formatCents(p.balance_after_cents)}`, 410, y, { width: 148, align: "right", lineBreak: false });
    doc.y = y + 12;
  }
  doc.end();
  return done;
}
