import { and, asc, eq, lte, sql } from "drizzle-orm";
import type { Actor } from "~/domain/actor";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { inRefusableTransaction } from "~/server/db/refusable-transaction.server";
import {
  loanApplications,
  loanEvents,
  loanPayments,
  loanScheduledPayments,
  loans,
  users,
  type LoanRow,
} from "~/server/db/schema";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { postTransfer, today } from "~/server/ledger/ledger.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { notify } from "~/server/notifications/notifications.server";
import { logger } from "~/server/logger.server";
import { refusal, type Refusal } from "~/domain/refusals";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { daysBetween } from "~/domain/loans/schedule";
import {
  accrueInterest,
  firstUnpaidDue,
  lateDueDates,
  nextPaymentDue,
  totalOwed,
  type LoanOwed,
  type ScheduledDue,
} from "~/domain/loans/servicing";
import { loanProduct } from "./products.server";
import { loanNumber } from "~/domain/loans/products";
import { autopayFailedEmail } from "./emails.server";
import { holdFollowsPrincipal } from "./share-secured.server";
import { sendEmail } from "~/server/mail/outbox.server";
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
 * Servicing a booked loan (docs/product.md#loan-servicing): the nightly interest accrual, the
 * member's payments (one-time and autopay), late fees. Every change of a loan's figures happens in
 * the database transaction of the ledger posting it follows from, under the loan row's lock, so
 * the loan and the books never disagree:
 *
 * - interest: the interest receivable account debited, loan interest income credited (kind
 *   `loan_interest`); the loan's unpaid interest grows;
 * - a payment: the member's account debited; the interest receivable credited with the interest
 *   part, the loan's receivable with the fees and principal parts (kind `loan_payment`);
 * - a late fee: the loan's receivable debited (the member owes it), fees income credited (kind
 *   `loan_fee`).
 */

const SYSTEM = "system:loan-servicing";

export const LOAN_NOT_FOUND = "We could not find that loan.";
export const LOAN_PAID_OFF = "This loan is paid off: there is nothing to pay.";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

async function lockLoan(tx: Tx, loan_id: number, member_id?: string): Promise<LoanRow | null> {
  const [row] = await tx
    .select()
    .from(loans)
    .where(member_id ? and(eq(loans.id, loan_id), eq(loans.member_id, member_id)) : eq(loans.id, loan_id))
    .for("update");
  return row ?? null;
}

/** What the member owes on the loan now, by part (the receivable holds principal and fees). */
export async function loanOwed(db: DbOrTx, loan: LoanRow): Promise<LoanOwed> {
  return owedOn(db, loan);
}

/**
 * Accrues the loan's interest for the days from its last accrual to the day before `to` (under the
 * loan's lock, in the caller's transaction). Once per loan per day: the day's event row is unique
 * and the ledger key is the loan's and the day's. Returns the loan as it is after.
 */
async function accrueTo(tx: Tx, loan: LoanRow, to: string): Promise<LoanRow> {
  const days = daysBetween(loan.interest_accrued_to, to);
  if (days <= 0 || loan.status !== "active") return loan;
  const owed = await loanOwed(tx, loan);
  const accrual = accrueInterest(owed.principal_cents, loan.rate_ppm, days, loan.accrual_carry);
  let transaction_id: number | null = null;
  if (accrual.interest_cents > 0) {
    const [receivable, income] = [
      await institutionAccount(tx, "interest_receivable"),
      await institutionAccount(tx, "interest_income"),
    ];
    const posted = await postTransfer(tx, {
      idempotency_key: `loan:${loan.id}:interest:${to}`,
      initiator: SYSTEM,
      kind: "loan_interest",
      created_by: "loan-servicing",
      memo: `${loanNumber(loan.id)}: interest ${loan.interest_accrued_to} to the day before ${to}`,
      effective_date: to,
      entries: [
        { account_id: receivable.id, amount_cents: -accrual.interest_cents },
        { account_id: income.id, amount_cents: accrual.interest_cents },
      ],
    });
    if (!posted.ok) throw new Error(`loan ${loan.id}: interest could not be posted (${posted.code})`);
    transaction_id = posted.transaction.id;
  }
  await tx.insert(loanEvents).values({
    loan_id: loan.id,
    kind: "interest",
    on: to,
    from_on: loan.interest_accrued_to,
    amount_cents: accrual.interest_cents,
    transaction_id,
  });
  const [after] = await tx
    .update(loans)
    .set({
      interest_accrued_to: to,
      accrued_interest_cents: loan.accrued_interest_cents + accrual.interest_cents,
      accrual_carry: accrual.carry,
    })
    .where(eq(loans.id, loan.id))
    .returning();
  return after!;
}

