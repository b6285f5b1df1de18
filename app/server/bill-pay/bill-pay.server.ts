import type { Actor } from "~/domain/actor";
import { accountLabel, referenceNumber } from "~/domain/account-display";
import { and, eq, isNull, sql } from "drizzle-orm";
import { inRefusableTransaction } from "~/server/db/refusable-transaction.server";
import type { Db, DbOrTx } from "~/server/db/client.server";
import {
  billPayees,
  billPayments,
  billPaymentSeries,
  type BillPayee,
  type BillPayment,
  type BillPaymentSeries,
} from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { placeHold, releaseHold, type LedgerRefusal } from "~/server/ledger/ledger.server";
import { getTransaction } from "~/server/ledger/history.server";
import { institutionAccount, memberAccounts, type AccountView } from "~/server/ledger/accounts.server";
import { notify } from "~/server/notifications/notifications.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { outgoingPaymentsPaused } from "~/server/payments/controls.server";
import { businessDate } from "~/domain/ledger-rules";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { REFUSAL_MESSAGES, refusal, refusalMessage, type Refusal, type RefusalKind } from "~/domain/refusals";
import {
  BILL_PAY_MESSAGES,
  maskPayeeAccount,
  parsePayeeChoice,
  type BillPayForm,
  type EditBillPaymentForm,
  type PayeeForm,
} from "~/domain/bill-pay";
import { seriesHasPayment, seriesPaymentDate, type SeriesRule } from "~/domain/schedule";

/**
 * Bill Pay (docs/product.md#bill-pay). A member saves payees and schedules payments from one of
 * their own checking accounts; every rule that needs the database is decided here, per request.
 *
 * - Scheduling holds the amount at once: a pending `bill_payment` debit crediting the bill-pay
 *   settlement account, dated the payment date, with the payment row, the member's notification
 *   and the audit entry in the same database transaction.
 * - On the payment date the `bill-payments` job (payDueBillPayments) settles the hold (Paid) or,
 *   when the ledger refuses (the account was frozen or closed since), releases it (Failed, with
 *   the reason, the member told).
 * - A recurring series schedules its next payment when one is paid or failed. Its hold is placed
 *   then; when the money is not there at that moment the payment is scheduled without a hold and
 *   its date decides: paid if the money is there then, else Failed for insufficient funds.
 * - Cancel (before the date) releases the hold; for a recurring payment it also ends the series.
 *   Edit (amount, date, memo, before the date) releases the hold and places the new one in one
 *   database transaction: only the difference must be available.
 */

export type BillPayResult<T extends object = object> = ({ ok: true } & T) | Refusal;

/** Who the job acts as, on the ledger and in the audit log. */
export const BILL_PAY_SYSTEM = "system:bill-pay";
/** Saved payees a member may have (a list, not a directory). */
const PAYEES_MAX = 100;
/** Payments the job takes per query; it loops until none is due. */
export const DUE_BATCH = 200;

const BILL_PAY_REFUSALS = {
  payees_max: `You can save at most ${PAYEES_MAX} payees.`,
  checking_only: "Bill payments are made from a checking account. Please choose one.",
  not_scheduled: {
    paid: "This payment was already paid.",
    failed: "This payment already failed and cannot be changed.",
    cancelled: "This payment was already cancelled.",
  },
  due_today: "This payment is being paid today and can no longer be changed.",
  series_order: "A recurring payment's date must be before the series' next payment",
  key_reused: BILL_PAY_MESSAGES.failed,
} as const;

/** Why a payment failed on its date, as the member reads it. */
export function failureReason(refusal: Pick<LedgerRefusal, "code" | "limit">): string {
  switch (refusal.code) {
    case "insufficient_funds":
      return "Insufficient funds on the payment date";
    case "account_frozen":
      return REFUSAL_MESSAGES.account_frozen;
    case "account_closed":
      return REFUSAL_MESSAGES.account_closed;
    default:
      return refusalMessage(refusal.code, { limit: refusal.limit });
  }
}

export function refused(message: string, field?: string, kind: RefusalKind = "bad_input"): Refusal {
  return refusal(kind, message, field === undefined ? {} : { field });
}

/** Runs `work` in one database transaction; a refusal it returns rolls everything back. */
export function inTransaction<T extends object>(
  db: Db,
  work: (tx: DbOrTx) => Promise<BillPayResult<T>>,
): Promise<BillPayResult<T>> {
  return inRefusableTransaction(db, work);
}

