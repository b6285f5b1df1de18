import { sql } from "drizzle-orm";
import { bigint, bigserial, check, date, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { ledgerAccounts, ledgerTransactions } from "./ledger";
import { loanApplications, loans } from "./loans";

/**
 * The savings a member pledged for a share-secured loan (docs/product.md#share-secured-loans):
 * named with the application (`pledged`), held once the loan is booked (`held`: a pending ledger
 * transaction debiting the savings for the principal owed, so the available balance drops and the
 * balance stays), released at payoff (`released`). The hold is lowered after each payment by
 * releasing it and placing the smaller one in the same database transaction;
 * `hold_transaction_id` is the one in force (none once the principal owed is zero).
 */
export const SHARE_PLEDGE_STATUSES = ["pledged", "held", "released"] as const;

export const sharePledges = pgTable(
  "share_pledges",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    application_id: bigint("application_id", { mode: "number" })
      .notNull()
      .unique("share_pledges_application_unique")
      .references(() => loanApplications.id),
    member_id: text("member_id").notNull(),
    account_id: bigint("account_id", { mode: "number" })
      .notNull()
      .references(() => ledgerAccounts.id),
    loan_id: bigint("loan_id", { mode: "number" })
      .unique("share_pledges_loan_unique")
      .references(() => loans.id),
    status: text("status", { enum: SHARE_PLEDGE_STATUSES }).notNull().default("pledged"),
    hold_transaction_id: bigint("hold_transaction_id", { mode: "number" }).references(() => ledgerTransactions.id),
    held_cents: bigint("held_cents", { mode: "number" }).notNull().default(0),
    released_on: date("released_on", { mode: "string" }),
    created_at: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index("share_pledges_account_idx").on(t.account_id),
    check("share_pledges_status_valid", sql`${t.status} in ('pledged', 'held', 'released')`),
    check("share_pledges_held_not_negative", sql`${t.held_cents} >= 0`),
    check(
      "share_pledges_hold_matches",
      sql`(${t.hold_transaction_id} is null) = (${t.held_cents} = 0) and (${t.status} = 'held' or ${t.held_cents} = 0)`,
    ),
    check("share_pledges_held_has_loan", sql`${t.status} = 'pledged' or ${t.loan_id} is not null`),
    check("share_pledges_released_dated", sql`(${t.status} = 'released') = (${t.released_on} is not null)`),
  ],
);

export type SharePledgeRow = typeof sharePledges.$inferSelect;
