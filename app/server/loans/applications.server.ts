import { and, desc, eq, inArray } from "drizzle-orm";
import type { Actor } from "~/domain/actor";
import type { Db, DbOrTx } from "~/server/db/client.server";
import {
  ledgerAccounts,
  loanApplications,
  loanScheduledPayments,
  loans,
  users,
  type LoanApplicationRow,
} from "~/server/db/schema";
import { openLoanReceivable } from "~/server/ledger/accounts.server";
import { postTransfer } from "~/server/ledger/ledger.server";
import { refusalMessage } from "~/domain/refusals";
import { asc } from "drizzle-orm";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { notify } from "~/server/notifications/notifications.server";
import { sendEmail, type OutgoingEmail } from "~/server/mail/outbox.server";
import { decryptField, encryptField } from "~/server/security/crypto.server";
import { logger } from "~/server/logger.server";
import { today } from "~/server/ledger/ledger.server";
import { refusal, type Refusal } from "~/domain/refusals";
import { formatCents } from "~/domain/money";
import { addCalendarDays } from "~/domain/payment-dates";
import { formatBusinessDate } from "~/domain/calendar-date";
import {
  ADVERSE_ACTION_REASONS,
  LOAN_APPLICATION_STATUS_LABELS,
  OFFER_VALID_DAYS,
  adverseActionReasonLines,
  formatRatePpm,
  offerOpen,
  offerProblems,
  requestProblems,
  type AdverseActionReason,
  type LoanApplicationStatus,
} from "~/domain/loans/products";
import { loanOfferDisclosure, type LoanOfferDisclosure } from "~/domain/loans/offer";
import { nextPaymentDue, totalOwed } from "~/domain/loans/servicing";
import { loanProduct } from "./products.server";
import { acceptLineOffer, lineOfApplication, lineOfferCheck, lineRequestProblem } from "./lines-of-credit.server";
import type { LineOfCreditDisclosure, MinimumPaymentRule } from "~/domain/loans/line-of-credit";
import { isOpenEnd } from "~/domain/loans/products";
import { loanFieldContext } from "./fields.server";
import { acceptedEmail, declinedEmail, offerEmail, receivedEmail } from "./emails.server";
import { renderLoanDisclosurePdf } from "./pdf.server";
import { applicationPledge, holdPledge, pledgeProblem, recordPledge } from "./share-secured.server";

/**
 * Loan applications (docs/product.md#loans): a member applies for a product of the institution
 * profile; staff approve, counter or decline (Regulation B, 12 CFR 1002.9: a decline states its
 * specific reasons and the ECOA notice, in the app and by email); the member accepts an offer after
 * reading its Truth in Lending disclosure (Regulation Z, 12 CFR 1026.17-18), kept as a PDF. Each
 * step is one database transaction with its audit entry and the member's notification; the email
 * follows the commit (the outbox).
 */

export const APPLICATION_NOT_FOUND = "We could not find that loan application.";

export interface ApplyInput {
  product_slug: string;
  /** The amount to borrow, or for a line of credit the credit limit asked for. */
  amount_cents: number;
  /** Months to repay; null for a line of credit (open-end: no term). */
  term_months: number | null;
  purpose: string;
  annual_income_cents: number;
  employer: string;
  idempotency_key: string;
  /** A share-secured loan: the member's savings account pledged (docs/product.md#share-secured-loans). */
  pledged_account_id?: number | null;
}

export type ApplyAnswer = { ok: true; application_id: number; replayed: boolean } | Refusal;

