import { and, desc, eq, inArray, ne } from "drizzle-orm";
import type { Actor } from "~/domain/actor";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { inRefusableTransaction, refuse } from "~/server/db/refusable-transaction.server";
import {
  loanEvents,
  loanPayments,
  loanStaffActions,
  loans,
  users,
  type LoanRow,
  type LoanStaffActionRow,
} from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { postTransfer, today } from "~/server/ledger/ledger.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { notify } from "~/server/notifications/notifications.server";
import { refusal, refusalMessage, type Refusal } from "~/domain/refusals";
import { formatCents } from "~/domain/money";
import { paymentParts } from "~/domain/loans/servicing";
import { formatBusinessDate } from "~/domain/calendar-date";
import { correctionEffect, type CorrectionTarget } from "~/domain/loans/corrections";
import { dualControlReasonsText } from "~/domain/dual-control";
import { lockStaffCredits, staffCreditDecision } from "~/server/staff-credits/dual-control.server";
import { loanNumber } from "~/domain/loans/products";
import { loanOwed } from "./servicing.server";
import { correctionLabel, memberLoanDetail } from "./loan-views.server";
import { loanPledge } from "./share-secured.server";

/**
 * Staff's view of a booked loan and its two corrections (docs/product.md#booked-loans-staff):
 * **waive a late fee** and **correct a servicing entry** (an interest accrual or a payment posted
 * wrongly). Each is a new ledger transaction with the opposite entries (kind `loan_fee_waiver` or
 * `loan_correction`, app/domain/loans/corrections.ts), posted under the loan row's lock with the
 * loan's figures changed in the same database transaction; never an edit or a deletion. The
 * general Reverse refuses servicing transactions: this is the only way to undo one.
 *
 * Dual control by the one rule of every staff credit (app/domain/dual-control.ts,
 * docs/security.md#dual-control): a correction takes what the member owes down or gives a payment
 * back, so it waits for a second staff member when it is above the profile's
 * `adjustment_second_approval_above_cents`, or when it would bring what this staff member credited
 * to the member in 24 hours, or to all members this business day, above the profile's totals
 * (adjustments, Add Transactions and corrections counted together): splitting one large
 * correction into small ones waits like the large one. The second staff member approves (it
 * posts) or declines with a reason; the maker cannot decide it.
 */

export const LOAN_NOT_FOUND = "Loan not found.";
export const REASON_MISSING = "Say why: the reason is kept with the correction.";
export const REASON_MAX_CHARS = 500;

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

function secondApprovalAboveCents(): number {
  return institution().limits.adjustment_second_approval_above_cents;
}

// ---------------------------------------------------------------------------------------------
// Reading

export interface CorrectableEntry {
  transaction_id: number;
  target_kind: CorrectionTarget["kind"];
  on: string;
  label: string;
  amount_cents: number;
  detail: string;
  /** The correction asked or posted for it, if any (a declined one does not count). */
  correction: { status: "awaiting_approval" | "posted" } | null;
}

export interface StaffLoanView {
  loan: NonNullable<Awaited<ReturnType<typeof memberLoanDetail>>>;
  member: { id: string; name: string; email: string };
  application_id: number;
  pledge: Awaited<ReturnType<typeof loanPledge>>;
  /** What staff may correct: late fees, interest accruals and payments, newest first. */
  entries: CorrectableEntry[];
  actions: (LoanStaffActionRow & { label: string })[];
  second_approval_above_cents: number;
}

