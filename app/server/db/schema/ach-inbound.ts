import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
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
import type { IatDetails } from "~/domain/nacha/iat";

/**
 * ACH in (docs/product.md#ach-in): the NACHA files the Federal Reserve sends, their entries and
 * what became of each, and the return files the credit union sends back.
 */

export const ACH_INBOUND_FILE_STATUSES = ["posting", "posted"] as const;
/**
 * credit, debit, prenote (no money), return (of one of the credit union's own entries), noc (a
 * notification of change about one of our entries: no money, see achNotificationsOfChange).
 */
export const ACH_INBOUND_ENTRY_KINDS = ["credit", "debit", "prenote", "return", "noc"] as const;
/**
 * received: stored, not yet posted; posted: the money moved; returned: it could not post and goes
 * back in a return file (`return_code` says why); applied: a return of our own entry released or
 * reversed the original; unmatched: a return staff must look into (no such entry of ours, or it
 * could not be reversed); noted: a prenote or a notification of change, nothing to move; held: a
 * possible duplicate of an entry already received (`duplicate_of_entry_id`), waiting for staff to
 * post or return it; screening: an IAT entry one of whose parties may be on a sanctions list,
 * no money moved, waiting in the screening queue (posted once staff clear it); blocked: an IAT
 * entry whose match staff confirmed, never posted (docs/product.md#iat-entries).
 */
export const ACH_INBOUND_ENTRY_STATUSES = [
  "received",
  "posted",
  "returned",
  "applied",
  "unmatched",
  "noted",
  "held",
  "screening",
  "blocked",
] as const;

export const achInboundFiles = pgTable(
  "ach_inbound_files",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    file_name: text("file_name").notNull(),
    /** SHA-256 of the bytes: the same file uploaded twice posts once. */
    sha256: text("sha256").notNull(),
    content: text("content").notNull(),
    /** The sender (file header's immediate origin) and its file id. */
    immediate_origin: text("immediate_origin").notNull(),
    created_date: date("created_date").notNull(),
    file_id_modifier: text("file_id_modifier").notNull(),
    status: text("status", { enum: ACH_INBOUND_FILE_STATUSES }).notNull().default("posting"),
    entry_count: integer("entry_count").notNull(),
    credit_total_cents: bigint("credit_total_cents", { mode: "number" }).notNull(),
    debit_total_cents: bigint("debit_total_cents", { mode: "number" }).notNull(),
    posted_count: integer("posted_count").notNull().default(0),
    returned_count: integer("returned_count").notNull().default(0),
    uploaded_by: text("uploaded_by").notNull(),
    uploaded_at: timestamp("uploaded_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    posted_at: timestamp("posted_at", { withTimezone: true }),
  },
  (t) => [
    unique("ach_inbound_files_sha256_unique").on(t.sha256),
    check("ach_inbound_files_status_valid", sql`${t.status} in ('posting', 'posted')`),
    check(
      "ach_inbound_files_totals",
      sql`${t.entry_count} > 0 and ${t.credit_total_cents} >= 0 and ${t.debit_total_cents} >= 0`,
    ),
  ],
);

