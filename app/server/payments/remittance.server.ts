import { and, eq } from "drizzle-orm";
import { letterPdf } from "~/server/files/pdf.server";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { externalPayments, users } from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { sendEmail } from "~/server/mail/outbox.server";
import { logger } from "~/server/logger.server";
import { formatCents } from "~/domain/money";
import { referenceNumber } from "~/domain/account-display";
import { maskedWireAccount } from "./payment-destination.server";
import { findCountry } from "~/domain/countries";
import { foreignText, rateText, REMITTANCE_CANCEL_MINUTES, type RemittanceFigures } from "~/domain/remittance";

/**
 * The remittance transfer receipt (12 CFR 1005.31(b)(2), docs/product.md#remittance-transfers):
 * the figures the member saw before paying, read back from the wire's `external_payments` row
 * (the amount, rate and fees stored at the send, never recomputed at today's rate), with the
 * recipient, the date of availability, the cancellation right (1005.34) and the error-resolution
 * rights (1005.33) with the credit union's contact. Shown on /dashboard/payments/:id, as a PDF,
 * and emailed once when the wire is paid.
 */

export interface RemittanceReceipt {
  payment_id: number;
  reference_number: string;
  status: "pending" | "sent" | "cancelled" | "screening" | "blocked";
  paid_at: Date;
  /** Null when the profile's exemption was on at the send: no 30-minute window then. */
  cancel_until: Date | null;
  figures: RemittanceFigures;
  recipient: { name: string; bank_name: string; country: string; account: string };
  institution: { name: string; phone: string; email: string; hours: string; address: string };
}

/** The member's own wire's receipt, or null (not found, another member's, or not a wire). */
export async function remittanceReceipt(
  db: DbOrTx,
  member_id: string,
  payment_id: number,
): Promise<RemittanceReceipt | null> {
  if (!Number.isSafeInteger(payment_id) || payment_id <= 0) return null;
  const [p] = await db
    .select()
    .from(externalPayments)
    .where(
      and(
        eq(externalPayments.id, payment_id),
        eq(externalPayments.member_id, member_id),
        eq(externalPayments.kind, "wire"),
      ),
    );
  if (!p || p.foreign_amount_minor === null || p.rate === null) return null;
  const profile = institution();
  const third_party = Number(p.third_party_fee_minor ?? 0);
  const sent = Number(p.foreign_amount_minor);
  return {
    payment_id: Number(p.id),
    reference_number: referenceNumber(Number(p.hold_transaction_id)),
    status: p.status,
    paid_at: p.created_at,
    cancel_until: p.cancel_until,
    figures: {
      currency: p.currency,
      transfer_amount_cents: Number(p.amount_cents),
      fee_cents: Number(p.fee_cents),
      taxes_cents: 0,
      total_cents: Number(p.amount_cents) + Number(p.fee_cents),
      usd_per_unit: p.rate,
      sent_minor: sent,
      third_party_fee_minor: third_party,
      received_minor: sent - third_party,
      // A wire sent before the receipt existed has no stored date: the receipt says "not stated".
      available_on: p.available_on ?? "",
    },
    recipient: {
      name: p.details.recipient_name ?? "",
      bank_name: p.details.bank_name ?? "",
      country: findCountry(p.details.country ?? "")?.name ?? p.details.country ?? "",
      account: maskedWireAccount(p.details),
    },
    institution: {
      name: profile.name,
      phone: profile.support_phone,
      email: profile.support_email,
      hours: profile.support_hours,
      address: `${profile.address.street}, ${profile.address.city}, ${profile.address.state} ${profile.address.postal_code}`,
    },
  };
}

/** The receipt's lines of figures, in the order 1005.31(b) lists them; the page and the PDF both use them. */
export function receiptRows(r: Pick<RemittanceReceipt, "figures">): Array<[string, string]> {
  const f = r.figures;
  const rows: Array<[string, string]> = [
    ["Transfer amount", formatCents(f.transfer_amount_cents)],
    ["Transfer fees", formatCents(f.fee_cents)],
    ["Transfer taxes", formatCents(f.taxes_cents)],
    ["Total", formatCents(f.total_cents)],
    ["Exchange rate used", rateText(f)],
    ["Transfer amount in " + f.currency, foreignText(f.sent_minor, f.currency)],
  ];
  if (f.third_party_fee_minor > 0)
    rows.push(["Other fees (taken by the recipient's bank)", foreignText(f.third_party_fee_minor, f.currency)]);
  rows.push(["Total to recipient", foreignText(f.received_minor, f.currency)]);
  return rows;
}

