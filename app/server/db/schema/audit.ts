import { bigserial, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * The audit log (docs/product.md#nothing-deleted): every staff action and security event,
 * append-only. The database itself refuses UPDATE and DELETE on this table (a trigger in the
 * `audit_log` migration), so a row, once written, is never changed or removed by the application.
 *
 * No foreign keys on purpose: a user row may be removed (an application that failed half-way),
 * but the record of what happened to it stays.
 */
export const auditLog = pgTable(
  "audit_log",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    at: timestamp("at", { withTimezone: true, mode: "date" }).defaultNow().notNull(),
    /** Who did it: a user id (staff, member) or null for the system / an anonymous visitor. */
    actor_id: text("actor_id"),
    /** The actor's email at the time (users can change theirs; the log keeps what was true). */
    actor_email: text("actor_email"),
    /** What happened, dotted: `application.approve`, `staff_code.issue`, `auth.sign_in`... */
    action: text("action").notNull(),
    /** What it happened to: `member`, `account`, `staff_code`, `contact_message`... */
    subject_type: text("subject_type"),
    subject_id: text("subject_id"),
    /** The member concerned, when there is one (for "filter by member"). */
    member_id: text("member_id"),
    before: jsonb("before"),
    after: jsonb("after"),
    request_id: text("request_id"),
    ip: text("ip"),
  },
  (t) => [
    index("audit_log_at_idx").on(t.at, t.id),
    index("audit_log_actor_idx").on(t.actor_id, t.id),
    index("audit_log_member_idx").on(t.member_id, t.id),
    index("audit_log_action_idx").on(t.action, t.id),
  ],
);

export type AuditRow = typeof auditLog.$inferSelect;
