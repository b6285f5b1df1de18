import { and, asc, eq, lte, sql } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import {
  scheduledTransferRuns,
  scheduledTransfers,
  users,
  type ScheduledTransfer,
  type ScheduledTransferRun,
} from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { notify } from "~/server/notifications/notifications.server";
import { recordAudit } from "~/server/audit/audit.server";
import { sendEmail } from "~/server/mail/outbox.server";
import { logger } from "~/server/logger.server";
import { businessDate } from "~/domain/ledger-rules";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { asSentence } from "~/domain/plain-text";
import type { ToMemberTransfer, ToUsBankTransfer } from "~/domain/transfers";
import { decryptField } from "~/server/security/crypto.server";
import { usableLinkedAccount } from "~/server/linked-accounts/linked-accounts.server";
import { sendScheduledUsBankTransfer } from "./to-other-banks.server";
import { transferBetweenAccounts } from "./between-accounts.server";
import { checkMemberTransfer, postMemberTransfer } from "./to-member.server";
import { refuse, type Member, type TransferRefusal, type TransferResult } from "./transfers.server";
import { achAccountNumberContext, advanceSeries, slotKey } from "./scheduled-transfers.server";

/**
 * The scheduled-transfers job (docs/product.md#scheduled-transfers): claims each due slot once,
 * sends it through the same code as a transfer sent now under the slot's own key, and tells the
 * member when one cannot be sent (scheduled-transfers.server.ts says how a series is set up).
 */

/** Who the job acts as in the audit log. */
export const SCHEDULED_TRANSFERS_SYSTEM = "system:scheduled-transfers";

/** Series the job takes per query; it loops until none is due. */
const DUE_BATCH = 200;

/** A run claimed this long ago and still running was cut short (a crash): it is sent again under its key. */
const STALE_RUN_MS = 10 * 60_000;

export interface ScheduledTransferRunCounts {
  [name: string]: number | string | boolean | null;
  date: string;
  sent: number;
  failed: number;
  resumed: number;
}

/**
 * Sends every scheduled transfer whose date has come (the job clock's date where the credit union
 * is). Safe to run in two processes at once: a slot is claimed once, and sent under its own key.
 */
export async function runDueScheduledTransfers(db: Db, now: Date): Promise<ScheduledTransferRunCounts> {
  const today = businessDate(institution().time_zone, now);
  const counts: ScheduledTransferRunCounts = { date: today, sent: 0, failed: 0, resumed: 0 };
  // Runs a crash left claimed but unfinished: sent again under the same key (the ledger answers a repeat).
  const stale = await db
    .select({ id: scheduledTransferRuns.id })
    .from(scheduledTransferRuns)
    .where(
      and(
        eq(scheduledTransferRuns.status, "running"),
        lte(scheduledTransferRuns.claimed_at, new Date(now.getTime() - STALE_RUN_MS)),
      ),
    )
    .limit(DUE_BATCH);
  for (const { id } of stale) {
    const outcome = await sendRun(db, id);
    if (outcome) {
      counts.resumed++;
      counts[outcome]++;
    }
  }
  for (let after = 0; ;) {
    const due = await db
      .select({ id: scheduledTransfers.id })
      .from(scheduledTransfers)
      .where(
        and(
          eq(scheduledTransfers.status, "active"),
          lte(scheduledTransfers.next_date, today),
          sql`${scheduledTransfers.id} > ${after}`,
        ),
      )
      .orderBy(asc(scheduledTransfers.id))
      .limit(DUE_BATCH);
    for (const { id } of due) {
      const run_id = await claimSlot(db, id, today, now);
      if (run_id === null) continue;
      const outcome = await sendRun(db, run_id);
      if (outcome) counts[outcome]++;
    }
    if (due.length < DUE_BATCH) break;
    after = due[due.length - 1]!.id;
  }
  return counts;
}

/**
 * Claims the series' next slot: its run row (unique per series and slot) is written and the
 * series moved to the slot after in one transaction, under the series' row lock, so another
 * process finds the slot taken and the date moved. Answers the run, or null when not due.
 */
