import { accountLabel, referenceNumber } from "~/domain/account-display";
import { and, asc, desc, eq, inArray, isNull, lte, sql } from "drizzle-orm";
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
import { placeHold, postTransfer, releaseHold, settleHold, type LedgerRefusal } from "~/server/ledger/ledger.server";
import { getTransaction } from "~/server/ledger/history.server";
import { institutionAccount, memberAccounts, type AccountView } from "~/server/ledger/accounts.server";
import { notify } from "~/server/notifications/notifications.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { outgoingPaymentsPaused } from "~/server/payments/controls.server";
import { businessDate } from "~/domain/ledger-rules";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { asSentence } from "~/domain/plain-text";
import { REFUSAL_MESSAGES, refusalMessage } from "~/domain/refusals";
import {
  BILL_PAY_MESSAGES,
  maskPayeeAccount,
  parsePayeeChoice,
  seriesHasPayment,
  seriesPaymentDate,
  type BillPayForm,
  type EditBillPaymentForm,
  type PayeeForm,
  type SeriesRule,
} from "~/domain/bill-pay";

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

export interface BillPayMember {
  id: string;
  email: string;
}

export type BillPayRefusal = { ok: false; message: string; field?: string; status: 400 | 404 | 409 };
export type BillPayResult<T extends object = object> = ({ ok: true } & T) | BillPayRefusal;

/** Who the job acts as, on the ledger and in the audit log. */
export const BILL_PAY_SYSTEM = "system:bill-pay";
/** Saved payees a member may have (a list, not a directory). */
export const PAYEES_MAX = 100;
/** Payments the job takes per query; it loops until none is due. */
const DUE_BATCH = 200;

