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
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { DISPUTE_CHANNELS, DISPUTE_KINDS, DISPUTE_STATUSES } from "../../../domain/disputes";

/**
 * Error resolution cases (Regulation E, 12 CFR 1005.11; docs/product.md#disputes): a member's
 * report of a problem with one electronic transaction of their history, its clocks (fixed when it
 * is received, app/domain/disputes.ts), and what staff did. Money moves only through the ledger:
 * the provisional credit and its reversal are ledger transactions (kinds `dispute_credit` and
 * `dispute_credit_reversal`) named here. Nothing is deleted; every step is also in the audit log
 * and in `dispute_events`.
 */
const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const disputeCases = pgTable(
  "dispute_cases",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    member_id: text("member_id").notNull(),
    /** The member's account the transaction touched (the one credited provisionally). */
    account_id: bigint("account_id", { mode: "number" }).notNull(),
    /** The ledger transaction disputed. */
    transaction_id: bigint("transaction_id", { mode: "number" }).notNull(),
    kind: text("kind", { enum: DISPUTE_KINDS }).notNull(),
    /** What happened, in the member's words. */
    details: text("details").notNull(),
    /** The amount in dispute: the transaction's amount on the member's account, as a positive number. */
    amount_cents: bigint("amount_cents", { mode: "number" }).notNull(),
    status: text("status", { enum: DISPUTE_STATUSES }).notNull().default("open"),
    /** The form's key: the same report sent twice makes one case. */
    idempotency_key: text("idempotency_key").notNull(),
    created_at: timestamptz("created_at").notNull().defaultNow(),
    /** The clocks, fixed at receipt (business dates in the institution's time zone). */
    received_on: date("received_on", { mode: "string" }).notNull(),
    investigate_by: date("investigate_by", { mode: "string" }).notNull(),
    complete_by: date("complete_by", { mode: "string" }).notNull(),
    /** Why the clocks are longer: 1005.11(c)(3). */
    new_account: boolean("new_account").notNull().default(false),
    point_of_sale: boolean("point_of_sale").notNull().default(false),
    foreign_initiated: boolean("foreign_initiated").notNull().default(false),
    /** The provisional credit (ledger kind `dispute_credit`), when given. */
    provisional_transaction_id: bigint("provisional_transaction_id", { mode: "number" }),
    provisional_credited_on: date("provisional_credited_on", { mode: "string" }),
    /** The amount credited provisionally (at most the amount in dispute), debited back if no error is found. */
    provisional_amount_cents: bigint("provisional_amount_cents", { mode: "number" }),
    /** No error found: the day the member was told in writing, and the day the credit is debited (5 business days on). */
    reversal_notice_on: date("reversal_notice_on", { mode: "string" }),
    reversal_on: date("reversal_on", { mode: "string" }),
    /** The debit of the provisional credit (ledger kind `dispute_credit_reversal`). */
    reversal_transaction_id: bigint("reversal_transaction_id", { mode: "number" }),
    /** Error found without a provisional credit: the credit posted at resolution (kind `dispute_credit`). */
    final_credit_transaction_id: bigint("final_credit_transaction_id", { mode: "number" }),
    /** Staff's written explanation, as the member is told it. */
    resolution: text("resolution"),
    decided_at: timestamptz("decided_at"),
    decided_by: text("decided_by"),
    resolved_at: timestamptz("resolved_at"),
    /** The last business date the deadline job told staff about this case (once a day at most). */
    flagged_on: date("flagged_on", { mode: "string" }),
    /** The reversal could not post (the member's money is not there): staff must act. */
    reversal_problem: text("reversal_problem"),
    /** How the member told us: online (their own report), or by phone, in person or by mail, entered by staff. */
    reported_via: text("reported_via", { enum: DISPUTE_CHANNELS }).notNull().default("online"),
    /** The staff member who entered a report the member made by phone, in person or by mail. */
    entered_by: text("entered_by"),
    entered_by_email: text("entered_by_email"),
    /** A card purchase marked for a chargeback with the card network (raised by staff in the network's own system). */
    chargeback_marked_at: timestamptz("chargeback_marked_at"),
    chargeback_marked_by: text("chargeback_marked_by"),
  },
  (t) => [
    unique("dispute_cases_member_key_unique").on(t.member_id, t.idempotency_key),
    // One case at a time per transaction and account: a second report of the same one finds the first.
    uniqueIndex("dispute_cases_open_transaction_unique")
      .on(t.transaction_id, t.account_id)
      .where(sql`${t.status} not in ('resolved_error', 'resolved_no_error')`),
    index("dispute_cases_member_idx").on(t.member_id, t.id),
    index("dispute_cases_unresolved_idx")
      .on(t.status)
      .where(sql`${t.status} not in ('resolved_error', 'resolved_no_error')`),
    check(
      "dispute_cases_kind_valid",
      sql`${t.kind} in ('not_mine', 'wrong_amount', 'not_received', 'duplicate', 'other')`,
    ),
    check(
      "dispute_cases_status_valid",
      sql`${t.status} in ('open', 'provisionally_credited', 'reversal_scheduled', 'resolved_error', 'resolved_no_error')`,
    ),
    check("dispute_cases_amount_positive", sql`${t.amount_cents} > 0`),
    check(
      "dispute_cases_provisional_amount",
      sql`(${t.provisional_transaction_id} is null) = (${t.provisional_amount_cents} is null) and (${t.provisional_amount_cents} is null or ${t.provisional_amount_cents} between 1 and ${t.amount_cents})`,
    ),
    check("dispute_cases_details_present", sql`length(${t.details}) > 0`),
    check("dispute_cases_reported_via_valid", sql`${t.reported_via} in ('online', 'phone', 'in_person', 'mail')`),
    // A report the member did not type themselves names who entered it.
    check("dispute_cases_entered_by_staff", sql`(${t.reported_via} = 'online') = (${t.entered_by} is null)`),
    check(
      "dispute_cases_credited_has_credit",
      sql`${t.status} not in ('provisionally_credited', 'reversal_scheduled') or ${t.provisional_transaction_id} is not null`,
    ),
    check(
      "dispute_cases_reversal_dated",
      sql`${t.status} <> 'reversal_scheduled' or (${t.reversal_notice_on} is not null and ${t.reversal_on} is not null)`,
    ),
    check(
      "dispute_cases_resolved_explained",
      sql`${t.status} not in ('resolved_error', 'resolved_no_error', 'reversal_scheduled') or ${t.resolution} is not null`,
    ),
  ],
);