export const achInboundEntries = pgTable(
  "ach_inbound_entries",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    file_id: bigint("file_id", { mode: "number" }).notNull(),
    /** The entry record's line in the file. */
    line: integer("line").notNull(),
    batch_number: integer("batch_number").notNull(),
    company_name: text("company_name").notNull(),
    company_discretionary_data: text("company_discretionary_data").notNull(),
    company_id: text("company_id").notNull(),
    sec_code: text("sec_code").notNull(),
    entry_description: text("entry_description").notNull(),
    effective_date: date("effective_date").notNull(),
    transaction_code: text("transaction_code").notNull(),
    kind: text("kind", { enum: ACH_INBOUND_ENTRY_KINDS }).notNull(),
    account_number: text("account_number").notNull(),
    amount_cents: bigint("amount_cents", { mode: "number" }).notNull(),
    individual_id: text("individual_id").notNull(),
    individual_name: text("individual_name").notNull(),
    trace_number: text("trace_number").notNull(),
    payment_information: text("payment_information"),
    status: text("status", { enum: ACH_INBOUND_ENTRY_STATUSES }).notNull().default("received"),
    /** Why it was returned (R01...), or for a return received, the other bank's reason. */
    return_code: text("return_code"),
    /** A return received: the trace number of our original entry. */
    original_trace_number: text("original_trace_number"),
    /** The member account it posted to (or that refused it). */
    account_id: bigint("account_id", { mode: "number" }),
    /** The ledger transaction that posted it, or the reversal of our returned entry. */
    transaction_id: bigint("transaction_id", { mode: "number" }),
    /** A return received: our payment it returned. */
    payment_id: bigint("payment_id", { mode: "number" }),
    /** The return file it went back in. */
    return_file_id: bigint("return_file_id", { mode: "number" }),
    /** Our trace number in that return file. */
    return_trace_number: text("return_trace_number"),
    resolved_at: timestamp("resolved_at", { withTimezone: true }),
    /** Held: the earlier entry with the same trace number, amount, effective date and account. */
    duplicate_of_entry_id: bigint("duplicate_of_entry_id", { mode: "number" }),
  },
  (t) => [
    unique("ach_inbound_entries_file_line_unique").on(t.file_id, t.line),
    index("ach_inbound_entries_file_status_idx").on(t.file_id, t.status, t.id),
    // The Returned items queue: returns not yet in a return file, and returns staff must look into.
    index("ach_inbound_entries_waiting_idx")
      .on(t.id)
      .where(sql`(${t.status} = 'returned' and ${t.return_file_id} is null) or ${t.status} = 'unmatched'`),
    // The Possible duplicates queue: entries held for staff to post or return.
    index("ach_inbound_entries_held_idx")
      .on(t.id)
      .where(sql`${t.status} = 'held'`),
    // Duplicate entries (docs/product.md#ach-in): an entry is looked up by its trace number among those received before.
    index("ach_inbound_entries_trace_idx").on(t.trace_number, t.effective_date),
    index("ach_inbound_entries_return_file_idx").on(t.return_file_id),
    // A payment of ours and the return that came back for it: the member's payments and history
    // read it to show Returned and why, and a second return of the same payment is found by it.
    index("ach_inbound_entries_payment_idx")
      .on(t.payment_id)
      .where(sql`${t.payment_id} is not null`),
    check("ach_inbound_entries_kind_valid", sql`${t.kind} in ('credit', 'debit', 'prenote', 'return', 'noc')`),
    check(
      "ach_inbound_entries_status_valid",
      sql`${t.status} in ('received', 'posted', 'returned', 'applied', 'unmatched', 'noted', 'held', 'screening', 'blocked')`,
    ),
    check("ach_inbound_entries_returned_has_code", sql`${t.status} <> 'returned' or ${t.return_code} is not null`),
    check(
      "ach_inbound_entries_posted_has_transaction",
      sql`${t.status} <> 'posted' or ${t.transaction_id} is not null`,
    ),
    check("ach_inbound_entries_amount", sql`${t.amount_cents} >= 0`),
  ],
);

/**
 * What an IAT entry's batch header and addenda 10 to 18 say (docs/product.md#iat-entries): its
 * parties, as screened, and the addenda records as received, which a return carries back.
 */
export const achInboundIatEntries = pgTable("ach_inbound_iat_entries", {
  entry_id: bigint("entry_id", { mode: "number" })
    .primaryKey()
    .references(() => achInboundEntries.id),
  details: jsonb("details").$type<IatDetails>().notNull(),
});

export const achReturnFiles = pgTable(
  "ach_return_files",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    file_name: text("file_name").notNull(),
    content: text("content").notNull(),
    sha256: text("sha256").notNull(),
    business_date: date("business_date").notNull(),
    entry_count: integer("entry_count").notNull(),
    credit_total_cents: bigint("credit_total_cents", { mode: "number" }).notNull(),
    debit_total_cents: bigint("debit_total_cents", { mode: "number" }).notNull(),
    created_by: text("created_by").notNull(),
    created_at: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [
    unique("ach_return_files_name_unique").on(t.file_name),
    check("ach_return_files_counts", sql`${t.entry_count} > 0`),
  ],
);

/** waiting: for staff; applied: the correction was made to the payments it names; handled: staff noted what they did. */
export const ACH_NOC_STATUSES = ["waiting", "applied", "handled"] as const;

/**
 * Notifications of change (addenda 98, docs/product.md#ach-in): the receiving bank tells us an
 * entry we sent posted, but with wrong data (account number, routing number...) that must be
 * corrected before the next one. One row per NOC received; no money moves. `payment_id` is our
 * payment it names (null: it names no entry we sent, staff look into it).
 */
