import { sql } from "drizzle-orm";
import { bigint, bigserial, check, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * The back office's own records (docs/product.md#staff-review, docs/product.md#back-office).
 */
const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/**
 * One row per staff decision on an application: approval and rejection records keep a snapshot
 * of the application "for the file" (docs/product.md#staff-review); information requests keep the
 * checklist too. Written once, never changed.
 */
export const applicationDecisions = pgTable(
  "application_decisions",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    user_id: text("user_id").notNull(),
    decision: text("decision", { enum: ["approved", "rejected", "info_requested"] }).notNull(),
    /** The checklist as staff ticked it: item id -> true/false. */
    checklist: jsonb("checklist").notNull(),
    /** The application as it stood (personal numbers masked, never in clear). */
    snapshot: jsonb("snapshot").notNull(),
    /** Rejection reason or the information requested. */
    note: text("note"),
    decided_by: text("decided_by").notNull(),
    decided_at: timestamptz("decided_at").defaultNow().notNull(),
  },
  (t) => [
    index("application_decisions_user_idx").on(t.user_id, t.decided_at),
    check("application_decisions_decision_valid", sql`${t.decision} in ('approved', 'rejected', 'info_requested')`),
    check("application_decisions_note_required", sql`${t.decision} = 'approved' or (${t.note} is not null and length(${t.note}) > 0)`),
  ],
);

/**
 * Users who must choose a new password at their next sign-in: members created by staff with a
 * temporary password (docs/product.md#passwords). Cleared (`cleared_at`) when they change it.
 */
export const passwordChangeRequirements = pgTable("password_change_requirements", {
  user_id: text("user_id").primaryKey(),
  reason: text("reason", { enum: ["temporary_password"] }).notNull().default("temporary_password"),
  set_by: text("set_by"),
  set_at: timestamptz("set_at").defaultNow().notNull(),
  cleared_at: timestamptz("cleared_at"),
});

/** When a staff member last cleared the "used codes" list of the one-time-code panel. */
export const staffCodePanelClears = pgTable("staff_code_panel_clears", {
  staff_id: text("staff_id").primaryKey(),
  cleared_at: timestamptz("cleared_at").notNull(),
});

/**
 * The member directory's tab counts (docs/product.md#member-directory: tabs with counts, fast with
 * 100,000 members): one row per application status, kept exact in the same transaction by statement
 * triggers on member_profiles (insert, update, delete, truncate; migration
 * 0009_back_office_directory_counts). "All Users" is their sum. Never written by the application.
 */
export const memberDirectoryCounts = pgTable(
  "member_directory_counts",
  {
    status: text("status", { enum: ["pending", "approved", "rejected"] }).primaryKey(),
    members: bigint("members", { mode: "number" }).notNull().default(0),
  },
  (t) => [
    check("member_directory_counts_status_valid", sql`${t.status} in ('pending', 'approved', 'rejected')`),
    check("member_directory_counts_not_negative", sql`${t.members} >= 0`),
  ],
);
