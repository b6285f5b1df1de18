import { sql, type SQL } from "drizzle-orm";
import {
  type AnyPgColumn,
  bigint,
  bigserial,
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  unique,
  uniqueIndex,
} from "drizzle-orm/pg-core";

/**
 * Payments to other banks (docs/product.md#to-us-bank, docs/product.md#international): the member's
 * money is held in the ledger at once (a pending debit crediting the ACH or wire settlement
 * account) and a row here waits for the back office, which sends it (settles the hold) or cancels
 * it (releases it).
 */
export const EXTERNAL_PAYMENT_KINDS = ["ach", "wire"] as const;
/**
 * `screening`: held, but stopped by a possible sanctions match until staff clear it (then
 * `pending`) or a second staff member confirms it (then `blocked`: never sent, its money stays
 * held; docs/product.md#screening-queue).
 */
export const EXTERNAL_PAYMENT_STATUSES = ["pending", "sent", "cancelled", "screening", "blocked"] as const;

/**
 * A payment written before its numbers were sealed (decision 0034): its account number or IBAN is
 * still plain in `details`. The start-up sealing pass selects with this predicate and the partial
 * index `external_payments_plain_numbers_idx` is built on it (the same expression, so the planner
 * uses the index): once every row is sealed the index is empty and the pass at each start reads
 * nothing, however many payments there are.
 */
export function holdsPlainNumber(details: AnyPgColumn): SQL {
  return sql`(${details}->>'account_number' is not null or ${details}->>'iban' is not null)`;
}

export const externalPayments = pgTable(
  "external_payments",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    member_id: text("member_id").notNull(),
    kind: text("kind", { enum: EXTERNAL_PAYMENT_KINDS }).notNull(),
    status: text("status", { enum: EXTERNAL_PAYMENT_STATUSES }).notNull().default("pending"),
    from_account_id: bigint("from_account_id", { mode: "number" }).notNull(),
    /** The ledger hold (pending transaction) carrying amount + fee. */
    hold_transaction_id: bigint("hold_transaction_id", { mode: "number" }).notNull(),
    /** US dollars sent, in cents (for a wire: the foreign amount at the rate), fee excluded. */
    amount_cents: bigint("amount_cents", { mode: "number" }).notNull(),
    fee_cents: bigint("fee_cents", { mode: "number" }).notNull().default(0),
    /** ISO 4217; USD for ACH. */
    currency: text("currency").notNull().default("USD"),
    /** The amount in `currency`'s minor units (wires), null for ACH. */
    foreign_amount_minor: bigint("foreign_amount_minor", { mode: "number" }),
    /** USD per unit of `currency`, the decimal string used (wires). */
    rate: text("rate"),
    /**
     * Routing/account/name (ACH) or recipient, bank, BIC, account, IBAN, country (wire). The account
     * number and IBAN are sealed (`account_number_enc` + `account_last4`, `iban_enc` + `iban_last4`):
     * written and read only through app/server/payments/payment-destination.server.ts (decision 0034).
     */
    details: jsonb("details").$type<Record<string, string>>().notNull(),
    reference: text("reference"),
    idempotency_key: text("idempotency_key").notNull(),
    created_at: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    resolved_at: timestamp("resolved_at", { withTimezone: true }),
    resolved_by: text("resolved_by"),
    /** The exported file (NACHA or pain.001) that sent it; set exactly when the status is sent. */
    export_file_id: bigint("export_file_id", { mode: "number" }),
    /**
     * Why an export left this pending payment out (it cannot be written into the file: a name the
     * file cannot carry...), in staff's words; null while it can go out. It waits in the queue with
     * this reason, its money still held, until staff cancel it (docs/product.md#payment-queues).
     */
    export_problem: text("export_problem"),
    /**
     * A remittance transfer (a member's wire, docs/product.md#remittance-transfers): until when the
     * member may cancel it (30 minutes after paying, 12 CFR 1005.34); the export leaves it in the
     * queue until then. Null for ACH and for wires sent while the profile's exemption was on.
     */
    cancel_until: timestamp("cancel_until", { withTimezone: true }),
    /** The date of availability the receipt states (YYYY-MM-DD); null for ACH. */
    available_on: text("available_on"),
    /** Covered third-party fees disclosed, in `currency`'s minor units; null for ACH. */
    third_party_fee_minor: bigint("third_party_fee_minor", { mode: "number" }),
  },
  (t) => [
    unique("external_payments_member_key_unique").on(t.member_id, t.idempotency_key),
    index("external_payments_queue_idx").on(t.kind, t.status, t.id),
    index("external_payments_member_created_idx").on(t.member_id, t.created_at),
    check("external_payments_kind_valid", sql`${t.kind} in ('ach', 'wire')`),
    check(
      "external_payments_status_valid",
      sql`${t.status} in ('pending', 'sent', 'cancelled', 'screening', 'blocked')`,
    ),
    check("external_payments_amount_positive", sql`${t.amount_cents} > 0 and ${t.fee_cents} >= 0`),
    check("external_payments_sent_has_file", sql`(${t.status} = 'sent') = (${t.export_file_id} is not null)`),
    index("external_payments_export_file_idx").on(t.export_file_id),
    // Each payment has its own hold; the member's history finds a ledger transaction's payment by it.
    uniqueIndex("external_payments_hold_transaction_unique").on(t.hold_transaction_id),
    // The rows the start-up pass still has to seal, in its order (id): empty once they are sealed.
    index("external_payments_plain_numbers_idx").on(t.id).where(holdsPlainNumber(t.details)),
  ],
);

