import { sql } from "drizzle-orm";
import { bigint, bigserial, check, index, integer, pgTable, text, unique } from "drizzle-orm/pg-core";
import { keptStatement, statementMonth } from "./columns";
import { ledgerAccounts } from "./ledger";

/**
 * Monthly account statements (docs/product.md#statements), kept as made: a statement is a
 * document of record, so once made for an account and month it is served again as it was (one
 * per account and month, by the unique key), never made again from a ledger that has moved on
 * (a hold listed as pending may have settled since). Nothing is deleted.
 */
export const accountStatements = pgTable(
  "account_statements",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    account_id: bigint("account_id", { mode: "number" })
      .notNull()
      .references(() => ledgerAccounts.id),
    member_id: text("member_id").notNull(),
    ...statementMonth(),
    opening_cents: bigint("opening_cents", { mode: "number" }).notNull(),
    closing_cents: bigint("closing_cents", { mode: "number" }).notNull(),
    credits_cents: bigint("credits_cents", { mode: "number" }).notNull(),
    debits_cents: bigint("debits_cents", { mode: "number" }).notNull(),
    posted_count: integer("posted_count").notNull(),
    pending_count: integer("pending_count").notNull(),
    ...keptStatement(),
  },
  (t) => [
    unique("account_statements_account_month_unique").on(t.account_id, t.period_month),
    index("account_statements_member_idx").on(t.member_id, t.period_month),
    check("account_statements_month_format", sql`${t.period_month} ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'`),
    check(
      "account_statements_totals",
      sql`${t.closing_cents} = ${t.opening_cents} + ${t.credits_cents} - ${t.debits_cents}`,
    ),
    check("account_statements_totals_not_negative", sql`${t.credits_cents} >= 0 and ${t.debits_cents} >= 0`),
  ],
);

export type AccountStatement = typeof accountStatements.$inferSelect;
