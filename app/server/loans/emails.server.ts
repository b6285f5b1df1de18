import { institution } from "~/config/institution.server";
import type { OutgoingEmail } from "~/server/mail/outbox.server";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { ECOA_NOTICE, formatAprBp, formatRatePpm } from "~/domain/loans/products";
import type { LoanOfferDisclosure } from "~/domain/loans/offer";

/**
 * The loan letters (docs/product.md#loans): received, an offer, the adverse action notice
 * (Regulation B, 12 CFR 1002.9(a)(1) and (b): the action, the specific reasons, the ECOA notice,
 * the creditor's name and address), and the accepted disclosure. Plain text, as every message the
 * app sends; figures only, never the income or employer.
 */
type Message = Omit<OutgoingEmail, "to" | "user_id">;

function signature(): string {
  const p = institution();
  return `\n\n${p.name}\n${p.address.street}, ${p.address.city}, ${p.address.state} ${p.address.postal_code}\n${p.support_email} · ${p.support_phone}`;
}

/** `term_months` null: a line of credit, asked for by its credit limit. */
export function receivedEmail(a: { product_name: string; amount_cents: number; term_months: number | null }): Message {
  return {
    kind: "loan",
    subject: `We received your ${a.product_name.toLowerCase()} application`,
    text:
      (a.term_months === null
        ? `Thank you for applying for a ${a.product_name.toLowerCase()} with a credit limit of ${formatCents(a.amount_cents)}.\n\n`
        : `Thank you for applying for a ${a.product_name.toLowerCase()} of ${formatCents(a.amount_cents)} over ${a.term_months} months.\n\n`) +
      `We will review it and tell you our decision in online banking under Loans and by email.` +
      signature(),
  };
}

export function offerEmail(a: {
  product_name: string;
  amount_cents: number;
  /** null: a line of credit (its credit limit offered). */
  term_months: number | null;
  rate_ppm: number;
  expires_on: string;
  counter: boolean;
}): Message {
  if (a.term_months === null) return lineOfferEmail(a);
  return {
    kind: "loan",
    subject: a.counter
      ? `An offer for your ${a.product_name.toLowerCase()} application`
      : `Your ${a.product_name.toLowerCase()} is approved`,
    text:
      (a.counter
        ? `We cannot offer the loan on the terms you asked for, but we can offer you these:\n\n`
        : `Good news: we approved your application.\n\n`) +
      `Amount: ${formatCents(a.amount_cents)}\nTerm: ${a.term_months} monthly payments\nInterest rate: ${formatRatePpm(a.rate_ppm)}\n\n` +
      `Sign in to online banking and open Loans to read the Truth in Lending disclosure (the annual percentage rate, finance charge and your payments) and accept the offer by ${formatBusinessDate(a.expires_on)}. ` +
      `If you accept, the money is deposited into your checking account the same day.` +
      signature(),
  };
}

/** The adverse action notice (12 CFR 1002.9(a)(2)(i), (b)(1), (b)(2)). */
export function declinedEmail(a: {
  product_name: string;
  applied_on: string;
  decided_on: string;
  reasons: string[];
}): Message {
  return {
    kind: "loan",
    subject: `Our decision on your ${a.product_name.toLowerCase()} application`,
    text: adverseActionNoticeText(a) + signature(),
  };
}

/** The notice's words, the same in the email and in the app. */
export function adverseActionNoticeText(a: {
  product_name: string;
  applied_on: string;
  decided_on: string;
  reasons: string[];
}): string {
  return (
    `Statement of credit denial\n\n` +
    `Date: ${formatBusinessDate(a.decided_on)}\n` +
    `Applicant's request: ${a.product_name}, applied for on ${formatBusinessDate(a.applied_on)}\n` +
    `Action taken: we cannot approve your application.\n\n` +
    `The principal reasons for our decision:\n${a.reasons.map((r) => `- ${r}`).join("\n")}\n\n` +
    `Creditor: ${institution().name}, ${institution().address.street}, ${institution().address.city}, ${institution().address.state} ${institution().address.postal_code}\n\n` +
    `Notice: ${ECOA_NOTICE}`
  );
}

export function acceptedEmail(a: { product_name: string; disclosure: LoanOfferDisclosure }): Message {
  const d = a.disclosure;
  return {
    kind: "loan",
    subject: `Your ${a.product_name.toLowerCase()}: the disclosure you accepted`,
    text:
      `You accepted your ${a.product_name.toLowerCase()}. Your Truth in Lending disclosure is attached and kept in online banking under Loans.\n\n` +
      `Annual percentage rate: ${formatAprBp(d.apr_bp)}\nFinance charge: ${formatCents(d.finance_charge_cents)}\n` +
      `Amount financed: ${formatCents(d.amount_financed_cents)}\nTotal of payments: ${formatCents(d.total_of_payments_cents)}\n` +
      d.payment_schedule
        .map(
          (g) =>
            `${g.count} ${g.count === 1 ? "payment" : "payments"} of ${formatCents(g.amount_cents)} from ${formatBusinessDate(g.first_due_on)}`,
        )
        .join("\n") +
      signature(),
  };
}

/** An autopay that could not be made (docs/product.md#loan-servicing): the member pays by hand. */
export function autopayFailedEmail(a: {
  product_name: string;
  loan_number: string;
  due_on: string;
  reason: string;
  grace_days: number | null;
}): Message {
  return {
    kind: "loan",
    subject: `Your ${a.product_name.toLowerCase()} autopay could not be made`,
    text:
      `The payment due ${formatBusinessDate(a.due_on)} on ${a.loan_number} was not taken: ${a.reason}.\n\n` +
      `Please sign in to online banking and pay it under Loans` +
      (a.grace_days !== null ? ` within ${a.grace_days} days of the due date to avoid a late fee.` : ".") +
      signature(),
  };
}

/** A line of credit's offer: the limit and the rate; the account-opening disclosure is read in the app. */
function lineOfferEmail(a: {
  product_name: string;
  amount_cents: number;
  rate_ppm: number;
  expires_on: string;
  counter: boolean;
}): Message {
  return {
    kind: "loan",
    subject: a.counter
      ? `An offer for your ${a.product_name.toLowerCase()} application`
      : `Your ${a.product_name.toLowerCase()} is approved`,
    text:
      (a.counter
        ? `We cannot offer the credit limit you asked for, but we can offer you this:\n\n`
        : `Good news: we approved your application.\n\n`) +
      `Credit limit: ${formatCents(a.amount_cents)}\nAnnual percentage rate: ${formatRatePpm(a.rate_ppm)}\n\n` +
      `Sign in to online banking and open Loans to read the account-opening disclosure (the rate, how interest and the minimum payment are figured, and the fees) and accept the offer by ${formatBusinessDate(a.expires_on)}. ` +
      `Once you accept, you can draw on the line into your checking or savings whenever you like.` +
      signature(),
  };
}
