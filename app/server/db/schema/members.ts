import { sql } from "drizzle-orm";
import { bigint, bigserial, boolean, check, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { users } from "./auth";

/**
 * Members and their applications (docs/product.md#applications-and-review). One profile per user:
 * an applicant's application and, once approved, the member's personal details. Ledger accounts
 * point at the same user id (`ledger_accounts.member_id`).
 *
 * Date of birth and ID number are encrypted at rest (AES-256-GCM, `~/server/security/crypto.server`),
 * bound to their column and user, and only ever shown masked. Names stay searchable by staff.
 */

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const APPLICATION_STATUSES = ["pending", "approved", "rejected"] as const;
export const DOCUMENT_STATUSES = ["pending", "info_requested", "verified", "rejected"] as const;
export const MARITAL_STATUSES = ["single", "married", "divorced", "widowed"] as const;
export const ID_TYPES = ["passport", "national_id", "drivers_license"] as const;

export const memberProfiles = pgTable(
  "member_profiles",
  {
    user_id: text("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    first_name: text("first_name").notNull(),
    last_name: text("last_name").notNull(),
    /** `encryptField(YYYY-MM-DD, "member_profiles.date_of_birth:<user id>")`. */
    date_of_birth_enc: text("date_of_birth_enc"),
    nationality: text("nationality"),
    marital_status: text("marital_status", { enum: MARITAL_STATUSES }),
    street: text("street"),
    city: text("city"),
    state: text("state"),
    postal_code: text("postal_code"),
    country: text("country"),
    phone: text("phone"),
    alt_email: text("alt_email"),
    emergency_name: text("emergency_name"),
    emergency_relationship: text("emergency_relationship"),
    emergency_phone: text("emergency_phone"),
    id_type: text("id_type", { enum: ID_TYPES }),
    /** `encryptField(id number, "member_profiles.id_number:<user id>")`. */
    id_number_enc: text("id_number_enc"),
    /** File name under DATA_DIR/uploads/id-documents (random); served only to staff. */
    id_document_file: text("id_document_file"),
    id_document_mime: text("id_document_mime"),
    id_document_bytes: bigint("id_document_bytes", { mode: "number" }),
    joint_account: boolean("joint_account").notNull().default(false),
    joint_name: text("joint_name"),
    joint_email: text("joint_email"),
    joint_phone: text("joint_phone"),
    /** Profile image file name under DATA_DIR/uploads (set by the profile settings, later). */
    image_file: text("image_file"),
    status: text("status", { enum: APPLICATION_STATUSES }).notNull().default("pending"),
    document_status: text("document_status", { enum: DOCUMENT_STATUSES }).notNull().default("pending"),
    rejection_reason: text("rejection_reason"),
    decided_at: timestamptz("decided_at"),
    decided_by: text("decided_by").references(() => users.id),
    /** Where the application came from: the public form, or staff creating the member. */
    source: text("source", { enum: ["application", "staff"] })
      .notNull()
      .default("application"),
    created_at: timestamptz("created_at").defaultNow().notNull(),
    updated_at: timestamptz("updated_at").defaultNow().notNull(),
  },
  (t) => [
    // The directory's tab order, newest first with a tie-breaker (migration 0007; 0013 dropped the
    // two-column index it made redundant).
    index("member_profiles_status_created_user_idx").on(t.status, t.created_at, t.user_id),
    index("member_profiles_last_first_idx").on(t.last_name, t.first_name),
    check("member_profiles_status_valid", sql`${t.status} in ('pending', 'approved', 'rejected')`),
    check(
      "member_profiles_document_status_valid",
      sql`${t.document_status} in ('pending', 'info_requested', 'verified', 'rejected')`,
    ),
    check(
      "member_profiles_joint_complete",
      sql`not ${t.joint_account} or (${t.joint_name} is not null and ${t.joint_email} is not null and ${t.joint_phone} is not null)`,
    ),
    check("member_profiles_rejection_has_reason", sql`${t.status} <> 'rejected' or ${t.rejection_reason} is not null`),
  ],
);

/**
 * Staff asking an applicant for more information (Request info, docs/product.md#staff-review); the
 * applicant answers on /pending-approval with text and, optionally, a new document.
 */
export const applicationInfoRequests = pgTable(
  "application_info_requests",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    user_id: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    message: text("message").notNull(),
    requested_by: text("requested_by").references(() => users.id),
    requested_at: timestamptz("requested_at").defaultNow().notNull(),
    status: text("status", { enum: ["pending", "answered"] })
      .notNull()
      .default("pending"),
    answer_text: text("answer_text"),
    answer_document_file: text("answer_document_file"),
    answer_document_mime: text("answer_document_mime"),
    answered_at: timestamptz("answered_at"),
  },
  (t) => [
    index("application_info_requests_user_idx").on(t.user_id, t.requested_at),
    index("application_info_requests_status_idx").on(t.status, t.requested_at),
    check(
      "application_info_requests_answered_complete",
      sql`${t.status} <> 'answered' or (${t.answer_text} is not null and ${t.answered_at} is not null)`,
    ),
  ],
);

/**
 * Notification and security preferences (Account Settings and its defaults,
 * docs/product.md#settings).
 */
export const memberSettings = pgTable("member_settings", {
  user_id: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  email_notifications: boolean("email_notifications").notNull().default(true),
  sms_notifications: boolean("sms_notifications").notNull().default(false),
  push_notifications: boolean("push_notifications").notNull().default(true),
  /** An authenticator app replaces the email code (enrolment is in Account Settings). */
  two_factor: boolean("two_factor").notNull().default(false),
  login_alerts: boolean("login_alerts").notNull().default(true),
  updated_at: timestamptz("updated_at").defaultNow().notNull(),
});