async function claimSlot(db: Db, series_id: number, today: string, now: Date): Promise<number | null> {
  return db.transaction(async (tx) => {
    const [series] = await tx
      .select()
      .from(scheduledTransfers)
      .where(eq(scheduledTransfers.id, series_id))
      .for("update");
    if (!series || series.status !== "active" || series.next_date === null || series.next_date > today) return null;
    const [run] = await tx
      .insert(scheduledTransferRuns)
      .values({
        series_id: series.id,
        sequence: series.next_sequence,
        run_date: series.next_date,
        amount_cents: series.amount_cents,
        status: "running",
        // By the job clock, which staleness is measured by (in the demo it may be ahead of the wall clock).
        claimed_at: now,
      })
      .onConflictDoNothing()
      .returning({ id: scheduledTransferRuns.id });
    await advanceSeries(tx, series);
    return run?.id ?? null;
  });
}

/** Sends a claimed run through the transfer code, then records how it went (once, whoever finishes first). */
async function sendRun(db: Db, run_id: number): Promise<"sent" | "failed" | null> {
  const [row] = await db
    .select({ run: scheduledTransferRuns, series: scheduledTransfers })
    .from(scheduledTransferRuns)
    .innerJoin(scheduledTransfers, eq(scheduledTransfers.id, scheduledTransferRuns.series_id))
    .where(eq(scheduledTransferRuns.id, run_id));
  if (!row || row.run.status !== "running") return null;
  const { run, series } = row;
  const [owner] = await db
    .select({ id: users.id, email: users.email, name: users.name })
    .from(users)
    .where(eq(users.id, series.member_id));
  let result: TransferResult;
  if (!owner) result = refuse("not_your_account");
  else if (series.kind === "internal")
    result = await transferBetweenAccounts(db, owner, {
      from_account_id: series.from_account_id,
      to_account_id: series.to_account_id!,
      amount_cents: run.amount_cents,
      reference: series.reference,
      idempotency_key: slotKey(series.id, run.sequence),
    });
  else if (series.kind === "ach") result = await sendToUsBank(db, owner, series, run);
  else result = await sendToMember(db, owner, series, run);
  const reason = result.ok ? null : failureReason(result);
  const recorded = await db.transaction(async (tx) => {
    const [finished] = await tx
      .update(scheduledTransferRuns)
      .set({
        status: result.ok ? "sent" : "failed",
        transaction_id: result.ok ? result.transaction_id : null,
        failure_reason: reason,
        finished_at: new Date(),
      })
      .where(and(eq(scheduledTransferRuns.id, run.id), eq(scheduledTransferRuns.status, "running")))
      .returning({ id: scheduledTransferRuns.id });
    if (!finished) return null;
    let stopped = false;
    if (!result.ok && series.on_failure === "stop") {
      const [row] = await tx
        .update(scheduledTransfers)
        .set({ status: "stopped", next_date: null, ended_at: new Date(), updated_at: new Date() })
        .where(and(eq(scheduledTransfers.id, series.id), eq(scheduledTransfers.status, "active")))
        .returning({ id: scheduledTransfers.id });
      stopped = row !== undefined;
    }
    const notice = !result.ok && owner ? failureNotice(series, run, reason!, stopped) : null;
    if (notice) await notify(tx, { member_id: series.member_id, kind: "scheduled_transfer_failed", ...notice });
    await recordAudit(tx, {
      actor_id: null,
      action: result.ok ? "scheduled_transfer.sent" : "scheduled_transfer.failed",
      subject_type: "scheduled_transfer",
      subject_id: series.id,
      member_id: series.member_id,
      after: {
        sequence: run.sequence,
        run_date: run.run_date,
        amount_cents: run.amount_cents,
        transaction_id: result.ok ? result.transaction_id : null,
        failure_reason: reason,
        series_stopped: stopped,
        by: SCHEDULED_TRANSFERS_SYSTEM,
      },
    });
    return { outcome: result.ok ? ("sent" as const) : ("failed" as const), notice };
  });
  if (!recorded) return null;
  // The email after the commit: the outbox's delivery must find the row, and a run is never undone for a mail.
  if (recorded.notice && owner) await emailFailure(db, owner, recorded.notice);
  return recorded.outcome;
}

