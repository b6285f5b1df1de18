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