export async function staffLoanView(
  db: DbOrTx,
  loan_id: number,
  now: Date = new Date(),
): Promise<StaffLoanView | null> {
  const [row] = await db
    .select({ loan: loans, name: users.name, email: users.email })
    .from(loans)
    .innerJoin(users, eq(users.id, loans.member_id))
    .where(eq(loans.id, loan_id));
  if (!row) return null;
  const detail = await memberLoanDetail(db, row.loan.member_id, loan_id, now);
  if (!detail) return null;
  const actions = await db
    .select()
    .from(loanStaffActions)
    .where(eq(loanStaffActions.loan_id, loan_id))
    .orderBy(desc(loanStaffActions.id));
  const open = new Map(
    actions
      .filter((a) => a.status !== "declined")
      .map((a) => [a.target_transaction_id, { status: a.status as "awaiting_approval" | "posted" }]),
  );
  const events = await db
    .select()
    .from(loanEvents)
    .where(and(eq(loanEvents.loan_id, loan_id), inArray(loanEvents.kind, ["interest", "late_fee"])))
    .orderBy(desc(loanEvents.id));
  const payments = await db
    .select()
    .from(loanPayments)
    .where(eq(loanPayments.loan_id, loan_id))
    .orderBy(desc(loanPayments.id));
  const entries: CorrectableEntry[] = [
    ...events
      .filter((e) => e.transaction_id !== null && e.amount_cents > 0)
      .map((e) => ({
        transaction_id: e.transaction_id!,
        target_kind: e.kind === "late_fee" ? ("late_fee" as const) : ("interest" as const),
        on: e.kind === "late_fee" ? today(e.created_at) : e.on,
        label: e.kind === "late_fee" ? "Late fee" : "Interest",
        amount_cents: e.amount_cents,
        detail:
          e.kind === "late_fee" ? `Payment due ${formatBusinessDate(e.on)}` : `From ${formatBusinessDate(e.from_on!)}`,
        correction: open.get(e.transaction_id!) ?? null,
      })),
    ...payments.map((p) => ({
      transaction_id: p.transaction_id,
      target_kind: "payment" as const,
      on: p.paid_on,
      label: p.kind === "autopay" ? "Autopay" : "Payment",
      amount_cents: p.amount_cents,
      detail: paymentParts(p),
      correction: open.get(p.transaction_id) ?? null,
    })),
  ].sort((a, b) => (a.on === b.on ? b.transaction_id - a.transaction_id : a.on < b.on ? 1 : -1));
  return {
    loan: detail,
    member: { id: row.loan.member_id, name: row.name, email: row.email },
    application_id: row.loan.application_id,
    pledge: await loanPledge(db, loan_id),
    entries,
    actions: actions.map((a) => ({ ...a, label: correctionLabel(a) })),
    second_approval_above_cents: secondApprovalAboveCents(),
  };
}

// ---------------------------------------------------------------------------------------------
// Asking

export interface RequestInput {
  staff: Actor;
  origin: AuditOrigin;
  loan_id: number;
  kind: LoanStaffActionRow["kind"];
  transaction_id: number;
  reason: string;
}

export type LoanActionAnswer =
  { ok: true; status: "posted" | "awaiting_approval" | "declined"; message: string; action_id: number } | Refusal;

/** What the entry of `transaction_id` is on this loan, for the correction asked. */
async function targetOf(
  db: DbOrTx,
  loan_id: number,
  kind: LoanStaffActionRow["kind"],
  transaction_id: number,
): Promise<CorrectionTarget | null> {
  const [event] = await db
    .select()
    .from(loanEvents)
    .where(and(eq(loanEvents.loan_id, loan_id), eq(loanEvents.transaction_id, transaction_id)));
  if (event) {
    if (event.kind === "late_fee")
      return kind === "waive_fee" ? { kind: "late_fee", fee_cents: event.amount_cents } : null;
    if (event.kind === "interest" && event.amount_cents > 0)
      return kind === "correct_entry" ? { kind: "interest", interest_cents: event.amount_cents } : null;
    return null;
  }
  if (kind !== "correct_entry") return null;
  const [payment] = await db
    .select()
    .from(loanPayments)
    .where(and(eq(loanPayments.loan_id, loan_id), eq(loanPayments.transaction_id, transaction_id)));
  return payment
    ? {
        kind: "payment",
        fees_cents: payment.fees_cents,
        interest_cents: payment.interest_cents,
        principal_cents: payment.principal_cents,
      }
    : null;
}

function amountOf(target: CorrectionTarget): number {
  return target.kind === "late_fee"
    ? target.fee_cents
    : target.kind === "interest"
      ? target.interest_cents
      : target.fees_cents + target.interest_cents + target.principal_cents;
}

