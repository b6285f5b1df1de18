import { sql } from "drizzle-orm";
import { bigint, bigserial, check, date, index, pgTable, text, unique } from "drizzle-orm/pg-core";
import { keptStatement, statementMonth } from "./columns";
import { loans } from "./loans";

/**
 * A loan's monthly statement (docs/product.md#loan-statements), kept as made like an account's
 * (account_statements): one per loan and month, served again as it was. Its figures are read from
 * the loan's ledger lines as of the month's last day; the PDF is the document of record, the
 * columns its summary for lists and checks. Nothing is deleted.
 */
export const loanStatements = pgTable(
  "loan_statements",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    loan_id: bigint("loan_id", { mode: "number" })
      .notNull()
      .references(() => loans.id),
    member_id: text("member_id").notNull(),
    ...statementMonth(),
    /** What was owed (principal, interest, fees) at the start and the end; the principal at the end. */
    opening_cents: bigint("opening_cents", { mode: "number" }).notNull(),
    closing_cents: bigint("closing_cents", { mode: "number" }).notNull(),
    principal_cents: bigint("principal_cents", { mode: "number" }).notNull(),
    /** The month's money paid out or drawn, interest and fees charged, and payments. */
    advanced_cents: bigint("advanced_cents", { mode: "number" }).notNull(),
    interest_charged_cents: bigint("interest_charged_cents", { mode: "number" }).notNull(),
    fees_charged_cents: bigint("fees_charged_cents", { mode: "number" }).notNull(),
    paid_cents: bigint("paid_cents", { mode: "number" }).notNull(),
    /** The amount due and its date as of the month's end (null: nothing due, or due now), and what of it was past due. */
    amount_due_cents: bigint("amount_due_cents", { mode: "number" }),
    due_on: date("due_on", { mode: "string" }),
    past_due_cents: bigint("past_due_cents", { mode: "number" }).notNull().default(0),
    ...keptStatement(),
  },
  (t) => [
    unique("loan_statements_loan_month_unique").on(t.loan_id, t.period_month),
    index("loan_statements_member_idx").on(t.member_id, t.period_month),
    check("loan_statements_month_format", sql`${t.period_month} ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'`),
    check(
      "loan_statements_totals",
      sql`${t.closing_cents} = ${t.opening_cents} + ${t.advanced_cents} + ${t.interest_charged_cents} + ${t.fees_charged_cents} - ${t.paid_cents}`,
    ),
  ],
);

export type LoanStatementRow = typeof loanStatements.$inferSelect;
