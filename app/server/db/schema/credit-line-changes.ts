import { sql } from "drizzle-orm";
import { bigint, bigserial, check, date, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { creditLines } from "./lines-of-credit";

/**
 * What was done to an open line of credit after it opened (docs/product.md#line-of-credit-servicing):
 * draws frozen or unfrozen, the line closed (by staff or the member), an APR changed, the credit
 * limit lowered; who did it, when, why, and how the member was told (`email`, or `mail` when they
 * have not agreed to electronic delivery: the paper list). One row per change, never edited but
 * for an APR change going into effect. An APR change is `scheduled` until its effective date: the
 * line's interest accrual switches to it on that day (app/server/loans/line-term-changes.server.ts).
 */
export const CREDIT_LINE_CHANGE_KINDS = ["freeze", "unfreeze", "close", "rate", "limit"] as const;
export type CreditLineChangeKind = (typeof CREDIT_LINE_CHANGE_KINDS)[number];

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const creditLineChanges = pgTable(
  "credit_line_changes",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    line_id: bigint("line_id", { mode: "number" })
      .notNull()
      .references(() => creditLines.id),
    member_id: text("member_id").notNull(),
    kind: text("kind", { enum: CREDIT_LINE_CHANGE_KINDS }).notNull(),
    /** For a freeze or a close: fraud, delinquency or member_request. */
    reason: text("reason"),
    /** Staff's own words, kept with the change and in the audit log. */
    note: text("note").notNull(),
    rate_from_ppm: integer("rate_from_ppm"),
    rate_to_ppm: integer("rate_to_ppm"),
    limit_from_cents: bigint("limit_from_cents", { mode: "number" }),
    limit_to_cents: bigint("limit_to_cents", { mode: "number" }),
    /** The day the change takes effect: today, or for an APR increase 45 days after the notice or later. */
    effective_on: date("effective_on", { mode: "string" }).notNull(),
    status: text("status", { enum: ["scheduled", "in_effect"] }).notNull(),
    notice_channel: text("notice_channel", { enum: ["email", "mail"] }).notNull(),
    actor_id: text("actor_id").notNull(),
    actor_email: text("actor_email"),
    created_at: timestamptz("created_at").notNull().defaultNow(),
  },
  (t) => [
    index("credit_line_changes_line_idx").on(t.line_id, t.id),
    index("credit_line_changes_scheduled_idx")
      .on(t.line_id, t.effective_on)
      .where(sql`${t.status} = 'scheduled'`),
    check("credit_line_changes_kind_valid", sql`${t.kind} in ('freeze', 'unfreeze', 'close', 'rate', 'limit')`),
    check(
      "credit_line_changes_shape",
      sql`(${t.kind} <> 'rate' or (${t.rate_from_ppm} >= 0 and ${t.rate_to_ppm} >= 0 and ${t.rate_from_ppm} <> ${t.rate_to_ppm}))
        and (${t.kind} <> 'limit' or (${t.limit_to_cents} > 0 and ${t.limit_to_cents} < ${t.limit_from_cents}))
        and (${t.kind} = 'rate' or ${t.status} = 'in_effect')
        and (${t.kind} not in ('freeze', 'close') or ${t.reason} in ('fraud', 'delinquency', 'member_request'))`,
    ),
  ],
);

export type CreditLineChangeRow = typeof creditLineChanges.$inferSelect;