/** The error-resolution and cancellation notice, as 1005.31(b)(2)(iv) and the model form A-31 word it. */
export function rightsText(r: RemittanceReceipt): { cancel: string; errors: string } {
  const i = r.institution;
  return {
    cancel: r.cancel_until
      ? `You can cancel for a full refund within ${REMITTANCE_CANCEL_MINUTES} minutes of payment, unless the funds have been picked up or deposited. Cancel in online banking (Payments to other banks, this transfer) or call us at ${i.phone}.`
      : `You can cancel for a full refund until we send the transfer. Cancel in online banking (Payments to other banks, this transfer) or call us at ${i.phone}.`,
    errors: `You have a right to dispute errors in your transaction. If you think there is an error, contact us within 180 days at ${i.phone} or ${i.email} (${i.hours}), or write to ${i.name}, ${i.address}. You can also contact us for a written explanation of your rights. For questions or complaints about ${i.name}, contact the Consumer Financial Protection Bureau, 855-411-2372, www.consumerfinance.gov.`,
  };
}

/** The receipt as a PDF (pdfkit, Helvetica: real text a reader extracts, as statements). */
export function renderRemittanceReceiptPdf(r: RemittanceReceipt, time_text: (d: Date) => string): Promise<Buffer> {
  const { doc, done } = letterPdf({
    margin: 54,
    info: { Title: `Remittance transfer receipt ${r.reference_number}`, Author: r.institution.name },
  });
  const width = doc.page.width - 108;
  doc.font("Helvetica-Bold").fontSize(14).text(r.institution.name);
  doc.font("Helvetica").fontSize(9).text(r.institution.address).text(`${r.institution.phone} · ${r.institution.email}`);
  doc.moveDown(1);
  doc.font("Helvetica-Bold").fontSize(13).text("Remittance transfer receipt");
  doc.font("Helvetica").fontSize(10);
  doc.text(`Reference ${r.reference_number} · Paid ${time_text(r.paid_at)}`);
  doc.moveDown(0.8);
  doc.font("Helvetica-Bold").text("Recipient");
  doc.font("Helvetica").text(`${r.recipient.name}`);
  doc.text(`${r.recipient.bank_name}, ${r.recipient.country}, account ${r.recipient.account}`);
  doc.moveDown(0.8);
  for (const [term, value] of receiptRows(r)) {
    const y = doc.y;
    const bold = term === "Total" || term === "Total to recipient";
    doc.font(bold ? "Helvetica-Bold" : "Helvetica").text(term, 54, y, { width: width - 200 });
    doc.text(value, 54 + width - 200, y, { width: 200, align: "right" });
    doc.moveDown(0.3);
  }
  doc.x = 54;
  doc.moveDown(0.5);
  doc
    .font("Helvetica-Bold")
    .text(`Date available: ${r.figures.available_on || "not stated"}`, { width })
    .font("Helvetica")
    .text("The recipient may receive less due to fees charged by the recipient's bank and foreign taxes.", {
      width,
    });
  if (r.cancel_until) doc.text(`Cancel by: ${time_text(r.cancel_until)}`, { width });
  const rights = rightsText(r);
  doc.moveDown(0.8);
  doc.font("Helvetica-Bold").text("Your right to cancel", { width });
  doc.font("Helvetica").text(rights.cancel, { width });
  doc.moveDown(0.6);
  doc.font("Helvetica-Bold").text("What to do if you think there is an error or problem", { width });
  doc.font("Helvetica").text(rights.errors, { width });
  doc.end();
  return done;
}

/** "2 December 2026, 09:41" in the credit union's time zone, for the PDF and the email. */
export function institutionTime(d: Date): string {
  return new Intl.DateTimeFormat("en-US", {
    timeZone: institution().time_zone,
    dateStyle: "long",
    timeStyle: "short",
  }).format(d);
}

/**
 * Emails the receipt with its PDF to the member's registered address, once, right after the wire
 * is paid. The transfer already stands: a failure here is logged (no personal data) and the
 * receipt stays on the payment's page and as a PDF.
 */
export async function emailRemittanceReceipt(db: Db, member_id: string, payment_id: number): Promise<void> {
  try {
    const receipt = await remittanceReceipt(db, member_id, payment_id);
    const [member] = await db
      .select({ email: users.email, name: users.name })
      .from(users)
      .where(eq(users.id, member_id));
    if (!receipt || !member) return;
    const pdf = await renderRemittanceReceiptPdf(receipt, institutionTime);
    const rights = rightsText(receipt);
    const f = receipt.figures;
    await sendEmail(db, {
      to: member.email,
      subject: `Receipt for your international transfer ${receipt.reference_number}`,
      text: [
        `Hello ${member.name},`,
        "",
        `Your international transfer to ${receipt.recipient.name} is paid. Your receipt is attached as a PDF.`,
        "",
        ...receiptRows(receipt).map(([term, value]) => `${term}: ${value}`),
        `Date available: ${f.available_on || "not stated"}`,
        ...(receipt.cancel_until ? [`Cancel by: ${institutionTime(receipt.cancel_until)}`] : []),
        "",
        rights.cancel,
        "",
        rights.errors,
        "",
        receipt.institution.name,
      ].join("\n"),
      kind: "remittance_receipt",
      user_id: member_id,
      attachments: [
        {
          file_name: `receipt-${receipt.reference_number}.pdf`,
          content_type: "application/pdf",
          content: pdf,
        },
      ],
    });
  } catch (error) {
    logger.error({ err: error, payment_id }, "remittance receipt email failed");
  }
}
