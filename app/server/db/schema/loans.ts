import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  check,
  customType,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  unique,
} from "drizzle-orm/pg-core";
import { LOAN_APPLICATION_STATUSES } from "../../../domain/loans/products";

/**
 * Loan applications (docs/product.md#loans, issue 33): what a member asked for, what staff decided
 * (an offer, or a decline with Regulation B's reasons), and the member's acceptance with the Truth
 * in Lending disclosure they were shown. Income and employer are personal data, encrypted at rest
 * (AES-256-GCM bound to the column and member, app/server/security/crypto.server.ts). Nothing is
 * deleted; every step is also in the audit log.
 */
const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/** PDF bytes: node-postgres hands bytea back as a Buffer, PGlite as a Uint8Array; both become a Buffer. */
const bytes = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => "bytea",
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value)),
});

export const loanApplications = pgTable(
  "loan_applications",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    member_id: text("member_id").notNull(),
    /** The profile's loan product (`loan_products[].slug`) and its name when the member applied. */
    product_slug: text("product_slug").notNull(),
    product_name: text("product_name").notNull(),
    amount_cents: bigint("amount_cents", { mode: "number" }).notNull(),
    term_months: integer("term_months").notNull(),
    purpose: text("purpose").notNull(),
    /** Yearly gross income in cents and the employer's name, each encrypted (personal data). */
    income_enc: text("income_enc").notNull(),
    employer_enc: text("employer_enc").notNull(),
    status: text("status", { enum: LOAN_APPLICATION_STATUSES }).notNull().default("submitted"),
    idempotency_key: text("idempotency_key").notNull(),
    created_at: timestamptz("created_at").notNull().defaultNow(),
    /** The decision: who and when. */
    decided_at: timestamptz("decided_at"),
    decided_by: text("decided_by"),
    decided_by_email: text("decided_by_email"),
    /** An approval or counter-offer: the terms offered, and the last business date it may be accepted. */
    offer_amount_cents: bigint("offer_amount_cents", { mode: "number" }),
    offer_term_months: integer("offer_term_months"),
    offer_rate_ppm: integer("offer_rate_ppm"),
    offer_expires_on: date("offer_expires_on", { mode: "string" }),
    /** A decline: the Regulation B reasons (keys of ADVERSE_ACTION_REASONS) and, for "other", the words. */
    adverse_reasons: jsonb("adverse_reasons").$type<string[]>(),
    adverse_other_text: text("adverse_other_text"),
    /** The acceptance: when, the disclosure as shown (its figures) and as a PDF. */
    accepted_at: timestamptz("accepted_at"),
    disclosure: jsonb("disclosure").$type<Record<string, unknown>>(),
    disclosure_pdf: bytes("disclosure_pdf"),
  },
  (t) => [
    unique("loan_applications_member_key_unique").on(t.member_id, t.idempotency_key),
    index("loan_applications_member_idx").on(t.member_id, t.id),
    index("loan_applications_open_idx")
      .on(t.status)
      .where(sql`${t.status} = 'submitted'`),
    check(
      "loan_applications_status_valid",
      sql`${t.status} in ('submitted', 'approved', 'countered', 'declined', 'accepted', 'lapsed')`,
    ),
    check("loan_applications_amount_positive", sql`${t.amount_cents} > 0`),
    check("loan_applications_term_positive", sql`${t.term_months} > 0`),
    // An offer carries all its terms; a decline its reasons; an acceptance its disclosure.
    check(
      "loan_applications_offer_complete",
      sql`${t.status} not in ('approved', 'countered', 'accepted', 'lapsed') or (${t.offer_amount_cents} > 0 and ${t.offer_term_months} > 0 and ${t.offer_rate_ppm} >= 0 and ${t.offer_expires_on} is not null)`,
    ),
    check(
      "loan_applications_decline_explained",
      sql`${t.status} <> 'declined' or jsonb_array_length(${t.adverse_reasons}) > 0`,
    ),
    check(
      "loan_applications_accepted_disclosed",
      sql`${t.status} <> 'accepted' or (${t.accepted_at} is not null and ${t.disclosure_pdf} is not null)`,
    ),
  ],
);

export type LoanApplicationRow = typeof loanApplications.$inferSelect;

/**
 * A booked loan (docs/product.md#loans): made when the member accepts an offer. The money went
 * out in one ledger transaction (kind `loan_disbursement`) crediting the member's checking from the
 * loan's own receivable account; what the member owes is that account's balance. The terms are
 * the accepted disclosure's.
 */
export const loans = pgTable(
  "loans",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    application_id: bigint("application_id", { mode: "number" })
      .notNull()
      .references(() => loanApplications.id),
    member_id: text("member_id").notNull(),
    product_name: text("product_name").notNull(),
    receivable_account_id: bigint("receivable_account_id", { mode: "number" }).notNull(),
    checking_account_id: bigint("checking_account_id", { mode: "number" }).notNull(),
    disbursement_transaction_id: bigint("disbursement_transaction_id", { mode: "number" }).notNull(),
    principal_cents: bigint("principal_cents", { mode: "number" }).notNull(),
    rate_ppm: integer("rate_ppm").notNull(),
    apr_bp: integer("apr_bp").notNull(),
    term_months: integer("term_months").notNull(),
    disbursed_on: date("disbursed_on", { mode: "string" }).notNull(),
    first_payment_on: date("first_payment_on", { mode: "string" }).notNull(),
    created_at: timestamptz("created_at").notNull().defaultNow(),
  },
  (t) => [
    unique("loans_application_unique").on(t.application_id),
    unique("loans_receivable_unique").on(t.receivable_account_id),
    index("loans_member_idx").on(t.member_id, t.id),
    check("loans_principal_positive", sql`${t.principal_cents} > 0`),
  ],
);

/** A booked loan's payment schedule as computed at booking (app/domain/loans/schedule.ts). */
export const loanScheduledPayments = pgTable(
  "loan_scheduled_payments",
  {
    loan_id: bigint("loan_id", { mode: "number" })
      .notNull()
      .references(() => loans.id),
    number: integer("number").notNull(),
    due_on: date("due_on", { mode: "string" }).notNull(),
    payment_cents: bigint("payment_cents", { mode: "number" }).notNull(),
    interest_cents: bigint("interest_cents", { mode: "number" }).notNull(),
    principal_cents: bigint("principal_cents", { mode: "number" }).notNull(),
    balance_after_cents: bigint("balance_after_cents", { mode: "number" }).notNull(),
  },
  (t) => [
    unique("loan_scheduled_payments_unique").on(t.loan_id, t.number),
    check("loan_scheduled_payments_sums", sql`${t.payment_cents} = ${t.interest_cents} + ${t.principal_cents}`),
  ],
);

export type LoanRow = typeof loans.$inferSelect;
