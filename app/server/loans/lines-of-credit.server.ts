import { and, desc, eq, inArray, lte } from "drizzle-orm";
import type { Actor } from "~/domain/actor";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { inRefusableTransaction } from "~/server/db/refusable-transaction.server";
import {
  creditLineActivity,
  creditLineCycles,
  creditLines,
  loanApplications,
  type CreditLineCycleRow,
  type CreditLineRow,
  type LoanApplicationRow,
} from "~/server/db/schema";
import { institutionAccount, openLoanReceivable } from "~/server/ledger/accounts.server";
import { postTransfer, today } from "~/server/ledger/ledger.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { notify } from "~/server/notifications/notifications.server";
import { refusal, refusalMessage, type Refusal } from "~/domain/refusals";
import { formatCents } from "~/domain/money";
import { daysBetween } from "~/domain/loans/schedule";
import { accrueInterest, totalOwed, type LoanOwed } from "~/domain/loans/servicing";
import {
  availableCredit,
  drawProblem,
  lineOfCreditDisclosure,
  type LineOfCreditDisclosure,
} from "~/domain/loans/line-of-credit";
import { drawsStoppedMessage } from "~/domain/loans/line-changes";
import { loanProduct } from "./products.server";
import { putRateInEffect, rateChangesDue } from "./line-term-changes.server";
import { mailAfterCommit, memberOf, type AcceptAnswer } from "./applications.server";
import { lineAcceptedEmail, renderLineDisclosurePdf } from "./line-of-credit-documents.server";
import type { PaymentAmount } from "./servicing.server";
import {
  applyOrRefuse,
  CHOOSE_OWN_ACCOUNT,
  memberOwnAccount,
  owedOn,
  paymentBreakdown,
  postRepayment,
  setAutopayOn,
  type AutopayAnswer,
  type AutopayTarget,
} from "./repayment.server";

/**
 * Lines of credit (docs/product.md#lines-of-credit; Regulation Z subpart B): applied for, decided
 * and accepted like a loan (./applications.server.ts), then opened with nothing drawn. The member
 * draws into their own checking or savings up to the available credit, interest accrues nightly
 * on the principal drawn, each month's billing cycle sets a minimum payment, payments go to fees,
 * interest, principal, and a minimum unpaid after the grace days is charged the late fee once.
 *
 * Every change of a line's figures happens in the database transaction of the ledger posting it
 * follows from, under the line's row lock (two draws at once are taken one after the other, each
 * checked against the credit left by the other):
 * - a draw (kind `loan_draw`): the line's receivable debited, the member's account credited;
 * - interest (kind `loan_interest`): the interest receivable debited, loan interest income credited;
 * - a payment (kind `loan_payment`): the member's account debited, the interest receivable
 *   credited with the interest part and the line's receivable with the fees and principal;
 * - a late fee (kind `loan_fee`): the line's receivable debited, fees income credited.
 *
 * The nightly servicing is ./line-servicing.server.ts; what the member's pages read,
 * ./line-views.server.ts.
 */

export const SYSTEM = "system:line-servicing";

export const LINE_NOT_FOUND = "We could not find that line of credit.";
export const LINE_CLOSED = "This line of credit is closed.";

export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** LC-000012: how the member and staff name a line of credit. */
export function lineNumber(line_id: number): string {
  return `LC-${String(line_id).padStart(6, "0")}`;
}

// ---------------------------------------------------------------------------------------------
// Accepting and reading an offer (called from ./offer-acceptance.server.ts and ./application-views.server.ts); the
// request's and the offer's checks are the application's and decision's (./applications.server.ts)

/** The account-opening disclosure of an open offer, as if accepted on `opened_on`; null when the product is gone. */
function offerDisclosure(application: LoanApplicationRow, opened_on: string): LineOfCreditDisclosure | null {
  const product = loanProduct(application.product_slug);
  if (!product?.minimum_payment) return null;
  return lineOfCreditDisclosure({
    credit_limit_cents: application.offer_amount_cents!,
    rate_ppm: application.offer_rate_ppm!,
    minimum_payment: product.minimum_payment,
    late_fee_cents: product.late_fee_cents,
    grace_days: product.grace_days,
    opened_on,
  });
}

