import { businessDate } from "./ledger-rules";
import { PAYMENT_STATUS_LABELS, type PaymentStatus } from "./payment-status";

/**
 * How a member reads one of their transactions (docs/product.md#transaction-history): the one
 * place that names an item's status and says its date and time, for the dashboard's recent list,
 * the history page, its CSV export and Bill Pay's history. The ledger's four statuses are about
 * money (a hold is pending, a released hold has failed); the member reads what happened to the
 * thing they did: a bill payment is Scheduled, then Completed (paid), Cancelled or Failed; a card
 * purchase given back is Released; a payment to another bank is Sent.
 *
 * Pure: the caller reads the facts (the ledger's row, and for a payment to another bank or a bill
 * payment where that payment stands) and passes the institution's time zone.
 */

/** The ledger's statuses (also the badge colours). */
export type LedgerStatus = "posted" | "pending" | "failed" | "reversed";

/** The ledger's statuses in the member's words, for anything without words of its own (and the Status filter). */
export const LEDGER_STATUS_LABELS: Record<LedgerStatus, string> = {
  posted: "Completed",
  pending: "Pending",
  failed: "Failed",
  reversed: "Reversed",
};

export type BillPaymentStatus = "scheduled" | "paid" | "failed" | "cancelled";

/**
 * A bill payment's status as Bill Pay's lists show it; the history uses the same words for a
 * scheduled, cancelled or failed one. A paid one reads Completed there, as every posted debit
 * does: the statements and their export count posted lines by that word.
 */
export const BILL_PAYMENT_STATUS_LABELS: Record<BillPaymentStatus, Shown> = {
  scheduled: { label: "Scheduled", badge: "pending" },
  paid: { label: "Paid", badge: "posted" },
  failed: { label: "Failed", badge: "failed" },
  cancelled: { label: "Cancelled", badge: "reversed" },
};

/**
 * The hold of a bill payment the member edited (its amount, date or memo): Edit releases it and
 * holds the new figures under a new hold, so the old line gave its money back and the payment
 * goes on under the new line.
 */
export const BILL_PAYMENT_CHANGED: Shown = { label: "Changed", badge: "reversed" };

export interface Shown {
  label: string;
  /** The badge's colour, named as a ledger status. */
  badge: LedgerStatus;
}

/**
 * A mobile deposit (docs/product.md#mobile-deposit): its credit waits for review (Pending review)
 * and fails when rejected (Rejected); the availability holds placed at approval are On hold until
 * their date, then Released (nothing failed: the money became available).
 */
const MOBILE_DEPOSIT_LABELS: Record<"credit" | "debit", Partial<Record<LedgerStatus, Shown>>> = {
  credit: { pending: { label: "Pending review", badge: "pending" }, failed: { label: "Rejected", badge: "failed" } },
  debit: { pending: { label: "On hold", badge: "pending" }, failed: { label: "Released", badge: "reversed" } },
};

/**
 * A card purchase whose hold was given back (the merchant cancelled it, or the network never
 * settled it) is Released, as on the cards page: nothing failed, and no money left the account.
 */
const CARD_PURCHASE_LABELS: Partial<Record<LedgerStatus, Shown>> = { failed: { label: "Released", badge: "reversed" } };

/**
 * A share-secured loan's hold on the pledged savings (docs/product.md#share-secured-loans): Held
 * for the loan while in force; Released when lowered (a smaller hold replaces it after a payment)
 * or at payoff. Nothing failed and no money left the account.
 */
const SHARE_PLEDGE_LABELS: Partial<Record<LedgerStatus, Shown>> = {
  pending: { label: "Held for your loan", badge: "pending" },
  failed: { label: "Released", badge: "reversed" },
};

