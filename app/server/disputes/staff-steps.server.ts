import type { Actor } from "~/domain/actor";
import { eq } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { disputeCases, disputeEvents, ledgerTransactions, type DisputeCaseRow } from "~/server/db/schema";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { notify } from "~/server/notifications/notifications.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { postTransfer, today } from "~/server/ledger/ledger.server";
import { inRefusableTransaction, refuse } from "~/server/db/refusable-transaction.server";
import { formatCents } from "~/domain/money";
import { refusal, refusalMessage } from "~/domain/refusals";
import { formatBusinessDate as d } from "~/domain/calendar-date";
import { caseNumber, provisionalCreditNoticeBy, reversalDebitOn, type DisputeStatus } from "~/domain/disputes";
import { disputeErrorFoundEmail, disputeNoErrorEmail, disputeProvisionalCreditEmail } from "./emails.server";
import { CASE_NOT_FOUND, mailAfterCommit, memberOf, type DisputeRefusal } from "./disputes.server";

/**
 * Staff's steps on a case (docs/product.md#disputes-queue, 12 CFR 1005.11(c), (d)): a note,
 * the provisional credit, the resolution either way. Each is one database transaction with its
 * case event, audit entry and notification; the member's letter follows the commit.
 */

export interface StaffStep {
  staff: Actor;
  origin: AuditOrigin;
  case_id: number;
  now?: Date;
}

export type StepAnswer = { ok: true; message: string } | DisputeRefusal;

async function lockCase(tx: DbOrTx, case_id: number): Promise<DisputeCaseRow> {
  if (!Number.isSafeInteger(case_id) || case_id <= 0) refuse(refusal("not_found", CASE_NOT_FOUND));
  const [row] = await tx.select().from(disputeCases).where(eq(disputeCases.id, case_id)).for("update");
  if (!row) refuse(refusal("not_found", CASE_NOT_FOUND));
  return row;
}

/** A staff note on the case (never shown to the member). */
export async function addCaseNote(db: Db, step: StaffStep & { text: string }): Promise<StepAnswer> {
  const now = step.now ?? new Date();
  const outcome = await inRefusableTransaction(db, async (tx) => {
    const row = await lockCase(tx, step.case_id);
    await tx.insert(disputeEvents).values({
      case_id: row.id,
      at: now,
      kind: "note",
      actor_id: step.staff.id,
      actor_email: step.staff.email,
      text: step.text,
      internal: true,
    });
    await recordAudit(tx, {
      actor_id: step.staff.id,
      actor_email: step.staff.email,
      action: "dispute.note",
      subject_type: "dispute_case",
      subject_id: row.id,
      member_id: row.member_id,
      after: { length: step.text.length },
      ...step.origin,
      at: now,
    });
    return { ok: true as const, message: "Note added." };
  });
  return outcome;
}

async function postCredit(
  tx: DbOrTx,
  row: DisputeCaseRow,
  staff: { id: string },
  amount_cents: number,
  purpose: "provisional" | "final",
): Promise<number> {
  const adjustments = await institutionAccount(tx, "adjustments");
  const answer = await postTransfer(tx, {
    idempotency_key: `dispute:${row.id}:${purpose}`,
    initiator: `staff:${staff.id}`,
    kind: "dispute_credit",
    created_by: staff.id,
    memo: `${purpose === "provisional" ? "Provisional credit" : "Credit"}: case ${caseNumber(row.id)}`,
    category: "Other",
    reference: caseNumber(row.id),
    entries: [
      { account_id: adjustments.id, amount_cents: -amount_cents },
      { account_id: Number(row.account_id), amount_cents },
    ],
  });
  if (!answer.ok) refuse(refusal("conflict", `The credit could not post: ${refusalMessage(answer.code)}.`));
  return answer.transaction.id;
}

