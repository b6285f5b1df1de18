import { accountLabel, referenceNumber } from "~/domain/account-display";
import { and, asc, desc, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import {
  billPayees,
  billPayments,
  billPaymentSeries,
  type BillPayee,
  type BillPayment,
  type BillPaymentSeries,
} from "~/server/db/schema";
import { memberAccounts, type AccountView } from "~/server/ledger/accounts.server";
import { formatCents } from "~/domain/money";
import { maskPayeeAccount } from "~/domain/bill-pay";
import type { SeriesRule } from "~/domain/schedule";

import { listPayees } from "./payees.server";

/**
 * What the Bill Pay page shows (docs/product.md#bill-pay): payees, scheduled and past payments,
 * the accounts a payment may come from.
 */
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
