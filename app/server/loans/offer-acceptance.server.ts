import { and, asc, eq, inArray } from "drizzle-orm";
import type { Actor } from "~/domain/actor";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { inRefusableTransaction, refuse } from "~/server/db/refusable-transaction.server";
import {
  ledgerAccounts,
  loanApplications,
  loanScheduledPayments,
  loans,
  type LoanApplicationRow,
} from "~/server/db/schema";
import { openLoanReceivable } from "~/server/ledger/accounts.server";
import { postTransfer, today } from "~/server/ledger/ledger.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { notify } from "~/server/notifications/notifications.server";
import { refusal, refusalMessage } from "~/domain/refusals";
import { formatCents } from "~/domain/money";
import { offerOpen } from "~/domain/loans/products";
import { loanOfferDisclosure, withSecurity, type LoanOfferDisclosure } from "~/domain/loans/offer";
import { APPLICATION_NOT_FOUND, mailAfterCommit, memberOf, type AcceptAnswer } from "./applications.server";
import { acceptLineOffer } from "./lines-of-credit.server";
import { acceptedEmail } from "./emails.server";
import { renderLoanDisclosurePdf } from "./pdf.server";
import { applicationPledge, holdPledge } from "./share-secured.server";

/**
 * The member accepts a loan offer (docs/product.md#loans): the Truth in Lending disclosure
 * (Regulation Z, 12 CFR 1026.17-18) is computed again from the offer's stored terms, kept with its
 * PDF on the application, and emailed to the member; in the same database transaction the loan is
 * booked: its receivable account, the disbursement into the member's checking, the payment
 * schedule and, for a share-secured loan, the hold on the pledged savings. A line of credit's
 * offer is opened instead (lines-of-credit.server.ts). The application and the staff decision
 * before it are in applications.server.ts.
 */

export const NO_CHECKING =
  "We pay the loan into your checking account, and you have no open checking account. Please contact us.";

/** The member's checking account the loan is paid into: their first open one. */
async function payoutAccount(db: DbOrTx, member_id: string): Promise<number | null> {
  const [row] = await db
    .select({ id: ledgerAccounts.id })
    .from(ledgerAccounts)
    .where(
      and(
        eq(ledgerAccounts.member_id, member_id),
        eq(ledgerAccounts.type, "checking"),
        eq(ledgerAccounts.status, "active"),
      ),
    )
    .orderBy(asc(ledgerAccounts.id))
    .limit(1);
  return row?.id ?? null;
}

/**
 * The member accepts an open offer: the disclosure they read is computed again from the stored
 * terms (one function, `loanOfferDisclosure`), kept with its PDF, and emailed to them.
 */
export async function acceptOffer(
  db: Db,
  member: Actor,
  application_id: number,
  origin: AuditOrigin,
  now: Date = new Date(),
): Promise<AcceptAnswer> {
  const [application] = await db
    .select()
    .from(loanApplications)
    .where(and(eq(loanApplications.id, application_id), eq(loanApplications.member_id, member.id)));
  if (!application) return refusal("not_found", APPLICATION_NOT_FOUND);
  if (application.status === "accepted") return { ok: true, application_id };
  if (!offerOpen(application.status, application.offer_expires_on, today(now)))
    return refusal(
      "conflict",
      application.status === "submitted"
        ? "We have not decided on this application yet."
        : "This offer can no longer be accepted. You are welcome to apply again.",
    );
  // A line of credit is opened, not paid out (./lines-of-credit.server.ts).
  if (application.open_end) return acceptLineOffer(db, member, application, origin, now);
  const pledge = await applicationPledge(db, application.id);
  const disclosure = withSecurity(
    loanOfferDisclosure({
      amount_cents: application.offer_amount_cents!,
      term_months: application.offer_term_months!,
      rate_ppm: application.offer_rate_ppm!,
      disbursed_on: today(now),
    }),
    pledge,
  );
  const checking_id = await payoutAccount(db, member.id);
  if (!checking_id) return refusal("conflict", NO_CHECKING);
  const owner = await memberOf(db, member.id);
  const pdf = await renderLoanDisclosurePdf({ application, disclosure, member_name: owner.name });
  const accepted = await inRefusableTransaction(db, async (tx): Promise<AcceptAnswer> => {
    const rows = await tx
      .update(loanApplications)
      .set({ status: "accepted", accepted_at: now, disclosure: { ...disclosure }, disclosure_pdf: pdf })
      .where(and(eq(loanApplications.id, application.id), inArray(loanApplications.status, ["approved", "countered"])))
      .returning({ id: loanApplications.id });
    if (rows.length === 0) return refusal("conflict", "This offer can no longer be accepted.");
    await bookLoan(tx, { application, member_id: member.id, disclosure, checking_id, now });
    await recordAudit(tx, {
      actor_id: member.id,
      actor_email: member.email,
      action: "loan.accept",
      subject_type: "loan_application",
      subject_id: application.id,
      member_id: member.id,
      before: { status: application.status },
      after: {
        status: "accepted",
        amount_cents: disclosure.amount_financed_cents,
        apr_bp: disclosure.apr_bp,
        finance_charge_cents: disclosure.finance_charge_cents,
      },
      ...origin,
      at: now,
    });
    await notify(tx, {
      member_id: member.id,
      kind: "loan_update",
      title: `Your ${application.product_name.toLowerCase()} is paid out`,
      body: `We deposited ${formatCents(disclosure.amount_cents)} into your checking account. Your Truth in Lending disclosure is kept under Loans and was emailed to you.`,
      at: now,
    });
    return { ok: true, application_id };
  });
  if (!accepted.ok) return accepted;
  await mailAfterCommit(db, member, () => ({
    ...acceptedEmail({ product_name: application.product_name, disclosure }),
    attachments: [
      { file_name: `loan-disclosure-${application.id}.pdf`, content_type: "application/pdf", content: pdf },
    ],
  }));
  return { ok: true, application_id };
}

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

