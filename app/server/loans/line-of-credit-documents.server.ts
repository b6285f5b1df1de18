import { letterPdf } from "~/server/files/pdf.server";
import { institution } from "~/config/institution.server";
import { formatBusinessDate } from "~/domain/calendar-date";
import { lineDisclosureRows, type LineOfCreditDisclosure } from "~/domain/loans/line-of-credit";
import type { OutgoingEmail } from "~/server/mail/outbox.server";

/**
 * A line of credit's account-opening disclosure as the PDF kept with the acceptance (pdfkit, real
 * text) and in the email; the rows are the ones the app shows (lineDisclosureRows).
 */
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
