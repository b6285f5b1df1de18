import { sql } from "drizzle-orm";
import { bigint, bigserial, check, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
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
  (t) => [
    check(
      "member_account_settings_routing_format",
      sql`${t.routing_number} is null or ${t.routing_number} ~ '^[0-9]{9}$'`,
    ),
  ],
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
    index("balance_adjustments_awaiting_idx")
      .on(t.requested_at, t.id)
      .where(sql`${t.status} = 'awaiting_approval'`),
    index("balance_adjustments_account_idx").on(t.account_id, t.id),
    // What one staff member credited lately (the dual-control totals, app/domain/dual-control.ts).
    index("balance_adjustments_maker_idx").on(t.requested_by, t.requested_at),
    check("balance_adjustments_status_valid", sql`${t.status} in ('awaiting_approval', 'posted', 'declined')`),
    check("balance_adjustments_amount_not_zero", sql`${t.amount_cents} <> 0 and ${t.target_cents} >= 0`),
    check("balance_adjustments_reason_required", sql`length(${t.reason}) > 0`),
    check(
      "balance_adjustments_checker_not_maker",
      sql`${t.decided_by} is null or ${t.decided_by} <> ${t.requested_by}`,
    ),
    check(
      "balance_adjustments_posted_has_transaction",
      sql`${t.status} <> 'posted' or ${t.transaction_id} is not null`,
    ),
    check(
      "balance_adjustments_declined_has_reason",
      sql`${t.status} <> 'declined' or (${t.decided_by} is not null and length(${t.decline_reason}) > 0)`,
    ),
  ],
);

export type BalanceAdjustment = typeof balanceAdjustments.$inferSelect;

export const STAFF_POSTING_REQUEST_STATUSES = ["awaiting_approval", "posted", "declined"] as const;
export type StaffPostingRequestStatus = (typeof STAFF_POSTING_REQUEST_STATUSES)[number];

/** One row of an Add Transactions request, as checked (the account resolved to the member's own). */
export interface StaffPostingRequestRow {
  /** The file line or table row number, for messages. */
  line: number;
  account_id: number;
  direction: "debit" | "credit";
  amount_cents: number;
  description: string;
  category: string;
  date: string;
  time: string;
  status: "completed" | "pending";
}

/**
 * Every Add Transactions table or CSV file staff submitted once its rows were valid
 * (docs/product.md#add-transactions): posted at once when the dual-control rule allows it
 * (app/domain/dual-control.ts), otherwise waiting, as one request, for a second staff member who
 * approves (every row posts, all or nothing) or declines with a reason. The rows are kept as
 * checked, so what is approved is exactly what was asked. Posted rows also count toward the
 * maker's totals (`credit_total_cents`). The database refuses a checker who is the maker.
 */
export const staffPostingRequests = pgTable(
  "staff_posting_requests",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    member_id: text("member_id").notNull(),
    source: text("source", { enum: ["csv", "table"] }).notNull(),
    file_name: text("file_name"),
    /** The form's idempotency key (the ledger batch's): a repeat of the same submission finds this row. */
    batch_key: text("batch_key").notNull().unique(),
    rows: jsonb("rows").$type<StaffPostingRequestRow[]>().notNull(),
    row_count: integer("row_count").notNull(),
    credit_total_cents: bigint("credit_total_cents", { mode: "number" }).notNull(),
    debit_total_cents: bigint("debit_total_cents", { mode: "number" }).notNull(),
    /** Why it waits, in words, as the maker was told (null when it posted at once). */
    wait_reason: text("wait_reason"),
    status: text("status", { enum: STAFF_POSTING_REQUEST_STATUSES }).notNull(),
    requested_by: text("requested_by").notNull(),
    requested_by_email: text("requested_by_email"),
    requested_at: timestamptz("requested_at").defaultNow().notNull(),
    decided_by: text("decided_by"),
    decided_by_email: text("decided_by_email"),
    decided_at: timestamptz("decided_at"),
    decline_reason: text("decline_reason"),
  },
  (t) => [
    index("staff_posting_requests_awaiting_idx")
      .on(t.requested_at, t.id)
      .where(sql`${t.status} = 'awaiting_approval'`),
    index("staff_posting_requests_maker_idx").on(t.requested_by, t.requested_at),
    check("staff_posting_requests_status_valid", sql`${t.status} in ('awaiting_approval', 'posted', 'declined')`),
    check("staff_posting_requests_source_valid", sql`${t.source} in ('csv', 'table')`),
    check(
      "staff_posting_requests_totals",
      sql`${t.credit_total_cents} >= 0 and ${t.debit_total_cents} >= 0 and ${t.row_count} > 0`,
    ),
    check(
      "staff_posting_requests_checker_not_maker",
      sql`${t.decided_by} is null or ${t.decided_by} <> ${t.requested_by}`,
    ),
    check("staff_posting_requests_waits_with_reason", sql`${t.status} = 'posted' or length(${t.wait_reason}) > 0`),
    check(
      "staff_posting_requests_declined_has_reason",
      sql`${t.status} <> 'declined' or (${t.decided_by} is not null and length(${t.decline_reason}) > 0)`,
    ),
  ],
);

export type StaffPostingRequest = typeof staffPostingRequests.$inferSelect;
