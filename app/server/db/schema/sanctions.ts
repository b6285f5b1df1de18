import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
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
import type { BirthDate, SanctionsAlias } from "~/domain/sanctions/entries";
import type { ScreeningReportDraft } from "~/domain/sanctions/report";

/**
 * Sanctions lists (docs/product.md#sanctions-screening): each list the operator loads, from the
 * Treasury's published files, is a version kept whole with its publication date and who loaded
 * it; screening reads the newest version of each source. Nothing is deleted: a screening names
 * the version and entry it matched, so the evidence stays as it was.
 */
export const SANCTIONS_SOURCES = ["sdn", "consolidated"] as const;

export const sanctionsListVersions = pgTable(
  "sanctions_list_versions",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    source: text("source", { enum: SANCTIONS_SOURCES }).notNull(),
    /** The date OFAC published this list, as the operator states it (the CSV files do not carry it). */
    published_on: date("published_on").notNull(),
    loaded_at: timestamp("loaded_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    /** The staff member who uploaded it; null for `npm run sanctions:load` on the server. */
    loaded_by: text("loaded_by"),
    /** "server command" or the staff member's email, as the back office shows it. */
    loaded_by_label: text("loaded_by_label").notNull(),
    entry_count: integer("entry_count").notNull(),
    /** The files read, by name ("SDN.CSV, ALT.CSV, ADD.CSV"), and their SHA-256 together. */
    file_names: text("file_names").notNull(),
    sha256: text("sha256").notNull(),
  },
  (t) => [
    check("sanctions_list_versions_source_valid", sql`${t.source} in ('sdn', 'consolidated')`),
    check("sanctions_list_versions_count", sql`${t.entry_count} >= 0`),
    index("sanctions_list_versions_source_idx").on(t.source, t.id),
  ],
);

export const sanctionsEntries = pgTable(
  "sanctions_entries",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    version_id: bigint("version_id", { mode: "number" })
      .notNull()
      .references(() => sanctionsListVersions.id),
    /** OFAC's entry number (ent_num). */
    uid: text("uid").notNull(),
    name: text("name").notNull(),
    /** individual, entity, vessel or aircraft. */
    type: text("type").notNull(),
    programs: jsonb("programs").$type<string[]>().notNull(),
    aliases: jsonb("aliases").$type<SanctionsAlias[]>().notNull(),
    birth_dates: jsonb("birth_dates").$type<BirthDate[]>().notNull(),
    /** ISO alpha-2 codes of its addresses, nationalities and citizenships. */
    countries: jsonb("countries").$type<string[]>().notNull(),
    remarks: text("remarks"),
  },
  (t) => [unique("sanctions_entries_version_uid_unique").on(t.version_id, t.uid)],
);

/**
 * The screening queue (docs/product.md#screening-queue): one row for each possible match that
 * stopped an action. `open` until staff clear it (with a reason: the action goes on) or ask to
 * confirm it (`confirm_requested`); a second staff member then approves the confirmation
 * (`confirmed`: the payment is rejected, its money stays blocked, the account is frozen) or
 * turns it down (back to `open`). Every step is audited.
 */
export const SCREENING_SUBJECTS = ["payment", "application", "member", "ach_entry"] as const;
export const SCREENING_STATUSES = ["open", "cleared", "confirm_requested", "confirmed"] as const;

export interface ScreeningMatchRecord {
  entry_id: number;
  version_id: number;
  source: string;
  uid: string;
  listed_name: string;
  matched_name: string;
  name_kind: "primary" | "alias" | "weak_alias";
  score: number;
  name_score: number;
  birth_date: "match" | "mismatch" | "unknown";
  country: "match" | "mismatch" | "unknown";
  /** Which of the action's names matched (a wire screens its recipient and its bank). */
  screened_name: string;
}

export const sanctionsScreenings = pgTable(
  "sanctions_screenings",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    subject_type: text("subject_type", { enum: SCREENING_SUBJECTS }).notNull(),
    /** The external payment's id, the applicant's or member's user id, or the inbound IAT entry's id. */
    subject_id: text("subject_id").notNull(),
    /** The member (or applicant) the action belongs to. */
    member_id: text("member_id").notNull(),
    /** The name screened, as given (the payee, the wire recipient, the applicant). */
    screened_name: text("screened_name").notNull(),
    /** What else was screened or shown beside it: bank, country. */
    screened_details: jsonb("screened_details").$type<Record<string, string>>().notNull(),
    /** The best match first, at most five. */
    matches: jsonb("matches").$type<ScreeningMatchRecord[]>().notNull(),
    /** The best match's score, for sorting the queue. */
    score: text("score").notNull(),
    status: text("status", { enum: SCREENING_STATUSES }).notNull().default("open"),
    created_at: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    cleared_by: text("cleared_by"),
    cleared_at: timestamp("cleared_at", { withTimezone: true }),
    clear_reason: text("clear_reason"),
    confirm_requested_by: text("confirm_requested_by"),
    confirm_requested_at: timestamp("confirm_requested_at", { withTimezone: true }),
    confirm_reason: text("confirm_reason"),
    confirmed_by: text("confirmed_by"),
    confirmed_at: timestamp("confirmed_at", { withTimezone: true }),
    /** The report the confirmation calls for, drafted when it is approved (app/domain/sanctions/report.ts). */
    report_draft: jsonb("report_draft").$type<ScreeningReportDraft>(),
  },
  (t) => [
    check(
      "sanctions_screenings_subject_valid",
      sql`${t.subject_type} in ('payment', 'application', 'member', 'ach_entry')`,
    ),
    check(
      "sanctions_screenings_status_valid",
      sql`${t.status} in ('open', 'cleared', 'confirm_requested', 'confirmed')`,
    ),
    check(
      "sanctions_screenings_cleared_has_reason",
      sql`(${t.status} = 'cleared') = (${t.cleared_by} is not null and ${t.clear_reason} is not null)`,
    ),
    check(
      "sanctions_screenings_confirmed_by_another",
      sql`${t.status} <> 'confirmed' or (${t.confirmed_by} is not null and ${t.confirmed_by} <> ${t.confirm_requested_by})`,
    ),
    index("sanctions_screenings_status_idx").on(t.status, t.id),
    index("sanctions_screenings_subject_idx").on(t.subject_type, t.subject_id),
  ],
);

