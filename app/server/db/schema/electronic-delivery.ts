import { sql } from "drizzle-orm";
import { bigserial, boolean, check, index, jsonb, pgTable, text, timestamp, unique } from "drizzle-orm/pg-core";
import { users } from "./auth";

/**
 * Electronic delivery consent (E-SIGN, 15 U.S.C. 7001(c); docs/product.md#electronic-delivery).
 * Nothing is deleted: each choice a member makes is a new row with its time, the E-SIGN
 * disclosure's version and every disclosure's version they saw, and where the request came from;
 * the latest row is how they get statements and notices now.
 */
const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const electronicDeliveryChoices = pgTable(
  "electronic_delivery_choices",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    member_id: text("member_id")
      .notNull()
      .references(() => users.id),
    /** consented: electronic only; withdrawn or declined: paper by mail. */
    choice: text("choice", { enum: ["consented", "withdrawn", "declined"] }).notNull(),
    /** The E-SIGN disclosure's version the member read. */
    disclosure_version: text("disclosure_version").notNull(),
    /** Every disclosure's version at that time ({ kind: version }): what the member agreed to. */
    disclosure_versions: jsonb("disclosure_versions").$type<Record<string, string>>().notNull(),
    /** "member:<id>" or "seed" (the demo's members, seeded as having consented). */
    made_by: text("made_by").notNull(),
    request_id: text("request_id"),
    ip: text("ip"),
    at: timestamptz("at").defaultNow().notNull(),
  },
  (t) => [index("electronic_delivery_choices_member_idx").on(t.member_id, t.at)],
);

/**
 * The codes printed in the sample PDF the member opens before consenting: the proof they can open
 * a PDF. One per attempt, kept (used_at marks the one that was typed).
 */
export const electronicDeliverySamples = pgTable(
  "electronic_delivery_samples",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    member_id: text("member_id")
      .notNull()
      .references(() => users.id),
    code: text("code").notNull(),
    created_at: timestamptz("created_at").defaultNow().notNull(),
    expires_at: timestamptz("expires_at").notNull(),
    used_at: timestamptz("used_at"),
  },
  (t) => [
    index("electronic_delivery_samples_member_idx").on(t.member_id, t.created_at),
    check("electronic_delivery_samples_code", sql`${t.code} ~ '^[A-Z0-9]{6}$'`),
  ],
);

/**
 * Change-in-terms notices (docs/product.md#disclosures): who was told of which disclosure's new
 * version, when, and the date it takes effect. One per member, disclosure and version.
 */
export const disclosureNotices = pgTable(
  "disclosure_notices",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    member_id: text("member_id")
      .notNull()
      .references(() => users.id),
    kind: text("kind").notNull(),
    version: text("version").notNull(),
    effective_on: text("effective_on").notNull(),
    /** "email" (electronic delivery) or "mail" (on the paper list: staff mail it). */
    channel: text("channel", { enum: ["email", "mail"] }).notNull(),
    sent_at: timestamptz("sent_at").defaultNow().notNull(),
  },
  (t) => [unique("disclosure_notices_once").on(t.member_id, t.kind, t.version)],
);

/**
 * A disclosure's new version seen in the profile (docs/product.md#disclosures): when it was first
 * seen (announced), the date it takes effect (the profile's date, or later when that is sooner than
 * the notice period of its rule: 21 days for Regulation E, 30 for Truth in Savings and funds
 * availability), and when every member had been told. The first version of each disclosure an
 * installation runs with is its baseline (members agree to it at consent): no notice.
 */
export const disclosureChanges = pgTable(
  "disclosure_changes",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    kind: text("kind").notNull(),
    version: text("version").notNull(),
    /** The date the profile states. */
    profile_effective_on: text("profile_effective_on").notNull(),
    /** The date it takes effect: at least the rule's notice period after `announced_on`. */
    effective_on: text("effective_on").notNull(),
    announced_on: text("announced_on").notNull(),
    baseline: boolean("baseline").notNull().default(false),
    created_at: timestamptz("created_at").defaultNow().notNull(),
    /** When the notice job found no member left to tell. */
    notices_done_at: timestamptz("notices_done_at"),
  },
  (t) => [unique("disclosure_changes_once").on(t.kind, t.version)],
);