/** The facts a line is shown from. */
export interface LedgerItem {
  kind: string;
  status: LedgerStatus;
  /** Signed for the member's account: positive money in. */
  amount_cents: number;
  /** YYYY-MM-DD: the day the ledger dates it (a bill payment's hold: its payment date). */
  effective_date: string;
  /** When the ledger wrote it. */
  created_at: Date;
  /** A payment to another bank (To US Bank, International): where the payment stands; null otherwise. */
  payment_status: PaymentStatus | null;
  /**
   * A released bill payment hold: the status of the payment it held for (cancelled, or failed on
   * its date), or null when the payment no longer points at it (an edit replaced it). Read only
   * for released holds: a pending one is Scheduled and a posted one Completed whatever else is known.
   */
  bill_payment_status: BillPaymentStatus | null;
}

export interface ShownItem extends Shown {
  /** YYYY-MM-DD: the date the member reads (the ledger's effective date; a bill payment's payment date). */
  date: string;
  /**
   * The moment whose clock time is shown beside the date, or null for a date alone: a time is
   * shown only when the item was written on the day it is dated. A payment scheduled on Nov 28
   * for Jan 15 shows "Jan 15, 2027" alone; beside it, 11:31 PM would be the time it was
   * scheduled, read as the time it is paid. The same for a back-dated posting.
   */
  time: Date | null;
}

/** What the member reads for one line of their history, anywhere it is shown. */
export function shownItem(item: LedgerItem, time_zone: string): ShownItem {
  const time = businessDate(time_zone, item.created_at) === item.effective_date ? item.created_at : null;
  return { ...statusOf(item), date: item.effective_date, time };
}

function statusOf(item: LedgerItem): Shown {
  if (item.payment_status) return PAYMENT_STATUS_LABELS[item.payment_status];
  const own = ownWords(item);
  return own ?? { label: LEDGER_STATUS_LABELS[item.status], badge: item.status };
}

function ownWords(item: LedgerItem): Shown | undefined {
  switch (item.kind) {
    case "mobile_deposit":
      return MOBILE_DEPOSIT_LABELS[item.amount_cents > 0 ? "credit" : "debit"][item.status];
    case "card_payment":
      return CARD_PURCHASE_LABELS[item.status];
    case "share_pledge":
      return SHARE_PLEDGE_LABELS[item.status];
    case "bill_payment":
      // Paid (posted) and reversed by staff keep the ledger's Completed and Reversed.
      if (item.status === "pending") return BILL_PAYMENT_STATUS_LABELS.scheduled;
      if (item.status === "failed")
        return item.bill_payment_status === "failed" || item.bill_payment_status === "cancelled"
          ? BILL_PAYMENT_STATUS_LABELS[item.bill_payment_status]
          : BILL_PAYMENT_CHANGED;
      return undefined;
    default:
      return undefined;
  }
}

/** Kinds that move money between a member's own accounts: neither income nor spending. */
export const OWN_MOVE_KINDS = ["transfer", "reversal"] as const;

/**
 * A loan's money in and out of the member's accounts (docs/product.md#dashboard): a loan paid out
 * or a line of credit drawn is borrowed, not earned, and a loan payment moves the member's own money to what they owe, as
 * a transfer Between Accounts does. Neither is income or spending in the dashboard's figures.
 */
export const LOAN_MOVE_KINDS = ["loan_disbursement", "loan_draw", "loan_payment"] as const;

/** The days of the dashboard's spending chart, today included. */
export const SPENDING_DAYS = 30;

/**
 * The dashboard's spending window (docs/product.md#dashboard): the last 30 days, today included,
 * in the institution's calendar. The chart counts money that has left: posted debits (not a
 * pending hold: a card purchase waiting to settle, a bill payment scheduled for a later day)
 * dated within the window, never after `today`, and not a move between the member's own
 * accounts. The month's income and outgoing end at `to` too.
 */
export function spendingWindow(today: string): { from: string; to: string } {
  const from = new Date(`${today}T00:00:00Z`);
  from.setUTCDate(from.getUTCDate() - (SPENDING_DAYS - 1));
  return { from: from.toISOString().slice(0, 10), to: today };
}
