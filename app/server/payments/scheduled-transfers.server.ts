import crypto from "node:crypto";
import { and, asc, desc, eq, inArray, lte, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import {
  scheduledTransferRuns,
  scheduledTransfers,
  users,
  type ScheduledTransfer,
  type ScheduledTransferRun,
} from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { memberAccounts } from "~/server/ledger/accounts.server";
import { notify } from "~/server/notifications/notifications.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { sendEmail } from "~/server/mail/outbox.server";
import { logger } from "~/server/logger.server";
import { inRefusableTransaction } from "~/server/db/refusable-transaction.server";
import { businessDate } from "~/domain/ledger-rules";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { accountLabel } from "~/domain/account-display";
import { asSentence } from "~/domain/plain-text";
import {
  describeSeries,
  seriesHasPayment,
  seriesPaymentDate,
  seriesRemaining,
  type SeriesRule,
} from "~/domain/schedule";
import { SCHEDULE_MESSAGES, TRANSFER_NOUN, type TransferSchedule } from "~/domain/scheduled-transfers";
import type { BetweenAccountsTransfer, ToMemberTransfer } from "~/domain/transfers";
import { transferBetweenAccounts } from "./between-accounts.server";
import { checkMemberTransfer, countRecipientLookup, findRecipient, postMemberTransfer } from "./to-member.server";
import {
  limitsFor,
  overTransferLimit,
  ownAccount,
  refuse,
  type Member,
  type Refusal,
  type TransferResult,
} from "./transfers.server";

/**
 * Scheduled and recurring transfers (docs/product.md#scheduled-transfers): Between Accounts and
 * To Another Member set up for a later business day, once or repeating (app/domain/schedule.ts,
 * the rules Bill Pay's series use).
 *
 * - Set-up authorizes: the accounts are the member's and open, the amount within the per-transfer
 *   limit, the recipient a member (a code or passkey above the profile's amount, asked by the
 *   route exactly as for a transfer sent now). Nothing is held.
 * - On each date the scheduled-transfers job claims the slot (one run row per series and slot, in
 *   the transaction that moves the series to its next slot), then sends the transfer through the
 *   same code as one sent now under the slot's own idempotency key, so two app processes never
 *   send one slot twice and a run cut short is sent again under the same key.
 * - What can change since set-up is checked on each run: funds, the daily limit, frozen or closed
 *   accounts, the recipient still a member. A failed run tells the member (bell and email) why;
 *   the series goes on or stops as the member chose.
 */

/** Who the job acts as in the audit log. */
export const SCHEDULED_TRANSFERS_SYSTEM = "system:scheduled-transfers";
/** Series the job takes per query; it loops until none is due. */
const DUE_BATCH = 200;
/** A run claimed this long ago and still running was cut short (a crash): it is sent again under its key. */
const STALE_RUN_MS = 10 * 60_000;

export type ScheduleRequest =
  { kind: "internal"; form: BetweenAccountsTransfer } | { kind: "member"; form: ToMemberTransfer };

export type ScheduleResult = { ok: true; series_id: number; first_date: string; replayed: boolean } | Refusal;

/** The series' rule as app/domain/schedule.ts reads it, counted from its `start_sequence`. */
export function ruleOf(series: ScheduledTransfer): SeriesRule {
  return {
    frequency: series.frequency === "weeks" ? "weeks" : "monthly",
    interval_weeks: series.interval_weeks,
    first_date: series.first_date,
    end_date: series.end_date,
    payment_count: series.payment_count,
  };
}

/** The date of slot `sequence`, and whether the series has it. */
function slot(series: ScheduledTransfer, sequence: number): string | null {
  if (series.frequency === "once") return sequence === series.start_sequence ? series.first_date : null;
  const rule = ruleOf(series);
  const n = sequence - series.start_sequence + 1;
  return seriesHasPayment(rule, n) ? seriesPaymentDate(rule, n) : null;
}

/** How many transfers are left, the next one included. */
export function remainingOf(series: ScheduledTransfer): number {
  if (series.status !== "active") return 0;
  if (series.frequency === "once") return 1;
  return seriesRemaining(ruleOf(series), series.next_sequence - series.start_sequence + 1);
}

/** The ledger key of one slot of one series: a UUID derived from both, the same in every process. */
export function slotKey(series_id: number, sequence: number): string {
  const h = crypto.createHash("sha256").update(`scheduled-transfer:${series_id}:${sequence}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

// ---------------------------------------------------------------------------------------------
// Set-up

/**
 * Sets up a scheduled or recurring transfer. A repeat of the form's key answers with the series
 * it set up. The caller has checked the code or passkey when the amount asks for one.
 */
export async function scheduleTransfer(
  db: Db,
  member: Member,
  request: ScheduleRequest,
  schedule: TransferSchedule,
  origin: AuditOrigin,
): Promise<ScheduleResult> {
  const { form } = request;
  const earlier = await seriesByKey(db, member.id, form.idempotency_key);
  if (earlier) return { ok: true, series_id: earlier.id, first_date: earlier.first_date, replayed: true };
  const checked = await checkSetUp(db, member, request);
  if ("ok" in checked) return checked;
  const { from_account_id, to_account_id, recipient_member_id } = checked;
  const rule = schedule.rule;
  return inRefusableTransaction<{ ok: true; series_id: number; first_date: string; replayed: boolean }>(
    db,
    async (tx) => {
      const [series] = await tx
        .insert(scheduledTransfers)
        .values({
          member_id: member.id,
          kind: request.kind,
          from_account_id,
          to_account_id,
          recipient_member_id,
          amount_cents: form.amount_cents,
          reference: form.reference,
          frequency: rule ? rule.frequency : "once",
          interval_weeks: rule?.interval_weeks ?? null,
          first_date: schedule.first_date,
          end_date: rule?.end_date ?? null,
          payment_count: rule ? rule.payment_count : 1,
          on_failure: schedule.on_failure,
          next_sequence: 1,
          next_date: schedule.first_date,
          idempotency_key: form.idempotency_key,
        })
        .onConflictDoNothing()
        .returning();
      if (!series) {
        // The same form a moment before, in another request.
        const first = await seriesByKey(tx, member.id, form.idempotency_key);
        return { ok: true, series_id: first!.id, first_date: first!.first_date, replayed: true };
      }
      await recordAudit(tx, {
        actor_id: member.id,
        actor_email: member.email,
        action: "scheduled_transfer.create",
        subject_type: "scheduled_transfer",
        subject_id: series.id,
        member_id: member.id,
        after: {
          kind: series.kind,
          amount_cents: series.amount_cents,
          frequency: series.frequency,
          first_date: series.first_date,
          end_date: series.end_date,
          payment_count: series.payment_count,
          on_failure: series.on_failure,
        },
        request_id: origin.request_id,
        ip: origin.ip,
      });
      return { ok: true, series_id: series.id, first_date: series.first_date, replayed: false };
    },
  );
}

interface SetUpPlan {
  from_account_id: number;
  to_account_id: number | null;
  recipient_member_id: string | null;
  summary: string;
}

/** What set-up checks: the accounts the member's and open, the per-transfer limit, the recipient a member. */
async function checkSetUp(db: Db, member: Member, request: ScheduleRequest): Promise<Refusal | SetUpPlan> {
  const { form } = request;
  const accounts = await memberAccounts(db, member.id);
  const from = ownAccount(accounts, form.from_account_id);
  if (!from) return refuse("not_your_account", "from_account_id");
  if (from.status === "frozen" || from.status === "closed")
    return refuse(from.status === "frozen" ? "account_frozen" : "account_closed");
  const amount = formatCents(form.amount_cents);
  if (request.kind === "internal") {
    const to = ownAccount(accounts, request.form.to_account_id);
    if (!to) return refuse("not_your_account", "to_account_id");
    if (to.status === "frozen" || to.status === "closed")
      return refuse(to.status === "frozen" ? "account_frozen" : "account_closed");
    return {
      from_account_id: from.id,
      to_account_id: to.id,
      recipient_member_id: null,
      summary: `${amount} from ${accountLabel(from)} to ${accountLabel(to)}`,
    };
  }
  const too_large = overTransferLimit(limitsFor("member"), form.amount_cents);
  if (too_large) return too_large;
  const recipient = await recipientOf(db, member, request.form);
  if ("ok" in recipient) return recipient;
  return {
    from_account_id: from.id,
    to_account_id: null,
    recipient_member_id: recipient.member_id,
    summary: `${amount} from ${accountLabel(from)} to ${recipient.name} (${request.form.recipient_email})`,
  };
}

/** The step before the code of a To Another Member transfer set up for later: every set-up check, and what the code confirms. */
export async function reviewScheduledTransfer(
  db: Db,
  member: Member,
  request: ScheduleRequest,
  schedule: TransferSchedule,
): Promise<Refusal | { ok: true; summary: string }> {
  const checked = await checkSetUp(db, member, request);
  if ("ok" in checked) return checked;
  const when = schedule.rule
    ? `${describeSeries(schedule.rule, formatBusinessDate, TRANSFER_NOUN)}, from ${formatBusinessDate(schedule.first_date)}`
    : `on ${formatBusinessDate(schedule.first_date)}`;
  return { ok: true, summary: `${checked.summary}, ${when}.` };
}

async function seriesByKey(db: DbOrTx, member_id: string, key: string): Promise<ScheduledTransfer | null> {
  const [row] = await db
    .select()
    .from(scheduledTransfers)
    .where(and(eq(scheduledTransfers.member_id, member_id), eq(scheduledTransfers.idempotency_key, key)));
  return row ?? null;
}

/** The recipient of a To Another Member set-up: a member with a checking account, not the sender. */
async function recipientOf(
  db: Db,
  member: Member,
  form: ToMemberTransfer,
): Promise<Refusal | { member_id: string; name: string }> {
  if (form.recipient_email === member.email.trim().toLowerCase()) return refuse("own_account", "recipient_email");
  // Every look-up counts against the member's limit, as Verify's and a transfer's sent now.
  const limited = await countRecipientLookup(db, member);
  if (limited) return limited;
  const recipient = await findRecipient(db, form.recipient_email);
  if (!recipient || !recipient.checking) return refuse("recipient_not_found", "recipient_email");
  if (recipient.member_id === member.id) return refuse("own_account", "recipient_email");
  return { member_id: recipient.member_id, name: recipient.name };
}

// ---------------------------------------------------------------------------------------------
// The member's list, skip, edit, cancel

export interface ScheduledTransferView {
  id: number;
  kind: "internal" | "member";
  from_label: string;
  to_label: string;
  amount_cents: number;
  reference: string;
  frequency: ScheduledTransfer["frequency"];
  interval_weeks: number | null;
  end_date: string | null;
  payment_count: number | null;
  on_failure: ScheduledTransfer["on_failure"];
  next_date: string | null;
  remaining: number;
  status: ScheduledTransfer["status"];
  runs: Array<Pick<ScheduledTransferRun, "sequence" | "run_date" | "amount_cents" | "status" | "failure_reason">>;
}

/** The member's scheduled transfers, newest first, each with its runs (the latest ten). */
export async function listScheduledTransfers(db: DbOrTx, member_id: string): Promise<ScheduledTransferView[]> {
  const series = await db
    .select()
    .from(scheduledTransfers)
    .where(eq(scheduledTransfers.member_id, member_id))
    .orderBy(desc(scheduledTransfers.id))
    .limit(100);
  if (series.length === 0) return [];
  const [accounts, runs, recipients] = await Promise.all([
    memberAccounts(db, member_id),
    db
      .select()
      .from(scheduledTransferRuns)
      .where(
        inArray(
          scheduledTransferRuns.series_id,
          series.map((s) => s.id),
        ),
      )
      .orderBy(desc(scheduledTransferRuns.sequence)),
    recipientNames(
      db,
      series.flatMap((s) => (s.recipient_member_id ? [s.recipient_member_id] : [])),
    ),
  ]);
  const label = (id: number | null) => {
    const account = accounts.find((a) => a.id === id);
    return account ? accountLabel(account) : "An account no longer yours";
  };
  return series.map((s) => ({
    id: s.id,
    kind: s.kind,
    from_label: label(s.from_account_id),
    to_label:
      s.kind === "internal" ? label(s.to_account_id) : (recipients.get(s.recipient_member_id ?? "") ?? "A member"),
    amount_cents: s.amount_cents,
    reference: s.reference,
    frequency: s.frequency,
    interval_weeks: s.interval_weeks,
    end_date: s.end_date,
    payment_count: s.payment_count,
    on_failure: s.on_failure,
    next_date: s.status === "active" ? s.next_date : null,
    remaining: remainingOf(s),
    status: s.status,
    runs: runs
      .filter((r) => r.series_id === s.id)
      .slice(0, 10)
      .map((r) => ({
        sequence: r.sequence,
        run_date: r.run_date,
        amount_cents: r.amount_cents,
        status: r.status,
        failure_reason: r.failure_reason,
      })),
  }));
}

async function recipientNames(db: DbOrTx, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, ids));
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** Why a change was refused: the series is not the member's (or does not exist), or can no longer change. */
export interface ChangeRefusal {
  ok: false;
  reason: "not_found" | "conflict" | "invalid";
  message: string;
  field?: string;
}

/**
 * Locks the member's own active series for a change. Another member's series answers exactly as
 * one that does not exist. A slot already claimed by the job today cannot be changed.
 */
async function lockOwnSeries(
  tx: DbOrTx,
  member_id: string,
  series_id: number,
  today: string,
): Promise<ChangeRefusal | { ok: true; series: ScheduledTransfer }> {
  const [series] = await tx
    .select()
    .from(scheduledTransfers)
    .where(and(eq(scheduledTransfers.id, series_id), eq(scheduledTransfers.member_id, member_id)))
    .for("update");
  if (!series) return NOT_FOUND;
  if (series.status !== "active" || series.next_date === null)
    return { ok: false, reason: "conflict", message: CHANGE_MESSAGES.ended };
  if (series.next_date <= today) return { ok: false, reason: "conflict", message: CHANGE_MESSAGES.today };
  return { ok: true, series };
}

export const CHANGE_MESSAGES = {
  ended: "This scheduled transfer has ended and cannot be changed.",
  today: "The next transfer is being sent today and can no longer be changed.",
  after_end: "The next date must be on or before the last date of the series",
} as const;

const NOT_FOUND: ChangeRefusal = { ok: false, reason: "not_found", message: SCHEDULE_MESSAGES.series };

/** Skips the next transfer of a series (recorded as a skipped run); a one-off or a last transfer ends it. */
export async function skipNextTransfer(
  db: Db,
  member: Member,
  series_id: number,
  origin: AuditOrigin,
  now = new Date(),
): Promise<{ ok: true; next_date: string | null } | ChangeRefusal> {
  const today = businessDate(institution().time_zone, now);
  return db.transaction(async (tx) => {
    const locked = await lockOwnSeries(tx, member.id, series_id, today);
    if (!locked.ok) return locked;
    const { series } = locked;
    await tx.insert(scheduledTransferRuns).values({
      series_id: series.id,
      sequence: series.next_sequence,
      run_date: series.next_date!,
      amount_cents: series.amount_cents,
      status: "skipped",
      finished_at: new Date(),
    });
    const next = await advance(tx, series);
    await recordAudit(tx, {
      actor_id: member.id,
      actor_email: member.email,
      action: "scheduled_transfer.skip",
      subject_type: "scheduled_transfer",
      subject_id: series.id,
      member_id: member.id,
      before: { next_date: series.next_date },
      after: { next_date: next },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return { ok: true, next_date: next };
  });
}

/** Cancels a scheduled transfer: no further transfer is sent; those already sent stay sent. */
export async function cancelScheduledTransfer(
  db: Db,
  member: Member,
  series_id: number,
  origin: AuditOrigin,
  now = new Date(),
): Promise<{ ok: true; next_date: null } | ChangeRefusal> {
  const today = businessDate(institution().time_zone, now);
  return db.transaction(async (tx) => {
    const [series] = await tx
      .select()
      .from(scheduledTransfers)
      .where(and(eq(scheduledTransfers.id, series_id), eq(scheduledTransfers.member_id, member.id)))
      .for("update");
    if (!series) return NOT_FOUND;
    if (series.status !== "active") return { ok: false, reason: "conflict", message: CHANGE_MESSAGES.ended };
    // A slot claimed today is being sent: cancelling stops the ones after it.
    await tx
      .update(scheduledTransfers)
      .set({ status: "cancelled", next_date: null, ended_at: new Date(), updated_at: new Date() })
      .where(eq(scheduledTransfers.id, series.id));
    await recordAudit(tx, {
      actor_id: member.id,
      actor_email: member.email,
      action: "scheduled_transfer.cancel",
      subject_type: "scheduled_transfer",
      subject_id: series.id,
      member_id: member.id,
      before: { status: series.status, next_date: series.next_date },
      after: { status: "cancelled", today },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return { ok: true, next_date: null };
  });
}

/**
 * Edits the amount and the next date. A series' later dates follow the new date by its rule
 * (the rule restarts there; a series that ends after a number keeps the number left).
 */
export async function editScheduledTransfer(
  db: Db,
  member: Member,
  form: { series_id: number; amount_cents: number; next_date: string },
  origin: AuditOrigin,
  now = new Date(),
): Promise<{ ok: true; next_date: string } | ChangeRefusal> {
  const today = businessDate(institution().time_zone, now);
  return db.transaction(async (tx): Promise<{ ok: true; next_date: string } | ChangeRefusal> => {
    const locked = await lockOwnSeries(tx, member.id, form.series_id, today);
    if (!locked.ok) return locked;
    const { series } = locked;
    if (series.kind === "member") {
      const too_large = overTransferLimit(limitsFor("member"), form.amount_cents);
      if (too_large) return { ok: false, reason: "invalid", message: too_large.message, field: "amount" };
    }
    const remaining = remainingOf(series);
    if (series.end_date !== null && form.next_date > series.end_date)
      return { ok: false, reason: "invalid", message: CHANGE_MESSAGES.after_end, field: "next_date" };
    await tx
      .update(scheduledTransfers)
      .set({
        amount_cents: form.amount_cents,
        first_date: form.next_date,
        start_sequence: series.next_sequence,
        payment_count: series.payment_count === null ? null : remaining,
        next_date: form.next_date,
        updated_at: new Date(),
      })
      .where(eq(scheduledTransfers.id, series.id));
    await recordAudit(tx, {
      actor_id: member.id,
      actor_email: member.email,
      action: "scheduled_transfer.edit",
      subject_type: "scheduled_transfer",
      subject_id: series.id,
      member_id: member.id,
      before: { amount_cents: series.amount_cents, next_date: series.next_date },
      after: { amount_cents: form.amount_cents, next_date: form.next_date },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return { ok: true, next_date: form.next_date };
  });
}

/** Moves a locked series past its next slot: to the slot after, or ended. Answers the new next date. */
async function advance(tx: DbOrTx, series: ScheduledTransfer): Promise<string | null> {
  const sequence = series.next_sequence + 1;
  const date = slot(series, sequence);
  await tx
    .update(scheduledTransfers)
    .set(
      date
        ? { next_sequence: sequence, next_date: date, updated_at: new Date() }
        : { next_sequence: sequence, next_date: null, status: "ended", ended_at: new Date(), updated_at: new Date() },
    )
    .where(eq(scheduledTransfers.id, series.id));
  return date;
}

// ---------------------------------------------------------------------------------------------
// The job

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
    await advance(tx, series);
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

/** Why a run failed, as the member reads it: the refusal's own words, said of the date. */
function failureReason(refusal: Refusal): string {
  switch (refusal.code) {
    case "insufficient_funds":
      return "Insufficient funds on the transfer date";
    case "recipient_not_found":
    case "recipient_unavailable":
      return "The recipient can no longer receive transfers";
    case "not_your_account":
      return "The account is no longer yours";
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
