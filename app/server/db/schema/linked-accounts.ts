import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  check,
  date,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

/**
 * A member's accounts at other banks (docs/product.md#linked-accounts). The account number is
 * personal data: sealed (`encryptField(number, "linked_accounts.account_number:<member id>")`),
 * with its last four digits kept apart for display. Nothing is deleted: a removed link keeps its
 * row with status `removed`.
 *
 * Verification: two micro-deposits (1-99 cents each) go out as ACH credits in the next ACH file,
 * with one debit taking their sum back (`micro_file_id` is that file); the member types the two
 * amounts back, `attempts` counts the tries (three, then `failed`).
 */
// As app/domain/linked-accounts.ts lists them (drizzle-kit reads this file without the app's aliases).
const LINKED_ACCOUNT_STATUSES = ["pending", "verified", "failed", "removed"] as const;

export const linkedAccounts = pgTable(
  "linked_accounts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    member_id: text("member_id").notNull(),
    routing_number: text("routing_number").notNull(),
    account_number_enc: text("account_number_enc").notNull(),
    account_last4: text("account_last4").notNull(),
    account_type: text("account_type", { enum: ["checking", "savings"] }).notNull(),
    nickname: text("nickname").notNull(),
    status: text("status", { enum: LINKED_ACCOUNT_STATUSES }).notNull().default("pending"),
    /** The two micro-deposits, in cents: what the member proves they can read. */
    micro_first_cents: integer("micro_first_cents").notNull(),
    micro_second_cents: integer("micro_second_cents").notNull(),
    /** Confirmations tried (wrong and right): at most three. */
    attempts: integer("attempts").notNull().default(0),
    /** The ACH file that carried the micro-deposits; null until the next export. */
    micro_file_id: bigint("micro_file_id", { mode: "number" }),
    created_at: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    /** When it became verified, failed or removed. */
    resolved_at: timestamp("resolved_at", { withTimezone: true }),
    /**
     * Why the other bank made it fail: the return code of a micro-deposit or of a pull it sent back
     * (R02 closed, R03 no account, R10 not authorized...; docs/product.md#move-money-in).
     */
    return_code: text("return_code"),
  },
  (t) => [
    index("linked_accounts_member_idx").on(t.member_id, t.id),
    // The export finds the links whose micro-deposits have not gone out yet.
    index("linked_accounts_micro_pending_idx")
      .on(t.id)
      .where(sql`${t.micro_file_id} is null and ${t.status} = 'pending'`),
    check("linked_accounts_status_valid", sql`${t.status} in ('pending', 'verified', 'failed', 'removed')`),
    check("linked_accounts_type_valid", sql`${t.account_type} in ('checking', 'savings')`),
    check(
      "linked_accounts_micro_range",
      sql`${t.micro_first_cents} between 1 and 99 and ${t.micro_second_cents} between 1 and 99`,
    ),
    check("linked_accounts_attempts_range", sql`${t.attempts} between 0 and 3`),
  ],
);

export type LinkedAccount = typeof linkedAccounts.$inferSelect;

/**
 * Money a member moves in from a verified linked account (docs/product.md#move-money-in): an ACH
 * debit (WEB, 27/37) in the next ACH file. Nothing is deleted.
 *
 * - pending: asked for; the credit waits as a pending ledger transaction (`credit_transaction_id`)
 *   until the file goes out.
 * - sent: in the file `export_file_id` with `trace_number`; the credit posted and an availability
 *   hold (`hold_transaction_id`) keeps the money until `available_on` (`available_at` once released).
 * - returned: the other bank sent it back (`return_code`); the credit was reversed.
 * - cancelled: the link was removed or failed before the file went out; the credit was released.
 *
 * The authorization Nacha's WEB rules ask the originator to keep (who, when, the exact words with
 * the amount and the accounts masked) is `member_id`, `created_at` and `authorization_text`.
 */
const MONEY_IN_STATUSES = ["pending", "sent", "returned", "cancelled"] as const;

export const moneyInPulls = pgTable(
  "money_in_pulls",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    member_id: text("member_id").notNull(),
    linked_account_id: bigint("linked_account_id", { mode: "number" }).notNull(),
    /** The member's own account credited. */
    account_id: bigint("account_id", { mode: "number" }).notNull(),
    amount_cents: bigint("amount_cents", { mode: "number" }).notNull(),
    status: text("status", { enum: MONEY_IN_STATUSES }).notNull().default("pending"),
    /** The form's key: a double submit asks once. */
    idempotency_key: text("idempotency_key").notNull(),
    /** The words the member agreed to, exactly as shown (amount and accounts masked in them). */
    authorization_text: text("authorization_text").notNull(),
    /** The pending credit, settled when the file goes out. */
    credit_transaction_id: bigint("credit_transaction_id", { mode: "number" }).notNull(),
    export_file_id: bigint("export_file_id", { mode: "number" }),
    trace_number: text("trace_number"),
    effective_date: date("effective_date", { mode: "string" }),
    hold_transaction_id: bigint("hold_transaction_id", { mode: "number" }),
    available_on: date("available_on", { mode: "string" }),
    available_at: timestamp("available_at", { withTimezone: true }),
    return_code: text("return_code"),
    /** The reversal of the credit when the pull came back. */
    return_transaction_id: bigint("return_transaction_id", { mode: "number" }),
    created_at: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    resolved_at: timestamp("resolved_at", { withTimezone: true }),
  },
  (t) => [
    index("money_in_pulls_member_idx").on(t.member_id, t.id),
    uniqueIndex("money_in_pulls_key_idx").on(t.member_id, t.idempotency_key),
    // The export finds the pulls waiting for the next file.
    index("money_in_pulls_pending_idx")
      .on(t.id)
      .where(sql`${t.status} = 'pending'`),
    // The availability job finds the holds whose day has come.
    index("money_in_pulls_held_idx")
      .on(t.available_on)
      .where(sql`${t.status} = 'sent' and ${t.available_at} is null`),
    check("money_in_pulls_status_valid", sql`${t.status} in ('pending', 'sent', 'returned', 'cancelled')`),
    check("money_in_pulls_amount_positive", sql`${t.amount_cents} > 0`),
  ],
);

export type MoneyInPull = typeof moneyInPulls.$inferSelect;
