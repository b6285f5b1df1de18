import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  check,
  customType,
  date,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  unique,
} from "drizzle-orm/pg-core";
import { ledgerAccounts } from "./ledger";

/** PDF bytes: node-postgres hands bytea back as a Buffer, PGlite as a Uint8Array; both become a Buffer. */
const bytes = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => "bytea",
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value)),
});

/**
 * Monthly account statements (docs/product.md#statements), kept as made: a statement is a
 * document of record, so once made for an account and month it is served again as it was (one
 * per account and month, by the unique key), never made again from a ledger that has moved on
 * (a hold listed as pending may have settled since). Nothing is deleted.
 */
export const accountStatements = pgTable(
  "account_statements",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    account_id: bigint("account_id", { mode: "number" })
      .notNull()
      .references(() => ledgerAccounts.id),
    member_id: text("member_id").notNull(),
    /** YYYY-MM, a calendar month in the institution's time zone. */
    period_month: text("period_month").notNull(),
    period_start: date("period_start", { mode: "string" }).notNull(),
    period_end: date("period_end", { mode: "string" }).notNull(),
    opening_cents: bigint("opening_cents", { mode: "number" }).notNull(),
    closing_cents: bigint("closing_cents", { mode: "number" }).notNull(),
    credits_cents: bigint("credits_cents", { mode: "number" }).notNull(),
    debits_cents: bigint("debits_cents", { mode: "number" }).notNull(),
    posted_count: integer("posted_count").notNull(),
    pending_count: integer("pending_count").notNull(),
    pdf: bytes("pdf").notNull(),
    /**
     * The member had not consented to electronic delivery when it was made (E-SIGN,
     * docs/product.md#electronic-delivery): a paper copy is to be mailed. Printing is not built.
     */
    mail_paper_copy: boolean("mail_paper_copy").notNull().default(false),
    /** "system:statements" (the monthly run) or "member:<id>" (asked for on the Statements page). */
    created_by: text("created_by").notNull(),
    created_at: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [
    unique("account_statements_account_month_unique").on(t.account_id, t.period_month),
    index("account_statements_member_idx").on(t.member_id, t.period_month),
    check("account_statements_month_format", sql`${t.period_month} ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'`),
    check(
      "account_statements_totals",
      sql`${t.closing_cents} = ${t.opening_cents} + ${t.credits_cents} - ${t.debits_cents}`,
    ),
    check("account_statements_totals_not_negative", sql`${t.credits_cents} >= 0 and ${t.debits_cents} >= 0`),
  ],
);

export type AccountStatement = typeof accountStatements.$inferSelect;