/** A To Another Member run: the recipient by who they are now, every check of a transfer sent now but the code. */
async function sendToMember(
  db: Db,
  owner: Member,
  series: ScheduledTransfer,
  run: ScheduledTransferRun,
): Promise<TransferResult> {
  const [recipient] = await db
    .select({ email: users.email })
    .from(users)
    .where(eq(users.id, series.recipient_member_id!));
  if (!recipient) return refuse("recipient_not_found");
  const form: ToMemberTransfer = {
    from_account_id: series.from_account_id,
    recipient_email: recipient.email.trim().toLowerCase(),
    amount_cents: run.amount_cents,
    reference: series.reference,
    idempotency_key: slotKey(series.id, run.sequence),
  };
  const plan = await checkMemberTransfer(db, owner, form, { count_lookup: false });
  if ("ok" in plan) return plan;
  // The recipient must still be the member it was set up for (an address can pass to someone else).
  if (plan.recipient.member_id !== series.recipient_member_id) return refuse("recipient_not_found");
  return postMemberTransfer(db, owner, form, plan);
}

/**
 * A To US Bank run: the account sealed in the series, through the same service as a payment sent
 * now (limits, funds, screening, the hold and the queued ACH payment) without the code, which the
 * member gave for the whole series at set-up. One to the member's linked account needs the link
 * still verified (a removed link is not paid).
 */
async function sendToUsBank(
  db: Db,
  owner: Member,
  series: ScheduledTransfer,
  run: ScheduledTransferRun,
): Promise<TransferResult> {
  if (series.linked_account_id !== null && !(await usableLinkedAccount(db, owner.id, series.linked_account_id)))
    return refuse("linked_account_unavailable");
  const form: ToUsBankTransfer = {
    from_account_id: series.from_account_id,
    routing_number: series.ach_routing_number!,
    account_number: decryptField(series.ach_account_number_enc!, achAccountNumberContext(series.member_id)),
    account_type: series.ach_account_type ?? "checking",
    account_name: series.ach_account_name!,
    amount_cents: run.amount_cents,
    reference: series.reference,
    idempotency_key: slotKey(series.id, run.sequence),
    ...(series.linked_account_id !== null ? { linked_account_id: series.linked_account_id } : {}),
  };
  return sendScheduledUsBankTransfer(db, owner, form);
}

/** Why a run failed, as the member reads it: the refusal's own words, said of the date. */
function failureReason(refusal: TransferRefusal): string {
  switch (refusal.code) {
    case "insufficient_funds":
      return "Insufficient funds on the transfer date";
    case "recipient_not_found":
    case "recipient_unavailable":
      return "The recipient can no longer receive transfers";
    case "not_your_account":
      return "The account is no longer yours";
    case "linked_account_unavailable":
      return "The linked account is no longer verified";
    default:
      return refusal.message;
  }
}

/** The bell's notice (and its email's subject and text): what was not sent, why, and what happens to the series. */
function failureNotice(
  series: ScheduledTransfer,
  run: ScheduledTransferRun,
  reason: string,
  stopped: boolean,
): { title: string; body: string } {
  const amount = formatCents(run.amount_cents);
  const after = stopped
    ? " As you chose, the repeating transfer is stopped: no further transfer will be sent."
    : series.frequency !== "once"
      ? " The next transfers of the series will be sent on their dates."
      : "";
  return {
    title: `Scheduled transfer of ${amount} not sent`,
    body: `The transfer of ${formatBusinessDate(run.run_date)} ("${series.reference}") was not sent: ${asSentence(reason)}${after}`,
  };
}

async function emailFailure(db: Db, owner: Member, notice: { title: string; body: string }): Promise<void> {
  try {
    const profile = institution();
    await sendEmail(db, {
      kind: "scheduled_transfer_failed",
      to: owner.email,
      user_id: owner.id,
      subject: notice.title,
      text: `${notice.body}\n\nYour scheduled transfers are under Transfers in online banking.\n\n${profile.name}\n${profile.support_email} · ${profile.support_phone}`,
    });
  } catch (error) {
    logger.error({ err: error }, "could not queue a scheduled transfer failure email");
  }
}