export const BILL_PAY_REFUSALS = {
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

function refused(message: string, field?: string, status: 400 | 404 | 409 = 400): BillPayRefusal {
  return field === undefined ? { ok: false, message, status } : { ok: false, message, field, status };
}

/** Runs `work` in one database transaction; a refusal it returns rolls everything back. */
function inTransaction<T extends object>(
  db: Db,
  work: (tx: DbOrTx) => Promise<BillPayResult<T>>,
): Promise<BillPayResult<T>> {
  return inRefusableTransaction(db, work);
}

/** One member's Bill Pay changes one at a time (two tabs, a double click). */
async function lockMember(tx: DbOrTx, member_id: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`bill-pay:${member_id}`}))`);
}

function ledgerRefusal(refusal: LedgerRefusal): BillPayRefusal {
  switch (refusal.code) {
    case "insufficient_funds":
      return refused(REFUSAL_MESSAGES.insufficient_funds, "amount");
    case "account_frozen":
    case "account_closed":
      return refused(REFUSAL_MESSAGES[refusal.code], "from_account_id", 409);
    case "transfer_limit":
      return refused(refusalMessage("transfer_limit", { limit: refusal.limit }), "from_account_id", 409);
    case "invalid_amount":
      // Beyond any amount the ledger takes (more than a hundred billion dollars).
      return refused(BILL_PAY_MESSAGES.amount, "amount");
    default:
      throw new Error(`the ledger refused a bill payment unexpectedly: ${refusal.code}`);
  }
}

/**
 * The member's payment held on the paying account (scheduling it, or editing it: the new amount
 * and date under a new hold), or the refusal in the form's words. The caller has the member's
 * lock and found no payment with the form's key, so a ledger transaction with it is another
 * form's (refused, never taken as this one's).
 */
async function holdMemberPayment(
  tx: DbOrTx,
  member: BillPayMember,
  input: {
    from_id: number;
    settlement_id: number;
    payee: Pick<BillPayee, "name" | "account_number">;
    form: { idempotency_key: string; amount_cents: number; payment_date: string; memo?: string | null };
  },
): Promise<BillPayRefusal | { ok: true; transaction: { id: number } }> {
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
  if (hold.replayed) return refused(BILL_PAY_REFUSALS.key_reused, undefined, 409);
  return { ok: true, transaction: { id: hold.transaction.id } };
}

// ---------------------------------------------------------------------------------------------
// Payees

export interface PayeeView {
  id: number;
  name: string;
  masked_account: string;
  address: string | null;
}

function payeeView(p: BillPayee): PayeeView {
  return { id: p.id, name: p.name, masked_account: maskPayeeAccount(p.account_number), address: p.address };
}

export async function listPayees(db: DbOrTx, member_id: string): Promise<PayeeView[]> {
  const rows = await db
    .select()
    .from(billPayees)
    .where(and(eq(billPayees.member_id, member_id), isNull(billPayees.removed_at)))
    .orderBy(asc(billPayees.name), asc(billPayees.id));
  return rows.map(payeeView);
}

/** The member's payee with this name and number, saved now if it was not: saving twice saves once. */
async function findOrSavePayee(
  tx: DbOrTx,
  member: BillPayMember,
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
  if (n >= PAYEES_MAX) return refused(BILL_PAY_REFUSALS.payees_max, "name", 409);
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

export async function addPayee(
  db: Db,
  member: BillPayMember,
  form: PayeeForm,
  origin: AuditOrigin,
): Promise<BillPayResult<{ payee: PayeeView; created: boolean }>> {
  return inTransaction(db, async (tx) => {
    await lockMember(tx, member.id);
    const saved = await findOrSavePayee(tx, member, form, origin);
    return saved.ok ? { ok: true, payee: payeeView(saved.payee), created: saved.created } : saved;
  });
}

/** Removes a saved payee from the list (kept for the history); its scheduled payments stay. */
export async function removePayee(
  db: Db,
  member: BillPayMember,
  payee_id: number,
  origin: AuditOrigin,
): Promise<BillPayResult<{ name: string }>> {
  return inTransaction(db, async (tx) => {
    const [payee] = await tx.select().from(billPayees).where(eq(billPayees.id, payee_id)).for("update");
    if (!payee || payee.member_id !== member.id || payee.removed_at)
      return refused("This payee was not found.", undefined, 404);
    await tx.update(billPayees).set({ removed_at: new Date() }).where(eq(billPayees.id, payee.id));
    await recordAudit(tx, {
      actor_id: member.id,
      actor_email: member.email,
      action: "bill_pay.payee_remove",
      subject_type: "bill_payee",
      subject_id: payee.id,
      member_id: member.id,
      before: { name: payee.name },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return { ok: true, name: payee.name };
  });
}

// ---------------------------------------------------------------------------------------------
// Scheduling

export interface ScheduledDone {
  payment_id: number;
  reference_number: string;
  payment_date: string;
  amount_cents: number;
  payee_name: string;
  replayed: boolean;
}

function entriesOf(from_account_id: number, settlement_id: number, amount_cents: number) {
  return [
    { account_id: from_account_id, amount_cents: -amount_cents },
    { account_id: settlement_id, amount_cents },
  ];
}

function paymentMemo(payee: Pick<BillPayee, "name" | "account_number">, memo: string | null | undefined): string {
  return `Bill payment to ${payee.name} ${maskPayeeAccount(payee.account_number)}${memo ? `: ${memo}` : ""}`;
}

/** The member's own open checking account, or why not. */
function payingAccount(accounts: readonly AccountView[], account_id: number): AccountView | BillPayRefusal {
  const from = accounts.find((a) => a.id === account_id && a.owner === "member");
  if (!from) return refused(REFUSAL_MESSAGES.not_your_account, "from_account_id");
  // Savings transfers are counted per month when they are placed; a payment held for weeks and
  // edited (held again) would count twice. Bill Pay pays from checking, as banks' bill pay does.
  if (from.type !== "checking") return refused(BILL_PAY_REFUSALS.checking_only, "from_account_id");
  if (from.status === "frozen" || from.status === "closed")
    return refused(
      REFUSAL_MESSAGES[from.status === "frozen" ? "account_frozen" : "account_closed"],
      "from_account_id",
      409,
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
  member: BillPayMember,
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
    if (await outgoingPaymentsPaused(tx)) return refused(REFUSAL_MESSAGES.denied, undefined, 409);

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
): Promise<BillPayment | BillPayRefusal> {
  const [payment] = await tx.select().from(billPayments).where(eq(billPayments.id, payment_id)).for("update");
  // Another member's payment answers as one that does not exist: its existence is not theirs to learn.
  if (!payment || payment.member_id !== member_id) return refused(BILL_PAY_MESSAGES.payment, undefined, 404);
  if (payment.status !== "scheduled") return refused(BILL_PAY_REFUSALS.not_scheduled[payment.status], undefined, 409);
  if (payment.payment_date <= today) return refused(BILL_PAY_REFUSALS.due_today, undefined, 409);
  return payment;
}

export async function cancelBillPayment(
  db: Db,
  member: BillPayMember,
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
  member: BillPayMember,
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

function seriesRule(series: BillPaymentSeries): SeriesRule {
  return {
    frequency: series.frequency,
    interval_weeks: series.interval_weeks,
    first_date: series.first_date,
    end_date: series.end_date,
    payment_count: series.payment_count,
  };
}

async function payeeOf(tx: DbOrTx, payee_id: number): Promise<BillPayee> {
  const [payee] = await tx.select().from(billPayees).where(eq(billPayees.id, payee_id));
  return payee!;
}

// ---------------------------------------------------------------------------------------------
// The job: payments on their date

export interface BillPaymentRunCounts {
  [name: string]: number | string | boolean | null;
  date: string;
  paid: number;
  failed: number;
  next_scheduled: number;
}

/**
 * Pays every scheduled payment whose date has come (the job clock's date where the credit union
 * is), each in its own database transaction. Safe to repeat: a payment is locked and checked still
 * scheduled, and the ledger's keys make a settle or post that already happened a repeat.
 */
export async function payDueBillPayments(db: Db, now: Date): Promise<BillPaymentRunCounts> {
  const today = businessDate(institution().time_zone, now);
  const counts: BillPaymentRunCounts = { date: today, paid: 0, failed: 0, next_scheduled: 0 };
  const settlement = await institutionAccount(db, "bill_pay_settlement");
  for (let after = 0; ;) {
    const due = await db
      .select({ id: billPayments.id })
      .from(billPayments)
      .where(
        and(
          eq(billPayments.status, "scheduled"),
          lte(billPayments.payment_date, today),
          sql`${billPayments.id} > ${after}`,
        ),
      )
      .orderBy(asc(billPayments.id))
      .limit(DUE_BATCH);
    for (const { id } of due) {
      const result = await payOne(db, id, today, settlement.id);
      if (result.outcome === "paid") counts.paid++;
      else if (result.outcome === "failed") counts.failed++;
      if (result.next) counts.next_scheduled++;
    }
    if (due.length < DUE_BATCH) break;
    after = due[due.length - 1]!.id;
  }
  return counts;
}

async function payOne(
  db: Db,
  payment_id: number,
  today: string,
  settlement_id: number,
): Promise<{ outcome: "skipped" | "paid" | "failed"; next: boolean }> {
  return db.transaction(async (tx) => {
    // The payee comes with the locked payment (one round trip), not read again per payment.
    const [row] = await tx
      .select({ payment: billPayments, payee: billPayees })
      .from(billPayments)
      .innerJoin(billPayees, eq(billPayees.id, billPayments.payee_id))
      .where(eq(billPayments.id, payment_id))
      .for("update", { of: billPayments });
    if (!row || row.payment.status !== "scheduled" || row.payment.payment_date > today)
      return { outcome: "skipped", next: false };
    const { payment, payee } = row;
    let refusal: LedgerRefusal | null = null;
    let paid_transaction_id: number | null = null;
    if (payment.hold_transaction_id !== null) {
      const settled = await settleHold(tx, {
        transaction_id: payment.hold_transaction_id,
        idempotency_key: `bill-pay:${payment.id}:pay`,
        resolved_by: BILL_PAY_SYSTEM,
      });
      if (!settled.ok) {
        refusal = settled;
        // The hold gives the money back: releasing is allowed on a frozen or closed account.
        const released = await releaseHold(tx, {
          transaction_id: payment.hold_transaction_id,
          idempotency_key: `bill-pay:${payment.id}:release`,
          resolved_by: BILL_PAY_SYSTEM,
        });
        if (!released.ok)
          throw new Error(`the hold of bill payment ${payment.id} could not be released: ${released.code}`);
      }
    } else {
      const posted = await postTransfer(tx, {
        kind: "bill_payment",
        initiator: BILL_PAY_SYSTEM,
        idempotency_key: `bill-pay:${payment.id}:pay`,
        created_by: BILL_PAY_SYSTEM,
        entries: entriesOf(payment.from_account_id, settlement_id, payment.amount_cents),
        memo: paymentMemo(payee, payment.memo),
        category: "Bill Pay",
        effective_date: today,
      });
      if (posted.ok) paid_transaction_id = posted.transaction.id;
      else refusal = posted;
    }
    const status = refusal ? "failed" : "paid";
    const reason = refusal ? failureReason(refusal) : null;
    await tx
      .update(billPayments)
      .set({
        status,
        failure_reason: reason,
        paid_transaction_id,
        resolved_at: new Date(),
        resolved_by: BILL_PAY_SYSTEM,
        updated_at: new Date(),
      })
      .where(eq(billPayments.id, payment.id));
    const next =
      payment.series_id !== null ? await scheduleNext(tx, payment, payee, today, settlement_id, refusal) : null;
    // Dates in the words of the member's pages ("Dec 31, 2026"), as every message to the member.
    const nextText = next
      ? ` The next payment is scheduled for ${formatBusinessDate(next.payment_date)}${next.held ? "" : " (it is not held yet: the money was not available when it was scheduled)"}.`
      : "";
    if (refusal) {
      await notify(tx, {
        member_id: payment.member_id,
        kind: "bill_payment_failed",
        title: `Bill payment of ${formatCents(payment.amount_cents)} to ${payee.name} failed`,
        body: `The payment of ${formatBusinessDate(payment.payment_date)} was not made: ${asSentence(reason ?? "")}${payment.hold_transaction_id !== null ? ` The ${formatCents(payment.amount_cents)} held for it is available again.` : ""}${nextText}`,
      });
    } else {
      await notify(tx, {
        member_id: payment.member_id,
        kind: "bill_paid",
        title: `Bill paid: ${formatCents(payment.amount_cents)} to ${payee.name}`,
        body: `Your payment to ${payee.name} ${maskPayeeAccount(payee.account_number)} was paid on ${formatBusinessDate(payment.payment_date)}.${nextText}`,
      });
    }
    await recordAudit(tx, {
      actor_id: null,
      action: refusal ? "bill_pay.failed" : "bill_pay.paid",
      subject_type: "bill_payment",
      subject_id: payment.id,
      member_id: payment.member_id,
      before: { status: "scheduled" },
      after: {
        status,
        failure_reason: reason,
        amount_cents: payment.amount_cents,
        payment_date: payment.payment_date,
        next_payment_id: next?.id ?? null,
      },
    });
    return { outcome: status, next: next !== null };
  });
}

/**
 * The series' payment after `payment`, when the series has one: held now if the money is there,
 * else scheduled without a hold (its date decides). A series whose account was frozen or closed
 * ends: its payments could not be made.
 */
async function scheduleNext(
  tx: DbOrTx,
  payment: BillPayment,
  payee_of_payment: BillPayee,
  today: string,
  settlement_id: number,
  refusal: LedgerRefusal | null,
): Promise<{ id: number; payment_date: string; held: boolean } | null> {
  const [series] = await tx
    .select()
    .from(billPaymentSeries)
    .where(eq(billPaymentSeries.id, payment.series_id!))
    .for("update");
  if (!series || series.status !== "active") return null;
  const rule = seriesRule(series);
  const sequence = payment.sequence! + 1;
  const accountGone = refusal?.code === "account_frozen" || refusal?.code === "account_closed";
  if (accountGone || !seriesHasPayment(rule, sequence)) {
    await tx
      .update(billPaymentSeries)
      .set({ status: "ended", ended_at: new Date() })
      .where(eq(billPaymentSeries.id, series.id));
    return null;
  }
  const payment_date = seriesPaymentDate(rule, sequence);
  // The series' payee is the payment's (a series pays one payee); read only if they ever differ.
  const payee = series.payee_id === payee_of_payment.id ? payee_of_payment : await payeeOf(tx, series.payee_id);
  const key = `bill-pay:series:${series.id}:${sequence}`;
  const hold = await placeHold(tx, {
    kind: "bill_payment",
    initiator: BILL_PAY_SYSTEM,
    idempotency_key: key,
    created_by: BILL_PAY_SYSTEM,
    entries: entriesOf(series.from_account_id, settlement_id, series.amount_cents),
    memo: paymentMemo(payee, series.memo),
    category: "Bill Pay",
    effective_date: payment_date > today ? payment_date : today,
  });
  if (!hold.ok && (hold.code === "account_frozen" || hold.code === "account_closed")) {
    await tx
      .update(billPaymentSeries)
      .set({ status: "ended", ended_at: new Date() })
      .where(eq(billPaymentSeries.id, series.id));
    return null;
  }
  const [next] = await tx
    .insert(billPayments)
    .values({
      member_id: series.member_id,
      payee_id: series.payee_id,
      from_account_id: series.from_account_id,
      amount_cents: series.amount_cents,
      payment_date,
      memo: series.memo,
      hold_transaction_id: hold.ok ? hold.transaction.id : null,
      series_id: series.id,
      sequence,
      idempotency_key: key,
    })
    .onConflictDoNothing()
    .returning({ id: billPayments.id });
  return next ? { id: next.id, payment_date, held: hold.ok } : null;
}

// ---------------------------------------------------------------------------------------------
// The page

export interface BillPaymentView {
  id: number;
  payee_name: string;
  payee_masked_account: string;
  from_label: string;
  amount_cents: number;
  payment_date: string;
  memo: string | null;
  status: BillPayment["status"];
  held: boolean;
  failure_reason: string | null;
  reference_number: string | null;
  series: Pick<SeriesRule, "frequency" | "interval_weeks" | "end_date" | "payment_count"> | null;
  sequence: number | null;
}

const HISTORY_MAX = 50;

/** The member's upcoming payments (soonest first) and their history (newest first). */
export async function memberBillPayments(
  db: DbOrTx,
  member_id: string,
  member_accounts: readonly AccountView[],
): Promise<{ upcoming: BillPaymentView[]; history: BillPaymentView[] }> {
  const accounts = new Map(member_accounts.map((a) => [a.id, a]));
  const select = () =>
    db
      .select({ payment: billPayments, payee: billPayees, series: billPaymentSeries })
      .from(billPayments)
      .innerJoin(billPayees, eq(billPayees.id, billPayments.payee_id))
      .leftJoin(billPaymentSeries, eq(billPaymentSeries.id, billPayments.series_id));
  const upcoming = await select()
    .where(and(eq(billPayments.member_id, member_id), eq(billPayments.status, "scheduled")))
    .orderBy(asc(billPayments.payment_date), asc(billPayments.id))
    .limit(HISTORY_MAX);
  const history = await select()
    .where(and(eq(billPayments.member_id, member_id), inArray(billPayments.status, ["paid", "failed", "cancelled"])))
    .orderBy(desc(billPayments.payment_date), desc(billPayments.id))
    .limit(HISTORY_MAX);
  const view = ({
    payment: p,
    payee,
    series,
  }: {
    payment: BillPayment;
    payee: BillPayee;
    series: BillPaymentSeries | null;
  }): BillPaymentView => {
    const account = accounts.get(p.from_account_id);
    const transaction = p.paid_transaction_id ?? p.hold_transaction_id;
    return {
      id: p.id,
      payee_name: payee.name,
      payee_masked_account: maskPayeeAccount(payee.account_number),
      from_label: account ? accountLabel(account) : "",
      amount_cents: p.amount_cents,
      payment_date: p.payment_date,
      memo: p.memo,
      status: p.status,
      held: p.hold_transaction_id !== null,
      failure_reason: p.failure_reason,
      reference_number: transaction !== null ? referenceNumber(transaction) : null,
      series: series
        ? {
            frequency: series.frequency,
            interval_weeks: series.interval_weeks,
            end_date: series.end_date,
            payment_count: series.payment_count,
          }
        : null,
      sequence: p.sequence,
    };
  };
  return { upcoming: upcoming.map(view), history: history.map(view) };
}

/** The accounts a bill may be paid from: the member's open checking accounts, with what is available. */
export function payingAccounts(accounts: readonly AccountView[]): Array<{ id: number; label: string }> {
  return accounts
    .filter((a) => a.type === "checking" && a.status === "active")
    .map((a) => ({ id: a.id, label: `${accountLabel(a)} · ${formatCents(a.available_cents)}` }));
}

/** The page's data: paying accounts, payees, upcoming payments and history, with one read of the member's accounts. */
export async function billPayOverview(db: DbOrTx, member_id: string) {
  const [accounts, payees] = await Promise.all([memberAccounts(db, member_id), listPayees(db, member_id)]);
  return { accounts: payingAccounts(accounts), payees, ...(await memberBillPayments(db, member_id, accounts)) };
}