export async function requestLoanAction(
  db: Db,
  input: RequestInput,
  now: Date = new Date(),
): Promise<LoanActionAnswer> {
  const reason = input.reason.trim();
  if (!reason) return refusal("bad_input", REASON_MISSING, { field: "reason" });
  if (reason.length > REASON_MAX_CHARS)
    return refusal("bad_input", `Please keep the reason to ${REASON_MAX_CHARS} characters.`, { field: "reason" });
  const [loan] = await db.select().from(loans).where(eq(loans.id, input.loan_id));
  if (!loan) return refusal("not_found", LOAN_NOT_FOUND);
  const target = await targetOf(db, loan.id, input.kind, input.transaction_id);
  if (!target)
    return refusal(
      "bad_input",
      input.kind === "waive_fee"
        ? "Choose a late fee of this loan."
        : "Choose an interest accrual or a payment of this loan.",
      { field: "transaction_id" },
    );
  const amount_cents = amountOf(target);
  return inRefusableTransaction(db, async (tx): Promise<LoanActionAnswer> => {
    // The maker's credits are counted under their lock, taken before the loan's and the ledger's
    // (the order every staff credit takes them in): two corrections sent at the same moment are
    // counted one after the other, so they cannot both slip under a total.
    await lockStaffCredits(tx, input.staff.id);
    const locked = await lockLoan(tx, loan.id);
    if (locked.status !== "active") return refusal("conflict", "This loan is paid off: it is not corrected here.");
    const [earlier] = await tx
      .select({ id: loanStaffActions.id, status: loanStaffActions.status })
      .from(loanStaffActions)
      .where(
        and(eq(loanStaffActions.target_transaction_id, input.transaction_id), ne(loanStaffActions.status, "declined")),
      );
    if (earlier)
      return refusal(
        "conflict",
        earlier.status === "posted"
          ? "This entry was already corrected."
          : "A correction of this entry is already waiting for a second staff member.",
        { field: "transaction_id" },
      );
    // Checked now too, so a correction that cannot post is never left waiting.
    await effectNow(tx, locked, target);
    const rule = await staffCreditDecision(tx, {
      staff_id: input.staff.id,
      member_id: loan.member_id,
      credits_cents: [amount_cents],
      now,
    });
    const waits = rule.decision === "wait";
    const [action] = await tx
      .insert(loanStaffActions)
      .values({
        loan_id: loan.id,
        member_id: loan.member_id,
        kind: input.kind,
        target_kind: target.kind,
        target_transaction_id: input.transaction_id,
        amount_cents,
        reason,
        status: "awaiting_approval",
        requested_by: input.staff.id,
        requested_by_email: input.staff.email,
        requested_at: now,
      })
      .returning();
    await recordAudit(tx, {
      actor_id: input.staff.id,
      actor_email: input.staff.email,
      action: `loan.${input.kind}.request`,
      subject_type: "loan",
      subject_id: loan.id,
      member_id: loan.member_id,
      after: {
        action_id: action!.id,
        target_transaction_id: input.transaction_id,
        amount_cents,
        reason,
        status: waits ? "awaiting_approval" : "posted",
      },
      ...input.origin,
      at: now,
    });
    if (waits)
      return {
        ok: true,
        status: "awaiting_approval",
        action_id: action!.id,
        message: `Waiting for a second staff member: ${dualControlReasonsText(rule.reasons, "correction")}.`,
      };
    await post(tx, locked, action!, target, input.staff, input.origin, now);
    return { ok: true, status: "posted", action_id: action!.id, message: postedMessage(action!, loan.id) };
  });
}

// ---------------------------------------------------------------------------------------------
// Deciding (the second staff member)

export interface DecideInput {
  staff: Actor;
  origin: AuditOrigin;
  loan_id: number;
  action_id: number;
  decision: { approve: true } | { approve: false; reason: string };
}

