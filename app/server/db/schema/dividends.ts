import { sql } from "drizzle-orm";
import { bigint, bigserial, check, integer, pgTable, text, timestamp, unique } from "drizzle-orm/pg-core";
import { ledgerAccounts, ledgerTransactions } from "./ledger";

/**
 * Dividends (docs/product.md#dividends): one row per earning account and month, written by the
 * monthly dividend run in the same database transaction as the ledger posting that pays it, so
 * an account is paid once per month (the unique key) and a run that stopped half way is finished
 * by the next. A month that earned nothing (a zero balance) has its row too, with no
 * transaction, so the run does not work it out again. The statement reads the month's and the
 * year's dividends, the average daily balance and the APY earned from here. Nothing is deleted.
 */
export const accountDividends = pgTable(
  "account_dividends",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    account_id: bigint("account_id", { mode: "number" })
      .notNull()
      .references(() => ledgerAccounts.id),
    /** YYYY-MM: the dividend period, a calendar month in the institution's time zone. */
    period_month: text("period_month").notNull(),
    /** Days in the period (28 to 31). */
    days: integer("days").notNull(),
    /** Average of the end-of-day balances over the period, rounded half up to the cent. */
    average_daily_balance_cents: bigint("average_daily_balance_cents", { mode: "number" }).notNull(),
    /** The account type's APY when the run worked it out, in parts per million (3.50% = 35000). */
    apy_ppm: integer("apy_ppm").notNull(),
    dividend_cents: bigint("dividend_cents", { mode: "number" }).notNull(),
    /** The ledger transaction that credited it; null when the month earned nothing. */
    transaction_id: bigint("transaction_id", { mode: "number" }).references(() => ledgerTransactions.id),
    created_at: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [
    unique("account_dividends_account_month_unique").on(t.account_id, t.period_month),
    check("account_dividends_month_format", sql`${t.period_month} ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'`),
    check("account_dividends_days", sql`${t.days} between 28 and 31`),
    check("account_dividends_apy_range", sql`${t.apy_ppm} between 0 and 250000`),
    check("account_dividends_amount_not_negative", sql`${t.dividend_cents} >= 0`),
    check("account_dividends_paid_by_transaction", sql`(${t.dividend_cents} = 0) = (${t.transaction_id} is null)`),
  ],
);

export type AccountDividend = typeof accountDividends.$inferSelect;