/** One member's Bill Pay changes one at a time (two tabs, a double click). */
export async function lockMember(tx: DbOrTx, member_id: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`bill-pay:${member_id}`}))`);
}

function ledgerRefusal(refusal: LedgerRefusal): Refusal {
  switch (refusal.code) {
    case "insufficient_funds":
      return refused(REFUSAL_MESSAGES.insufficient_funds, "amount");
    case "account_frozen":
    case "account_closed":
      return refused(REFUSAL_MESSAGES[refusal.code], "from_account_id", "conflict");
    case "transfer_limit":
      return refused(refusalMessage("transfer_limit", { limit: refusal.limit }), "from_account_id", "conflict");
    case "invalid_amount":
      // Beyond any amount the ledger takes (more than a hundred billion dollars).
      return refused(BILL_PAY_MESSAGES.amount, "amount");
    default:
      throw new Error(`the ledger refused a bill payment unexpectedly: ${refusal.code}`);
  }
}

/** The member's payee with this name and number, saved now if it was not: saving twice saves once. */
export async function findOrSavePayee(
  tx: DbOrTx,
  member: Actor,
  form: PayeeForm,
  origin: AuditOrigin,
): Promise<BillPayResult<{ payee: BillPayee; created: boolean }>> {
  const [existing] = await tx
    .select()
    .from(billPayees)
    .where(
      and(
        eq(billPayees.member_id, member.id),
        isNull(billPayees.removed_at),
        eq(billPayees.name, form.name),
        eq(billPayees.account_number, form.account_number),
      ),
    )
    .limit(1);
  if (existing) return { ok: true, payee: existing, created: false };
  const [{ n }] = (await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(billPayees)
    .where(and(eq(billPayees.member_id, member.id), isNull(billPayees.removed_at)))) as [{ n: number }];
  if (n >= PAYEES_MAX) return refused(BILL_PAY_REFUSALS.payees_max, "name", "conflict");
  const [payee] = await tx
    .insert(billPayees)
    .values({
      member_id: member.id,
      name: form.name,
      account_number: form.account_number,
      address: form.address ?? null,
    })
    .returning();
  await recordAudit(tx, {
    actor_id: member.id,
    actor_email: member.email,
    action: "bill_pay.payee_add",
    subject_type: "bill_payee",
    subject_id: payee!.id,
    member_id: member.id,
    after: { name: payee!.name, account: maskPayeeAccount(payee!.account_number) },
    request_id: origin.request_id,
    ip: origin.ip,
  });
  return { ok: true, payee: payee!, created: true };
}

/**
 * The member's payment held on the paying account (scheduling it, or editing it: the new amount
 * and date under a new hold), or the refusal in the form's words. The caller has the member's
 * lock and found no payment with the form's key, so a ledger transaction with it is another
 * form's (refused, never taken as this one's).
 */
async function holdMemberPayment(
  tx: DbOrTx,
  member: Actor,
  input: {
    from_id: number;
    settlement_id: number;
    payee: Pick<BillPayee, "name" | "account_number">;
    form: { idempotency_key: string; amount_cents: number; payment_date: string; memo?: string | null };
  },
): Promise<Refusal | { ok: true; transaction: { id: number } }> {
  const { form } = input;
  const hold = await placeHold(tx, {
    kind: "bill_payment",
    initiator: `member:${member.id}`,
    idempotency_key: form.idempotency_key,
    created_by: member.id,
    entries: entriesOf(input.from_id, input.settlement_id, form.amount_cents),
    memo: paymentMemo(input.payee, form.memo),
    category: "Bill Pay",
    effective_date: form.payment_date,
  });
  if (!hold.ok) return ledgerRefusal(hold);
  if (hold.replayed) return refused(BILL_PAY_REFUSALS.key_reused, undefined, "conflict");
  return { ok: true, transaction: { id: hold.transaction.id } };
}

// ---------------------------------------------------------------------------------------------
// Scheduling

interface ScheduledDone {
  payment_id: number;
  reference_number: string;
  payment_date: string;
  amount_cents: number;
  payee_name: string;
  replayed: boolean;
}

export function entriesOf(from_account_id: number, settlement_id: number, amount_cents: number) {
  return [
    { account_id: from_account_id, amount_cents: -amount_cents },
    { account_id: settlement_id, amount_cents },
  ];
}

export function paymentMemo(
  payee: Pick<BillPayee, "name" | "account_number">,
  memo: string | null | undefined,
): string {
  return `Bill payment to ${payee.name} ${maskPayeeAccount(payee.account_number)}${memo ? `: ${memo}` : ""}`;
}

/** The member's own open checking account, or why not. */
function payingAccount(accounts: readonly AccountView[], account_id: number): AccountView | Refusal {
  const from = accounts.find((a) => a.id === account_id && a.owner === "member");
  if (!from) return refused(REFUSAL_MESSAGES.not_your_account, "from_account_id");
  // Savings transfers are counted per month when they are placed; a payment held for weeks and
  // edited (held again) would count twice. Bill Pay pays from checking, as banks' bill pay does.
  if (from.type !== "checking") return refused(BILL_PAY_REFUSALS.checking_only, "from_account_id");
  if (from.status === "frozen" || from.status === "closed")
    return refused(
      REFUSAL_MESSAGES[from.status === "frozen" ? "account_frozen" : "account_closed"],
      "from_account_id",
      "conflict",
    );
  return from;
}

async function replayOf(tx: DbOrTx, member_id: string, idempotency_key: string): Promise<ScheduledDone | null> {
  const [row] = await tx
    .select({ payment: billPayments, payee_name: billPayees.name })
    .from(billPayments)
    .innerJoin(billPayees, eq(billPayees.id, billPayments.payee_id))
    .where(and(eq(billPayments.member_id, member_id), eq(billPayments.idempotency_key, idempotency_key)));
  if (!row) return null;
  const p = row.payment;
  return {
    payment_id: p.id,
    reference_number: referenceNumber(p.hold_transaction_id ?? p.id),
    payment_date: p.payment_date,
    amount_cents: p.amount_cents,
    payee_name: row.payee_name,
    replayed: true,
  };
}

/**
 * Schedules a one-off payment or the first of a recurring series, holding its amount. A repeat of
 * the form's idempotency key answers with the first result and holds nothing more.
 */
export async function scheduleBillPayment(
  db: Db,
  member: Actor,
  form: BillPayForm,
  origin: AuditOrigin,
): Promise<BillPayResult<ScheduledDone>> {
  const choice = parsePayeeChoice(form.payee);
  if (!choice) return refused(BILL_PAY_MESSAGES.payee, "payee");
  const settlement = await institutionAccount(db, "bill_pay_settlement");
  return inTransaction<ScheduledDone>(db, async (tx) => {
    await lockMember(tx, member.id);
    const earlier = await replayOf(tx, member.id, form.idempotency_key);
    if (earlier) return { ok: true, ...earlier };
    const from = payingAccount(await memberAccounts(tx, member.id), form.from_account_id);
    if ("ok" in from) return from;
    if (await outgoingPaymentsPaused(tx)) return refused(REFUSAL_MESSAGES.denied, undefined, "conflict");

    let payee: BillPayee;
    if (choice.kind === "saved") {
      const [saved] = await tx
        .select()
        .from(billPayees)
        .where(
          and(eq(billPayees.id, choice.payee_id), eq(billPayees.member_id, member.id), isNull(billPayees.removed_at)),
        );
      if (!saved) return refused(BILL_PAY_MESSAGES.payee, "payee");
      const number = form.payee_account_number ?? saved.account_number;
      if (number === saved.account_number) payee = saved;
      else {
        const other = await findOrSavePayee(
          tx,
          member,
          { name: saved.name, account_number: number, address: saved.address ?? undefined },
          origin,
        );
        if (!other.ok) return other;
        payee = other.payee;
      }
    } else {
      const name = institution().bill_pay_quick_picks[choice.index]!;
      if (!form.payee_account_number) return refused(BILL_PAY_MESSAGES.missing, "payee_account_number");
      const picked = await findOrSavePayee(
        tx,
        member,
        { name, account_number: form.payee_account_number, address: undefined },
        origin,
      );
      if (!picked.ok) return picked;
      payee = picked.payee;
    }

    let series: BillPaymentSeries | null = null;
    if (form.recurrence) {
      const rule = form.recurrence;
      const [inserted] = await tx
        .insert(billPaymentSeries)
        .values({
          member_id: member.id,
          payee_id: payee.id,
          from_account_id: from.id,
          amount_cents: form.amount_cents,
          memo: form.memo ?? null,
          frequency: rule.frequency,
          interval_weeks: rule.interval_weeks,
          first_date: rule.first_date,
          end_date: rule.end_date,
          payment_count: rule.payment_count,
          idempotency_key: form.idempotency_key,
        })
        .returning();
      series = inserted!;
    }
    const hold = await holdMemberPayment(tx, member, { from_id: from.id, settlement_id: settlement.id, payee, form });
    if (!hold.ok) return hold;
    const [payment] = await tx
      .insert(billPayments)
      .values({
        member_id: member.id,
        payee_id: payee.id,
        from_account_id: from.id,
        amount_cents: form.amount_cents,
        payment_date: form.payment_date,
        memo: form.memo ?? null,
        hold_transaction_id: hold.transaction.id,
        series_id: series?.id ?? null,
        sequence: series ? 1 : null,
        idempotency_key: form.idempotency_key,
      })
      .returning();
    const reference = referenceNumber(hold.transaction.id);
    await notify(tx, {
      member_id: member.id,
      kind: "payment_pending",
      title: `Bill payment of ${formatCents(form.amount_cents)} to ${payee.name} is scheduled for ${formatBusinessDate(form.payment_date)}`,
      body: `${formatCents(form.amount_cents)} is held from ${accountLabel(from)} until it is paid.${series ? " It repeats until the series ends." : ""} Reference ${reference}.`,
    });
    await recordAudit(tx, {
      actor_id: member.id,
      actor_email: member.email,
      action: "bill_pay.schedule",
      subject_type: "bill_payment",
      subject_id: payment!.id,
      member_id: member.id,
      after: {
        amount_cents: form.amount_cents,
        payment_date: form.payment_date,
        from_account_id: from.id,
        payee_id: payee.id,
        series_id: series?.id ?? null,
        hold_transaction_id: hold.transaction.id,
      },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return {
      ok: true,
      payment_id: payment!.id,
      reference_number: reference,
      payment_date: form.payment_date,
      amount_cents: form.amount_cents,
      payee_name: payee.name,
      replayed: false,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Cancel and Edit

/** The member's scheduled payment, locked, that may still change (its date not yet come), or why not. */
async function changeablePayment(
  tx: DbOrTx,
  member_id: string,
  payment_id: number,
  today: string,
): Promise<BillPayment | Refusal> {
  const [payment] = await tx.select().from(billPayments).where(eq(billPayments.id, payment_id)).for("update");
  // Another member's payment answers as one that does not exist: its existence is not theirs to learn.
  if (!payment || payment.member_id !== member_id) return refused(BILL_PAY_MESSAGES.payment, undefined, "not_found");
  if (payment.status !== "scheduled")
    return refused(BILL_PAY_REFUSALS.not_scheduled[payment.status], undefined, "conflict");
  if (payment.payment_date <= today) return refused(BILL_PAY_REFUSALS.due_today, undefined, "conflict");
  return payment;
}

export async function cancelBillPayment(
  db: Db,
  member: Actor,
  payment_id: number,
  origin: AuditOrigin,
  now = new Date(),
): Promise<BillPayResult<{ released_cents: number; series_ended: boolean }>> {
  const today = businessDate(institution().time_zone, now);
  return inTransaction(db, async (tx) => {
    await lockMember(tx, member.id);
    const payment = await changeablePayment(tx, member.id, payment_id, today);
    if ("ok" in payment) return payment;
    const actor = `member:${member.id}`;
    let released_cents = 0;
    if (payment.hold_transaction_id !== null) {
      const released = await releaseHold(tx, {
        transaction_id: payment.hold_transaction_id,
        idempotency_key: `bill-pay:${payment.id}:cancel`,
        resolved_by: actor,
      });
      if (!released.ok)
        throw new Error(`the hold of bill payment ${payment.id} could not be released: ${released.code}`);
      released_cents = payment.amount_cents;
    }
    await tx
      .update(billPayments)
      .set({ status: "cancelled", resolved_at: new Date(), resolved_by: actor, updated_at: new Date() })
      .where(eq(billPayments.id, payment.id));
    let series_ended = false;
    if (payment.series_id !== null) {
      const ended = await tx
        .update(billPaymentSeries)
        .set({ status: "cancelled", ended_at: new Date() })
        .where(and(eq(billPaymentSeries.id, payment.series_id), eq(billPaymentSeries.status, "active")))
        .returning({ id: billPaymentSeries.id });
      series_ended = ended.length > 0;
    }
    const payee = await payeeOf(tx, payment.payee_id);
    await notify(tx, {
      member_id: member.id,
      kind: "payment_cancelled",
      title: `Bill payment of ${formatCents(payment.amount_cents)} to ${payee.name} was cancelled`,
      body: `You cancelled the payment of ${formatBusinessDate(payment.payment_date)}.${released_cents ? ` ${formatCents(released_cents)} is available again.` : ""}${series_ended ? " No more payments of this series will be made." : ""}`,
    });
    await recordAudit(tx, {
      actor_id: member.id,
      actor_email: member.email,
      action: "bill_pay.cancel",
      subject_type: "bill_payment",
      subject_id: payment.id,
      member_id: member.id,
      before: { status: "scheduled" },
      after: { status: "cancelled", released_cents, series_ended },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return { ok: true, released_cents, series_ended };
  });
}

/**
 * Changes a scheduled payment's amount, date or memo: the old hold is released and the new one
 * placed in the same database transaction, so the new amount must be available once the old is
 * given back (only the difference is new money), and a refusal leaves the old hold as it was.
 * A repeat of the form's key answers as done and changes nothing.
 */
export async function editBillPayment(
  db: Db,
  member: Actor,
  form: EditBillPaymentForm,
  origin: AuditOrigin,
  now = new Date(),
): Promise<BillPayResult<{ payment_id: number; replayed: boolean }>> {
  const today = businessDate(institution().time_zone, now);
  const settlement = await institutionAccount(db, "bill_pay_settlement");
  return inTransaction(db, async (tx) => {
    await lockMember(tx, member.id);
    const payment = await changeablePayment(tx, member.id, form.payment_id, today);
    if ("ok" in payment) return payment;
    if (payment.hold_transaction_id !== null) {
      const current = await getTransaction(tx, payment.hold_transaction_id);
      if (current?.transaction.idempotency_key === form.idempotency_key)
        return { ok: true, payment_id: payment.id, replayed: true };
    }
    const from = payingAccount(await memberAccounts(tx, member.id), payment.from_account_id);
    if ("ok" in from) return from;
    if (payment.series_id !== null) {
      // A recurring payment stays before the series' next one, so two never fall together.
      const [series] = await tx.select().from(billPaymentSeries).where(eq(billPaymentSeries.id, payment.series_id));
      const rule = seriesRule(series!);
      const next = payment.sequence! + 1;
      if (seriesHasPayment(rule, next) && form.payment_date >= seriesPaymentDate(rule, next)) {
        return refused(
          `${BILL_PAY_REFUSALS.series_order} (${formatBusinessDate(seriesPaymentDate(rule, next))}).`,
          "payment_date",
        );
      }
    }
    const payee = await payeeOf(tx, payment.payee_id);
    if (payment.hold_transaction_id !== null) {
      const released = await releaseHold(tx, {
        transaction_id: payment.hold_transaction_id,
        idempotency_key: `bill-pay:${payment.id}:edit:${form.idempotency_key}`,
        resolved_by: `member:${member.id}`,
      });
      if (!released.ok)
        throw new Error(`the hold of bill payment ${payment.id} could not be released: ${released.code}`);
    }
    const hold = await holdMemberPayment(tx, member, { from_id: from.id, settlement_id: settlement.id, payee, form });
    if (!hold.ok) return hold;
    await tx
      .update(billPayments)
      .set({
        amount_cents: form.amount_cents,
        payment_date: form.payment_date,
        memo: form.memo ?? null,
        hold_transaction_id: hold.transaction.id,
        updated_at: new Date(),
      })
      .where(eq(billPayments.id, payment.id));
    await recordAudit(tx, {
      actor_id: member.id,
      actor_email: member.email,
      action: "bill_pay.edit",
      subject_type: "bill_payment",
      subject_id: payment.id,
      member_id: member.id,
      before: {
        amount_cents: payment.amount_cents,
        payment_date: payment.payment_date,
        memo: payment.memo,
        hold_transaction_id: payment.hold_transaction_id,
      },
      after: {
        amount_cents: form.amount_cents,
        payment_date: form.payment_date,
        memo: form.memo ?? null,
        hold_transaction_id: hold.transaction.id,
      },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return { ok: true, payment_id: payment.id, replayed: false };
  });
}

export function seriesRule(series: BillPaymentSeries): SeriesRule {
  return {
    frequency: series.frequency,
    interval_weeks: series.interval_weeks,
    first_date: series.first_date,
    end_date: series.end_date,
    payment_count: series.payment_count,
  };
}

export async function payeeOf(tx: DbOrTx, payee_id: number): Promise<BillPayee> {
  const [payee] = await tx.select().from(billPayees).where(eq(billPayees.id, payee_id));
  return payee!;
}
