import { z } from "zod";
import { formatCents, parseDollarsToCents } from "./money";
import type { EntryInput, TransactionKind } from "./ledger-rules";

/**
 * Alerts a member chooses (docs/product.md#alerts): the rules that decide whether a posting
 * meets an alert, and the form that sets one. Pure: the ledger's hook (app/server/alerts) hands
 * in what a posting did to each watched account and writes what these rules answer.
 */

export const ACCOUNT_ALERT_KINDS = [
  "balance_below",
  "transaction_above",
  "deposit_posted",
  "payment_sent",
  "payment_returned",
  "card_declined",
] as const;
export type AccountAlertKind = (typeof ACCOUNT_ALERT_KINDS)[number];

/** The kinds that need an amount: the threshold crossed or passed. */
export const THRESHOLD_KINDS: ReadonlySet<AccountAlertKind> = new Set(["balance_below", "transaction_above"]);

/** What the member reads in the form and the list. */
export const ALERT_LABELS: Record<AccountAlertKind, string> = {
  balance_below: "Balance below an amount",
  transaction_above: "Transaction above an amount",
  deposit_posted: "Deposit posted",
  payment_sent: "Payment sent",
  payment_returned: "Payment returned",
  card_declined: "Card purchase declined",
};

/** Money arriving from outside: a direct deposit, a check, cash at a branch. */
export const DEPOSIT_KINDS: ReadonlySet<TransactionKind> = new Set(["ach_in", "mobile_deposit", "deposit"]);

/** Money the member sends to someone else (a card purchase is not a payment: it has its own alert). */
export const PAYMENT_KINDS: ReadonlySet<TransactionKind> = new Set([
  "ach_out",
  "wire_out",
  "bill_payment",
  "member_transfer",
]);

/** A live alert as the ledger's hook reads it. */
export interface WatchedAlert {
  id: number;
  member_id: string;
  account_id: number;
  kind: AccountAlertKind;
  amount_cents: number | null;
}

/**
 * What one ledger operation did, as the alert rules need it:
 * - `new`: a transaction written now, posted or held (pending);
 * - `settled`: a hold posted (a mobile deposit accepted, a payment's file sent);
 * - `reversal`: the opposite entries of an earlier transaction of `kind`.
 * `available_before`/`available_after` are each watched account's available balance
 * (posted minus held, what the member sees) around the operation.
 */
export interface PostingFacts {
  event: "new" | "settled" | "reversal";
  /** The transaction's kind; for a reversal, the kind of the transaction it reverses. */
  kind: TransactionKind;
  status: "posted" | "pending";
  entries: readonly EntryInput[];
  available_before: ReadonlyMap<number, number>;
  available_after: ReadonlyMap<number, number>;
}

/** An alert a posting met, with the signed amount that moved on its account. */
export interface MetAlert {
  alert: WatchedAlert;
  amount_cents: number;
  available_cents: number;
}

/** The signed sum of a posting's entries on one account. */
function movedOn(entries: readonly EntryInput[], account_id: number): number {
  return entries.reduce((sum, e) => (e.account_id === account_id ? sum + e.amount_cents : sum), 0);
}

/**
 * Whether `alert` is met by the posting:
 * - balance below: the available balance goes from at or above the amount to below it (crossing
 *   once, not again on every posting while it stays below);
 * - transaction above: a new transaction moves more than the amount on the account, either way;
 * - deposit posted: money from outside is credited and available to the balance (posted now, or
 *   a held deposit accepted);
 * - payment sent: a new payment to someone else takes money from the account (held or posted);
 * - payment returned: a payment is reversed and its money comes back.
 * A card purchase declined is no posting: authorizeCardPurchase tells that alert itself.
 */
export function alertMet(alert: WatchedAlert, posting: PostingFacts): boolean {
  const moved = movedOn(posting.entries, alert.account_id);
  const touched = posting.entries.some((e) => e.account_id === alert.account_id);
  if (!touched) return false;
  switch (alert.kind) {
    case "balance_below": {
      const before = posting.available_before.get(alert.account_id);
      const after = posting.available_after.get(alert.account_id);
      if (before === undefined || after === undefined || alert.amount_cents === null) return false;
      return before >= alert.amount_cents && after < alert.amount_cents;
    }
    case "transaction_above":
      return posting.event === "new" && alert.amount_cents !== null && Math.abs(moved) > alert.amount_cents;
    case "deposit_posted":
      return (
        moved > 0 &&
        DEPOSIT_KINDS.has(posting.kind) &&
        ((posting.event === "new" && posting.status === "posted") || posting.event === "settled")
      );
    case "payment_sent":
      return posting.event === "new" && moved < 0 && PAYMENT_KINDS.has(posting.kind);
    case "payment_returned":
      return posting.event === "reversal" && moved > 0 && PAYMENT_KINDS.has(posting.kind);
    case "card_declined":
      return false;
  }
}

/** Every alert a posting meets, in the alerts' order, each once. */
export function alertsMet(alerts: readonly WatchedAlert[], posting: PostingFacts): MetAlert[] {
  return alerts
    .filter((alert) => alertMet(alert, posting))
    .map((alert) => ({
      alert,
      amount_cents: movedOn(posting.entries, alert.account_id),
      available_cents: posting.available_after.get(alert.account_id) ?? 0,
    }));
}

