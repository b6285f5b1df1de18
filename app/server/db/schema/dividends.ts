import { sql } from "drizzle-orm";
import { bigint, bigserial, boolean, check, integer, pgTable, text, timestamp, unique } from "drizzle-orm/pg-core";
import { ledgerAccounts, ledgerTransactions } from "./ledger";
import { users } from "./auth";

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

/**
 * Form 1099-INT (docs/product.md#tax-forms): one row per member and tax year whose dividends
 * reached the reporting threshold, written by the January job (app/server/dividends/tax-forms.server.ts)
 * from the posted dividend transactions. What the form says is kept as it was issued (the total,
 * the taxpayer number's type and last four, the backup-withholding flag), so the member's PDF and
 * staff's CSV read the same figures every time. Nothing is deleted.
 */
export const taxForms = pgTable(
  "tax_forms",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    member_id: text("member_id")
      .notNull()
      .references(() => users.id),
    tax_year: integer("tax_year").notNull(),
    form: text("form", { enum: ["1099-INT"] }).notNull(),
    /** Box 1: the dividends posted to the member's accounts in the year. */
    interest_cents: bigint("interest_cents", { mode: "number" }).notNull(),
    /** The member's taxpayer number as the form shows it: its type and last four, or none on file. */
    tin_type: text("tin_type", { enum: ["ssn", "itin", "foreign"] }),
    tin_last_four: text("tin_last_four"),
    /** No US taxpayer number on file: flagged for backup withholding (nothing is withheld yet). */
    backup_withholding_flag: boolean("backup_withholding_flag").notNull(),
    issued_at: timestamp("issued_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [
    unique("tax_forms_member_year_form_unique").on(t.member_id, t.tax_year, t.form),
    check("tax_forms_amount_positive", sql`${t.interest_cents} > 0`),
    check("tax_forms_tin", sql`(${t.tin_type} is null) = (${t.tin_last_four} is null)`),
  ],
);

export type TaxForm = typeof taxForms.$inferSelect;