/** What the member's application page shows of a line: its disclosure (offered or accepted) and the line opened. */
export async function lineOfApplication(
  db: DbOrTx,
  row: LoanApplicationRow,
  may_accept: boolean,
  today_: string,
): Promise<{ disclosure: LineOfCreditDisclosure | null; line_id: number | null }> {
  if (row.status === "accepted") {
    const [line] = await db
      .select({ id: creditLines.id })
      .from(creditLines)
      .where(eq(creditLines.application_id, row.id));
    return { disclosure: row.disclosure as unknown as LineOfCreditDisclosure, line_id: line?.id ?? null };
  }
  return { disclosure: may_accept ? offerDisclosure(row, today_) : null, line_id: null };
}

/**
 * The member accepts a line's open offer (the caller checked it is theirs and open): the
 * account-opening disclosure is computed again from the offer and the product's terms, kept with
 * its PDF and emailed; the line is opened with its own receivable account at zero. Nothing is
 * paid out: the member draws when they choose.
 */
export async function acceptLineOffer(
  db: Db,
  member: Actor,
  application: LoanApplicationRow,
  origin: AuditOrigin,
  now: Date,
): Promise<AcceptAnswer> {
  const opened_on = today(now);
  const disclosure = offerDisclosure(application, opened_on);
  if (!disclosure) return refusal("conflict", "This line of credit is no longer offered. Please contact us.");
  const owner = await memberOf(db, member.id);
  const pdf = await renderLineDisclosurePdf({ application, disclosure, member_name: owner.name });
  const accepted = await inRefusableTransaction(db, async (tx): Promise<AcceptAnswer> => {
    const rows = await tx
      .update(loanApplications)
      .set({ status: "accepted", accepted_at: now, disclosure: { ...disclosure }, disclosure_pdf: pdf })
      .where(and(eq(loanApplications.id, application.id), inArray(loanApplications.status, ["approved", "countered"])))
      .returning({ id: loanApplications.id });
    if (rows.length === 0) return refusal("conflict", "This offer can no longer be accepted.");
    const receivable = await openLoanReceivable(tx, `Line of credit receivable: application ${application.id}`);
    const [line] = await tx
      .insert(creditLines)
      .values({
        application_id: application.id,
        member_id: member.id,
        product_name: application.product_name,
        receivable_account_id: receivable.id,
        credit_limit_cents: disclosure.credit_limit_cents,
        rate_ppm: disclosure.rate_ppm,
        minimum_payment_ppm: disclosure.minimum_payment.percent_ppm,
        minimum_payment_floor_cents: disclosure.minimum_payment.floor_cents,
        grace_days: disclosure.late_fee_grace_days,
        late_fee_cents: disclosure.late_fee_cents,
        opened_on,
        interest_accrued_to: opened_on,
        next_cycle_close_on: disclosure.first_cycle_close_on,
        created_at: now,
      })
      .returning({ id: creditLines.id });
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
        line_id: line!.id,
        credit_limit_cents: disclosure.credit_limit_cents,
        rate_ppm: disclosure.rate_ppm,
      },
      ...origin,
      at: now,
    });
    await notify(tx, {
      member_id: member.id,
      kind: "loan_update",
      title: `Your ${application.product_name.toLowerCase()} is open`,
      body: `${lineNumber(line!.id)} has a credit limit of ${formatCents(disclosure.credit_limit_cents)}. Draw on it under Loans whenever you like. Your account-opening disclosure is kept there and was emailed to you.`,
      at: now,
    });
    return { ok: true, application_id: application.id };
  });
  if (!accepted.ok) return accepted;
  await mailAfterCommit(db, member, () => ({
    ...lineAcceptedEmail({ product_name: application.product_name, disclosure }),
    attachments: [
      { file_name: `line-of-credit-disclosure-${application.id}.pdf`, content_type: "application/pdf", content: pdf },
    ],
  }));
  return { ok: true, application_id: application.id };
}

// ---------------------------------------------------------------------------------------------
// What is owed, and interest

export async function lockLine(tx: Tx, line_id: number, member_id?: string): Promise<CreditLineRow | null> {
  const [row] = await tx
    .select()
    .from(creditLines)
    .where(
      member_id ? and(eq(creditLines.id, line_id), eq(creditLines.member_id, member_id)) : eq(creditLines.id, line_id),
    )
    .for("update");
  return row ?? null;
}

