import { sql } from "drizzle-orm";
import {
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
} from "drizzle-orm/pg-core";
import { bytes } from "./columns";
import { LOAN_APPLICATION_STATUSES } from "../../../domain/loans/products";

/**
 * Loan applications (docs/product.md#loans, issue 33): what a member asked for, what staff decided
 * (an offer, or a decline with Regulation B's reasons), and the member's acceptance with the Truth
 * in Lending disclosure they were shown. Income and employer are personal data, encrypted at rest
 * (AES-256-GCM bound to the column and member, app/server/security/crypto.server.ts). Nothing is
 * deleted; every step is also in the audit log.
 */
export const LOAN_STATUSES = ["active", "paid_off"] as const;
export const LOAN_PAYMENT_KINDS = ["one_time", "autopay"] as const;
export const LOAN_EVENT_KINDS = ["interest", "late_fee", "autopay_failed"] as const;

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const loanApplications = pgTable(
  "loan_applications",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    member_id: text("member_id").notNull(),
    /** The profile's loan product (`loan_products[].slug`) and its name when the member applied. */
    product_slug: text("product_slug").notNull(),
    product_name: text("product_name").notNull(),
    /** What the member asked for: an amount and term, or for a line of credit (`open_end`) a credit limit and no term. */
    amount_cents: bigint("amount_cents", { mode: "number" }).notNull(),
    term_months: integer("term_months"),
    open_end: boolean("open_end").notNull().default(false),
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
    check(
      "loan_applications_term_positive",
      sql`(${t.open_end} and ${t.term_months} is null) or (not ${t.open_end} and ${t.term_months} > 0)`,
    ),
    // An offer carries all its terms; a decline its reasons; an acceptance its disclosure.
    check(
      "loan_applications_offer_complete",
      sql`${t.status} not in ('approved', 'countered', 'accepted', 'lapsed') or (${t.offer_amount_cents} > 0 and (${t.offer_term_months} > 0 or (${t.open_end} and ${t.offer_term_months} is null)) and ${t.offer_rate_ppm} >= 0 and ${t.offer_expires_on} is not null)`,
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
    /**
     * Servicing (docs/product.md#loan-servicing). Each column changes only in the database
     * transaction of the ledger posting it follows from. Interest has been accrued for every day
     * before `interest_accrued_to`; `accrued_interest_cents` of it is unpaid (the loan's share of
     * the interest receivable account); `accrual_carry` is the fraction of a cent carried to the
     * next accrual, in units of 1/365,000,000 cent. `fees_due_cents` is the unpaid late fees (held
     * in the loan's receivable with the principal). `paid_toward_schedule_cents` sums every
     * payment's interest and principal: how far the scheduled payments are covered.
     */
    status: text("status", { enum: LOAN_STATUSES }).notNull().default("active"),
    interest_accrued_to: date("interest_accrued_to", { mode: "string" }).notNull(),
    accrued_interest_cents: bigint("accrued_interest_cents", { mode: "number" }).notNull().default(0),
    accrual_carry: bigint("accrual_carry", { mode: "number" }).notNull().default(0),
    fees_due_cents: bigint("fees_due_cents", { mode: "number" }).notNull().default(0),
    paid_toward_schedule_cents: bigint("paid_toward_schedule_cents", { mode: "number" }).notNull().default(0),
    closed_on: date("closed_on", { mode: "string" }),
    /** Autopay: the member's account each due date's payment is taken from; null when off. */
    autopay_account_id: bigint("autopay_account_id", { mode: "number" }),
  },
  (t) => [
    unique("loans_application_unique").on(t.application_id),
    unique("loans_receivable_unique").on(t.receivable_account_id),
    index("loans_member_idx").on(t.member_id, t.id),
    check("loans_principal_positive", sql`${t.principal_cents} > 0`),
    check("loans_status_valid", sql`${t.status} in ('active', 'paid_off')`),
    check(
      "loans_servicing_not_negative",
      sql`${t.accrued_interest_cents} >= 0 and ${t.accrual_carry} >= 0 and ${t.accrual_carry} < 365000000 and ${t.fees_due_cents} >= 0 and ${t.paid_toward_schedule_cents} >= 0`,
    ),
    check("loans_closed_when_paid_off", sql`(${t.status} = 'paid_off') = (${t.closed_on} is not null)`),
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

/**
 * A payment on a loan (docs/product.md#loan-servicing): one ledger transaction (kind
 * `loan_payment`) from the member's account, applied to fees, then interest, then principal.
 */
export const loanPayments = pgTable(
  "loan_payments",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    loan_id: bigint("loan_id", { mode: "number" })
      .notNull()
      .references(() => loans.id),
    member_id: text("member_id").notNull(),
    from_account_id: bigint("from_account_id", { mode: "number" }).notNull(),
    /** `one_time` (the member paid) or `autopay` (on a due date). */
    kind: text("kind", { enum: LOAN_PAYMENT_KINDS }).notNull(),
    amount_cents: bigint("amount_cents", { mode: "number" }).notNull(),
    fees_cents: bigint("fees_cents", { mode: "number" }).notNull(),
    interest_cents: bigint("interest_cents", { mode: "number" }).notNull(),
    principal_cents: bigint("principal_cents", { mode: "number" }).notNull(),
    transaction_id: bigint("transaction_id", { mode: "number" }).notNull(),
    idempotency_key: text("idempotency_key").notNull(),
    paid_on: date("paid_on", { mode: "string" }).notNull(),
    created_at: timestamptz("created_at").notNull().defaultNow(),
  },
  (t) => [
    unique("loan_payments_loan_key_unique").on(t.loan_id, t.idempotency_key),
    index("loan_payments_loan_idx").on(t.loan_id, t.id),
    check("loan_payments_kind_valid", sql`${t.kind} in ('one_time', 'autopay')`),
    check(
      "loan_payments_applied",
      sql`${t.amount_cents} > 0 and ${t.fees_cents} >= 0 and ${t.interest_cents} >= 0 and ${t.principal_cents} >= 0 and ${t.amount_cents} = ${t.fees_cents} + ${t.interest_cents} + ${t.principal_cents}`,
    ),
  ],
);

/**
 * What the loan-servicing job did to a loan: each night's interest (`interest`, for the days from
 * `from_on` to the day before `on`), a late fee (`late_fee`, `on` = the missed due date, once), an
 * autopay attempt that failed (`autopay_failed`, `on` = the due date). A row per loan, kind and
 * day: the job's own idempotency.
 */
export const loanEvents = pgTable(
  "loan_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    loan_id: bigint("loan_id", { mode: "number" })
      .notNull()
      .references(() => loans.id),
    kind: text("kind", { enum: LOAN_EVENT_KINDS }).notNull(),
    on: date("on", { mode: "string" }).notNull(),
    from_on: date("from_on", { mode: "string" }),
    amount_cents: bigint("amount_cents", { mode: "number" }).notNull().default(0),
    /** The ledger transaction, when money moved (none for interest under a cent, or a failure). */
    transaction_id: bigint("transaction_id", { mode: "number" }),
    created_at: timestamptz("created_at").notNull().defaultNow(),
  },
  (t) => [
    unique("loan_events_once").on(t.loan_id, t.kind, t.on),
    check("loan_events_kind_valid", sql`${t.kind} in ('interest', 'late_fee', 'autopay_failed')`),
    check("loan_events_amount_not_negative", sql`${t.amount_cents} >= 0`),
  ],
);