/** The bell's title and the email's subject and text of a met alert. `account` names it ("Checking ••••1234"). */
export function alertMessage(met: MetAlert, account: string): { title: string; body: string } {
  const moved = formatCents(Math.abs(met.amount_cents));
  const available = formatCents(met.available_cents);
  const threshold = met.alert.amount_cents === null ? "" : formatCents(met.alert.amount_cents);
  switch (met.alert.kind) {
    case "balance_below":
      return {
        title: `${account} is below ${threshold}`,
        body: `Your available balance is now ${available}, below the ${threshold} you set for this alert.`,
      };
    case "transaction_above":
      return {
        title: `${met.amount_cents < 0 ? "Withdrawal" : "Deposit"} of ${moved} on ${account}`,
        body: `A transaction of ${moved} is more than the ${threshold} you set for this alert. Your available balance is ${available}.`,
      };
    case "deposit_posted":
      return {
        title: `Deposit of ${moved} posted to ${account}`,
        body: `${moved} was added to your ${account}. Your available balance is ${available}.`,
      };
    case "payment_sent":
      return {
        title: `Payment of ${moved} sent from ${account}`,
        body: `A payment of ${moved} left your ${account}. Your available balance is ${available}.`,
      };
    case "payment_returned":
      return {
        title: `Payment of ${moved} returned to ${account}`,
        body: `A payment of ${moved} was sent back and the money is in your ${account} again. Your available balance is ${available}.`,
      };
    case "card_declined":
      return {
        title: `Card purchase declined on ${account}`,
        body: `A card purchase on your ${account} was declined.`,
      };
  }
}

/** What the alerts form says (docs/product.md#messages-alerts). */
export const ALERT_MESSAGES = {
  account: "Please choose one of your accounts",
  kind: "Please choose what to be alerted about",
  amount_missing: "Please enter an amount",
  amount_invalid: "Please enter an amount in dollars and cents, such as 100.00",
  amount_too_large: "Please enter an amount under $1,000,000,000.00",
  not_found: "That alert is not on your accounts.",
  already: "You already have this alert on that account. Change its amount below instead.",
  already_all: "You already have this alert for all your accounts. Change its amount below instead.",
  single_first:
    "You have this alert on one of your accounts already. Remove it first, then add it for all your accounts.",
  too_many: "You have 30 alerts, the most an account holder can have. Remove one first.",
  failed: "Your alerts could not be saved. Please try again.",
} as const;

/** The most live alerts a member may have: 6 kinds on a handful of accounts. */
export const ALERTS_PER_MEMBER_MAX = 30;
/** A threshold above a billion dollars is a typing slip. */
export const ALERT_AMOUNT_MAX_CENTS = 100_000_000_000;

/** The Account choice of an alert that watches every account of the member's, those opened later too. */
export const ALL_ACCOUNTS = "all";

const idField = (message: string) =>
  z
    .string({ error: message })
    .trim()
    .regex(/^[1-9]\d{0,15}$/, { error: message })
    .transform(Number);

/** The amount in dollars as typed, to integer cents; blank is allowed here and checked by kind. */
const amountText = z
  .string()
  .trim()
  .max(32, { error: ALERT_MESSAGES.amount_invalid })
  .optional()
  .transform((text) => text ?? "");

function amountCents(text: string, ctx: z.RefinementCtx): number | null {
  if (text === "") {
    ctx.addIssue({ code: "custom", message: ALERT_MESSAGES.amount_missing, path: ["amount"] });
    return null;
  }
  const cents = parseDollarsToCents(text);
  if (cents === null || cents < 1) {
    ctx.addIssue({ code: "custom", message: ALERT_MESSAGES.amount_invalid, path: ["amount"] });
    return null;
  }
  if (cents >= ALERT_AMOUNT_MAX_CENTS) {
    ctx.addIssue({ code: "custom", message: ALERT_MESSAGES.amount_too_large, path: ["amount"] });
    return null;
  }
  return cents;
}

/** Add an alert: the account, what to be alerted about, and for a threshold kind its amount in dollars. */
export const addAlertSchema = z
  .object({
    // An account's id, or "all": every account of the member's, and any they open later.
    account_id: z.union([z.literal(ALL_ACCOUNTS), idField(ALERT_MESSAGES.account)], { error: ALERT_MESSAGES.account }),
    kind: z.enum(ACCOUNT_ALERT_KINDS, { error: ALERT_MESSAGES.kind }),
    amount: amountText,
  })
  .transform(({ amount, ...rest }, ctx) => {
    if (!THRESHOLD_KINDS.has(rest.kind)) return { ...rest, amount_cents: null };
    const amount_cents = amountCents(amount, ctx);
    return amount_cents === null ? z.NEVER : { ...rest, amount_cents };
  });

/** Change a threshold alert's amount. */
export const editAlertSchema = z
  .object({ alert_id: idField(ALERT_MESSAGES.not_found), amount: amountText })
  .transform(({ alert_id, amount }, ctx) => {
    const amount_cents = amountCents(amount, ctx);
    return amount_cents === null ? z.NEVER : { alert_id, amount_cents };
  });

export const removeAlertSchema = z.object({ alert_id: idField(ALERT_MESSAGES.not_found) });

/** "Balance below $100.00", "Deposit posted": how the list names an alert. */
export function describeAlert(alert: { kind: AccountAlertKind; amount_cents: number | null }): string {
  if (alert.kind === "balance_below") return `Balance below ${formatCents(alert.amount_cents ?? 0)}`;
  if (alert.kind === "transaction_above") return `Transaction above ${formatCents(alert.amount_cents ?? 0)}`;
  return ALERT_LABELS[alert.kind];
}
