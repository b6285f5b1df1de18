import { and, eq } from "drizzle-orm";
import type { Actor } from "~/domain/actor";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { loanApplications, users, type LoanApplicationRow } from "~/server/db/schema";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { notify } from "~/server/notifications/notifications.server";
import { sendEmail, type OutgoingEmail } from "~/server/mail/outbox.server";
import { encryptField } from "~/server/security/crypto.server";
import { logger } from "~/server/logger.server";
import { today } from "~/server/ledger/ledger.server";
import { refusal, type Refusal } from "~/domain/refusals";
import { formatCents } from "~/domain/money";
import { addCalendarDays } from "~/domain/payment-dates";
import { formatBusinessDate } from "~/domain/calendar-date";
import {
  LOAN_APPLICATION_STATUS_LABELS,
  OFFER_VALID_DAYS,
  adverseActionReasonLines,
  formatRatePpm,
  isOpenEnd,
  offerProblems,
  requestProblems,
  type AdverseActionReason,
  type LoanApplicationStatus,
  type LoanProductTerms,
} from "~/domain/loans/products";
import { creditLimitProblem, lineOfferProblems } from "~/domain/loans/line-of-credit";
import { loanOfferDisclosure } from "~/domain/loans/offer";
import { loanProduct } from "./products.server";
import { loanFieldContext } from "./fields.server";
import { declinedEmail, offerEmail, receivedEmail } from "./emails.server";
import { applicationPledge, pledgeProblem, recordPledge } from "./share-secured.server";

/**
 * Loan applications (docs/product.md#loans): a member applies for a product of the institution
 * profile; staff approve, counter or decline (Regulation B, 12 CFR 1002.9: a decline states its
 * specific reasons and the ECOA notice, in the app and by email); the member accepts an offer after
 * reading its Truth in Lending disclosure (Regulation Z, 12 CFR 1026.17-18), kept as a PDF. Each
 * step is one database transaction with its audit entry and the member's notification; the email
 * follows the commit (the outbox).
 *
 * This file holds the application and the decision (a loan's and a line's request and offer
 * checks among them), and what the steps share (the member, the email after the commit). The
 * member's acceptance of an offer and the booking of the loan are in offer-acceptance.server.ts;
 * what the pages read in application-views.server.ts.
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

/** The member's acceptance of an offer (offer-acceptance.server.ts; a line of credit's in lines-of-credit.server.ts). */
export type AcceptAnswer = { ok: true; application_id: number } | Refusal;

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
  const decided = d.outcome === "decline" ? declineValues(d) : await offerValues(db, application, d, now);
  if (!decided.ok) return decided;
  const { status, values } = decided;
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

/** What a decision writes on the application once checked, and the status it gives it. */
type DecisionValues = { ok: true; status: LoanApplicationStatus; values: Partial<LoanApplicationRow> } | Refusal;

/** A decline names at least one reason, and "other" in the staff member's words (Regulation B 1002.9(b)(2)). */
function declineValues(d: Extract<Decision, { outcome: "decline" }>): DecisionValues {
  if (d.reasons.length === 0) return refusal("bad_input", "Choose at least one reason.", { field: "reasons" });
  if (d.reasons.includes("other") && !(d.other_text ?? "").trim())
    return refusal("bad_input", "Say what the other reason is: the member must be told the specific reason.", {
      field: "other_text",
    });
  return {
    ok: true,
    status: "declined",
    values: {
      adverse_reasons: d.reasons,
      adverse_other_text: d.reasons.includes("other") ? d.other_text!.trim() : null,
    },
  };
}

/**
 * An approval or counter-offer: within the product (a line of credit's or a loan with a term's
 * rules), a share-secured one within what the pledged savings secure today; open for
 * OFFER_VALID_DAYS.
 */
async function offerValues(
  db: Db,
  application: LoanApplicationRow,
  d: Exclude<Decision, { outcome: "decline" }>,
  now: Date,
): Promise<DecisionValues> {
  const product = loanProduct(application.product_slug);
  if (!product)
    return refusal("conflict", "This loan is no longer in the institution profile: it can only be declined.");
  const amount_cents = d.outcome === "counter" ? d.amount_cents : application.amount_cents;
  const checked = application.open_end
    ? lineOfferCheck(product, application, { outcome: d.outcome, amount_cents, rate_ppm: d.rate_ppm })
    : closedEndOfferCheck(product, application, { ...d, amount_cents }, now);
  if (!checked.ok) return checked;
  const offer = checked.offer;
  const pledge = product.kind === "share_secured" ? await applicationPledge(db, application.id) : null;
  if (pledge) {
    const unpledged = await pledgeProblem(db, application.member_id, product, pledge.account_id, offer.amount_cents);
    if (unpledged) return unpledged;
  }
  return {
    ok: true,
    status: d.outcome === "approve" ? "approved" : "countered",
    values: {
      offer_amount_cents: offer.amount_cents,
      offer_term_months: offer.term_months,
      offer_rate_ppm: offer.rate_ppm,
      offer_expires_on: addCalendarDays(today(now), OFFER_VALID_DAYS),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// What the steps share

export async function memberOf(db: DbOrTx, member_id: string): Promise<{ id: string; email: string; name: string }> {
  const [row] = await db
    .select({ id: users.id, email: users.email, name: users.name })
    .from(users)
    .where(eq(users.id, member_id));
  if (!row) throw new Error("loan application: its member is missing");
  return row;
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

/** "$5,000 over 36 months", or for a line of credit "a credit limit of $5,000". */
function askedFor(amount_cents: number, term_months: number | null): string {
  return term_months === null
    ? `a credit limit of ${formatCents(amount_cents)}`
    : `${formatCents(amount_cents)} over ${term_months} months`;
}

type OfferCheck = { ok: true; offer: { amount_cents: number; term_months: number | null; rate_ppm: number } } | Refusal;

/** A member's request: a credit limit within the product's. */
function lineRequestProblem(product: LoanProductTerms, credit_limit_cents: number) {
  const message = creditLimitProblem(product, credit_limit_cents);
  return message ? { field: "amount", message } : undefined;
}

/** Staff's offer on a line: the limit and rate within the product, a counter that changes the limit. */
function lineOfferCheck(
  product: LoanProductTerms,
  application: LoanApplicationRow,
  d: { outcome: "approve" | "counter"; amount_cents: number; rate_ppm: number },
): OfferCheck {
  const problem = lineOfferProblems(product, { credit_limit_cents: d.amount_cents, rate_ppm: d.rate_ppm })[0];
  if (problem) return refusal("bad_input", problem.message, { field: problem.field });
  if (d.outcome === "counter" && d.amount_cents === application.amount_cents)
    return refusal("bad_input", "A counter-offer changes the credit limit; to offer what was asked, approve.", {
      field: "amount",
    });
  return { ok: true, offer: { amount_cents: d.amount_cents, term_months: null, rate_ppm: d.rate_ppm } };
}

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
