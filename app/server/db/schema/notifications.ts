import { sql } from "drizzle-orm";
import { bigserial, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * A member's notifications (docs/product.md#notifications): written by the event's own code, in the
 * same database transaction as the event where there is one (a transfer writes the sender's and
 * the recipient's with its ledger posting). Nothing is deleted; reading sets `read_at`.
 */
export const NOTIFICATION_KINDS = [
  "transfer_sent",
  "transfer_received",
  "payment_pending",
  "payment_sent",
  "payment_cancelled",
  "sign_in_alert",
  "application_decision",
  "deposit_decision",
  "bill_paid",
  "bill_payment_failed",
  "statement_ready",
  // Staff corrected the member's money (a reversal, a balance adjustment, a hold) or froze or closed an account.
  "account_correction",
  "account_status",
  // Card Services: locked, unlocked, limit changed, PIN changed, reported lost, a purchase declined.
  "card_activity",
  // ACH in: a direct deposit or debit posted, or a payment returned (docs/product.md#ach-in).
  "ach_received",
  "ach_returned",
  // A reported problem with a transaction: received, provisionally credited, resolved (docs/product.md#disputes).
  "dispute_update",
  // A change-in-terms notice: a disclosure's new version and when it takes effect (docs/product.md#disclosures).
  "disclosure_change",
  // Secure messages: a reply from the credit union; the text stays in the app (docs/product.md#secure-messages).
  "secure_message",
  // A scheduled or recurring transfer that could not be sent on its date (docs/product.md#scheduled-transfers).
  "scheduled_transfer_failed",
  // A loan application: received, decided (an offer or a decline), accepted (docs/product.md#loans).
  "loan_update",
  // An alert the member chose: a balance below, a transaction above, a deposit, a payment sent or returned (docs/product.md#alerts).
  "account_alert",
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export const notifications = pgTable(
  "notifications",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    member_id: text("member_id").notNull(),
    kind: text("kind", { enum: NOTIFICATION_KINDS }).notNull(),
    title: text("title").notNull(),
    body: text("body").notNull(),
    read_at: timestamp("read_at", { withTimezone: true }),
    created_at: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [
    // The bell's list (newest first, keyset on id) and its unread count.
    index("notifications_member_id_idx").on(t.member_id, t.id),
    index("notifications_member_unread_idx")
      .on(t.member_id)
      .where(sql`${t.read_at} is null`),
  ],
);

export type Notification = typeof notifications.$inferSelect;