export const DISPUTE_EVENT_KINDS = [
  "reported",
  "note",
  "provisional_credit",
  "resolved_error",
  "no_error_notice",
  "reversed",
  "reversal_refused",
  "resolved_no_error",
  "deadline_flagged",
  "chargeback_marked",
] as const;
export type DisputeEventKind = (typeof DISPUTE_EVENT_KINDS)[number];

/** A case's history: the report, staff notes, each action, the deadline job's flags. */
export const disputeEvents = pgTable(
  "dispute_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    case_id: bigint("case_id", { mode: "number" })
      .notNull()
      .references(() => disputeCases.id),
    at: timestamptz("at").notNull().defaultNow(),
    kind: text("kind", { enum: DISPUTE_EVENT_KINDS }).notNull(),
    /** Who: a member or staff user id; null for the system (the deadline job, the scheduled reversal). */
    actor_id: text("actor_id"),
    actor_email: text("actor_email"),
    /** A staff note, or the text of the step (what the member was told). */
    text: text("text"),
    /** For staff only (a note): never shown to the member. */
    internal: boolean("internal").notNull().default(false),
  },
  (t) => [index("dispute_events_case_idx").on(t.case_id, t.id)],
);

/**
 * What a member sent with their report (a receipt, a screenshot, a letter): PDF, JPEG or PNG up to
 * 10 MB, checked by content, kept encrypted in the private store (DATA_DIR/uploads/dispute-attachments).
 */
export const disputeAttachments = pgTable(
  "dispute_attachments",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    case_id: bigint("case_id", { mode: "number" })
      .notNull()
      .references(() => disputeCases.id),
    /** The stored file's name (random), never the member's. */
    file: text("file").notNull(),
    mime: text("mime").notNull(),
    bytes: integer("bytes").notNull(),
    at: timestamptz("at").notNull().defaultNow(),
  },
  (t) => [
    index("dispute_attachments_case_idx").on(t.case_id, t.id),
    check("dispute_attachments_mime", sql`${t.mime} in ('application/pdf', 'image/jpeg', 'image/png')`),
  ],
);

export type DisputeCaseRow = typeof disputeCases.$inferSelect;
export type DisputeEventRow = typeof disputeEvents.$inferSelect;