export const achNotificationsOfChange = pgTable(
  "ach_notifications_of_change",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** The inbound entry (kind noc) that carried it. */
    entry_id: bigint("entry_id", { mode: "number" })
      .notNull()
      .references(() => achInboundEntries.id),
    /** C01 to C13. */
    change_code: text("change_code").notNull(),
    /** The trace number of our entry it is about. */
    original_trace_number: text("original_trace_number").notNull(),
    /** The corrected data as the receiving bank wrote it (29 characters, trimmed). */
    corrected_data: text("corrected_data").notNull(),
    payment_id: bigint("payment_id", { mode: "number" }),
    member_id: text("member_id"),
    status: text("status", { enum: ACH_NOC_STATUSES }).notNull().default("waiting"),
    /** What staff did (handled), or what the correction changed (applied). */
    note: text("note"),
    resolved_by: text("resolved_by"),
    resolved_at: timestamp("resolved_at", { withTimezone: true }),
    created_at: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [
    unique("ach_notifications_of_change_entry_unique").on(t.entry_id),
    // The queue section: the waiting ones, oldest first.
    index("ach_notifications_of_change_waiting_idx")
      .on(t.id)
      .where(sql`${t.status} = 'waiting'`),
    index("ach_notifications_of_change_payment_idx")
      .on(t.payment_id)
      .where(sql`${t.payment_id} is not null`),
    check("ach_notifications_of_change_status_valid", sql`${t.status} in ('waiting', 'applied', 'handled')`),
    check("ach_notifications_of_change_resolved", sql`(${t.status} = 'waiting') = (${t.resolved_at} is null)`),
  ],
);

export type AchNotificationOfChange = typeof achNotificationsOfChange.$inferSelect;
export type AchInboundFile = typeof achInboundFiles.$inferSelect;
export type AchInboundEntry = typeof achInboundEntries.$inferSelect;
export type AchReturnFile = typeof achReturnFiles.$inferSelect;

/** waiting: its money held for staff; released: staff made it available; returned: sent back (R17 or R23), the credit reversed. */
export const ACH_CREDIT_REVIEW_STATUSES = ["waiting", "released", "returned"] as const;

/**
 * Incoming credits to review (docs/product.md#incoming-credits-to-review): a credit of an inbound
 * file that met a monitoring rule (app/domain/ach-credit-monitoring.ts) posted, but its amount is
 * held on the account (`hold_transaction_id`, a pending debit) until staff release it or return it.
 * One row per flagged entry; `reasons` is the rules met with what staff read.
 */
export const achCreditReviews = pgTable(
  "ach_credit_reviews",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    entry_id: bigint("entry_id", { mode: "number" }).notNull(),
    account_id: bigint("account_id", { mode: "number" }).notNull(),
    member_id: text("member_id").notNull(),
    /** The posted credit and the hold on its amount. */
    credit_transaction_id: bigint("credit_transaction_id", { mode: "number" }).notNull(),
    hold_transaction_id: bigint("hold_transaction_id", { mode: "number" }).notNull(),
    amount_cents: bigint("amount_cents", { mode: "number" }).notNull(),
    reasons: jsonb("reasons").$type<{ rule: string; detail: string }[]>().notNull(),
    status: text("status", { enum: ACH_CREDIT_REVIEW_STATUSES }).notNull().default("waiting"),
    return_code: text("return_code"),
    decided_by: text("decided_by"),
    decided_at: timestamp("decided_at", { withTimezone: true }),
    created_at: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [
    unique("ach_credit_reviews_entry_unique").on(t.entry_id),
    // A staff member's list of pending transactions asks of each whether a review owns it.
    unique("ach_credit_reviews_hold_unique").on(t.hold_transaction_id),
    index("ach_credit_reviews_waiting_idx")
      .on(t.id)
      .where(sql`${t.status} = 'waiting'`),
    check("ach_credit_reviews_status_valid", sql`${t.status} in ('waiting', 'released', 'returned')`),
    check("ach_credit_reviews_returned_has_code", sql`${t.status} <> 'returned' or ${t.return_code} in ('R17', 'R23')`),
    check(
      "ach_credit_reviews_decided",
      sql`${t.status} = 'waiting' or (${t.decided_by} is not null and ${t.decided_at} is not null)`,
    ),
    check("ach_credit_reviews_amount", sql`${t.amount_cents} > 0`),
  ],
);
export type AchCreditReview = typeof achCreditReviews.$inferSelect;