/**
 * Provisional credit (1005.11(c)(2)(i)): the amount (at most the amount in dispute) is credited to
 * the member's account now, and the member is told at once with the amount and date, which meets
 * the 2 business days of (c)(2)(ii). The case then has until its 45 (90) days to finish.
 */
export async function provisionallyCredit(db: Db, step: StaffStep & { amount_cents?: number }): Promise<StepAnswer> {
  const now = step.now ?? new Date();
  const day = today(now);
  const outcome = await inRefusableTransaction<
    { ok: true; row: DisputeCaseRow; amount_cents: number } | DisputeRefusal
  >(db, async (tx) => {
    const row = await lockCase(tx, step.case_id);
    if (row.status !== "open")
      refuse(refusal("conflict", "Only a case under investigation without a credit can be credited provisionally."));
    const amount_cents = step.amount_cents ?? Number(row.amount_cents);
    if (!Number.isSafeInteger(amount_cents) || amount_cents <= 0 || amount_cents > Number(row.amount_cents))
      refuse(
        refusal("bad_input", `Enter an amount from $0.01 to ${formatCents(Number(row.amount_cents))}.`, {
          field: "amount",
        }),
      );
    const transaction_id = await postCredit(tx, row, step.staff, amount_cents, "provisional");
    await tx
      .update(disputeCases)
      .set({
        status: "provisionally_credited",
        provisional_transaction_id: transaction_id,
        provisional_amount_cents: amount_cents,
        provisional_credited_on: day,
      })
      .where(eq(disputeCases.id, row.id));
    const text = `Provisional credit of ${formatCents(amount_cents)} on ${d(day)}; we finish by ${d(row.complete_by)}.`;
    await tx.insert(disputeEvents).values({
      case_id: row.id,
      at: now,
      kind: "provisional_credit",
      actor_id: step.staff.id,
      actor_email: step.staff.email,
      text,
    });
    await recordAudit(tx, {
      actor_id: step.staff.id,
      actor_email: step.staff.email,
      action: "dispute.provisional_credit",
      subject_type: "dispute_case",
      subject_id: row.id,
      member_id: row.member_id,
      before: { status: row.status },
      after: {
        status: "provisionally_credited",
        amount_cents,
        transaction_id,
        credited_on: day,
        notice_by: provisionalCreditNoticeBy(day),
      },
      ...step.origin,
      at: now,
    });
    await notify(tx, {
      member_id: row.member_id,
      kind: "dispute_update",
      title: `Provisional credit for case ${caseNumber(row.id)}`,
      body: `We credited ${formatCents(amount_cents)} to your account on ${d(day)} while we finish looking into it (by ${d(row.complete_by)}). You can use this money.`,
      at: now,
    });
    return { ok: true as const, row, amount_cents };
  });
  if (!outcome.ok) return outcome;
  const member = await memberOf(db, outcome.row.member_id);
  if (member)
    await mailAfterCommit(db, member, () =>
      disputeProvisionalCreditEmail({
        case_number: caseNumber(outcome.row.id),
        amount_cents: outcome.amount_cents,
        credited_on: day,
        complete_by: outcome.row.complete_by,
      }),
    );
  return { ok: true, message: `Provisionally credited ${formatCents(outcome.amount_cents)}; the member was told.` };
}

/**
 * Resolve (1005.11(c)(1), (d)): the error was found (the provisional credit becomes final, or the
 * amount is credited now), or it was not (with a provisional credit: the member is told in writing
 * that it will be debited 5 business days later, on the date named, and that payments are honoured
 * up to that amount until then; without one, the case is closed). Either way the member is told
 * what was found and may ask for the documents relied on.
 */
