import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  bigserial,
  check,
  date,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
  type AnyPgColumn,
} from "drizzle-orm/pg-core";

/**
 * The ledger (docs/product.md#money-rules, docs/architecture.md#ledger). Only `app/server/ledger/`
 * writes these tables. Money is signed bigint cents. The invariants the database enforces by itself
 * are here as CHECKs and, for what a CHECK cannot see (entries of one transaction summing to zero,
 * entries never changing), as triggers in the `ledger_invariants` migration.
 */

export const LEDGER_ACCOUNT_OWNERS = ["member", "institution"] as const;
export const MEMBER_ACCOUNT_TYPES = ["checking", "savings", "credit_card"] as const;
export const INSTITUTION_ACCOUNT_TYPES = [
  "cash",
  "ach_settlement",
  "wire_settlement",
  "bill_pay_settlement",
  "deposits_in_transit",
  "adjustments",
  "fees_income",
  // The card network's side of debit card purchases (docs/product.md#cards).
  "card_settlement",
  // The expense side of the dividends credited to members' accounts (docs/product.md#dividends).
  "dividends_paid",
] as const;
/**
 * The credit union's receivable of one member loan (docs/product.md#loans): an institution account
 * per loan, opened when the loan is booked; its balance is what the member owes (negative, as every
 * institution account on the other side of member money). Not one-per-type like the others.
 */
export const LOAN_ACCOUNT_TYPES = ["loan_receivable"] as const;
export const LEDGER_ACCOUNT_TYPES = [
  ...MEMBER_ACCOUNT_TYPES,
  ...INSTITUTION_ACCOUNT_TYPES,
  ...LOAN_ACCOUNT_TYPES,
] as const;
export const LEDGER_ACCOUNT_STATUSES = ["active", "frozen", "closed"] as const;
export const LEDGER_TRANSACTION_STATUSES = ["pending", "posted", "failed", "reversed"] as const;

export const ledgerAccounts = pgTable(
  "ledger_accounts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /**
     * 10 digits, first 1-9 (docs/product.md#account-numbers); institution accounts get one too,
     * from the same generator.
     */
    account_number: text("account_number").notNull().unique("ledger_accounts_account_number_unique"),
    owner: text("owner", { enum: LEDGER_ACCOUNT_OWNERS }).notNull(),
    type: text("type", { enum: LEDGER_ACCOUNT_TYPES }).notNull(),
    /** The holding member's user id (auth area); null for the institution's own accounts. */
    member_id: text("member_id"),
    name: text("name").notNull(),
    status: text("status", { enum: LEDGER_ACCOUNT_STATUSES }).notNull().default("active"),
    /** Cached sum of the entries of posted (and later reversed) transactions: the current balance. */
    posted_cents: bigint("posted_cents", { mode: "number" }).notNull().default(0),
    /** Cached sum of the debits of pending transactions, as a positive number. */
    held_cents: bigint("held_cents", { mode: "number" }).notNull().default(0),
    /**
     * How far below zero the available balance may go; 0 = no overdraft (docs/product.md#balances).
     */
    overdraft_limit_cents: bigint("overdraft_limit_cents", { mode: "number" }).notNull().default(0),
    /** Transfers out of this savings account in `transfer_count_month` (YYYY-MM). */
    transfer_count: integer("transfer_count").notNull().default(0),
    transfer_count_month: text("transfer_count_month"),
    /**
     * Whether the member set an alert on this account (docs/product.md#alerts), kept by
     * app/server/alerts: a posting reads it with the account's lock, so a posting to an account
     * without alerts costs no query for them.
     */
    alerts_on: boolean("alerts_on").notNull().default(false),
    opened_at: timestamp("opened_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [
    index("ledger_accounts_member_id_idx").on(t.member_id),
    // One account of each kind for the institution: postings find "the cash account" by type.
    // A loan's receivable is one per loan.
    uniqueIndex("ledger_accounts_institution_type_unique")
      .on(t.type)
      .where(sql`${t.owner} = 'institution' and ${t.type} <> 'loan_receivable'`),
    check("ledger_accounts_account_number_format", sql`${t.account_number} ~ '^[1-9][0-9]{9}$'`),
    check("ledger_accounts_owner_valid", sql`${t.owner} in ('member', 'institution')`),
    check(
      "ledger_accounts_type_matches_owner",
      sql`(${t.owner} = 'member' and ${t.type} in ('checking', 'savings', 'credit_card') and ${t.member_id} is not null)
        or (${t.owner} = 'institution' and ${t.type} in ('cash', 'ach_settlement', 'wire_settlement', 'bill_pay_settlement', 'deposits_in_transit', 'adjustments', 'fees_income', 'card_settlement', 'dividends_paid', 'loan_receivable') and ${t.member_id} is null)`,
    ),
    check("ledger_accounts_status_valid", sql`${t.status} in ('active', 'frozen', 'closed')`),
    check("ledger_accounts_held_not_negative", sql`${t.held_cents} >= 0`),
    check("ledger_accounts_overdraft_not_negative", sql`${t.overdraft_limit_cents} >= 0`),
    check("ledger_accounts_transfer_count_not_negative", sql`${t.transfer_count} >= 0`),
    // A member account never goes below zero available, unless an overdraft is configured
    // (docs/product.md#balances).
    // Institution accounts (cash, settlement) are the other side of member money and may be negative.
    check(
      "ledger_accounts_member_available_not_negative",
      sql`${t.owner} <> 'member' or ${t.posted_cents} - ${t.held_cents} + ${t.overdraft_limit_cents} >= 0`,
    ),
  ],
);

export const ledgerTransactions = pgTable(
  "ledger_transactions",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** What moved the money: transfer, member_transfer, ach_out, deposit, fee, reversal, ... */
    kind: text("kind").notNull(),
    status: text("status", { enum: LEDGER_TRANSACTION_STATUSES }).notNull(),
    /** Who asked ("member:<id>", "staff:<id>", "system:ach"): the idempotency key's scope. */
    initiator: text("initiator").notNull(),
    idempotency_key: text("idempotency_key").notNull(),
    /** Set on every transaction of one bulk import; the batch's own idempotency key. */
    batch_key: text("batch_key"),
    reverses_id: bigint("reverses_id", { mode: "number" }).references((): AnyPgColumn => ledgerTransactions.id),
    effective_date: date("effective_date", { mode: "string" }).notNull(),
    created_at: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    created_by: text("created_by").notNull(),
    memo: text("memo"),
    reference: text("reference"),
    category: text("category"),
    /** When and by whom a pending transaction was settled or released, or a posted one reversed. */
    resolved_at: timestamp("resolved_at", { withTimezone: true }),
    resolved_by: text("resolved_by"),
    /** The idempotency key of the settle or release, so a repeat of it returns the first result. */
    resolution_key: text("resolution_key"),
  },
  (t) => [
    unique("ledger_transactions_initiator_key_unique").on(t.initiator, t.idempotency_key),
    // A transaction is reversed at most once, by the database's own rule.
    uniqueIndex("ledger_transactions_reverses_id_unique")
      .on(t.reverses_id)
      .where(sql`${t.reverses_id} is not null`),
    index("ledger_transactions_batch_idx")
      .on(t.initiator, t.batch_key)
      .where(sql`${t.batch_key} is not null`),
    index("ledger_transactions_pending_idx")
      .on(t.id)
      .where(sql`${t.status} = 'pending'`),
    check("ledger_transactions_status_valid", sql`${t.status} in ('pending', 'posted', 'failed', 'reversed')`),
    check("ledger_transactions_reversal_shape", sql`(${t.kind} = 'reversal') = (${t.reverses_id} is not null)`),
  ],
);

