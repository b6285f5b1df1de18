import { sql } from "drizzle-orm";
import { bigint, bigserial, check, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

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