/** What the member owes on the line, by part: the receivable holds principal and fees. */
export async function lineOwed(db: DbOrTx, line: CreditLineRow): Promise<LoanOwed> {
  return owedOn(db, line);
}

/**
 * Accrues the line's interest for the days before `to` (as a loan's: once per day, the fraction
 * carried). An APR change due by then is put in effect on its own day: the days before it at the
 * old rate, the rest at the new (docs/product.md#line-of-credit-servicing).
 */
export async function accrueTo(tx: Tx, line: CreditLineRow, to: string): Promise<CreditLineRow> {
  if (line.status !== "active") return line;
  let current = line;
  for (const change of await rateChangesDue(tx, line.id, to)) {
    current = await accrueAtRate(tx, current, change.effective_on);
    current = await putRateInEffect(tx, current, change);
  }
  return accrueAtRate(tx, current, to);
}

async function accrueAtRate(tx: Tx, line: CreditLineRow, to: string): Promise<CreditLineRow> {
  const days = daysBetween(line.interest_accrued_to, to);
  if (days <= 0 || line.status !== "active") return line;
  const owed = await lineOwed(tx, line);
  const accrual = accrueInterest(owed.principal_cents, line.rate_ppm, days, line.accrual_carry);
  if (accrual.interest_cents > 0) {
    const receivable = await institutionAccount(tx, "interest_receivable");
    const income = await institutionAccount(tx, "interest_income");
    const posted = await postTransfer(tx, {
      idempotency_key: `line:${line.id}:interest:${to}`,
      initiator: SYSTEM,
      kind: "loan_interest",
      created_by: "line-servicing",
      memo: `${lineNumber(line.id)}: interest ${line.interest_accrued_to} to the day before ${to}`,
      effective_date: to,
      entries: [
        { account_id: receivable.id, amount_cents: -accrual.interest_cents },
        { account_id: income.id, amount_cents: accrual.interest_cents },
      ],
    });
    if (!posted.ok) throw new Error(`line ${line.id}: interest could not be posted (${posted.code})`);
  }
  const [after] = await tx
    .update(creditLines)
    .set({
      interest_accrued_to: to,
      accrued_interest_cents: line.accrued_interest_cents + accrual.interest_cents,
      accrual_carry: accrual.carry,
    })
    .where(eq(creditLines.id, line.id))
    .returning();
  return after!;
}

async function earlierActivity(db: DbOrTx, line_id: number, member_id: string, key: string) {
  const [row] = await db
    .select()
    .from(creditLineActivity)
    .where(
      and(
        eq(creditLineActivity.line_id, line_id),
        eq(creditLineActivity.member_id, member_id),
        eq(creditLineActivity.idempotency_key, key),
      ),
    );
  return row ?? null;
}

// ---------------------------------------------------------------------------------------------
// Drawing

export interface DrawInput {
  line_id: number;
  to_account_id: number;
  amount_cents: number;
  idempotency_key: string;
}

export type DrawAnswer =
  { ok: true; activity_id: number; amount_cents: number; available_cents: number; replayed: boolean } | Refusal;

/**
 * The member draws on their own line into their own checking or savings. Under the line's lock,
 * interest is accrued to today and the amount checked against the credit available then; over it
 * is refused beside the amount and nothing moves. A repeat of the key answers the first draw. Like
 * a transfer between the member's own accounts it needs no step-up code.
 */
