import { sql } from "drizzle-orm";
import { bigint, bigserial, check, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { ledgerAccounts, ledgerTransactions } from "./ledger";

/**
 * The back office's records about member accounts and the corrections staff make to them
 * (docs/product.md#member-accounts-staff). Balances are never here: an adjustment is a ledger
 * transaction; these rows say who asked for it, why, and who approved it.
 */
const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/**
 * What staff set on an account beyond the ledger's own figures: a routing number other than the
 * institution's (null = the institution's) and why the account is frozen or closed. One row per
 * account, written on the first edit.
 */
export const memberAccountSettings = pgTable(
  "member_account_settings",
  {
    account_id: bigint("account_id", { mode: "number" })
      .primaryKey()
      .references(() => ledgerAccounts.id),
    routing_number: text("routing_number"),
    status_reason: text("status_reason"),
    updated_by: text("updated_by").notNull(),
    updated_at: timestamptz("updated_at").defaultNow().notNull(),
  },
  (t) => [check("member_account_settings_routing_format", sql`${t.routing_number} is null or ${t.routing_number} ~ '^[0-9]{9}$'`)],
);

export const BALANCE_ADJUSTMENT_STATUSES = ["awaiting_approval", "posted", "declined"] as const;
export type BalanceAdjustmentStatus = (typeof BALANCE_ADJUSTMENT_STATUSES)[number];

/**
 * Every balance adjustment staff asked for: posted at once when at or under the profile's
 * second-approval amount, otherwise waiting for a second staff member (maker-checker), who
 * approves (it posts) or declines (with a reason). The database refuses a checker who is the
 * maker, whatever the code does.
 */
export const balanceAdjustments = pgTable(
  "balance_adjustments",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    account_id: bigint("account_id", { mode: "number" })
      .notNull()
      .references(() => ledgerAccounts.id),
    member_id: text("member_id").notNull(),
    /** The current balance when it was asked, the balance asked for, and the difference posted. */
    from_cents: bigint("from_cents", { mode: "number" }).notNull(),
    target_cents: bigint("target_cents", { mode: "number" }).notNull(),
    amount_cents: bigint("amount_cents", { mode: "number" }).notNull(),
    reason: text("reason").notNull(),
    status: text("status", { enum: BALANCE_ADJUSTMENT_STATUSES }).notNull(),
    requested_by: text("requested_by").notNull(),
    requested_by_email: text("requested_by_email"),
    requested_at: timestamptz("requested_at").defaultNow().notNull(),
    /** The second staff member; null for an adjustment that needed no approval. */
    decided_by: text("decided_by"),
    decided_by_email: text("decided_by_email"),
    decided_at: timestamptz("decided_at"),
    decline_reason: text("decline_reason"),
    transaction_id: bigint("transaction_id", { mode: "number" }).references(() => ledgerTransactions.id),
  },
  (t) => [
    index("balance_adjustments_awaiting_idx").on(t.requested_at, t.id).where(sql`${t.status} = 'awaiting_approval'`),
    index("balance_adjustments_account_idx").on(t.account_id, t.id),
    check("balance_adjustments_status_valid", sql`${t.status} in ('awaiting_approval', 'posted', 'declined')`),
    check("balance_adjustments_amount_not_zero", sql`${t.amount_cents} <> 0 and ${t.target_cents} >= 0`),
    check("balance_adjustments_reason_required", sql`length(${t.reason}) > 0`),
    check("balance_adjustments_checker_not_maker", sql`${t.decided_by} is null or ${t.decided_by} <> ${t.requested_by}`),
    check("balance_adjustments_posted_has_transaction", sql`${t.status} <> 'posted' or ${t.transaction_id} is not null`),
    check("balance_adjustments_declined_has_reason", sql`${t.status} <> 'declined' or (${t.decided_by} is not null and length(${t.decline_reason}) > 0)`),
  ],
);

export type BalanceAdjustment = typeof balanceAdjustments.$inferSelect;