export async function resolveDispute(db: Db, step: ResolveStep): Promise<StepAnswer> {
  const now = step.now ?? new Date();
  const day = today(now);
  const outcome = await inRefusableTransaction<({ ok: true; row: DisputeCaseRow } & Resolution) | DisputeRefusal>(
    db,
    async (tx) => {
      const row = await lockCase(tx, step.case_id);
      if (row.status !== "open" && row.status !== "provisionally_credited")
        refuse(refusal("conflict", "This case is already decided."));
      const decided = { resolution: step.explanation, decided_at: now, decided_by: step.staff.id };
      const resolution =
        step.outcome === "error"
          ? await resolveWithError(tx, row, step, now)
          : row.status === "provisionally_credited"
            ? scheduleReversal(row, day)
            : closeWithoutError(now);
      await tx
        .update(disputeCases)
        .set({ ...decided, ...resolution.set })
        .where(eq(disputeCases.id, row.id));
      const { status, credited_cents, final_credit_transaction_id, reversal_on, text } = resolution;
      await tx.insert(disputeEvents).values({
        case_id: row.id,
        at: now,
        kind: resolution.event,
        actor_id: step.staff.id,
        actor_email: step.staff.email,
        text: `${text} ${step.explanation}`,
      });
      await recordAudit(tx, {
        actor_id: step.staff.id,
        actor_email: step.staff.email,
        action: step.outcome === "error" ? "dispute.resolve_error" : "dispute.resolve_no_error",
        subject_type: "dispute_case",
        subject_id: row.id,
        member_id: row.member_id,
        before: { status: row.status },
        after: { status, credited_cents, final_credit_transaction_id, reversal_on, decided_on: day },
        ...step.origin,
        at: now,
      });
      await notify(tx, {
        member_id: row.member_id,
        kind: "dispute_update",
        title: `Case ${caseNumber(row.id)}: ${step.outcome === "error" ? "we corrected the error" : "no error found"}`,
        body: text,
        at: now,
      });
      return { ok: true as const, row, ...resolution };
    },
  );
  if (!outcome.ok) return outcome;
  await mailResolution(db, step, outcome.row, outcome, day);
  return {
    ok: true,
    message:
      outcome.status === "reversal_scheduled"
        ? `Resolved: no error found. The provisional credit will be debited on ${d(outcome.reversal_on!)}; the member was told.`
        : `Resolved: ${outcome.status === "resolved_error" ? "error found" : "no error found"}; the member was told.`,
  };
}

type ResolveStep = StaffStep & { outcome: "error" | "no_error"; explanation: string };

/** What a resolution does to the case: its new status, the case event, the words, the money, the fields set. */
interface Resolution {
  status: DisputeStatus;
  event: "resolved_error" | "no_error_notice" | "resolved_no_error";
  text: string;
  credited_cents: number;
  reversal_on: string | null;
  final_credit_transaction_id: number | null;
  set: Partial<typeof disputeCases.$inferInsert>;
}

/** Error found: the provisional credit becomes final, or (none given) the amount is credited now. */
async function resolveWithError(tx: DbOrTx, row: DisputeCaseRow, step: ResolveStep, now: Date): Promise<Resolution> {
  const status = "resolved_error";
  const provisional = row.status !== "open";
  const credited_cents = Number(provisional ? row.provisional_amount_cents : row.amount_cents);
  const final_credit_transaction_id = provisional
    ? null
    : await postCredit(tx, row, step.staff, credited_cents, "final");
  return {
    status,
    event: "resolved_error",
    text: provisional
      ? `Error found: the provisional credit of ${formatCents(credited_cents)} is final.`
      : `Error found: ${formatCents(credited_cents)} credited on ${d(today(now))}.`,
    credited_cents,
    reversal_on: null,
    final_credit_transaction_id,
    set: { status, resolved_at: now, final_credit_transaction_id },
  };
}

/** No error, with a provisional credit: it is debited 5 business days after this notice (1005.11(d)(2)). */
function scheduleReversal(row: DisputeCaseRow, day: string): Resolution {
  const status = "reversal_scheduled";
  const reversal_on = reversalDebitOn(day);
  return {
    status,
    event: "no_error_notice",
    text: `No error found. The provisional credit of ${formatCents(Number(row.provisional_amount_cents))} will be debited on ${d(reversal_on)}.`,
    credited_cents: 0,
    reversal_on,
    final_credit_transaction_id: null,
    set: { status, reversal_notice_on: day, reversal_on },
  };
}

