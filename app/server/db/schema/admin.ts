import { sql } from "drizzle-orm";
import { bigint, bigserial, check, index, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

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
    /**
     * How identity was verified, required of an approval (docs/product.md#staff-review, 31 CFR
     * 1020.220(a)(3)): `{ method: "documentary" | "non_documentary", discrepancy: text | null }`.
     * Null on other decisions and on approvals made before it was recorded.
     */
    identity_verification: jsonb("identity_verification"),
    decided_by: text("decided_by").notNull(),
    decided_at: timestamptz("decided_at").defaultNow().notNull(),
  },
  (t) => [
    index("application_decisions_user_idx").on(t.user_id, t.decided_at),
    check("application_decisions_decision_valid", sql`${t.decision} in ('approved', 'rejected', 'info_requested')`),
    check(
      "application_decisions_note_required",
      sql`${t.decision} = 'approved' or (${t.note} is not null and length(${t.note}) > 0)`,
    ),
  ],
);

/**
 * Users who must choose a new password at their next sign-in: members created by staff with a
 * temporary password (docs/product.md#passwords). Cleared (`cleared_at`) when they change it.
 */
export const passwordChangeRequirements = pgTable("password_change_requirements", {
  user_id: text("user_id").primaryKey(),
  reason: text("reason", { enum: ["temporary_password"] })
    .notNull()
    .default("temporary_password"),
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

export const STAFF_GRANT_KINDS = ["create", "raise"] as const;
export const STAFF_GRANT_STATUSES = ["pending", "approved", "declined"] as const;
export type StaffGrantStatus = (typeof STAFF_GRANT_STATUSES)[number];

/**
 * Every staff role asked for (docs/product.md#staff-role-grants, docs/security.md#dual-control-of-staff-roles):
 * a new staff account ("create": the person's name, address and phone wait in `profile`) or a
 * member raised to staff ("raise": `user_id` is the member). Nothing takes effect until another
 * admin approves; a decline keeps its reason. `requested_by` is null for a request filed by the
 * server command (`npm run staff:create`). The database refuses an approver who is the requester,
 * and a second waiting request for the same address, whatever the code does.
 */
export const staffRoleGrants = pgTable(
  "staff_role_grants",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    kind: text("kind", { enum: STAFF_GRANT_KINDS }).notNull(),
    /** Lower case: the address the new staff member's set-up link and sign-in codes go to. */
    email: text("email").notNull(),
    name: text("name").notNull(),
    role: text("role", { enum: ["admin", "reviewer"] }).notNull(),
    /** The member raised (kind "raise"), or the account created on approval (kind "create"). */
    user_id: text("user_id"),
    /** For "create": first_name, last_name, street, city, state, postal_code, phone. */
    profile: jsonb("profile"),
    status: text("status", { enum: STAFF_GRANT_STATUSES }).notNull().default("pending"),
    requested_by: text("requested_by"),
    requested_by_email: text("requested_by_email"),
    requested_at: timestamptz("requested_at").defaultNow().notNull(),
    decided_by: text("decided_by"),
    decided_by_email: text("decided_by_email"),
    decided_at: timestamptz("decided_at"),
    decline_reason: text("decline_reason"),
  },
  (t) => [
    index("staff_role_grants_pending_idx")
      .on(t.requested_at, t.id)
      .where(sql`${t.status} = 'pending'`),
    uniqueIndex("staff_role_grants_one_pending_per_email")
      .on(t.email)
      .where(sql`${t.status} = 'pending'`),
    check("staff_role_grants_kind_valid", sql`${t.kind} in ('create', 'raise')`),
    check("staff_role_grants_role_valid", sql`${t.role} in ('admin', 'reviewer')`),
    check("staff_role_grants_status_valid", sql`${t.status} in ('pending', 'approved', 'declined')`),
    check("staff_role_grants_email_lower", sql`${t.email} = lower(${t.email}) and length(${t.email}) > 0`),
    check("staff_role_grants_raise_has_user", sql`${t.kind} <> 'raise' or ${t.user_id} is not null`),
    check("staff_role_grants_create_has_profile", sql`${t.kind} <> 'create' or ${t.profile} is not null`),
    check(
      "staff_role_grants_approver_not_requester",
      sql`${t.decided_by} is null or ${t.requested_by} is null or ${t.decided_by} <> ${t.requested_by}`,
    ),
    check(
      "staff_role_grants_decided",
      sql`${t.status} = 'pending' or (${t.decided_by} is not null and ${t.decided_at} is not null)`,
    ),
    check("staff_role_grants_declined_has_reason", sql`${t.status} <> 'declined' or length(${t.decline_reason}) > 0`),
  ],
);

export type StaffRoleGrant = typeof staffRoleGrants.$inferSelect;
