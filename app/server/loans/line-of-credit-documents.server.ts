import { letterPdf } from "~/server/files/pdf.server";
import { institution } from "~/config/institution.server";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { formatRatePpm } from "~/domain/loans/products";
import type { LineOfCreditDisclosure } from "~/domain/loans/line-of-credit";
import type { OutgoingEmail } from "~/server/mail/outbox.server";

/**
 * A line of credit's account-opening disclosure (Regulation Z 12 CFR 1026.6(b)) as the member
 * reads it in the app, as the PDF kept with the acceptance (pdfkit, real text) and in the email:
 * one list of rows, so the three say the same.
 */
export function lineDisclosureRows(d: LineOfCreditDisclosure): [string, string][] {
  return [
    ["Credit limit", formatCents(d.credit_limit_cents)],
    ["Annual percentage rate (APR) for draws", `${formatRatePpm(d.rate_ppm)} (fixed)`],
    ["Daily periodic rate", d.daily_periodic_rate],
    ["How we figure interest", d.balance_method],
    ["When interest begins", d.grace_period],
    ["Minimum payment", d.minimum_payment_text],
    ["Payment due", `${d.payment_due_days} days after each monthly billing cycle closes`],
    ["Late payment fee", `${formatCents(d.late_fee_cents)} if the minimum is not paid within ${d.late_fee_grace_days} days of its due date`],
    ["Annual or opening fee", d.annual_fee_cents === 0 ? "None" : formatCents(d.annual_fee_cents)],
    ["How payments are applied", d.payment_application],
    ["First billing cycle closes", formatBusinessDate(d.first_cycle_close_on)],
  ];
}

export function renderLineDisclosurePdf(input: {
  application: { id: number; product_name: string };
  disclosure: LineOfCreditDisclosure;
  member_name: string;
}): Promise<Buffer> {
  const profile = institution();
  const d = input.disclosure;
  const { doc, done } = letterPdf({
    margin: 54,
    info: { Title: "Account-opening disclosure", Author: profile.name, Subject: input.application.product_name },
  });
  doc.font("Helvetica-Bold").fontSize(14).text(profile.name);
  doc.font("Helvetica").fontSize(9);
  doc.text(
    `${profile.address.street}, ${profile.address.city}, ${profile.address.state} ${profile.address.postal_code}`,
  );
  doc.moveDown(1);
  doc.font("Helvetica-Bold").fontSize(12).text(`Account-opening disclosure: ${input.application.product_name}`);
  doc.font("Helvetica").fontSize(9);
  doc.text(
    `Borrower: ${input.member_name}. Application ${input.application.id}. Opened: ${formatBusinessDate(d.opened_on)}.`,
  );
  doc.moveDown(1);
  for (const [label, value] of lineDisclosureRows(d)) {
    const y = doc.y;
    doc.font("Helvetica-Bold").text(label, 54, y, { width: 170 });
    doc.font("Helvetica").text(value, 230, y, { width: 328 });
    doc.y = Math.max(doc.y, y + 14) + 6;
  }
  doc.x = 54;
  doc.moveDown(1);
  doc.text(
    "You may pay more than the minimum, or the whole balance, at any time without penalty; what you pay back can be drawn again up to your credit limit.",
    54,
  );
  doc.end();
  return done;
}

type Message = Omit<OutgoingEmail, "to" | "user_id">;

export function lineAcceptedEmail(a: { product_name: string; disclosure: LineOfCreditDisclosure }): Message {
  const p = institution();
  return {
    kind: "loan",
    subject: `Your ${a.product_name.toLowerCase()} is open: the disclosure you accepted`,
    text:
      `You accepted your ${a.product_name.toLowerCase()}. Your account-opening disclosure is attached and kept in online banking under Loans.\n\n` +
      lineDisclosureRows(a.disclosure)
        .map(([label, value]) => `${label}: ${value}`)
        .join("\n") +
      `\n\nDraw on the line into your checking or savings under Loans whenever you like.` +
      `\n\n${p.name}\n${p.address.street}, ${p.address.city}, ${p.address.state} ${p.address.postal_code}\n${p.support_email} · ${p.support_phone}`,
  };
}
