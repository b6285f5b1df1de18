import { and, asc, eq, lte, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { billPayees, billPayments, billPaymentSeries, type BillPayee, type BillPayment } from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { placeHold, postTransfer, releaseHold, settleHold, type LedgerRefusal } from "~/server/ledger/ledger.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { notify } from "~/server/notifications/notifications.server";
import { recordAudit } from "~/server/audit/audit.server";
import { businessDate } from "~/domain/ledger-rules";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { asSentence } from "~/domain/plain-text";
import { maskPayeeAccount } from "~/domain/bill-pay";
import { seriesHasPayment, seriesPaymentDate } from "~/domain/schedule";

import {
  BILL_PAY_SYSTEM,
  DUE_BATCH,
  failureReason,
  entriesOf,
  paymentMemo,
  seriesRule,
  payeeOf,
} from "./bill-pay.server";

/**
 * The bill-pay job (docs/operations.md#scheduled-jobs): pays each payment on its date from its
 * hold, tells the member of a failure, and schedules a series' next payment.
 */
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