export const ledgerEntries = pgTable(
  "ledger_entries",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    transaction_id: bigint("transaction_id", { mode: "number" })
      .notNull()
      .references(() => ledgerTransactions.id),
    account_id: bigint("account_id", { mode: "number" })
      .notNull()
      .references(() => ledgerAccounts.id),
    /** Signed: positive credits the account (money in), negative debits it (money out). */
    amount_cents: bigint("amount_cents", { mode: "number" }).notNull(),
  },
  (t) => [
    // One entry per account per transaction; also the index the sum-to-zero trigger reads.
    unique("ledger_entries_transaction_account_unique").on(t.transaction_id, t.account_id),
    // Account history, newest first, by keyset on id (fast with millions of transactions).
    index("ledger_entries_account_id_id_idx").on(t.account_id, t.id),
    check("ledger_entries_amount_not_zero", sql`${t.amount_cents} <> 0`),
  ],
);

/**
 * Posted money per account, day, kind and category: a summary the database keeps by itself
 * (triggers in the `ledger_daily_totals` migration, in the posting's own transaction) so that
 * figures over a date range (the dashboard's month and 30 days) read a few rows a day instead of
 * every entry. Derived, never written by code; `ledger:verify` recomputes it from the entries.
 * Only transactions whose status is `posted` count: a reversed one leaves it (its reversal is
 * counted under kind `reversal`), a pending one joins it when settled.
 */
export const ledgerDailyTotals = pgTable(
  "ledger_daily_totals",
  {
    account_id: bigint("account_id", { mode: "number" })
      .notNull()
      .references(() => ledgerAccounts.id),
    effective_date: date("effective_date", { mode: "string" }).notNull(),
    kind: text("kind").notNull(),
    /** The transaction's category; '' when it has none (a key column cannot be null). */
    category: text("category").notNull(),
    /** Sum of the credits (money in), and of the debits (money out) as a positive number. */
    credits_cents: bigint("credits_cents", { mode: "number" }).notNull().default(0),
    debits_cents: bigint("debits_cents", { mode: "number" }).notNull().default(0),
  },
  (t) => [
    primaryKey({ name: "ledger_daily_totals_pk", columns: [t.account_id, t.effective_date, t.kind, t.category] }),
  ],
);

export type LedgerAccount = typeof ledgerAccounts.$inferSelect;
export type LedgerTransaction = typeof ledgerTransactions.$inferSelect;
export type LedgerEntry = typeof ledgerEntries.$inferSelect;