export async function decideLoanAction(db: Db, input: DecideInput, now: Date = new Date()): Promise<LoanActionAnswer> {
  if (!input.decision.approve && !input.decision.reason.trim())
    return refusal("bad_input", "Say why it is declined.", { field: "decline_reason" });
  return inRefusableTransaction(db, async (tx): Promise<LoanActionAnswer> => {
    const [found] = await tx
      .select()
      .from(loanStaffActions)
      .where(and(eq(loanStaffActions.id, input.action_id), eq(loanStaffActions.loan_id, input.loan_id)));
    if (!found) return refusal("not_found", "That correction was not found.");
    await lockStaffCredits(tx, found.requested_by); // the maker's, first: what posts counts for them
    const loan = await lockLoan(tx, found.loan_id);
    const [action] = await tx.select().from(loanStaffActions).where(eq(loanStaffActions.id, found.id)).for("update");
    if (action!.status !== "awaiting_approval") return refusal("conflict", "This correction was already decided.");
    if (action!.requested_by === input.staff.id)
      return refusal("forbidden", "You asked for this correction: a second staff member must decide it.");
    const audit = {
      actor_id: input.staff.id,
      actor_email: input.staff.email,
      subject_type: "loan",
      subject_id: loan.id,
      member_id: loan.member_id,
      ...input.origin,
      at: now,
    };
    if (!input.decision.approve) {
      const reason = input.decision.reason.trim().slice(0, REASON_MAX_CHARS);
      await tx
        .update(loanStaffActions)
        .set({
          status: "declined",
          decided_by: input.staff.id,
          decided_by_email: input.staff.email,
          decided_at: now,
          decline_reason: reason,
        })
        .where(eq(loanStaffActions.id, action!.id));
      await recordAudit(tx, {
        ...audit,
        action: `loan.${action!.kind}.decline`,
        after: { action_id: action!.id, reason },
      });
      return { ok: true, status: "declined", action_id: action!.id, message: "Declined: nothing was posted." };
    }
    if (loan.status !== "active") return refusal("conflict", "This loan is paid off: it is not corrected here.");
    const target = await targetOf(tx, loan.id, action!.kind, action!.target_transaction_id);
    if (!target) throw new Error(`loan action ${action!.id}: its entry is missing`);
    await tx
      .update(loanStaffActions)
      .set({ decided_by: input.staff.id, decided_by_email: input.staff.email, decided_at: now })
      .where(eq(loanStaffActions.id, action!.id));
    await post(tx, loan, action!, target, input.staff, input.origin, now, "approve");
    return { ok: true, status: "posted", action_id: action!.id, message: postedMessage(action!, loan.id) };
  });
}

// ---------------------------------------------------------------------------------------------
// Posting (inside the caller's `inRefusableTransaction`: a refusal here ends it with `refuse`)

async function lockLoan(tx: Tx, loan_id: number): Promise<LoanRow> {
  const [row] = await tx.select().from(loans).where(eq(loans.id, loan_id)).for("update");
  if (!row) refuse(refusal("not_found", LOAN_NOT_FOUND));
  return row;
}

async function effectNow(tx: Tx, loan: LoanRow, target: CorrectionTarget) {
  const owed = await loanOwed(tx, loan);
  const answer = correctionEffect(target, {
    fees_due_cents: loan.fees_due_cents,
    accrued_interest_cents: loan.accrued_interest_cents,
    paid_toward_schedule_cents: loan.paid_toward_schedule_cents,
    principal_owed_cents: owed.principal_cents,
  });
  if (!answer.ok) refuse(refusal("conflict", answer.message, { field: "transaction_id" }));
  return answer.effect;
}

function postedMessage(action: Pick<LoanStaffActionRow, "kind" | "target_kind" | "amount_cents">, loan_id: number) {
  return `${correctionLabel(action)}: ${formatCents(action.amount_cents)} on ${loanNumber(loan_id)}. The member sees it in the loan's history.`;
}

