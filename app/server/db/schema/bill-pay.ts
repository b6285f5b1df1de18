import { sql } from "drizzle-orm";
import { bigint, bigserial, check, date, index, integer, pgTable, text, timestamp, unique } from "drizzle-orm/pg-core";
import { ledgerAccounts } from "./ledger";

/**
 * Bill Pay (docs/product.md#bill-pay): the member's payees, their scheduled payments and the
 * recurring series that schedule them. A scheduled payment holds its amount in the ledger (a
 * pending debit crediting the bill-pay settlement account); on its date the bill-payments job
 * settles the hold (Paid) or releases it (Failed, with the reason). Nothing is deleted: a payee
 * is marked removed, a payment cancelled.
 */
export const BILL_PAYMENT_STATUSES = ["scheduled", "paid", "failed", "cancelled"] as const;
export const BILL_SERIES_FREQUENCIES = ["monthly", "weeks"] as const;
export const BILL_SERIES_STATUSES = ["active", "ended", "cancelled"] as const;

export const billPayees = pgTable(
  "bill_payees",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    member_id: text("member_id").notNull(),
    name: text("name").notNull(),
    /** The member's account number at the payee, as printed on the bill. */
    account_number: text("account_number").notNull(),
    address: text("address"),
    created_at: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    removed_at: timestamp("removed_at", { withTimezone: true }),
  },
  (t) => [index("bill_payees_member_idx").on(t.member_id, t.id)],
);

export const billPaymentSeries = pgTable(
  "bill_payment_series",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    member_id: text("member_id").notNull(),
    payee_id: bigint("payee_id", { mode: "number" })
      .notNull()
      .references(() => billPayees.id),
    from_account_id: bigint("from_account_id", { mode: "number" })
      .notNull()
      .references(() => ledgerAccounts.id),
    amount_cents: bigint("amount_cents", { mode: "number" }).notNull(),
    memo: text("memo"),
    /** Monthly on the first payment's day of the month, or every `interval_weeks` weeks. */
    frequency: text("frequency", { enum: BILL_SERIES_FREQUENCIES }).notNull(),
    interval_weeks: integer("interval_weeks"),
    first_date: date("first_date", { mode: "string" }).notNull(),
    /** The series ends on a date or after a number of payments: exactly one is set. */
    end_date: date("end_date", { mode: "string" }),
    payment_count: integer("payment_count"),
    status: text("status", { enum: BILL_SERIES_STATUSES }).notNull().default("active"),
    idempotency_key: text("idempotency_key").notNull(),
    created_at: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    ended_at: timestamp("ended_at", { withTimezone: true }),
  },
  (t) => [
    unique("bill_payment_series_member_key_unique").on(t.member_id, t.idempotency_key),
    index("bill_payment_series_member_idx").on(t.member_id, t.id),
    check("bill_payment_series_amount_positive", sql`${t.amount_cents} > 0`),
    check(
      "bill_payment_series_frequency_valid",
      sql`(${t.frequency} = 'monthly' and ${t.interval_weeks} is null) or (${t.frequency} = 'weeks' and ${t.interval_weeks} between 1 and 52)`,
    ),
    check("bill_payment_series_one_end", sql`(${t.end_date} is null) <> (${t.payment_count} is null)`),
    check("bill_payment_series_count_positive", sql`${t.payment_count} is null or ${t.payment_count} >= 1`),
    check("bill_payment_series_status_valid", sql`${t.status} in ('active', 'ended', 'cancelled')`),
  ],
);

export const billPayments = pgTable(
  "bill_payments",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    member_id: text("member_id").notNull(),
    payee_id: bigint("payee_id", { mode: "number" })
      .notNull()
      .references(() => billPayees.id),
    from_account_id: bigint("from_account_id", { mode: "number" })
      .notNull()
      .references(() => ledgerAccounts.id),
    amount_cents: bigint("amount_cents", { mode: "number" }).notNull(),
    /** The business day it is paid, in the institution's time zone. */
    payment_date: date("payment_date", { mode: "string" }).notNull(),
    memo: text("memo"),
    status: text("status", { enum: BILL_PAYMENT_STATUSES }).notNull().default("scheduled"),
    /**
     * The ledger hold carrying the amount. Null only for a recurring payment whose hold could not
     * be placed when the series scheduled it (the money was not there): it is taken on its date if
     * it is there then.
     */
    hold_transaction_id: bigint("hold_transaction_id", { mode: "number" }),
    /** The posted debit of a payment paid without a hold (see above). */
    paid_transaction_id: bigint("paid_transaction_id", { mode: "number" }),
    /** Why it failed, as the member reads it. */
    failure_reason: text("failure_reason"),
    series_id: bigint("series_id", { mode: "number" }).references(() => billPaymentSeries.id),
    /** Its number in the series, from 1. */
    sequence: integer("sequence"),
    idempotency_key: text("idempotency_key").notNull(),
    created_at: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    updated_at: timestamp("updated_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    resolved_at: timestamp("resolved_at", { withTimezone: true }),
    resolved_by: text("resolved_by"),
  },
  (t) => [
    unique("bill_payments_member_key_unique").on(t.member_id, t.idempotency_key),
    unique("bill_payments_series_sequence_unique").on(t.series_id, t.sequence),
    index("bill_payments_member_idx").on(t.member_id, t.payment_date),
    index("bill_payments_due_idx").on(t.status, t.payment_date),
    // The back office asks whose a pending ledger transaction is (a staff Release is refused on a bill payment's hold).
    index("bill_payments_hold_transaction_idx")
      .on(t.hold_transaction_id)
      .where(sql`${t.hold_transaction_id} is not null`),
    check("bill_payments_amount_positive", sql`${t.amount_cents} > 0`),
    check("bill_payments_status_valid", sql`${t.status} in ('scheduled', 'paid', 'failed', 'cancelled')`),
    check("bill_payments_failed_has_reason", sql`(${t.status} = 'failed') = (${t.failure_reason} is not null)`),
    check("bill_payments_series_has_sequence", sql`(${t.series_id} is null) = (${t.sequence} is null)`),
  ],
);

export type BillPayee = typeof billPayees.$inferSelect;
export type BillPayment = typeof billPayments.$inferSelect;
export type BillPaymentSeries = typeof billPaymentSeries.$inferSelect;