export async function applyForLoan(
  db: Db,
  member: Actor,
  input: ApplyInput,
  origin: AuditOrigin,
  now: Date = new Date(),
): Promise<ApplyAnswer> {
  const [earlier] = await db
    .select({ id: loanApplications.id })
    .from(loanApplications)
    .where(and(eq(loanApplications.member_id, member.id), eq(loanApplications.idempotency_key, input.idempotency_key)));
  if (earlier) return { ok: true, application_id: earlier.id, replayed: true };
  const product = loanProduct(input.product_slug);
  if (!product) return refusal("not_found", "We do not offer that loan. Please choose one of our loans.");
  const open_end = isOpenEnd(product.kind);
  const problem = open_end
    ? lineRequestProblem(product, input.amount_cents)
    : input.term_months === null
      ? { field: "term_months", message: "Choose how many months to repay over." }
      : requestProblems(product, { amount_cents: input.amount_cents, term_months: input.term_months })[0];
  if (problem) return refusal("bad_input", problem.message, { field: problem.field });
  const pledged_account_id = product.kind === "share_secured" ? (input.pledged_account_id ?? null) : null;
  if (product.kind === "share_secured") {
    const unpledged = await pledgeProblem(db, member.id, product, pledged_account_id, input.amount_cents);
    if (unpledged) return unpledged;
  }
  const application_id = await db.transaction(async (tx) => {
    const [row] = await tx
      .insert(loanApplications)
      .values({
        member_id: member.id,
        product_slug: product.slug,
        product_name: product.name,
        amount_cents: input.amount_cents,
        term_months: open_end ? null : input.term_months,
        open_end,
        purpose: input.purpose,
        income_enc: encryptField(String(input.annual_income_cents), loanFieldContext("income", member.id)),
        employer_enc: encryptField(input.employer, loanFieldContext("employer", member.id)),
        idempotency_key: input.idempotency_key,
        created_at: now,
      })
      .returning({ id: loanApplications.id });
    const id = row!.id;
    if (pledged_account_id !== null)
      await recordPledge(tx, { application_id: id, member_id: member.id, account_id: pledged_account_id, at: now });
    // The audit log holds what was asked, never the income or employer (personal data).
    await recordAudit(tx, {
      actor_id: member.id,
      actor_email: member.email,
      action: "loan.apply",
      subject_type: "loan_application",
      subject_id: id,
      member_id: member.id,
      after: {
        product: product.slug,
        amount_cents: input.amount_cents,
        term_months: input.term_months,
        ...(pledged_account_id !== null ? { pledged_account_id } : {}),
      },
      ...origin,
      at: now,
    });
    await notify(tx, {
      member_id: member.id,
      kind: "loan_update",
      title: `We received your ${product.name.toLowerCase()} application`,
      body: `You asked for ${askedFor(input.amount_cents, open_end ? null : input.term_months)}. We will tell you our decision here and by email.`,
      at: now,
    });
    return id;
  });
  await mailAfterCommit(db, member, () =>
    receivedEmail({
      product_name: product.name,
      amount_cents: input.amount_cents,
      term_months: open_end ? null : input.term_months,
    }),
  );
  return { ok: true, application_id, replayed: false };
}

// ---------------------------------------------------------------------------------------------
// Deciding

/** For a line of credit (open-end) the term is null: staff set the rate, and a counter-offer the limit. */
export type Decision =
  | { outcome: "approve"; rate_ppm: number; term_months: number | null }
  | { outcome: "counter"; amount_cents: number; rate_ppm: number; term_months: number | null }
  | { outcome: "decline"; reasons: AdverseActionReason[]; other_text: string | null };

export interface DecideInput {
  staff: Actor;
  origin: AuditOrigin;
  application_id: number;
  decision: Decision;
}

export type DecideAnswer = { ok: true; message: string } | Refusal;

/**
 * Staff decide a submitted application once. An approval offers the amount asked at the rate and
 * term staff set; a counter-offer other terms; both within the product. A decline names its
 * reasons. The member is told in the app and by email.
 */
