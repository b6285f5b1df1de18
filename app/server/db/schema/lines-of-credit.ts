import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  check,
  date,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  unique,
} from "drizzle-orm/pg-core";
import { loanApplications } from "./loans";

/**
 * Lines of credit (docs/product.md#lines-of-credit, issue 33): open-end credit booked when the
 * member accepts a line's offer. Nothing is paid out at booking: the line's own receivable account
 * (a `loan_receivable`) is opened at zero and each draw debits it. What the member owes is that
 * account's balance (principal drawn and fees) plus the interest accrued and unpaid. The terms are
 * the account-opening disclosure's, kept on the line: a later change of the profile does not
 * change a line already opened. Nothing is deleted.
 */
export const CREDIT_LINE_STATUSES = ["active", "closed"] as const;
export const CREDIT_LINE_ACTIVITY_KINDS = ["draw", "payment", "autopay"] as const;

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const creditLines = pgTable(
  "credit_lines",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    application_id: bigint("application_id", { mode: "number" })
      .notNull()
      .references(() => loanApplications.id),
    member_id: text("member_id").notNull(),
    product_name: text("product_name").notNull(),
    receivable_account_id: bigint("receivable_account_id", { mode: "number" }).notNull(),
    credit_limit_cents: bigint("credit_limit_cents", { mode: "number" }).notNull(),
    rate_ppm: integer("rate_ppm").notNull(),
    /** The minimum payment rule: the greater of this percent (ppm) of the balance and the floor. */
    minimum_payment_ppm: integer("minimum_payment_ppm").notNull(),
    minimum_payment_floor_cents: bigint("minimum_payment_floor_cents", { mode: "number" }).notNull(),
    grace_days: integer("grace_days").notNull(),
    late_fee_cents: bigint("late_fee_cents", { mode: "number" }).notNull(),
    opened_on: date("opened_on", { mode: "string" }).notNull(),
    status: text("status", { enum: CREDIT_LINE_STATUSES }).notNull().default("active"),
    /**
     * Servicing, changed only in the transaction of the ledger posting it follows from, under the
     * line's row lock (as a loan's: interest accrued for every day before `interest_accrued_to`,
     * `accrual_carry` in 1/365,000,000 cent, `fees_due_cents` the unpaid late fees held in the
     * receivable with the principal). `next_cycle_close_on`: the next billing cycle's close.
     */
    interest_accrued_to: date("interest_accrued_to", { mode: "string" }).notNull(),
    accrued_interest_cents: bigint("accrued_interest_cents", { mode: "number" }).notNull().default(0),
    accrual_carry: bigint("accrual_carry", { mode: "number" }).notNull().default(0),
    fees_due_cents: bigint("fees_due_cents", { mode: "number" }).notNull().default(0),
    next_cycle_close_on: date("next_cycle_close_on", { mode: "string" }).notNull(),
    cycles_closed: integer("cycles_closed").notNull().default(0),
    /** Autopay of each cycle's minimum on its due date: the member's account; null when off. */
    autopay_account_id: bigint("autopay_account_id", { mode: "number" }),
    /**
     * Draws stopped (docs/product.md#line-of-credit-servicing): frozen by staff until unfrozen, or
     * closed to draws for ever while what is owed is repaid; the reason is told to the member. The
     * history of who did what is `credit_line_changes`. `closed_on`: the day a line closed to
     * draws was paid and closed.
     */
    frozen_reason: text("frozen_reason"),
    closing_reason: text("closing_reason"),
    closed_on: date("closed_on", { mode: "string" }),
    created_at: timestamptz("created_at").notNull().defaultNow(),
  },
  (t) => [
    unique("credit_lines_application_unique").on(t.application_id),
    unique("credit_lines_receivable_unique").on(t.receivable_account_id),
    index("credit_lines_member_idx").on(t.member_id, t.id),
    check("credit_lines_limit_positive", sql`${t.credit_limit_cents} > 0`),
    check("credit_lines_status_valid", sql`${t.status} in ('active', 'closed')`),
    check(
      "credit_lines_stop_reasons_valid",
      sql`coalesce(${t.frozen_reason}, 'fraud') in ('fraud', 'delinquency', 'member_request') and coalesce(${t.closing_reason}, 'fraud') in ('fraud', 'delinquency', 'member_request')`,
    ),
    check(
      "credit_lines_terms_valid",
      sql`${t.rate_ppm} >= 0 and ${t.minimum_payment_ppm} > 0 and ${t.minimum_payment_floor_cents} > 0 and ${t.grace_days} >= 0 and ${t.late_fee_cents} >= 0`,
    ),
    check(
      "credit_lines_servicing_not_negative",
      sql`${t.accrued_interest_cents} >= 0 and ${t.accrual_carry} >= 0 and ${t.accrual_carry} < 365000000 and ${t.fees_due_cents} >= 0`,
    ),
  ],
);

