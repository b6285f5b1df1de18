import { sql } from "drizzle-orm";
import { bigint, bigserial, check, date, index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { ledgerTransactions } from "./ledger";
import { loans } from "./loans";

/**
 * Staff's corrections of a booked loan (docs/product.md#booked-loans-staff): a late fee waived or
 * a servicing entry (an interest accrual, a payment) reversed, each by a new ledger transaction
 * (`transaction_id`) with the opposite entries of the one it corrects (`target_transaction_id`),
 * never an edit. Posted at once at or under the profile's second-approval amount, otherwise
 * waiting for a second staff member (maker-checker; the database refuses a checker who is the
 * maker). One correction per entry: a second is refused while one waits or has posted.
 */
export const LOAN_STAFF_ACTION_KINDS = ["waive_fee", "correct_entry"] as const;
export const LOAN_STAFF_ACTION_STATUSES = ["awaiting_approval", "posted", "declined"] as const;

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const loanStaffActions = pgTable(
  "loan_staff_actions",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    loan_id: bigint("loan_id", { mode: "number" })
      .notNull()
      .references(() => loans.id),
    member_id: text("member_id").notNull(),
    kind: text("kind", { enum: LOAN_STAFF_ACTION_KINDS }).notNull(),
    /** What is corrected: a late fee, an interest accrual or a payment, by its ledger transaction. */
    target_kind: text("target_kind", { enum: ["late_fee", "interest", "payment"] }).notNull(),
    target_transaction_id: bigint("target_transaction_id", { mode: "number" })
      .notNull()
      .references(() => ledgerTransactions.id),
    amount_cents: bigint("amount_cents", { mode: "number" }).notNull(),
    reason: text("reason").notNull(),
    status: text("status", { enum: LOAN_STAFF_ACTION_STATUSES }).notNull(),
    requested_by: text("requested_by").notNull(),
    requested_by_email: text("requested_by_email"),
    requested_at: timestamptz("requested_at").defaultNow().notNull(),
    decided_by: text("decided_by"),
    decided_by_email: text("decided_by_email"),
    decided_at: timestamptz("decided_at"),
    decline_reason: text("decline_reason"),
    transaction_id: bigint("transaction_id", { mode: "number" }).references(() => ledgerTransactions.id),
    posted_on: date("posted_on", { mode: "string" }),
  },
  (t) => [
    index("loan_staff_actions_loan_idx").on(t.loan_id, t.id),
    uniqueIndex("loan_staff_actions_once")
      .on(t.target_transaction_id)
      .where(sql`${t.status} <> 'declined'`),
    check("loan_staff_actions_kind_valid", sql`${t.kind} in ('waive_fee', 'correct_entry')`),
    check("loan_staff_actions_target_valid", sql`${t.target_kind} in ('late_fee', 'interest', 'payment')`),
    check("loan_staff_actions_status_valid", sql`${t.status} in ('awaiting_approval', 'posted', 'declined')`),
    check("loan_staff_actions_amount_positive", sql`${t.amount_cents} > 0`),
    check("loan_staff_actions_reason_required", sql`length(${t.reason}) > 0`),
    check("loan_staff_actions_checker_not_maker", sql`${t.decided_by} is null or ${t.decided_by} <> ${t.requested_by}`),
    check("loan_staff_actions_posted_has_transaction", sql`${t.status} <> 'posted' or ${t.transaction_id} is not null`),
    check(
      "loan_staff_actions_declined_has_reason",
      sql`${t.status} <> 'declined' or (${t.decided_by} is not null and length(${t.decline_reason}) > 0)`,
    ),
  ],
);

export type LoanStaffActionRow = typeof loanStaffActions.$inferSelect;