async function scheduleOf(db: DbOrTx, loan_id: number): Promise<ScheduledDue[]> {
  return db
    .select({
      number: loanScheduledPayments.number,
      due_on: loanScheduledPayments.due_on,
      payment_cents: loanScheduledPayments.payment_cents,
    })
    .from(loanScheduledPayments)
    .where(eq(loanScheduledPayments.loan_id, loan_id))
    .orderBy(asc(loanScheduledPayments.number));
}

// ---------------------------------------------------------------------------------------------
// Payments

export type PaymentAmount = { kind: "next_due" } | { kind: "payoff" } | { kind: "amount"; amount_cents: number };

export interface PayLoanInput {
  loan_id: number;
  from_account_id: number;
  amount: PaymentAmount;
  idempotency_key: string;
}

export type PayLoanAnswer =
  | {
      ok: true;
      payment_id: number;
      amount_cents: number;
      fees_cents: number;
      interest_cents: number;
      principal_cents: number;
      paid_off: boolean;
      replayed: boolean;
    }
  | Refusal;

/**
 * A payment on the member's own loan from their own checking or savings (docs/product.md#loan-
 * servicing). Interest is first accrued to today, then the payment is applied to fees, interest,
 * principal; at zero the loan is paid off and closed. A repeat of the key answers the first
 * payment. Like a transfer between the member's own accounts it needs no step-up code.
 */