/** No error and nothing credited: the case is closed. */
function closeWithoutError(now: Date): Resolution {
  const status = "resolved_no_error";
  return {
    status,
    event: "resolved_no_error",
    text: "No error found.",
    credited_cents: 0,
    reversal_on: null,
    final_credit_transaction_id: null,
    set: { status, resolved_at: now },
  };
}

/** The member's letter: what was found, and, with no error, when the provisional credit is debited. */
async function mailResolution(
  db: Db,
  step: ResolveStep,
  row: DisputeCaseRow,
  resolution: Pick<Resolution, "credited_cents" | "reversal_on">,
  day: string,
): Promise<void> {
  const member = await memberOf(db, row.member_id);
  if (!member) return;
  const number = caseNumber(row.id);
  if (step.outcome === "error")
    await mailAfterCommit(db, member, () =>
      disputeErrorFoundEmail({
        case_number: number,
        amount_cents: resolution.credited_cents,
        was_provisional: row.status === "provisionally_credited",
        on: day,
        explanation: step.explanation,
      }),
    );
  else
    await mailAfterCommit(db, member, () =>
      disputeNoErrorEmail({
        case_number: number,
        explanation: step.explanation,
        reversal:
          resolution.reversal_on === null
            ? null
            : { amount_cents: Number(row.provisional_amount_cents), on: resolution.reversal_on },
      }),
    );
}

export const CHARGEBACK_MESSAGES = {
  not_card: "Only a card purchase can be marked for a chargeback.",
  resolved: "This case is resolved: it can no longer be marked for a chargeback.",
  already: "This case is already marked for a chargeback.",
  done: "Marked for a chargeback. Raise it now in the card network's own system: Mutual does not send it.",
} as const;

/**
 * Marks a disputed card purchase for a chargeback (docs/product.md#disputes-queue). The network
 * step stays manual: staff raise the chargeback in the card network's own system; this records
 * that they are to (who, when), in the case's history and the audit log. Staff who may move money.
 */
export async function markForChargeback(db: Db, step: StaffStep): Promise<StepAnswer> {
  const now = step.now ?? new Date();
  return inRefusableTransaction(db, async (tx) => {
    const row = await lockCase(tx, step.case_id);
    const [transaction] = await tx
      .select({ kind: ledgerTransactions.kind })
      .from(ledgerTransactions)
      .where(eq(ledgerTransactions.id, Number(row.transaction_id)));
    if (transaction?.kind !== "card_payment") refuse(refusal("conflict", CHARGEBACK_MESSAGES.not_card));
    if (row.status === "resolved_error" || row.status === "resolved_no_error")
      refuse(refusal("conflict", CHARGEBACK_MESSAGES.resolved));
    if (row.chargeback_marked_at) refuse(refusal("conflict", CHARGEBACK_MESSAGES.already));
    await tx
      .update(disputeCases)
      .set({ chargeback_marked_at: now, chargeback_marked_by: step.staff.email })
      .where(eq(disputeCases.id, row.id));
    await tx.insert(disputeEvents).values({
      case_id: row.id,
      at: now,
      kind: "chargeback_marked",
      actor_id: step.staff.id,
      actor_email: step.staff.email,
      text: "Marked for a chargeback with the card network (raised by staff in the network's system).",
      internal: true,
    });
    await recordAudit(tx, {
      actor_id: step.staff.id,
      actor_email: step.staff.email,
      action: "dispute.chargeback_marked",
      subject_type: "dispute_case",
      subject_id: row.id,
      member_id: row.member_id,
      before: { chargeback_marked_at: null },
      after: { chargeback_marked_at: now.toISOString() },
      ...step.origin,
      at: now,
    });
    return { ok: true as const, message: CHARGEBACK_MESSAGES.done };
  });
}
