import { and, asc, eq, inArray, not, sql } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { disputeCases, disputeEvents, users } from "~/server/db/schema";
import { recordAudit } from "~/server/audit/audit.server";
import { notify } from "~/server/notifications/notifications.server";
import { sendEmail } from "~/server/mail/outbox.server";
import { logger } from "~/server/logger.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { postTransfer, today } from "~/server/ledger/ledger.server";
import { formatCents } from "~/domain/money";
import { refusalMessage } from "~/domain/refusals";
import { addBusinessDays } from "~/domain/payment-dates";
import { formatBusinessDate as d } from "~/domain/calendar-date";
import { caseNumber, isResolved } from "~/domain/disputes";
import { disputeDeadlineEmail, disputeReversedEmail } from "./emails.server";
import { mailAfterCommit, memberOf, summaries } from "./disputes.server";

/**
 * The dispute-clocks job (docs/operations.md#scheduled-jobs): debits provisional credits whose
 * notice period has ended, and tells staff of cases within one business day of a deadline.
 */

/**
 * Debits every provisional credit whose notice period has ended (status reversal_scheduled,
 * reversal_on today or before): kind `dispute_credit_reversal`, the case closed, the member told.
 * When the ledger refuses (the money is no longer in the account, or the account is frozen), the
 * case stays, with the reason, for staff to handle: the member's money is never taken below zero.
 */
export async function postDueReversals(db: Db, now: Date): Promise<{ reversed: number; refused: number }> {
  const day = today(now);
  const due = await db
    .select({ id: disputeCases.id })
    .from(disputeCases)
    .where(and(eq(disputeCases.status, "reversal_scheduled"), sql`${disputeCases.reversal_on} <= ${day}::date`))
    .orderBy(asc(disputeCases.id));
  let reversed = 0;
  let refused = 0;
  for (const { id } of due) {
    const outcome = await db.transaction(async (tx) => {
      const [row] = await tx.select().from(disputeCases).where(eq(disputeCases.id, id)).for("update");
      if (!row || row.status !== "reversal_scheduled") return null;
      const amount_cents = Number(row.provisional_amount_cents);
      const adjustments = await institutionAccount(tx, "adjustments");
      const answer = await postTransfer(tx, {
        idempotency_key: `dispute:${row.id}:reversal`,
        initiator: "system:disputes",
        kind: "dispute_credit_reversal",
        created_by: "system:disputes",
        memo: `Provisional credit debited: case ${caseNumber(row.id)}`,
        category: "Other",
        reference: caseNumber(row.id),
        entries: [
          { account_id: Number(row.account_id), amount_cents: -amount_cents },
          { account_id: adjustments.id, amount_cents },
        ],
      });
      if (!answer.ok) {
        const problem = refusalMessage(answer.code);
        if (row.reversal_problem === problem) return { row, problem, repeated: true };
        await tx.update(disputeCases).set({ reversal_problem: problem }).where(eq(disputeCases.id, row.id));
        await tx.insert(disputeEvents).values({
          case_id: row.id,
          at: now,
          kind: "reversal_refused",
          text: `The debit of ${formatCents(amount_cents)} could not post: ${problem}.`,
          internal: true,
        });
        await recordAudit(tx, {
          actor_id: null,
          action: "dispute.reversal_refused",
          subject_type: "dispute_case",
          subject_id: row.id,
          member_id: row.member_id,
          after: { amount_cents, code: answer.code },
          at: now,
        });
        return { row, problem, repeated: false };
      }
      await tx
        .update(disputeCases)
        .set({
          status: "resolved_no_error",
          reversal_transaction_id: answer.transaction.id,
          resolved_at: now,
          reversal_problem: null,
        })
        .where(eq(disputeCases.id, row.id));
      const text = `The provisional credit of ${formatCents(amount_cents)} was debited on ${d(day)}, as we wrote on ${d(row.reversal_notice_on!)}.`;
      await tx.insert(disputeEvents).values({ case_id: row.id, at: now, kind: "reversed", text });
      await recordAudit(tx, {
        actor_id: null,
        action: "dispute.reverse_provisional_credit",
        subject_type: "dispute_case",
        subject_id: row.id,
        member_id: row.member_id,
        before: { status: row.status },
        after: { status: "resolved_no_error", amount_cents, transaction_id: answer.transaction.id, debited_on: day },
        at: now,
      });
      await notify(tx, {
        member_id: row.member_id,
        kind: "dispute_update",
        title: `Case ${caseNumber(row.id)}: provisional credit debited`,
        body: text,
        at: now,
      });
      return { row, amount_cents };
    });
    if (!outcome) continue;
    if ("problem" in outcome) {
      if (!outcome.repeated) refused++;
      continue;
    }
    reversed++;
    const member = await memberOf(db, outcome.row.member_id);
    if (member)
      await mailAfterCommit(db, member, () =>
        disputeReversedEmail({ case_number: caseNumber(outcome.row.id), amount_cents: outcome.amount_cents, on: day }),
      );
  }
  return { reversed, refused };
}