export async function drawOnLine(
  db: Db,
  member: Actor,
  input: DrawInput,
  origin: AuditOrigin,
  now: Date = new Date(),
): Promise<DrawAnswer> {
  const earlier = await earlierActivity(db, input.line_id, member.id, input.idempotency_key);
  if (earlier)
    return {
      ok: true,
      activity_id: earlier.id,
      amount_cents: earlier.amount_cents,
      available_cents: -1,
      replayed: true,
    };
  const to = await memberOwnAccount(db, member.id, input.to_account_id);
  if (!to) return refusal("bad_input", CHOOSE_OWN_ACCOUNT, { field: "to" });
  const day = today(now);
  return inRefusableTransaction(db, async (tx): Promise<DrawAnswer> => {
    const locked = await lockLine(tx, input.line_id, member.id);
    if (!locked) return refusal("not_found", LINE_NOT_FOUND);
    const stopped = drawsStoppedMessage(locked);
    if (stopped) return refusal("conflict", stopped);
    const line = await accrueTo(tx, locked, day);
    const available = availableCredit(line.credit_limit_cents, totalOwed(await lineOwed(tx, line)));
    const problem = drawProblem(input.amount_cents, available);
    if (problem) return refusal("bad_input", problem, { field: "amount" });
    const posted = await postTransfer(tx, {
      idempotency_key: `line-draw:${line.id}:${input.idempotency_key}`,
      initiator: `member:${member.id}`,
      kind: "loan_draw",
      created_by: member.id,
      memo: `${line.product_name} ${lineNumber(line.id)}: draw`,
      category: "Transfer",
      effective_date: day,
      entries: [
        { account_id: line.receivable_account_id, amount_cents: -input.amount_cents },
        { account_id: to.id, amount_cents: input.amount_cents },
      ],
    });
    if (!posted.ok) return refusal("conflict", refusalMessage(posted.code), { field: "to", code: posted.code });
    const [activity] = await tx
      .insert(creditLineActivity)
      .values({
        line_id: line.id,
        member_id: member.id,
        kind: "draw",
        account_id: to.id,
        amount_cents: input.amount_cents,
        principal_cents: input.amount_cents,
        transaction_id: posted.transaction.id,
        idempotency_key: input.idempotency_key,
        on: day,
        created_at: now,
      })
      .returning({ id: creditLineActivity.id });
    await recordAudit(tx, {
      actor_id: member.id,
      actor_email: member.email,
      action: "line.draw",
      subject_type: "credit_line",
      subject_id: line.id,
      member_id: member.id,
      after: { amount_cents: input.amount_cents, to_account_id: to.id, available_before_cents: available },
      ...origin,
      at: now,
    });
    await notify(tx, {
      member_id: member.id,
      kind: "loan_update",
      title: `You drew ${formatCents(input.amount_cents)} on your ${line.product_name.toLowerCase()}`,
      body: `${formatCents(input.amount_cents)} from ${lineNumber(line.id)} went to ${to.name}. Interest on it starts today.`,
      at: now,
    });
    return {
      ok: true,
      activity_id: activity!.id,
      amount_cents: input.amount_cents,
      available_cents: available - input.amount_cents,
      replayed: false,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Paying

export interface PayLineInput {
  line_id: number;
  from_account_id: number;
  /** `next_due`: what is left of the minimum payment due; `payoff`: everything owed. */
  amount: PaymentAmount;
  idempotency_key: string;
}

export type PayLineAnswer =
  | {
      ok: true;
      activity_id: number;
      amount_cents: number;
      fees_cents: number;
      interest_cents: number;
      principal_cents: number;
      replayed: boolean;
    }
  | Refusal;

export async function latestCycle(db: DbOrTx, line_id: number, day: string): Promise<CreditLineCycleRow | null> {
  const [row] = await db
    .select()
    .from(creditLineCycles)
    .where(and(eq(creditLineCycles.line_id, line_id), lte(creditLineCycles.closed_on, day)))
    .orderBy(desc(creditLineCycles.closed_on))
    .limit(1);
  return row ?? null;
}

/** What is left of a cycle's minimum payment. */
export function minimumLeft(cycle: CreditLineCycleRow | null): number {
  return cycle ? Math.max(0, cycle.minimum_due_cents - cycle.paid_cents) : 0;
}

/**
 * A payment on the member's own line from their own checking or savings: interest accrued to
 * today first, then applied to fees, interest, principal. It counts toward the minimum of the
 * latest closed cycle. The line stays open at zero: what is paid can be drawn again.
 */
export async function payLine(
  db: Db,
  member: Actor,
  input: PayLineInput,
  origin: AuditOrigin | null,
  now: Date = new Date(),
  kind: "payment" | "autopay" = "payment",
): Promise<PayLineAnswer> {
  const earlier = await earlierActivity(db, input.line_id, member.id, input.idempotency_key);
  if (earlier)
    return {
      ok: true,
      activity_id: earlier.id,
      amount_cents: earlier.amount_cents,
      fees_cents: earlier.fees_cents,
      interest_cents: earlier.interest_cents,
      principal_cents: earlier.principal_cents,
      replayed: true,
    };
  const from = await memberOwnAccount(db, member.id, input.from_account_id);
  if (!from) return refusal("bad_input", CHOOSE_OWN_ACCOUNT, { field: "from" });
  const day = today(now);
  return inRefusableTransaction(db, async (tx): Promise<PayLineAnswer> => {
    const locked = await lockLine(tx, input.line_id, member.id);
    if (!locked) return refusal("not_found", LINE_NOT_FOUND);
    if (locked.status !== "active") return refusal("conflict", LINE_CLOSED);
    const line = await accrueTo(tx, locked, day);
    const owed = await lineOwed(tx, line);
    const balance = totalOwed(owed);
    if (balance === 0) return refusal("bad_input", "You owe nothing on this line.", { field: "amount" });
    const cycle = await latestCycle(tx, line.id, day);
    let amount_cents: number;
    if (input.amount.kind === "payoff") amount_cents = balance;
    else if (input.amount.kind === "next_due") {
      amount_cents = Math.min(minimumLeft(cycle), balance);
      if (amount_cents === 0)
        return refusal("bad_input", "No minimum payment is due now: enter an amount to pay.", { field: "amount" });
    } else amount_cents = input.amount.amount_cents;
    const applied = applyOrRefuse(amount_cents, owed, "balance");
    if ("ok" in applied) return applied;
    const posted = await postRepayment(tx, {
      idempotency_key: `line-payment:${line.id}:${input.idempotency_key}`,
      member_id: member.id,
      created_by: kind === "autopay" ? "line-servicing" : member.id,
      memo: `${line.product_name} ${lineNumber(line.id)}: ${kind === "autopay" ? "autopay" : "payment"}`,
      day,
      from_account_id: from.id,
      receivable_account_id: line.receivable_account_id,
      amount_cents,
      applied,
    });
    if (!posted.ok) return posted;
    const [activity] = await tx
      .insert(creditLineActivity)
      .values({
        line_id: line.id,
        member_id: member.id,
        kind,
        account_id: from.id,
        amount_cents,
        ...applied,
        transaction_id: posted.transaction.id,
        idempotency_key: input.idempotency_key,
        on: day,
        created_at: now,
      })
      .returning({ id: creditLineActivity.id });
    await tx
      .update(creditLines)
      .set({
        accrued_interest_cents: line.accrued_interest_cents - applied.interest_cents,
        fees_due_cents: line.fees_due_cents - applied.fees_cents,
      })
      .where(eq(creditLines.id, line.id));
    if (cycle)
      await tx
        .update(creditLineCycles)
        .set({ paid_cents: cycle.paid_cents + amount_cents })
        .where(eq(creditLineCycles.id, cycle.id));
    // A line closed to draws is closed for good once nothing is owed.
    if (line.closing_reason && amount_cents === balance)
      await tx.update(creditLines).set({ status: "closed", closed_on: day }).where(eq(creditLines.id, line.id));
    await recordAudit(tx, {
      actor_id: member.id,
      actor_email: member.email,
      action: kind === "autopay" ? "line.autopay" : "line.pay",
      subject_type: "credit_line",
      subject_id: line.id,
      member_id: member.id,
      after: { amount_cents, ...applied, from_account_id: from.id },
      ...(origin ?? {}),
      at: now,
    });
    await notify(tx, {
      member_id: member.id,
      kind: "loan_update",
      title: `We received your ${formatCents(amount_cents)} line of credit payment`,
      body: paymentBreakdown(amount_cents, from.name, lineNumber(line.id), applied),
      at: now,
    });
    return { ok: true, activity_id: activity!.id, amount_cents, ...applied, replayed: false };
  });
}

export type LineAutopayAnswer = AutopayAnswer;

/** Autopay of each cycle's minimum on its due date, from one of the member's own accounts, or off (null). */
export async function setLineAutopay(
  db: Db,
  member: Actor,
  line_id: number,
  from_account_id: number | null,
  origin: AuditOrigin,
  now: Date = new Date(),
): Promise<LineAutopayAnswer> {
  const target: AutopayTarget = {
    lock: (tx) => lockLine(tx, line_id, member.id),
    save: (tx, id, autopay_account_id) =>
      tx.update(creditLines).set({ autopay_account_id }).where(eq(creditLines.id, id)),
    not_found: LINE_NOT_FOUND,
    inactive: LINE_CLOSED,
    action: "line",
    subject_type: "credit_line",
    field: "autopay_from",
  };
  return setAutopayOn(db, member, target, from_account_id, origin, now);
}