export async function decideApplication(db: Db, input: DecideInput, now: Date = new Date()): Promise<DecideAnswer> {
  const [application] = await db.select().from(loanApplications).where(eq(loanApplications.id, input.application_id));
  if (!application) return refusal("not_found", APPLICATION_NOT_FOUND);
  if (application.status !== "submitted")
    return refusal(
      "conflict",
      `This application was already decided (${LOAN_APPLICATION_STATUS_LABELS[application.status].toLowerCase()}).`,
    );
  const member = await memberOf(db, application.member_id);
  const d = input.decision;
  let values: Partial<LoanApplicationRow>;
  let status: LoanApplicationStatus;
  if (d.outcome === "decline") {
    if (d.reasons.length === 0) return refusal("bad_input", "Choose at least one reason.", { field: "reasons" });
    if (d.reasons.includes("other") && !(d.other_text ?? "").trim())
      return refusal("bad_input", "Say what the other reason is: the member must be told the specific reason.", {
        field: "other_text",
      });
    status = "declined";
    values = {
      adverse_reasons: d.reasons,
      adverse_other_text: d.reasons.includes("other") ? d.other_text!.trim() : null,
    };
  } else {
    const product = loanProduct(application.product_slug);
    if (!product)
      return refusal("conflict", "This loan is no longer in the institution profile: it can only be declined.");
    const amount_cents = d.outcome === "counter" ? d.amount_cents : application.amount_cents;
    const checked = application.open_end
      ? lineOfferCheck(product, application, { outcome: d.outcome, amount_cents, rate_ppm: d.rate_ppm })
      : closedEndOfferCheck(product, application, { ...d, amount_cents }, now);
    if (!checked.ok) return checked;
    const offer = checked.offer;
    // A share-secured offer stays within what the pledged savings secure today.
    const pledge = product.kind === "share_secured" ? await applicationPledge(db, application.id) : null;
    if (pledge) {
      const unpledged = await pledgeProblem(db, application.member_id, product, pledge.account_id, offer.amount_cents);
      if (unpledged) return unpledged;
    }
    status = d.outcome === "approve" ? "approved" : "countered";
    values = {
      offer_amount_cents: offer.amount_cents,
      offer_term_months: offer.term_months,
      offer_rate_ppm: offer.rate_ppm,
      offer_expires_on: addCalendarDays(today(now), OFFER_VALID_DAYS),
    };
  }
  const updated = await db.transaction(async (tx) => {
    const rows = await tx
      .update(loanApplications)
      .set({ ...values, status, decided_at: now, decided_by: input.staff.id, decided_by_email: input.staff.email })
      .where(and(eq(loanApplications.id, application.id), eq(loanApplications.status, "submitted")))
      .returning();
    const row = rows[0];
    if (!row) return null;
    await recordAudit(tx, {
      actor_id: input.staff.id,
      actor_email: input.staff.email,
      action: `loan.${d.outcome}`,
      subject_type: "loan_application",
      subject_id: row.id,
      member_id: row.member_id,
      before: { status: "submitted" },
      after:
        d.outcome === "decline"
          ? { status, reasons: d.reasons }
          : {
              status,
              amount_cents: row.offer_amount_cents,
              term_months: row.offer_term_months,
              rate_ppm: row.offer_rate_ppm,
            },
      ...input.origin,
      at: now,
    });
    await notify(tx, {
      member_id: row.member_id,
      kind: "loan_update",
      title:
        status === "declined"
          ? `Our decision on your ${row.product_name.toLowerCase()} application`
          : `Your ${row.product_name.toLowerCase()} offer is ready`,
      body:
        status === "declined"
          ? "We cannot approve your application. The notice with our reasons is under Loans."
          : `${askedFor(row.offer_amount_cents!, row.offer_term_months)} at ${formatRatePpm(row.offer_rate_ppm!)}. Read the disclosure and accept it under Loans by ${formatBusinessDate(row.offer_expires_on!)}.`,
      at: now,
    });
    return row;
  });
  if (!updated) return refusal("conflict", "This application was already decided.");
  await mailAfterCommit(db, member, () =>
    status === "declined"
      ? declinedEmail({
          product_name: updated.product_name,
          applied_on: today(updated.created_at),
          decided_on: today(now),
          reasons: adverseActionReasonLines(d.outcome === "decline" ? d.reasons : [], updated.adverse_other_text),
        })
      : offerEmail({
          product_name: updated.product_name,
          amount_cents: updated.offer_amount_cents!,
          term_months: updated.offer_term_months,
          rate_ppm: updated.offer_rate_ppm!,
          expires_on: updated.offer_expires_on!,
          counter: status === "countered",
        }),
  );
  const verb = status === "approved" ? "Approved" : status === "countered" ? "Counter-offer sent" : "Declined";
  return {
    ok: true,
    message: `${verb}: ${member.name} was told in the app and by email${status === "declined" ? ", with the reasons and the ECOA notice" : ""}.`,
  };
}

