import { sql } from "drizzle-orm";
import { bigint, bigserial, check, date, index, pgTable, text, timestamp, unique } from "drizzle-orm/pg-core";
import { HOLD_EXCEPTIONS } from "../../../domain/funds-availability";

/**
 * Mobile deposits (docs/product.md#mobile-deposit): a check photographed front and back, with a
 * pending credit in the ledger (`pending_transaction_id`, against deposits in transit) that is not
 * available while staff review it. Approving settles that credit and places the funds-availability
 * holds of the institution's policy (the part available the next business day and the rest later),
 * which the availability job releases on their dates; rejecting releases the credit with a reason.
 * The images are files under DATA_DIR/uploads/mobile-deposits, encrypted, named here; their
 * SHA-256 (of the bytes the member sent) finds the same check sent twice. Nothing is deleted.
 */
export const MOBILE_DEPOSIT_STATUSES = ["pending_review", "approved", "rejected"] as const;
export type MobileDepositStatus = (typeof MOBILE_DEPOSIT_STATUSES)[number];

export const mobileDeposits = pgTable(
  "mobile_deposits",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    member_id: text("member_id").notNull(),
    account_id: bigint("account_id", { mode: "number" }).notNull(),
    amount_cents: bigint("amount_cents", { mode: "number" }).notNull(),
    status: text("status", { enum: MOBILE_DEPOSIT_STATUSES }).notNull().default("pending_review"),
    /** The ledger's pending credit (member account +, deposits in transit -). */
    pending_transaction_id: bigint("pending_transaction_id", { mode: "number" }).notNull(),
    /** The form's key: the same submission sent twice makes one deposit. */
    idempotency_key: text("idempotency_key").notNull(),
    front_image_file: text("front_image_file").notNull(),
    back_image_file: text("back_image_file").notNull(),
    /** SHA-256 (hex) of the image as uploaded. */
    front_image_sha256: text("front_image_sha256").notNull(),
    back_image_sha256: text("back_image_sha256").notNull(),
    /** An earlier deposit of the same amount to the same account with the same image: shown to staff. */
    duplicate_of_id: bigint("duplicate_of_id", { mode: "number" }),
    created_at: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    reviewed_at: timestamp("reviewed_at", { withTimezone: true }),
    reviewed_by: text("reviewed_by"),
    /** Why staff rejected it, as the member is told. */
    reject_reason: text("reject_reason"),
    /** Funds availability (set on approval): the part available from `next_day_available_on`... */
    next_day_amount_cents: bigint("next_day_amount_cents", { mode: "number" }).notNull().default(0),
    next_day_available_on: date("next_day_available_on", { mode: "string" }),
    next_day_hold_transaction_id: bigint("next_day_hold_transaction_id", { mode: "number" }),
    /** ...and the rest, from `later_available_on`. */
    later_amount_cents: bigint("later_amount_cents", { mode: "number" }).notNull().default(0),
    later_available_on: date("later_available_on", { mode: "string" }),
    later_hold_transaction_id: bigint("later_hold_transaction_id", { mode: "number" }),
    /**
     * Regulation CC (docs/product.md#funds-availability), set on approval: the banking day of
     * deposit the schedule counts from, and the part held longer under an exception of 12 CFR 229.13
     * (which one, staff's reason for a reasonable-cause hold, the amount, the day it is available).
     */
    deposited_on: date("deposited_on", { mode: "string" }),
    hold_exception: text("hold_exception", { enum: HOLD_EXCEPTIONS }),
    hold_reason: text("hold_reason"),
    exception_amount_cents: bigint("exception_amount_cents", { mode: "number" }).notNull().default(0),
    exception_available_on: date("exception_available_on", { mode: "string" }),
    exception_hold_transaction_id: bigint("exception_hold_transaction_id", { mode: "number" }),
    /** The exception hold notice (229.13(g)): when it was given, and how (email, or mail for a member on paper). */
    hold_notice_at: timestamp("hold_notice_at", { withTimezone: true }),
    hold_notice_channel: text("hold_notice_channel", { enum: ["email", "mail"] }),
    /** When every availability hold was released (the whole deposit is available). */
    funds_available_at: timestamp("funds_available_at", { withTimezone: true }),
  },
  (t) => [
    unique("mobile_deposits_member_key_unique").on(t.member_id, t.idempotency_key),
    index("mobile_deposits_status_idx").on(t.status, t.id),
    index("mobile_deposits_member_idx").on(t.member_id, t.id),
    index("mobile_deposits_same_check_idx").on(t.account_id, t.amount_cents),
    // The back office asks whose a pending ledger transaction is (a staff Release is refused on a deposit waiting for review).
    index("mobile_deposits_pending_transaction_idx").on(t.pending_transaction_id),
    index("mobile_deposits_availability_idx")
      .on(t.id)
      .where(sql`${t.status} = 'approved' and ${t.funds_available_at} is null`),
    check("mobile_deposits_status_valid", sql`${t.status} in ('pending_review', 'approved', 'rejected')`),
    check("mobile_deposits_amount_positive", sql`${t.amount_cents} > 0`),
    check("mobile_deposits_reviewed", sql`(${t.status} = 'pending_review') = (${t.reviewed_at} is null)`),
    check("mobile_deposits_rejected_has_reason", sql`(${t.status} = 'rejected') = (${t.reject_reason} is not null)`),
    check(
      "mobile_deposits_availability_split",
      sql`${t.next_day_amount_cents} >= 0 and ${t.later_amount_cents} >= 0 and ${t.exception_amount_cents} >= 0 and ${t.next_day_amount_cents} + ${t.later_amount_cents} + ${t.exception_amount_cents} <= ${t.amount_cents}`,
    ),
    check(
      "mobile_deposits_hold_exception_valid",
      sql`${t.hold_exception} is null or ${t.hold_exception} in ('new_account', 'large_deposit', 'redeposited', 'reasonable_cause')`,
    ),
    // 229.13(e)(1): a reasonable-cause hold states its reason to the member.
    check(
      "mobile_deposits_reasonable_cause_has_reason",
      sql`${t.hold_exception} is distinct from 'reasonable_cause' or ${t.hold_reason} is not null`,
    ),
    check(
      "mobile_deposits_hold_notice_given",
      sql`${t.exception_amount_cents} = 0 or (${t.hold_exception} is not null and ${t.hold_notice_at} is not null)`,
    ),
  ],
);

export type MobileDepositRow = typeof mobileDeposits.$inferSelect;
