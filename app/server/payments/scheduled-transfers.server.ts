import crypto from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { scheduledTransfers, type ScheduledTransfer } from "~/server/db/schema";
import { memberAccounts } from "~/server/ledger/accounts.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { inRefusableTransaction } from "~/server/db/refusable-transaction.server";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { accountLabel } from "~/domain/account-display";
import {
  describeSeries,
  seriesHasPayment,
  seriesPaymentDate,
  seriesRemaining,
  type SeriesRule,
} from "~/domain/schedule";
import { TRANSFER_NOUN, type TransferSchedule } from "~/domain/scheduled-transfers";
import type { BetweenAccountsTransfer, ToMemberTransfer, ToUsBankTransfer } from "~/domain/transfers";
import { maskExternal } from "~/domain/account-display";
import { encryptField } from "~/server/security/crypto.server";
import { institution } from "~/config/institution.server";
import { countRecipientLookup, findRecipient } from "./to-member.server";
import {
  limitsFor,
  overTransferLimit,
  ownAccount,
  refuse,
  type Member,
  type TransferRefusal,
} from "./transfers.server";
/**
 * Scheduled and recurring transfers (docs/product.md#scheduled-transfers): Between Accounts,
 * To Another Member and To US Bank set up for a later business day, once or repeating (app/domain/schedule.ts,
 * the rules Bill Pay's series use).
 *
 * - Set-up authorizes: the accounts are the member's and open, the amount within the per-transfer
 *   limit, the recipient a member (a code or passkey above the profile's amount, asked by the
 *   route exactly as for a transfer sent now; To US Bank always asks for one, as sent now). The
 *   account at another bank is stored with its number sealed. Nothing is held.
 * - On each date the scheduled-transfers job claims the slot (one run row per series and slot, in
 *   the transaction that moves the series to its next slot), then sends the transfer through the
 *   same code as one sent now under the slot's own idempotency key, so two app processes never
 *   send one slot twice and a run cut short is sent again under the same key.
 * - What can change since set-up is checked on each run: funds, the daily limit, frozen or closed
 *   accounts, the recipient still a member. A failed run tells the member (bell and email) why;
 *   the series goes on or stops as the member chose.
 */

export type ScheduleRequest =
  | { kind: "internal"; form: BetweenAccountsTransfer }
  | { kind: "member"; form: ToMemberTransfer }
  | { kind: "ach"; form: ToUsBankTransfer };

/** What sealing a scheduled To US Bank transfer's account number binds it to: another member's row does not open it. */
export function achAccountNumberContext(member_id: string): string {
  return `scheduled_transfers.ach_account_number:${member_id}`;
}

export type ScheduleResult = { ok: true; series_id: number; first_date: string; replayed: boolean } | TransferRefusal;

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
  const ach = request.kind === "ach" ? achColumns(member.id, request.form) : {};
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
          ...ach,
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
          // To US Bank: the routing number and the last four only, never the account number.
          ...(series.kind === "ach"
            ? { routing_number: series.ach_routing_number, account_last4: series.ach_account_last4 }
            : {}),
          ...(series.linked_account_id !== null ? { linked_account_id: series.linked_account_id } : {}),
        },
        request_id: origin.request_id,
        ip: origin.ip,
      });
      return { ok: true, series_id: series.id, first_date: series.first_date, replayed: false };
    },
  );
}

/** A To US Bank series' account at the other bank, its number sealed. */
function achColumns(member_id: string, form: ToUsBankTransfer) {
  return {
    ach_routing_number: form.routing_number,
    ach_account_number_enc: encryptField(form.account_number, achAccountNumberContext(member_id)),
    ach_account_last4: form.account_number.slice(-4),
    ach_account_type: form.account_type,
    ach_account_name: form.account_name,
    linked_account_id: form.linked_account_id ?? null,
  };
}

interface SetUpPlan {
  from_account_id: number;
  to_account_id: number | null;
  recipient_member_id: string | null;
  summary: string;
}

/** What set-up checks: the accounts the member's and open, the per-transfer limit, the recipient a member. */
async function checkSetUp(db: Db, member: Member, request: ScheduleRequest): Promise<TransferRefusal | SetUpPlan> {
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
  if (request.kind === "ach") {
    // The daily limit, funds and screening are the send's, on each date; the per-transfer limit is known now.
    const too_large = overTransferLimit(limitsFor("ach"), form.amount_cents);
    if (too_large) return too_large;
    const to = request.form;
    const bank = institution().us_banks.find((b) => b.routing_number === to.routing_number)?.name;
    return {
      from_account_id: from.id,
      to_account_id: null,
      recipient_member_id: null,
      summary: `${amount} from ${accountLabel(from)} to ${to.account_name} at ${bank ?? `routing number ${to.routing_number}`}, ${to.account_type} account ${maskExternal(to.account_number)}`,
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

/** The step before the code of a To Another Member or To US Bank transfer set up for later: every set-up check, and what the code confirms. */
export async function reviewScheduledTransfer(
  db: Db,
  member: Member,
  request: ScheduleRequest,
  schedule: TransferSchedule,
): Promise<TransferRefusal | { ok: true; summary: string }> {
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
): Promise<TransferRefusal | { member_id: string; name: string }> {
  if (form.recipient_email === member.email.trim().toLowerCase()) return refuse("own_account", "recipient_email");
  // Every look-up counts against the member's limit, as Verify's and a transfer's sent now.
  const limited = await countRecipientLookup(db, member);
  if (limited) return limited;
  const recipient = await findRecipient(db, form.recipient_email);
  if (!recipient || !recipient.checking) return refuse("recipient_not_found", "recipient_email");
  if (recipient.member_id === member.id) return refuse("own_account", "recipient_email");
  return { member_id: recipient.member_id, name: recipient.name };
}

/** Moves a locked series past its next slot: to the slot after, or ended. Answers the new next date. */
export async function advanceSeries(tx: DbOrTx, series: ScheduledTransfer): Promise<string | null> {
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