// ---------------------------------------------------------------------------------------------
// Accepting

export type AcceptAnswer = { ok: true; application_id: number } | Refusal;

export const NO_CHECKING =
  "We pay the loan into your checking account, and you have no open checking account. Please contact us.";

/** L-000012: how the member and staff name a booked loan. */
export function loanNumber(loan_id: number): string {
  return `L-${String(loan_id).padStart(6, "0")}`;
}

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

class BookingRefused extends Error {
  constructor(readonly answer: Refusal) {
    super(answer.message);
  }
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
  const accepted = await db
    .transaction(async (tx) => {
      const rows = await tx
        .update(loanApplications)
        .set({ status: "accepted", accepted_at: now, disclosure: { ...disclosure }, disclosure_pdf: pdf })
        .where(
          and(eq(loanApplications.id, application.id), inArray(loanApplications.status, ["approved", "countered"])),
        )
        .returning({ id: loanApplications.id });
      if (rows.length === 0) return false;
      // Booking (docs/product.md#loans): the loan's own receivable account, then one ledger
      // transaction paying the amount into the member's checking from it.
      const receivable = await openLoanReceivable(tx, `Loan receivable: application ${application.id}`);
      const posted = await postTransfer(tx, {
        idempotency_key: `loan:${application.id}:disbursement`,
        initiator: `member:${member.id}`,
        kind: "loan_disbursement",
        created_by: member.id,
        memo: `${application.product_name}: money paid out`,
        category: "Deposit",
        effective_date: disclosure.disbursed_on,
        entries: [
          { account_id: receivable.id, amount_cents: -disclosure.amount_cents },
          { account_id: checking_id, amount_cents: disclosure.amount_cents },
        ],
      });
      if (!posted.ok)
        throw new BookingRefused(
          refusal("conflict", `The loan could not be paid out: ${refusalMessage(posted.code)}.`),
        );
      const [loan] = await tx
        .insert(loans)
        .values({
          application_id: application.id,
          member_id: member.id,
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
      if (held && !held.ok) throw new BookingRefused(held);
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
      return true;
    })
    .catch((error: unknown) => {
      if (error instanceof BookingRefused) return error.answer;
      throw error;
    });
  if (accepted === false) return refusal("conflict", "This offer can no longer be accepted.");
  if (accepted !== true) return accepted;
  await mailAfterCommit(db, member, () => ({
    ...acceptedEmail({ product_name: application.product_name, disclosure }),
    attachments: [
      { file_name: `loan-disclosure-${application.id}.pdf`, content_type: "application/pdf", content: pdf },
    ],
  }));
  return { ok: true, application_id };
}

// ---------------------------------------------------------------------------------------------
// Reading

export interface ApplicationSummary {
  id: number;
  product_name: string;
  /** The amount asked for, or a line of credit's credit limit (`open_end`, no term). */
  amount_cents: number;
  term_months: number | null;
  open_end: boolean;
  status: LoanApplicationStatus;
  status_label: string;
  applied_on: string;
  offer_expires_on: string | null;
}

/** What an application's status is today: an offer past its last day reads as expired. */
function statusToday(row: LoanApplicationRow, today_: string): LoanApplicationStatus {
  if ((row.status === "approved" || row.status === "countered") && !offerOpen(row.status, row.offer_expires_on, today_))
    return "lapsed";
  return row.status;
}

function summary(row: LoanApplicationRow, today_: string): ApplicationSummary {
  const status = statusToday(row, today_);
  return {
    id: row.id,
    product_name: row.product_name,
    amount_cents: row.amount_cents,
    term_months: row.term_months,
    open_end: row.open_end,
    status,
    status_label: LOAN_APPLICATION_STATUS_LABELS[status],
    applied_on: today(row.created_at),
    offer_expires_on: row.offer_expires_on,
  };
}

export async function memberApplications(db: DbOrTx, member_id: string, now: Date = new Date()) {
  const rows = await db
    .select()
    .from(loanApplications)
    .where(eq(loanApplications.member_id, member_id))
    .orderBy(desc(loanApplications.id));
  return rows.map((r) => summary(r, today(now)));
}

export interface MemberApplicationView extends ApplicationSummary {
  purpose: string;
  offer: { amount_cents: number; term_months: number | null; rate_ppm: number; counter: boolean } | null;
  /** The Truth in Lending disclosure: of the open offer (as if accepted today), or as accepted. */
  disclosure: LoanOfferDisclosure | null;
  /** A line of credit's account-opening disclosure (Regulation Z 1026.6), in place of the Truth in Lending box. */
  line_disclosure: LineOfCreditDisclosure | null;
  /** Once a line of credit's offer is accepted: the line opened. */
  line_id: number | null;
  may_accept: boolean;
  /** A decline's notice (Regulation B 1002.9). */
  adverse_action: { decided_on: string; reasons: string[] } | null;
  has_pdf: boolean;
  /** Once accepted: the booked loan. */
  loan: MemberLoanView | null;
}

/** One of the member's own applications; null for another member's or none. */
export async function memberApplication(
  db: DbOrTx,
  member_id: string,
  application_id: number,
  now: Date = new Date(),
): Promise<MemberApplicationView | null> {
  const [row] = await db
    .select()
    .from(loanApplications)
    .where(and(eq(loanApplications.id, application_id), eq(loanApplications.member_id, member_id)));
  if (!row) return null;
  const today_ = today(now);
  const base = summary(row, today_);
  const may_accept = offerOpen(row.status, row.offer_expires_on, today_);
  const offer =
    row.offer_amount_cents !== null
      ? {
          amount_cents: row.offer_amount_cents,
          term_months: row.offer_term_months,
          rate_ppm: row.offer_rate_ppm!,
          counter:
            row.status === "countered" ||
            row.offer_amount_cents !== row.amount_cents ||
            row.offer_term_months !== row.term_months,
        }
      : null;
  const disclosure = row.open_end
    ? null
    : row.status === "accepted"
      ? (row.disclosure as unknown as LoanOfferDisclosure)
      : may_accept && offer && offer.term_months !== null
        ? withSecurity(
            loanOfferDisclosure({ ...offer, term_months: offer.term_months, disbursed_on: today_ }),
            await applicationPledge(db, row.id),
          )
        : null;
  const line = row.open_end ? await lineOfApplication(db, row, may_accept, today_) : null;
  return {
    ...base,
    purpose: row.purpose,
    offer,
    disclosure,
    line_disclosure: line?.disclosure ?? null,
    line_id: line?.line_id ?? null,
    may_accept,
    adverse_action:
      row.status === "declined"
        ? {
            decided_on: today(row.decided_at!),
            reasons: adverseActionReasonLines(
              (row.adverse_reasons ?? []) as AdverseActionReason[],
              row.adverse_other_text,
            ),
          }
        : null,
    has_pdf: row.disclosure_pdf !== null,
    loan:
      row.status === "accepted" && !row.open_end
        ? ((await memberLoans(db, member_id, now)).find((l) => l.application_id === row.id) ?? null)
        : null,
  };
}

export interface MemberLoanView {
  id: number;
  number: string;
  application_id: number;
  product_name: string;
  status: "active" | "paid_off";
  /** What the member owes: principal, fees and the interest accrued, as a positive number. */
  balance_cents: number;
  rate_ppm: number;
  apr_bp: number;
  principal_cents: number;
  term_months: number;
  disbursed_on: string;
  next_payment: { due_on: string; payment_cents: number } | null;
}

/**
 * The member's booked loans (docs/product.md#loans, #loan-servicing): what is owed (the
 * receivable's principal and fees from the ledger, plus the interest accrued and unpaid), the
 * rate, and the next payment due (the first scheduled payment not yet covered, with any fees).
 */
export async function memberLoans(db: DbOrTx, member_id: string, _now: Date = new Date()): Promise<MemberLoanView[]> {
  const rows = await db
    .select({ loan: loans, posted_cents: ledgerAccounts.posted_cents })
    .from(loans)
    .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, loans.receivable_account_id))
    .where(eq(loans.member_id, member_id))
    .orderBy(desc(loans.id));
  const views: MemberLoanView[] = [];
  for (const { loan, posted_cents } of rows) {
    const schedule = await db
      .select({
        number: loanScheduledPayments.number,
        due_on: loanScheduledPayments.due_on,
        payment_cents: loanScheduledPayments.payment_cents,
      })
      .from(loanScheduledPayments)
      .where(eq(loanScheduledPayments.loan_id, loan.id))
      .orderBy(asc(loanScheduledPayments.number));
    const owed = {
      fees_cents: loan.fees_due_cents,
      interest_cents: loan.accrued_interest_cents,
      principal_cents: -posted_cents - loan.fees_due_cents,
    };
    const next = loan.status === "active" ? nextPaymentDue(schedule, loan.paid_toward_schedule_cents, owed) : null;
    views.push({
      id: loan.id,
      number: loanNumber(loan.id),
      application_id: loan.application_id,
      product_name: loan.product_name,
      status: loan.status,
      balance_cents: totalOwed(owed),
      rate_ppm: loan.rate_ppm,
      apr_bp: loan.apr_bp,
      principal_cents: loan.principal_cents,
      term_months: loan.term_months,
      disbursed_on: loan.disbursed_on,
      next_payment: next ? { due_on: next.due_on, payment_cents: next.amount_cents } : null,
    });
  }
  return views;
}