interface LoanBooking {
  application: LoanApplicationRow;
  member_id: string;
  disclosure: LoanOfferDisclosure;
  /** The member's checking account the loan is paid into. */
  checking_id: number;
  now: Date;
}

/**
 * Booking an accepted loan (docs/product.md#loans), inside the acceptance's transaction: the
 * loan's own receivable account, then one ledger transaction paying the amount into the member's
 * checking from it, the loan and its payment schedule, and for a share-secured loan the hold on
 * the pledged savings. A refusal ends the acceptance's transaction (`refuse`), rolling it back.
 */
async function bookLoan(tx: Tx, { application, member_id, disclosure, checking_id, now }: LoanBooking): Promise<void> {
  const receivable = await openLoanReceivable(tx, `Loan receivable: application ${application.id}`);
  const posted = await postTransfer(tx, {
    idempotency_key: `loan:${application.id}:disbursement`,
    initiator: `member:${member_id}`,
    kind: "loan_disbursement",
    created_by: member_id,
    memo: `${application.product_name}: money paid out`,
    category: "Deposit",
    effective_date: disclosure.disbursed_on,
    entries: [
      { account_id: receivable.id, amount_cents: -disclosure.amount_cents },
      { account_id: checking_id, amount_cents: disclosure.amount_cents },
    ],
  });
  if (!posted.ok) refuse(refusal("conflict", `The loan could not be paid out: ${refusalMessage(posted.code)}.`));
  const [loan] = await tx
    .insert(loans)
    .values({
      application_id: application.id,
      member_id: member_id,
      product_name: application.product_name,
      receivable_account_id: receivable.id,
      checking_account_id: checking_id,
      disbursement_transaction_id: posted.transaction.id,
      principal_cents: disclosure.amount_cents,
      rate_ppm: disclosure.rate_ppm,
      apr_bp: disclosure.apr_bp,
      term_months: disclosure.term_months,
      disbursed_on: disclosure.disbursed_on,
      first_payment_on: disclosure.first_payment_on,
      interest_accrued_to: disclosure.disbursed_on,
      created_at: now,
    })
    .returning({ id: loans.id });
  // A share-secured loan: the amount borrowed is held in the pledged savings.
  const held = await holdPledge(tx, {
    application_id: application.id,
    loan_id: loan!.id,
    receivable_account_id: receivable.id,
    amount_cents: disclosure.amount_cents,
    day: disclosure.disbursed_on,
  });
  if (held && !held.ok) refuse(held);
  await tx.insert(loanScheduledPayments).values(
    disclosure.payments.map((p) => ({
      loan_id: loan!.id,
      number: p.number,
      due_on: p.due_on,
      payment_cents: p.payment_cents,
      interest_cents: p.interest_cents,
      principal_cents: p.principal_cents,
      balance_after_cents: p.balance_after_cents,
    })),
  );
}
