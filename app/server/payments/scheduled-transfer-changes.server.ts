import { and, desc, eq, inArray } from "drizzle-orm";
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
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { businessDate } from "~/domain/ledger-rules";
import { accountLabel } from "~/domain/account-display";
import { SCHEDULE_MESSAGES } from "~/domain/scheduled-transfers";
import { refusal, type Refusal } from "~/domain/refusals";
import { limitsFor, overTransferLimit, type Member } from "./transfers.server";
import { advanceSeries, remainingOf } from "./scheduled-transfers.server";

/**
 * The member's scheduled transfers (docs/product.md#scheduled-transfers): the list with what is
 * left of each series, and the changes a member may make (skip the next one, edit, cancel), each
 * under a lock on the series so the job never sends a slot being changed.
 */

export interface ScheduledTransferView {
  id: number;
  kind: ScheduledTransfer["kind"];
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
      s.kind === "internal"
        ? label(s.to_account_id)
        : s.kind === "ach"
          ? otherBankLabel(s)
          : (recipients.get(s.recipient_member_id ?? "") ?? "A member"),
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

/** "Pat Lee at Wells Fargo ••6789": the payee, their bank and the last four only. */
function otherBankLabel(series: ScheduledTransfer): string {
  const routing = series.ach_routing_number ?? "";
  const bank = institution().us_banks.find((b) => b.routing_number === routing)?.name ?? `routing ${routing}`;
  return `${series.ach_account_name ?? ""} at ${bank} ••${series.ach_account_last4 ?? ""}`;
}

async function recipientNames(db: DbOrTx, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, ids));
  return new Map(rows.map((r) => [r.id, r.name]));
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
): Promise<Refusal | { ok: true; series: ScheduledTransfer }> {
  const [series] = await tx
    .select()
    .from(scheduledTransfers)
    .where(and(eq(scheduledTransfers.id, series_id), eq(scheduledTransfers.member_id, member_id)))
    .for("update");
  if (!series) return NOT_FOUND;
  if (series.status !== "active" || series.next_date === null) return refusal("conflict", CHANGE_MESSAGES.ended);
  if (series.next_date <= today) return refusal("conflict", CHANGE_MESSAGES.today);
  return { ok: true, series };
}

export const CHANGE_MESSAGES = {
  ended: "This scheduled transfer has ended and cannot be changed.",
  today: "The next transfer is being sent today and can no longer be changed.",
  after_end: "The next date must be on or before the last date of the series",
} as const;

const NOT_FOUND = refusal("not_found", SCHEDULE_MESSAGES.series);

/** Skips the next transfer of a series (recorded as a skipped run); a one-off or a last transfer ends it. */
export async function skipNextTransfer(
  db: Db,
  member: Member,
  series_id: number,
  origin: AuditOrigin,
  now = new Date(),
): Promise<{ ok: true; next_date: string | null } | Refusal> {
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
    const next = await advanceSeries(tx, series);
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
): Promise<{ ok: true; next_date: null } | Refusal> {
  const today = businessDate(institution().time_zone, now);
  return db.transaction(async (tx) => {
    const [series] = await tx
      .select()
      .from(scheduledTransfers)
      .where(and(eq(scheduledTransfers.id, series_id), eq(scheduledTransfers.member_id, member.id)))
      .for("update");
    if (!series) return NOT_FOUND;
    if (series.status !== "active") return refusal("conflict", CHANGE_MESSAGES.ended);
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
): Promise<{ ok: true; next_date: string } | Refusal> {
  const today = businessDate(institution().time_zone, now);
  return db.transaction(async (tx): Promise<{ ok: true; next_date: string } | Refusal> => {
    const locked = await lockOwnSeries(tx, member.id, form.series_id, today);
    if (!locked.ok) return locked;
    const { series } = locked;
    if (series.kind !== "internal") {
      const too_large = overTransferLimit(limitsFor(series.kind), form.amount_cents);
      if (too_large) return too_large;
    }
    const remaining = remainingOf(series);
    if (series.end_date !== null && form.next_date > series.end_date)
      return refusal("bad_input", CHANGE_MESSAGES.after_end, { field: "next_date" });
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
