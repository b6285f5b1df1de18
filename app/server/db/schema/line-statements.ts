import { sql } from "drizzle-orm";
import { bigint, bigserial, check, date, index, pgTable, text, unique } from "drizzle-orm/pg-core";
import { creditLineCycles, creditLines } from "./lines-of-credit";
import { keptStatement } from "./columns";

/**
 * A line of credit's periodic statement (docs/product.md#line-statements; Regulation Z 12 CFR
 * 1026.7(b)), kept as made like a loan's and an account's: one per closed billing cycle, served
 * again as it was. Its figures are the line's ledger lines of the cycle (decision 0036); the PDF is
 * the document of record, the columns its summary for lists and checks. Nothing is deleted.
 */
export const creditLineStatements = pgTable(
  "credit_line_statements",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    line_id: bigint("line_id", { mode: "number" })
      .notNull()
      .references(() => creditLines.id),
    cycle_id: bigint("cycle_id", { mode: "number" })
      .notNull()
      .references(() => creditLineCycles.id),
    member_id: text("member_id").notNull(),
    /** The cycle's first day and its closing date (its days end the day before). */
    period_start: date("period_start", { mode: "string" }).notNull(),
    closed_on: date("closed_on", { mode: "string" }).notNull(),
    previous_balance_cents: bigint("previous_balance_cents", { mode: "number" }).notNull(),
    draws_cents: bigint("draws_cents", { mode: "number" }).notNull(),
    interest_cents: bigint("interest_cents", { mode: "number" }).notNull(),
    fees_cents: bigint("fees_cents", { mode: "number" }).notNull(),
    payments_cents: bigint("payments_cents", { mode: "number" }).notNull(),
    new_balance_cents: bigint("new_balance_cents", { mode: "number" }).notNull(),
    /** The cycle's minimum payment and due date, as the servicing set them when it closed. */
    minimum_due_cents: bigint("minimum_due_cents", { mode: "number" }).notNull(),
    due_on: date("due_on", { mode: "string" }).notNull(),
    ...keptStatement(),
  },
  (t) => [
    unique("credit_line_statements_cycle_unique").on(t.cycle_id),
    index("credit_line_statements_line_idx").on(t.line_id, t.closed_on),
    check(
      "credit_line_statements_totals",
      sql`${t.new_balance_cents} = ${t.previous_balance_cents} + ${t.draws_cents} + ${t.interest_cents} + ${t.fees_cents} - ${t.payments_cents}`,
    ),
  ],
);

export type CreditLineStatementRow = typeof creditLineStatements.$inferSelect;
