import { sql } from "drizzle-orm";
import { bigint, bigserial, check, date, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * The institution's books (docs/product.md#books): what staff or an accountant read on the
 * Federal Reserve's or the correspondent's statement for one rail's settlement on one day, beside
 * what the ledger held for it when they entered it. Nothing is deleted or changed: a corrected
 * figure is a new row, and the newest row of a rail and day is the one shown.
 */
export const SETTLEMENT_RAILS = ["ach", "wire", "bill_pay", "card"] as const;

export const booksReconciliations = pgTable(
  "books_reconciliations",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    rail: text("rail", { enum: SETTLEMENT_RAILS }).notNull(),
    business_date: date("business_date", { mode: "string" }).notNull(),
    /** The statement's net for the day, in the ledger's sign (credits to the settlement account positive). */
    statement_cents: bigint("statement_cents", { mode: "number" }).notNull(),
    /** The settlement account's net for the day in the ledger when the figure was entered. */
    ledger_cents: bigint("ledger_cents", { mode: "number" }).notNull(),
    entered_by: text("entered_by").notNull(),
    entered_by_email: text("entered_by_email"),
    entered_at: timestamp("entered_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [
    index("books_reconciliations_rail_date_idx").on(t.rail, t.business_date, t.id),
    check("books_reconciliations_rail_valid", sql`${t.rail} in ('ach', 'wire', 'bill_pay', 'card')`),
  ],
);

export type BooksReconciliation = typeof booksReconciliations.$inferSelect;

export const GL_ENTRY_STATUSES = ["awaiting_approval", "posted", "rejected"] as const;

/**
 * General-ledger entries between two institution accounts (docs/product.md#books), under dual
 * control: one person proposes, another (an accountant or staff, never the same person) approves,
 * and only then the ledger posts it, or rejects it with a reason. Never deleted.
 */
export const glEntryRequests = pgTable(
  "gl_entry_requests",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** The institution account debited (money out) and the one credited (money in), by kind. */
    debit_account: text("debit_account").notNull(),
    credit_account: text("credit_account").notNull(),
    amount_cents: bigint("amount_cents", { mode: "number" }).notNull(),
    memo: text("memo").notNull(),
    status: text("status", { enum: GL_ENTRY_STATUSES }).notNull().default("awaiting_approval"),
    requested_by: text("requested_by").notNull(),
    requested_by_email: text("requested_by_email"),
    requested_at: timestamp("requested_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    decided_by: text("decided_by"),
    decided_by_email: text("decided_by_email"),
    decided_at: timestamp("decided_at", { withTimezone: true }),
    reject_reason: text("reject_reason"),
    /** The ledger transaction an approval posted. */
    transaction_id: bigint("transaction_id", { mode: "number" }),
  },
  (t) => [
    index("gl_entry_requests_status_idx").on(t.status, t.id),
    check("gl_entry_requests_amount_positive", sql`${t.amount_cents} > 0`),
    check("gl_entry_requests_two_accounts", sql`${t.debit_account} <> ${t.credit_account}`),
    check("gl_entry_requests_status_valid", sql`${t.status} in ('awaiting_approval', 'posted', 'rejected')`),
    // The maker is never the checker, by the database's own rule too.
    check("gl_entry_requests_checker_not_maker", sql`${t.decided_by} is null or ${t.decided_by} <> ${t.requested_by}`),
  ],
);

export type GlEntryRequest = typeof glEntryRequests.$inferSelect;