/**
 * The re-screen of every member against a newly loaded list (docs/operations.md#sanctions-re-screen):
 * one row per load, written in the load's transaction, worked through by the `sanctions-rescreen`
 * job in batches. `cursor` is the last member screened, committed with each batch's possible
 * matches, so a run stopped half way goes on from there. A newer load supersedes an unfinished
 * one (its members are screened against the newer lists instead).
 */
export const RESCREEN_STATUSES = ["running", "done", "superseded"] as const;

export const sanctionsRescreens = pgTable(
  "sanctions_rescreens",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** The list versions loaded together that asked for it. */
    version_ids: jsonb("version_ids").$type<number[]>().notNull(),
    status: text("status", { enum: RESCREEN_STATUSES }).notNull().default("running"),
    created_at: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    /** The last member (user id) screened: the next batch starts after it. */
    cursor: text("cursor"),
    members_screened: integer("members_screened").notNull().default(0),
    possible_matches: integer("possible_matches").notNull().default(0),
    finished_at: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [
    check("sanctions_rescreens_status_valid", sql`${t.status} in ('running', 'done', 'superseded')`),
    check("sanctions_rescreens_finished", sql`(${t.status} = 'running') = (${t.finished_at} is null)`),
    index("sanctions_rescreens_status_idx").on(t.status, t.id),
  ],
);

export type SanctionsRescreen = typeof sanctionsRescreens.$inferSelect;
export type SanctionsListVersion = typeof sanctionsListVersions.$inferSelect;
export type SanctionsScreening = typeof sanctionsScreenings.$inferSelect;

/**
 * Suspicious activity reports (31 CFR 1020.320, docs/product.md#suspicious-activity-reports): a
 * case staff open from a confirmed screening match or a reviewed incoming credit, with the
 * members it concerns, the amount and dates, and a narrative encrypted at rest; a second staff
 * member approves the filing; it is marked filed with the BSA E-Filing acknowledgement number
 * (the filing itself is made on FinCEN's BSA E-Filing System, outside Mutual). Confidential
 * (1020.320(e)): never shown to a member, its audit rows name no member.
 *
 * open: waiting for a second staff member's approval; approved: to be filed; filed: the
 * acknowledgement number recorded.
 */
export const SAR_STATUSES = ["open", "approved", "filed"] as const;
export const SAR_SOURCES = ["screening", "credit_review"] as const;

export const suspiciousActivityReports = pgTable(
  "suspicious_activity_reports",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    source_type: text("source_type", { enum: SAR_SOURCES }).notNull(),
    /** The screening's or the credit review's id. */
    source_id: bigint("source_id", { mode: "number" }).notNull(),
    /** The members the activity concerns (user ids). */
    subject_member_ids: jsonb("subject_member_ids").$type<string[]>().notNull(),
    /** Whether a suspect is identified: the filing deadline is 30 calendar days after detection, else 60. */
    suspect_identified: boolean("suspect_identified").notNull(),
    amount_cents: bigint("amount_cents", { mode: "number" }).notNull(),
    activity_from: date("activity_from", { mode: "string" }).notNull(),
    activity_to: date("activity_to", { mode: "string" }).notNull(),
    /** The day the activity was first detected (the source item's arrival). */
    detected_on: date("detected_on", { mode: "string" }).notNull(),
    due_on: date("due_on", { mode: "string" }).notNull(),
    /** The facts and narrative, encrypted (AES-256-GCM, `sarNarrativeContext`). */
    narrative_enc: text("narrative_enc").notNull(),
    status: text("status", { enum: SAR_STATUSES }).notNull().default("open"),
    opened_by: text("opened_by").notNull(),
    opened_at: timestamp("opened_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    approved_by: text("approved_by"),
    approved_at: timestamp("approved_at", { withTimezone: true }),
    filed_by: text("filed_by"),
    filed_at: timestamp("filed_at", { withTimezone: true }),
    /** The BSA E-Filing System's acknowledgement (BSA ID), as staff typed it. */
    bsa_acknowledgement: text("bsa_acknowledgement"),
  },
  (t) => [
    check("suspicious_activity_reports_status_valid", sql`${t.status} in ('open', 'approved', 'filed')`),
    check("suspicious_activity_reports_source_valid", sql`${t.source_type} in ('screening', 'credit_review')`),
    check(
      "suspicious_activity_reports_approved_by_another",
      sql`${t.status} = 'open' or (${t.approved_by} is not null and ${t.approved_by} <> ${t.opened_by})`,
    ),
    check(
      "suspicious_activity_reports_filed_has_acknowledgement",
      sql`(${t.status} = 'filed') = (${t.bsa_acknowledgement} is not null)`,
    ),
    check("suspicious_activity_reports_amount", sql`${t.amount_cents} >= 0`),
    check("suspicious_activity_reports_dates", sql`${t.activity_from} <= ${t.activity_to}`),
    index("suspicious_activity_reports_status_idx").on(t.status, t.due_on),
  ],
);
export type SuspiciousActivityReport = typeof suspiciousActivityReports.$inferSelect;