export async function payLoan(
  db: Db,
  member: Actor,
  input: PayLoanInput,
  origin: AuditOrigin | null,
  now: Date = new Date(),
  kind: "one_time" | "autopay" = "one_time",
): Promise<PayLoanAnswer> {
  const [earlier] = await db
    .select()
    .from(loanPayments)
    .innerJoin(loans, eq(loans.id, loanPayments.loan_id))
    .where(
      and(
        eq(loanPayments.loan_id, input.loan_id),
        eq(loans.member_id, member.id),
        eq(loanPayments.idempotency_key, input.idempotency_key),
      ),
    );
  if (earlier) {
    const p = earlier.loan_payments;
    return {
      ok: true,
      payment_id: p.id,
      amount_cents: p.amount_cents,
      fees_cents: p.fees_cents,
      interest_cents: p.interest_cents,
      principal_cents: p.principal_cents,
      paid_off: earlier.loans.status === "paid_off",
      replayed: true,
    };
  }
  const from = await memberOwnAccount(db, member.id, input.from_account_id);
  if (!from) return refusal("bad_input", CHOOSE_OWN_ACCOUNT, { field: "from" });
  const day = today(now);
  return inRefusableTransaction(db, async (tx): Promise<PayLoanAnswer> => {
    const locked = await lockLoan(tx, input.loan_id, member.id);
    if (!locked) return refusal("not_found", LOAN_NOT_FOUND);
    if (locked.status !== "active") return refusal("conflict", LOAN_PAID_OFF);
    const loan = await accrueTo(tx, locked, day);
    const owed = await loanOwed(tx, loan);
    const payoff_cents = totalOwed(owed);
    let amount_cents: number;
    if (input.amount.kind === "payoff") amount_cents = payoff_cents;
    else if (input.amount.kind === "next_due") {
      const due = nextPaymentDue(await scheduleOf(tx, loan.id), loan.paid_toward_schedule_cents, owed);
      if (!due)
        return refusal("bad_input", "Your scheduled payments are all paid: enter an amount to pay extra.", {
          field: "amount",
        });
      amount_cents = due.amount_cents;
    } else amount_cents = input.amount.amount_cents;
    const applied = applyOrRefuse(amount_cents, owed, "payoff");
    if ("ok" in applied) return applied;
    const posted = await postRepayment(tx, {
      idempotency_key: `loan-payment:${loan.id}:${input.idempotency_key}`,
      member_id: member.id,
      created_by: kind === "autopay" ? "loan-servicing" : member.id,
      memo: `${loan.product_name} ${loanNumber(loan.id)}: ${kind === "autopay" ? "autopay" : "payment"}`,
      day,
      from_account_id: from.id,
      receivable_account_id: loan.receivable_account_id,
      amount_cents,
      applied,
    });
    if (!posted.ok) return posted;
    const paid_off = applied.fees_cents + applied.interest_cents + applied.principal_cents === payoff_cents;
    const [payment] = await tx
      .insert(loanPayments)
      .values({
        loan_id: loan.id,
        member_id: member.id,
        from_account_id: from.id,
        kind,
        amount_cents,
        ...applied,
        transaction_id: posted.transaction.id,
        idempotency_key: input.idempotency_key,
        paid_on: day,
        created_at: now,
      })
      .returning({ id: loanPayments.id });
    await tx
      .update(loans)
      .set({
        accrued_interest_cents: loan.accrued_interest_cents - applied.interest_cents,
        fees_due_cents: loan.fees_due_cents - applied.fees_cents,
        paid_toward_schedule_cents: loan.paid_toward_schedule_cents + applied.interest_cents + applied.principal_cents,
        // Paid off: closed; the fraction of a cent carried is not money and is let go.
        ...(paid_off
          ? { status: "paid_off" as const, closed_on: day, accrual_carry: 0, autopay_account_id: null }
          : {}),
      })
      .where(eq(loans.id, loan.id));
    // A share-secured loan: the hold on the pledged savings follows the principal owed.
    await holdFollowsPrincipal(tx, {
      loan_id: loan.id,
      member_id: member.id,
      receivable_account_id: loan.receivable_account_id,
      principal_owed_cents: owed.principal_cents - applied.principal_cents,
      paid_off,
      payment_id: payment!.id,
      day,
      now,
    });
    await recordAudit(tx, {
      actor_id: member.id,
      actor_email: member.email,
      action: kind === "autopay" ? "loan.autopay" : "loan.pay",
      subject_type: "loan",
      subject_id: loan.id,
      member_id: member.id,
      after: { amount_cents, ...applied, from_account_id: from.id, paid_off },
      ...(origin ?? {}),
      at: now,
    });
    await notify(tx, {
      member_id: member.id,
      kind: "loan_update",
      title: paid_off
        ? `Your ${loan.product_name.toLowerCase()} is paid off`
        : `We received your ${formatCents(amount_cents)} loan payment`,
      body: paid_off
        ? `${loanNumber(loan.id)} is paid in full and closed. Thank you.`
        : paymentBreakdown(amount_cents, from.name, loanNumber(loan.id), applied),
      at: now,
    });
    return {
      ok: true,
      payment_id: payment!.id,
      amount_cents,
      ...applied,
      paid_off,
      replayed: false,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Autopay

export type { AutopayAnswer };

/** Turns autopay on from one of the member's own checking or savings accounts, or off (null). */
export async function setAutopay(
  db: Db,
  member: Actor,
  loan_id: number,
  from_account_id: number | null,
  origin: AuditOrigin,
  now: Date = new Date(),
): Promise<AutopayAnswer> {
  const target: AutopayTarget = {
    lock: (tx) => lockLoan(tx, loan_id, member.id),
    save: (tx, id, autopay_account_id) => tx.update(loans).set({ autopay_account_id }).where(eq(loans.id, id)),
    not_found: LOAN_NOT_FOUND,
    inactive: LOAN_PAID_OFF,
    action: "loan",
    subject_type: "loan",
    field: "from",
  };
  return setAutopayOn(db, member, target, from_account_id, origin, now);
}

// ---------------------------------------------------------------------------------------------
// The nightly job

export interface ServicingRun {
  loans: number;
  interest_cents: number;
  autopay_paid: number;
  autopay_failed: number;
  late_fees: number;
  failed: number;
}

/**
 * The loan-servicing job (nightly, by the job clock): for each active loan, in its own
 * transactions: accrue interest to today; autopay the first unpaid due date that has come (once
 * per due date: its payment's key, or its failure's event row); charge the product's late fee
 * once for each due date past its grace days still unpaid. A run twice the same day does nothing
 * more. One loan's failure is logged and the others go on.
 */
export async function runLoanServicing(db: Db, now: Date = new Date()): Promise<ServicingRun> {
  const day = today(now);
  const active = await db.select({ id: loans.id }).from(loans).where(eq(loans.status, "active")).orderBy(asc(loans.id));
  const run: ServicingRun = {
    loans: active.length,
    interest_cents: 0,
    autopay_paid: 0,
    autopay_failed: 0,
    late_fees: 0,
    failed: 0,
  };
  for (const { id } of active) {
    try {
      run.interest_cents += await accrueLoan(db, id, day);
      const autopay = await autopayLoan(db, id, now);
      if (autopay === "paid") run.autopay_paid++;
      if (autopay === "failed") run.autopay_failed++;
      run.late_fees += await chargeLateFees(db, id, day, now);
    } catch (error) {
      run.failed++;
      logger.error({ err: error, loan_id: id }, "loan servicing failed for a loan");
    }
  }
  return run;
}

async function accrueLoan(db: Db, loan_id: number, day: string): Promise<number> {
  return db.transaction(async (tx) => {
    const loan = await lockLoan(tx, loan_id);
    if (!loan) return 0;
    const after = await accrueTo(tx, loan, day);
    return after.accrued_interest_cents - loan.accrued_interest_cents;
  });
}

async function autopayLoan(db: Db, loan_id: number, now: Date): Promise<"paid" | "failed" | null> {
  const day = today(now);
  const [loan] = await db.select().from(loans).where(eq(loans.id, loan_id));
  if (!loan || loan.status !== "active" || loan.autopay_account_id === null) return null;
  const unpaid = firstUnpaidDue(await scheduleOf(db, loan.id), loan.paid_toward_schedule_cents);
  if (!unpaid || unpaid.due_on > day) return null;
  const key = `autopay:${unpaid.due_on}`;
  const [tried] = await db
    .select({ id: loanEvents.id })
    .from(loanEvents)
    .where(
      and(eq(loanEvents.loan_id, loan.id), eq(loanEvents.kind, "autopay_failed"), eq(loanEvents.on, unpaid.due_on)),
    );
  if (tried) return null;
  const member = await memberActor(db, loan.member_id);
  const answer = await payLoan(
    db,
    member,
    { loan_id: loan.id, from_account_id: loan.autopay_account_id, amount: { kind: "next_due" }, idempotency_key: key },
    null,
    now,
    "autopay",
  );
  if (answer.ok) return answer.replayed ? null : "paid";
  // Told once per due date: the member pays by hand, and the late fee follows after the grace days.
  await db.transaction(async (tx) => {
    await tx
      .insert(loanEvents)
      .values({ loan_id: loan.id, kind: "autopay_failed", on: unpaid.due_on, amount_cents: 0 })
      .onConflictDoNothing();
    await notify(tx, {
      member_id: loan.member_id,
      kind: "loan_update",
      title: `Your ${loan.product_name.toLowerCase()} autopay could not be made`,
      body: `The payment due ${formatBusinessDate(unpaid.due_on)} on ${loanNumber(loan.id)} was not taken: ${answer.message}. Please pay it under Loans.`,
      at: now,
    });
  });
  // The email follows the commit (the outbox); the bell already told the member.
  try {
    const [application] = await db
      .select({ product_slug: loanApplications.product_slug })
      .from(loanApplications)
      .where(eq(loanApplications.id, loan.application_id));
    const product = application ? loanProduct(application.product_slug) : null;
    await sendEmail(db, {
      ...autopayFailedEmail({
        product_name: loan.product_name,
        loan_number: loanNumber(loan.id),
        due_on: unpaid.due_on,
        reason: answer.message,
        grace_days: product?.grace_days ?? null,
      }),
      to: member.email,
      user_id: member.id,
    });
  } catch (error) {
    logger.error({ err: error, loan_id: loan.id }, "could not queue the autopay failure email");
  }
  return "failed";
}

async function chargeLateFees(db: Db, loan_id: number, day: string, now: Date): Promise<number> {
  const [row] = await db
    .select({ loan: loans, product_slug: loanApplications.product_slug })
    .from(loans)
    .innerJoin(loanApplications, eq(loanApplications.id, loans.application_id))
    .where(eq(loans.id, loan_id));
  if (!row || row.loan.status !== "active") return 0;
  const product = loanProduct(row.product_slug);
  if (!product || product.late_fee_cents <= 0) return 0;
  const payments = await db
    .select({
      paid_on: loanPayments.paid_on,
      toward: sql<string>`${loanPayments.interest_cents} + ${loanPayments.principal_cents}`,
    })
    .from(loanPayments)
    .where(and(eq(loanPayments.loan_id, loan_id), lte(loanPayments.paid_on, day)));
  const paidBy = (end: string) =>
    payments.filter((p) => p.paid_on <= end).reduce((sum, p) => sum + Number(p.toward), 0);
  const late = lateDueDates(await scheduleOf(db, loan_id), product.grace_days, day, paidBy);
  let charged = 0;
  for (const due_on of late) {
    const done = await db.transaction(async (tx) => {
      const loan = await lockLoan(tx, loan_id);
      if (!loan || loan.status !== "active") return false;
      const inserted = await tx
        .insert(loanEvents)
        .values({ loan_id, kind: "late_fee", on: due_on, amount_cents: product.late_fee_cents })
        .onConflictDoNothing()
        .returning({ id: loanEvents.id });
      if (inserted.length === 0) return false;
      const fees = await institutionAccount(tx, "fees_income");
      const posted = await postTransfer(tx, {
        idempotency_key: `loan:${loan_id}:late-fee:${due_on}`,
        initiator: SYSTEM,
        kind: "loan_fee",
        created_by: "loan-servicing",
        memo: `${loanNumber(loan_id)}: late fee, payment due ${due_on}`,
        category: "Fees",
        effective_date: day,
        entries: [
          { account_id: loan.receivable_account_id, amount_cents: -product.late_fee_cents },
          { account_id: fees.id, amount_cents: product.late_fee_cents },
        ],
      });
      if (!posted.ok) throw new Error(`loan ${loan_id}: late fee could not be posted (${posted.code})`);
      await tx
        .update(loanEvents)
        .set({ transaction_id: posted.transaction.id })
        .where(eq(loanEvents.id, inserted[0]!.id));
      await tx
        .update(loans)
        .set({ fees_due_cents: loan.fees_due_cents + product.late_fee_cents })
        .where(eq(loans.id, loan_id));
      await notify(tx, {
        member_id: loan.member_id,
        kind: "loan_update",
        title: `A late fee was charged on your ${loan.product_name.toLowerCase()}`,
        body: `The payment due ${formatBusinessDate(due_on)} on ${loanNumber(loan_id)} was not paid within ${product.grace_days} days, so the ${formatCents(product.late_fee_cents)} late fee was added. Please pay under Loans.`,
        at: now,
      });
      return true;
    });
    if (done) charged++;
  }
  return charged;
}

async function memberActor(db: DbOrTx, member_id: string): Promise<Actor> {
  const [row] = await db.select({ id: users.id, email: users.email }).from(users).where(eq(users.id, member_id));
  if (!row) throw new Error("loan: its member is missing");
  return row;
}