/**
 * The files the back office exported to send payments (docs/product.md#payment-queues): a NACHA
 * file of ACH credits or a pain.001 message of wires, kept whole so it can be downloaded again.
 * Written in the same database transaction that marks its payments sent and settles their holds.
 */
export const paymentExportFiles = pgTable(
  "payment_export_files",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    kind: text("kind", { enum: EXTERNAL_PAYMENT_KINDS }).notNull(),
    file_name: text("file_name").notNull(),
    content: text("content").notNull(),
    sha256: text("sha256").notNull(),
    /** The institution's business date the file was made on (NACHA's file id modifier counts per day). */
    business_date: date("business_date").notNull(),
    /** ACH: the entries' effective date; wires: the requested execution date. */
    effective_date: date("effective_date").notNull(),
    payment_count: integer("payment_count").notNull(),
    /** US dollars sent, in cents (fees excluded). */
    total_cents: bigint("total_cents", { mode: "number" }).notNull(),
    created_by: text("created_by").notNull(),
    created_at: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [
    unique("payment_export_files_name_unique").on(t.file_name),
    index("payment_export_files_kind_idx").on(t.kind, t.id),
    check("payment_export_files_kind_valid", sql`${t.kind} in ('ach', 'wire')`),
    // An ACH file may carry only linked accounts' micro-deposits (docs/product.md#linked-accounts):
    // no payments then; a file with payments has their positive total.
    check(
      "payment_export_files_counts",
      sql`${t.payment_count} >= 0 and ${t.total_cents} >= 0 and (${t.payment_count} = 0) = (${t.total_cents} = 0)`,
    ),
  ],
);

/** The back office's USD rate per unit of a currency (a decimal string, never a float). */
export const currencyRates = pgTable("currency_rates", {
  code: text("code").primaryKey(),
  usd_per_unit: text("usd_per_unit").notNull(),
  updated_by: text("updated_by").notNull(),
  updated_at: timestamp("updated_at", { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});

/**
 * One row (id 1): staff pause every outgoing external payment ("Transaction Denied",
 * docs/product.md#refusals).
 */
export const paymentControls = pgTable(
  "payment_controls",
  {
    id: integer("id").primaryKey().default(1),
    outgoing_paused: boolean("outgoing_paused").notNull().default(false),
    reason: text("reason"),
    updated_by: text("updated_by"),
    updated_at: timestamp("updated_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [check("payment_controls_single_row", sql`${t.id} = 1`)],
);

/** Step-up one-time codes for payments to other banks: keyed hash, 10 minutes, 5 tries, single use. */
export const paymentStepUpCodes = pgTable(
  "payment_step_up_codes",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    member_id: text("member_id").notNull(),
    code_hash: text("code_hash").notNull(),
    expires_at: timestamp("expires_at", { withTimezone: true }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    used_at: timestamp("used_at", { withTimezone: true }),
    created_at: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [index("payment_step_up_codes_member_idx").on(t.member_id, t.id)],
);

export type ExternalPayment = typeof externalPayments.$inferSelect;
export type PaymentExportFile = typeof paymentExportFiles.$inferSelect;
