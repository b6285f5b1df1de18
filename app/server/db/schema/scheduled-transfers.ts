import { sql } from "drizzle-orm";
import { bigint, bigserial, check, date, index, integer, pgTable, text, timestamp, unique } from "drizzle-orm/pg-core";
import { ledgerAccounts } from "./ledger";
import { linkedAccounts } from "./linked-accounts";

/**
 * Scheduled and recurring transfers (docs/product.md#scheduled-transfers): a Between Accounts,
 * To Another Member or To US Bank transfer set up for a later business day, once or as a series (the rules of
 * app/domain/schedule.ts, shared with Bill Pay). Nothing is held: on each date the
 * scheduled-transfers job sends the transfer through the same code as one sent now, under a key
 * of its own per series and slot, and records the run. Nothing is deleted: a series is cancelled,
 * ended or stopped, a slot skipped.
 */
export const SCHEDULED_TRANSFER_KINDS = ["internal", "member", "ach"] as const;
export const SCHEDULED_ACH_ACCOUNT_TYPES = ["checking", "savings"] as const;
export const SCHEDULED_TRANSFER_FREQUENCIES = ["once", "monthly", "weeks"] as const;
export const SCHEDULED_TRANSFER_STATUSES = ["active", "ended", "stopped", "cancelled"] as const;
export const SCHEDULED_TRANSFER_ON_FAILURE = ["continue", "stop"] as const;
export const SCHEDULED_RUN_STATUSES = ["running", "sent", "failed", "skipped"] as const;

export const scheduledTransfers = pgTable(
  "scheduled_transfers",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    member_id: text("member_id").notNull(),
    kind: text("kind", { enum: SCHEDULED_TRANSFER_KINDS }).notNull(),
    from_account_id: bigint("from_account_id", { mode: "number" })
      .notNull()
      .references(() => ledgerAccounts.id),
    /** Between Accounts: the member's own account it goes to. */
    to_account_id: bigint("to_account_id", { mode: "number" }).references(() => ledgerAccounts.id),
    /** To Another Member: the member it goes to (their checking account on each date). */
    recipient_member_id: text("recipient_member_id"),
    /**
     * To US Bank: the account at the other bank. Its number is personal data, sealed like a linked
     * account's (`encryptField(number, "scheduled_transfers.ach_account_number:<member id>")`),
     * with the last four beside it for the list; never stored plain.
     */
    ach_routing_number: text("ach_routing_number"),
    ach_account_number_enc: text("ach_account_number_enc"),
    ach_account_last4: text("ach_account_last4"),
    ach_account_type: text("ach_account_type", { enum: SCHEDULED_ACH_ACCOUNT_TYPES }),
    ach_account_name: text("ach_account_name"),
    /** To US Bank to the member's own linked account: each run needs the link still verified. */
    linked_account_id: bigint("linked_account_id", { mode: "number" }).references(() => linkedAccounts.id),
    amount_cents: bigint("amount_cents", { mode: "number" }).notNull(),
    reference: text("reference").notNull(),
    /** "once" is one transfer on `first_date`; else the series rule of app/domain/schedule.ts. */
    frequency: text("frequency", { enum: SCHEDULED_TRANSFER_FREQUENCIES }).notNull(),
    interval_weeks: integer("interval_weeks"),
    /** The rule's first date: the set-up's, or the date the member moved the series to. */
    first_date: date("first_date", { mode: "string" }).notNull(),
    /** The slot the rule's first date is (1, or the slot that was next when the date was edited). */
    start_sequence: integer("start_sequence").notNull().default(1),
    /** The series ends on a date or after a number of transfers counted from `start_sequence`. */
    end_date: date("end_date", { mode: "string" }),
    payment_count: integer("payment_count"),
    /** What a failed run does to the series: the member's choice at set-up. */
    on_failure: text("on_failure", { enum: SCHEDULED_TRANSFER_ON_FAILURE }).notNull().default("continue"),
    /** The next slot to send (from 1) and its business day; null once the series is over. */
    next_sequence: integer("next_sequence").notNull().default(1),
    next_date: date("next_date", { mode: "string" }),
    status: text("status", { enum: SCHEDULED_TRANSFER_STATUSES }).notNull().default("active"),
    idempotency_key: text("idempotency_key").notNull(),
    created_at: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    updated_at: timestamp("updated_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    ended_at: timestamp("ended_at", { withTimezone: true }),
  },
  (t) => [
    unique("scheduled_transfers_member_key_unique").on(t.member_id, t.idempotency_key),
    index("scheduled_transfers_member_idx").on(t.member_id, t.id),
    index("scheduled_transfers_due_idx").on(t.status, t.next_date),
    check("scheduled_transfers_amount_positive", sql`${t.amount_cents} > 0`),
    check(
      "scheduled_transfers_kind_valid",
      sql`(${t.kind} = 'internal' and ${t.to_account_id} is not null and ${t.recipient_member_id} is null and ${t.ach_account_number_enc} is null) or (${t.kind} = 'member' and ${t.to_account_id} is null and ${t.recipient_member_id} is not null and ${t.ach_account_number_enc} is null) or (${t.kind} = 'ach' and ${t.to_account_id} is null and ${t.recipient_member_id} is null and ${t.ach_routing_number} is not null and ${t.ach_account_number_enc} is not null and ${t.ach_account_last4} is not null and ${t.ach_account_type} in ('checking', 'savings') and ${t.ach_account_name} is not null)`,
    ),
    check(
      "scheduled_transfers_frequency_valid",
      sql`(${t.frequency} in ('once', 'monthly') and ${t.interval_weeks} is null) or (${t.frequency} = 'weeks' and ${t.interval_weeks} between 1 and 52)`,
    ),
    check("scheduled_transfers_one_end", sql`(${t.end_date} is null) <> (${t.payment_count} is null)`),
    check("scheduled_transfers_status_valid", sql`${t.status} in ('active', 'ended', 'stopped', 'cancelled')`),
    check("scheduled_transfers_on_failure_valid", sql`${t.on_failure} in ('continue', 'stop')`),
  ],
);

export const scheduledTransferRuns = pgTable(
  "scheduled_transfer_runs",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    series_id: bigint("series_id", { mode: "number" })
      .notNull()
      .references(() => scheduledTransfers.id),
    /** The slot: one run per series and slot, whichever app process claims it first. */
    sequence: integer("sequence").notNull(),
    run_date: date("run_date", { mode: "string" }).notNull(),
    amount_cents: bigint("amount_cents", { mode: "number" }).notNull(),
    /** running: claimed, being sent; a run left running by a crash is sent again under its key. */
    status: text("status", { enum: SCHEDULED_RUN_STATUSES }).notNull(),
    transaction_id: bigint("transaction_id", { mode: "number" }),
    /** Why it failed, as the member reads it. */
    failure_reason: text("failure_reason"),
    claimed_at: timestamp("claimed_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    finished_at: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [
    unique("scheduled_transfer_runs_slot_unique").on(t.series_id, t.sequence),
    index("scheduled_transfer_runs_running_idx")
      .on(t.claimed_at)
      .where(sql`${t.status} = 'running'`),
    check("scheduled_transfer_runs_status_valid", sql`${t.status} in ('running', 'sent', 'failed', 'skipped')`),
    check(
      "scheduled_transfer_runs_failed_has_reason",
      sql`(${t.status} = 'failed') = (${t.failure_reason} is not null)`,
    ),
  ],
);

export type ScheduledTransfer = typeof scheduledTransfers.$inferSelect;
export type ScheduledTransferRun = typeof scheduledTransferRuns.$inferSelect;