/**
 * Tells staff, once a business day, of every unresolved case whose deadline is today, the next
 * business day or already passed (and of a reversal the ledger refused): one email to each staff
 * member who may move money, and an event on each case.
 */
export async function flagDeadlines(db: Db, now: Date): Promise<{ flagged: number; told: number }> {
  const day = today(now);
  const soon = addBusinessDays(day, 1);
  const rows = await db
    .select()
    .from(disputeCases)
    .where(
      and(
        not(inArray(disputeCases.status, ["resolved_error", "resolved_no_error"])),
        sql`(${disputeCases.flagged_on} is null or ${disputeCases.flagged_on} < ${day}::date)`,
      ),
    )
    .orderBy(asc(disputeCases.id));
  const cases = (await summaries(db, rows, now)).filter(
    (c) => (c.deadline !== null && c.deadline.due_on <= soon) || c.reversal_problem !== null,
  );
  if (cases.length === 0) return { flagged: 0, told: 0 };
  await db.transaction(async (tx) => {
    for (const c of cases) {
      await tx.update(disputeCases).set({ flagged_on: day }).where(eq(disputeCases.id, c.id));
      await tx.insert(disputeEvents).values({
        case_id: c.id,
        at: now,
        kind: "deadline_flagged",
        text: c.deadline
          ? `${c.deadline.what} by ${d(c.deadline.due_on)} (${c.deadline.rule}): ${c.deadline.state.replace("_", " ")}.`
          : `The debit could not post: ${c.reversal_problem}.`,
        internal: true,
      });
    }
    await recordAudit(tx, {
      actor_id: null,
      action: "dispute.deadlines_flagged",
      subject_type: "dispute_case",
      after: { cases: cases.map((c) => c.id), on: day },
      at: now,
    });
  });
  const staff = await db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(and(eq(users.role, "admin"), sql`coalesce(${users.banned}, false) = false`));
  const message = disputeDeadlineEmail(
    day,
    cases.map((c) => ({
      number: c.number,
      what: c.deadline?.what ?? "Debit refused",
      due_on: c.deadline?.due_on ?? day,
      rule: c.deadline?.rule ?? "",
      state: c.deadline?.state ?? "overdue",
      problem: c.reversal_problem,
    })),
  );
  let told = 0;
  for (const person of staff) {
    try {
      await sendEmail(db, { ...message, to: person.email, user_id: person.id });
      told++;
    } catch (error) {
      logger.error({ err: error }, "could not queue a dispute deadline email");
    }
  }
  return { flagged: cases.length, told };
}

/** The job's run: due reversals first (a refused one is flagged in the same run), then the flags. */
export async function runDisputeClocks(db: Db, now: Date) {
  const reversals = await postDueReversals(db, now);
  const flags = await flagDeadlines(db, now);
  return { ...reversals, ...flags };
}

export { isResolved };