/** The accepted disclosure's PDF, for its member only. */
export async function memberDisclosurePdf(
  db: DbOrTx,
  member_id: string,
  application_id: number,
): Promise<Buffer | null> {
  const [row] = await db
    .select({ pdf: loanApplications.disclosure_pdf })
    .from(loanApplications)
    .where(and(eq(loanApplications.id, application_id), eq(loanApplications.member_id, member_id)));
  return row?.pdf ?? null;
}

/** The back office's queue: applications waiting for a decision, oldest first, then the latest decided. */
export async function applicationQueue(db: DbOrTx, now: Date = new Date()) {
  const waiting = await db
    .select()
    .from(loanApplications)
    .where(eq(loanApplications.status, "submitted"))
    .orderBy(loanApplications.id);
  const decided = await db
    .select()
    .from(loanApplications)
    .where(inArray(loanApplications.status, ["approved", "countered", "declined", "accepted", "lapsed"]))
    .orderBy(desc(loanApplications.decided_at))
    .limit(25);
  const names = await memberNames(
    db,
    [...waiting, ...decided].map((r) => r.member_id),
  );
  const row = (r: LoanApplicationRow) => ({ ...summary(r, today(now)), member_name: names.get(r.member_id) ?? "" });
  return { waiting: waiting.map(row), decided: decided.map(row) };
}