async function post(
  tx: Tx,
  loan: LoanRow,
  action: LoanStaffActionRow,
  target: CorrectionTarget,
  staff: Actor,
  origin: AuditOrigin,
  now: Date,
  step: "request" | "approve" = "request",
): Promise<void> {
  const effect = await effectNow(tx, loan, target);
  let member_account_id: number | null = null;
  if (effect.member_cents !== 0) {
    const [payment] = await tx
      .select({ from_account_id: loanPayments.from_account_id })
      .from(loanPayments)
      .where(eq(loanPayments.transaction_id, action.target_transaction_id));
    member_account_id = payment!.from_account_id;
  }
  const lines: [number | null, number][] = [
    [loan.receivable_account_id, effect.receivable_cents],
    [
      effect.interest_receivable_cents ? (await institutionAccount(tx, "interest_receivable")).id : null,
      effect.interest_receivable_cents,
    ],
    [effect.fees_income_cents ? (await institutionAccount(tx, "fees_income")).id : null, effect.fees_income_cents],
    [
      effect.interest_income_cents ? (await institutionAccount(tx, "interest_income")).id : null,
      effect.interest_income_cents,
    ],
    [member_account_id, effect.member_cents],
  ];
  const entries = lines
    .filter(([id, cents]) => id !== null && cents !== 0)
    .map(([id, cents]) => ({ account_id: id!, amount_cents: cents }));
  const label = correctionLabel(action);
  const day = today(now);
  const posted = await postTransfer(tx, {
    idempotency_key: `loan-action:${action.id}`,
    initiator: `staff:${action.requested_by}`,
    kind: action.kind === "waive_fee" ? "loan_fee_waiver" : "loan_correction",
    created_by: staff.id,
    memo: `${loanNumber(loan.id)}: ${label.toLowerCase()}`,
    category: action.target_kind === "payment" ? "Loan payment" : "Fees",
    effective_date: day,
    entries,
  });
  if (!posted.ok)
    refuse(
      refusal("conflict", `The correction could not be posted: ${refusalMessage(posted.code)}.`, { code: posted.code }),
    );
  await tx
    .update(loans)
    .set({
      fees_due_cents: loan.fees_due_cents + effect.fees_due_delta,
      accrued_interest_cents: loan.accrued_interest_cents + effect.accrued_interest_delta,
      paid_toward_schedule_cents: loan.paid_toward_schedule_cents + effect.paid_toward_schedule_delta,
    })
    .where(eq(loans.id, loan.id));
  await tx
    .update(loanStaffActions)
    .set({ status: "posted", transaction_id: posted.transaction.id, posted_on: day })
    .where(eq(loanStaffActions.id, action.id));
  await recordAudit(tx, {
    actor_id: staff.id,
    actor_email: staff.email,
    action: `loan.${action.kind}${step === "approve" ? ".approve" : ""}`,
    subject_type: "loan",
    subject_id: loan.id,
    member_id: loan.member_id,
    before: {
      fees_due_cents: loan.fees_due_cents,
      accrued_interest_cents: loan.accrued_interest_cents,
      paid_toward_schedule_cents: loan.paid_toward_schedule_cents,
    },
    after: {
      action_id: action.id,
      transaction_id: posted.transaction.id,
      target_transaction_id: action.target_transaction_id,
      amount_cents: action.amount_cents,
      reason: action.reason,
    },
    ...origin,
    at: now,
  });
  await notify(tx, {
    member_id: loan.member_id,
    kind: "loan_update",
    title:
      action.kind === "waive_fee"
        ? `We waived a ${formatCents(action.amount_cents)} late fee`
        : action.target_kind === "payment"
          ? `We reversed a ${formatCents(action.amount_cents)} loan payment`
          : `We corrected ${formatCents(action.amount_cents)} of interest on your loan`,
    body:
      action.target_kind === "payment"
        ? `The payment on ${loanNumber(loan.id)} was posted wrongly: the money went back to your account, and the loan owes it again. See the loan's history under Loans.`
        : `${loanNumber(loan.id)} owes ${formatCents(action.amount_cents)} less. See the loan's history under Loans.`,
    at: now,
  });
}

/**
 * The back office's list of booked loans, newest first (a page of the latest 50): all members', or
 * one member's for their page in the back office.
 */
export async function bookedLoans(db: DbOrTx, options: { member_id?: string } = {}) {
  const rows = await db
    .select({
      id: loans.id,
      product_name: loans.product_name,
      principal_cents: loans.principal_cents,
      status: loans.status,
      disbursed_on: loans.disbursed_on,
      member_name: users.name,
    })
    .from(loans)
    .innerJoin(users, eq(users.id, loans.member_id))
    .where(options.member_id === undefined ? undefined : eq(loans.member_id, options.member_id))
    .orderBy(desc(loans.id))
    .limit(50);
  return rows.map((r) => ({ ...r, number: loanNumber(r.id) }));
}