export type CreditLineRow = typeof creditLines.$inferSelect;

/**
 * A closed billing cycle: the balance when it closed, the minimum payment it set and its due date,
 * what the member has paid since it closed, and whether its late fee was charged or its autopay
 * failed (each once per due date).
 */
export const creditLineCycles = pgTable(
  "credit_line_cycles",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    line_id: bigint("line_id", { mode: "number" })
      .notNull()
      .references(() => creditLines.id),
    closed_on: date("closed_on", { mode: "string" }).notNull(),
    due_on: date("due_on", { mode: "string" }).notNull(),
    balance_cents: bigint("balance_cents", { mode: "number" }).notNull(),
    minimum_due_cents: bigint("minimum_due_cents", { mode: "number" }).notNull(),
    paid_cents: bigint("paid_cents", { mode: "number" }).notNull().default(0),
    late_fee_charged: boolean("late_fee_charged").notNull().default(false),
    autopay_failed: boolean("autopay_failed").notNull().default(false),
  },
  (t) => [
    unique("credit_line_cycles_once").on(t.line_id, t.closed_on),
    check(
      "credit_line_cycles_amounts",
      sql`${t.balance_cents} >= 0 and ${t.minimum_due_cents} >= 0 and ${t.minimum_due_cents} <= ${t.balance_cents} and ${t.paid_cents} >= 0 and ${t.due_on} > ${t.closed_on}`,
    ),
  ],
);

export type CreditLineCycleRow = typeof creditLineCycles.$inferSelect;

/**
 * A draw or a payment on a line: one ledger transaction each. A draw (kind `loan_draw`) debits the
 * line's receivable and credits the member's account; a payment (kind `loan_payment`) debits the
 * member's account and is applied to fees, then interest, then principal.
 */
export const creditLineActivity = pgTable(
  "credit_line_activity",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    line_id: bigint("line_id", { mode: "number" })
      .notNull()
      .references(() => creditLines.id),
    member_id: text("member_id").notNull(),
    kind: text("kind", { enum: CREDIT_LINE_ACTIVITY_KINDS }).notNull(),
    /** The member's account the draw went to or the payment came from. */
    account_id: bigint("account_id", { mode: "number" }).notNull(),
    amount_cents: bigint("amount_cents", { mode: "number" }).notNull(),
    fees_cents: bigint("fees_cents", { mode: "number" }).notNull().default(0),
    interest_cents: bigint("interest_cents", { mode: "number" }).notNull().default(0),
    principal_cents: bigint("principal_cents", { mode: "number" }).notNull(),
    transaction_id: bigint("transaction_id", { mode: "number" }).notNull(),
    idempotency_key: text("idempotency_key").notNull(),
    on: date("on", { mode: "string" }).notNull(),
    created_at: timestamptz("created_at").notNull().defaultNow(),
  },
  (t) => [
    unique("credit_line_activity_key_unique").on(t.line_id, t.idempotency_key),
    index("credit_line_activity_line_idx").on(t.line_id, t.id),
    check("credit_line_activity_kind_valid", sql`${t.kind} in ('draw', 'payment', 'autopay')`),
    check(
      "credit_line_activity_applied",
      sql`${t.amount_cents} > 0 and ${t.fees_cents} >= 0 and ${t.interest_cents} >= 0 and ${t.principal_cents} >= 0 and ${t.amount_cents} = ${t.fees_cents} + ${t.interest_cents} + ${t.principal_cents}`,
    ),
  ],
);

export type CreditLineActivityRow = typeof creditLineActivity.$inferSelect;