export interface StaffApplicationView extends ApplicationSummary {
  member_id: string;
  member_name: string;
  member_email: string;
  product_slug: string;
  purpose: string;
  annual_income_cents: number;
  employer: string;
  product: {
    rate_min_ppm: number;
    rate_max_ppm: number;
    term_months_min: number;
    term_months_max: number;
    amount_min_cents: number;
    amount_max_cents: number;
    /** A line of credit's minimum payment rule; null for a loan with a term. */
    minimum_payment: MinimumPaymentRule | null;
  } | null;
  decided_by_email: string | null;
  offer: { amount_cents: number; term_months: number | null; rate_ppm: number } | null;
  adverse_reasons: string[];
  /** A share-secured application: the savings pledged. */
  pledge: Awaited<ReturnType<typeof applicationPledge>>;
}

/** One application for staff, income and employer decrypted (they decide on them). */
export async function staffApplication(
  db: DbOrTx,
  application_id: number,
  now: Date = new Date(),
): Promise<StaffApplicationView | null> {
  const [row] = await db.select().from(loanApplications).where(eq(loanApplications.id, application_id));
  if (!row) return null;
  const member = await memberOf(db, row.member_id);
  const product = loanProduct(row.product_slug);
  return {
    ...summary(row, today(now)),
    member_id: row.member_id,
    member_name: member.name,
    member_email: member.email,
    product_slug: row.product_slug,
    purpose: row.purpose,
    annual_income_cents: Number(decryptField(row.income_enc, loanFieldContext("income", row.member_id))),
    employer: decryptField(row.employer_enc, loanFieldContext("employer", row.member_id)),
    product: product
      ? {
          rate_min_ppm: product.rate_min_ppm,
          rate_max_ppm: product.rate_max_ppm,
          term_months_min: product.term_months_min,
          term_months_max: product.term_months_max,
          amount_min_cents: product.amount_min_cents,
          amount_max_cents: product.amount_max_cents,
          minimum_payment: product.minimum_payment,
        }
      : null,
    decided_by_email: row.decided_by_email,
    offer:
      row.offer_amount_cents !== null
        ? { amount_cents: row.offer_amount_cents, term_months: row.offer_term_months, rate_ppm: row.offer_rate_ppm! }
        : null,
    adverse_reasons: adverseActionReasonLines(
      (row.adverse_reasons ?? []) as AdverseActionReason[],
      row.adverse_other_text,
    ),
    pledge: await applicationPledge(db, row.id),
  };
}

