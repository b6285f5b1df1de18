import { boolean, customType, date, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Columns several tables declare alike, written once. Not tables: schema.ts does not gather this
 * file, and each table calls these for builders of its own (a column builder belongs to one table).
 */

/** File bytes: node-postgres hands bytea back as a Buffer, PGlite as a Uint8Array; both become a Buffer. */
export const bytes = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => "bytea",
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value)),
});

/** A monthly statement's month: an account's (account_statements) and a loan's (loan_statements). */
export const statementMonth = () => ({
  /** YYYY-MM, a calendar month in the institution's time zone. */
  period_month: text("period_month").notNull(),
  period_start: date("period_start", { mode: "string" }).notNull(),
  period_end: date("period_end", { mode: "string" }).notNull(),
});

/**
 * A statement kept as made (an account's, a loan's, a line's): the PDF, the document of record;
 * whether a paper copy is to be mailed; who made it and when.
 */
export const keptStatement = () => ({
  pdf: bytes("pdf").notNull(),
  /**
   * No consent to electronic delivery on record when it was made (E-SIGN,
   * docs/product.md#electronic-delivery): a paper copy is to be mailed. Printing is not built.
   */
  mail_paper_copy: boolean("mail_paper_copy").notNull().default(false),
  /** "system:statements" (the monthly run) or "member:<id>" (asked for or downloaded before the run made it). */
  created_by: text("created_by").notNull(),
  created_at: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});
