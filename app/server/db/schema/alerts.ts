import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  check,
  index,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  type AnyPgColumn,
} from "drizzle-orm/pg-core";
import { users } from "./auth";
import { ledgerAccounts } from "./ledger";
import { ACCOUNT_ALERT_KINDS } from "../../../domain/alerts";

/**
 * Alerts a member chose on one of their accounts (docs/product.md#alerts): told by the bell and
 * by email when a posting or a card purchase meets them. Each alert watches one account; the
 * account's `alerts_on` says whether any live alert watches it (kept by app/server/alerts in the
 * same transaction as the change). Nothing is deleted: a removed alert gets `removed_at`.
 *
 * An alert "for all my accounts" is a row without an account (the member's choice) and one row per
 * account that points to it (`all_accounts_alert_id`): the ledger's hook reads those as any
 * other. An account opened later gets its row, and its `alerts_on`, from a trigger on
 * ledger_accounts in the insert's own transaction (migration `scheduled_us_bank_and_all_accounts_alerts`), so no way of opening an
 * account can forget it (docs/decisions/0026-alerts-in-the-posting.md).
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
    /** The account watched; null on an alert "for all my accounts" (its rows per account point to it). */
    account_id: bigint("account_id", { mode: "number" }).references(() => ledgerAccounts.id),
    /** On a row an alert "for all my accounts" keeps on one account: that alert. */
    all_accounts_alert_id: bigint("all_accounts_alert_id", { mode: "number" }).references(
      (): AnyPgColumn => memberAlerts.id,
    ),
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
    // One live alert "for all my accounts" of each kind per member.
    uniqueIndex("member_alerts_all_accounts_live_unique")
      .on(t.member_id, t.kind)
      .where(sql`${t.account_id} is null and ${t.removed_at} is null`),
    // An alert for all accounts has no account and no parent; its rows per account have both.
    check("member_alerts_all_accounts_shape", sql`${t.account_id} is not null or ${t.all_accounts_alert_id} is null`),
    index("member_alerts_all_accounts_idx")
      .on(t.all_accounts_alert_id)
      .where(sql`${t.all_accounts_alert_id} is not null`),
    check("member_alerts_amount_positive", sql`${t.amount_cents} is null or ${t.amount_cents} > 0`),
  ],
);

export type MemberAlert = typeof memberAlerts.$inferSelect;