/** A share-secured offer's disclosure names the pledged savings as its security interest. */
function withSecurity(
  disclosure: LoanOfferDisclosure,
  pledge: { security_interest: string } | null,
): LoanOfferDisclosure {
  return pledge ? { ...disclosure, security_interest: pledge.security_interest } : disclosure;
}

export async function memberOf(db: DbOrTx, member_id: string): Promise<{ id: string; email: string; name: string }> {
  const [row] = await db
    .select({ id: users.id, email: users.email, name: users.name })
    .from(users)
    .where(eq(users.id, member_id));
  if (!row) throw new Error("loan application: its member is missing");
  return row;
}

async function memberNames(db: DbOrTx, ids: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, unique));
  return new Map(rows.map((r) => [r.id, r.name]));
}

export type Message = Omit<OutgoingEmail, "to" | "user_id">;

export async function mailAfterCommit(db: Db, member: Actor, message: () => Message): Promise<void> {
  try {
    await sendEmail(db, { ...message(), to: member.email, user_id: member.id });
  } catch (error) {
    // The step stands (in the application, the audit log and the member's notifications).
    logger.error({ err: error }, "could not queue a loan email");
  }
}

export { ADVERSE_ACTION_REASONS };

/** "$5,000 over 36 months", or for a line of credit "a credit limit of $5,000". */
function askedFor(amount_cents: number, term_months: number | null): string {
  return term_months === null
    ? `a credit limit of ${formatCents(amount_cents)}`
    : `${formatCents(amount_cents)} over ${term_months} months`;
}

type OfferCheck = { ok: true; offer: { amount_cents: number; term_months: number | null; rate_ppm: number } } | Refusal;

/** A closed-end offer: within the product, a counter that changes something, terms the schedule can carry. */
function closedEndOfferCheck(
  product: NonNullable<ReturnType<typeof loanProduct>>,
  application: LoanApplicationRow,
  d: { outcome: "approve" | "counter"; amount_cents: number; rate_ppm: number; term_months: number | null },
  now: Date,
): OfferCheck {
  if (d.term_months === null) return refusal("bad_input", "Enter the term in months.", { field: "term_months" });
  const offer = { amount_cents: d.amount_cents, term_months: d.term_months, rate_ppm: d.rate_ppm };
  const problem = offerProblems(product, offer)[0];
  if (problem) return refusal("bad_input", problem.message, { field: problem.field });
  if (
    d.outcome === "counter" &&
    offer.amount_cents === application.amount_cents &&
    offer.term_months === application.term_months
  )
    return refusal("bad_input", "A counter-offer changes the amount or the term; to offer what was asked, approve.", {
      field: "amount",
    });
  // Terms the schedule cannot carry are refused before anything is offered.
  loanOfferDisclosure({ ...offer, disbursed_on: today(now) });
  return { ok: true, offer };
}
