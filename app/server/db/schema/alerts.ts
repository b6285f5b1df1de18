import { sql } from "drizzle-orm";
import { bigint, bigserial, check, index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { users } from "./auth";
import { ledgerAccounts } from "./ledger";
import { ACCOUNT_ALERT_KINDS } from "../../../domain/alerts";

/**
 * Alerts a member chose on one of their accounts (docs/product.md#alerts): told by the bell and
 * by email when a posting or a card purchase meets them. Each alert watches one account; the
 * account's `alerts_on` says whether any live alert watches it (kept by app/server/alerts in the
 * same transaction as the change). Nothing is deleted: a removed alert gets `removed_at`.
 * The sign-in from a new device is the member's loginAlerts setting (member_settings), not a row here.
 */

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const memberAlerts = pgTable(
  "member_alerts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    member_id: text("member_id")
      .notNull()
      .references(() => users.id),
    account_id: bigint("account_id", { mode: "number" })
      .notNull()
      .references(() => ledgerAccounts.id),
    kind: text("kind", { enum: ACCOUNT_ALERT_KINDS }).notNull(),
    /** The threshold of "balance below" and "transaction above", in cents; null for the others. */
    amount_cents: bigint("amount_cents", { mode: "number" }),
    created_at: timestamptz("created_at").defaultNow().notNull(),
    updated_at: timestamptz("updated_at").defaultNow().notNull(),
    removed_at: timestamptz("removed_at"),
  },
  (t) => [
    index("member_alerts_member_idx").on(t.member_id, t.id),
    // A posting reads the live alerts of its flagged accounts.
    index("member_alerts_account_live_idx")
      .on(t.account_id)
      .where(sql`${t.removed_at} is null`),
    // One live alert of each kind per account: a new threshold edits the alert.
    uniqueIndex("member_alerts_live_unique")
      .on(t.account_id, t.kind)
      .where(sql`${t.removed_at} is null`),
    check(
      "member_alerts_kind_valid",
      sql`${t.kind} in ('balance_below', 'transaction_above', 'deposit_posted', 'payment_sent', 'payment_returned', 'card_declined')`,
    ),
    check(
      "member_alerts_amount_matches_kind",
      sql`(${t.kind} in ('balance_below', 'transaction_above')) = (${t.amount_cents} is not null)`,
    ),
    check("member_alerts_amount_positive", sql`${t.amount_cents} is null or ${t.amount_cents} > 0`),
  ],
);

export type MemberAlert = typeof memberAlerts.$inferSelect;
