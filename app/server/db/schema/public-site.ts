import { sql } from "drizzle-orm";
import { bigserial, index, integer, pgTable, text, timestamp, primaryKey } from "drizzle-orm/pg-core";

/** Messages sent from the public contact form; staff read and answer them in /admin/messages. */
export const contactMessages = pgTable(
  "contact_messages",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    name: text("name").notNull(),
    email: text("email").notNull(),
    phone: text("phone"),
    subject: text("subject", { enum: ["general", "account", "loan", "technical"] }).notNull(),
    message: text("message").notNull(),
    preferred_contact: text("preferred_contact", { enum: ["email", "phone"] }).notNull(),
    status: text("status", { enum: ["new", "answered"] })
      .notNull()
      .default("new"),
    source_ip: text("source_ip"),
    request_id: text("request_id"),
    created_at: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [index("contact_messages_created_at_idx").on(t.created_at)],
);

/**
 * Fixed-window counters for rate limits (per IP, per account...). Kept in the database so every
 * app process shares them.
 */
export const rateLimitCounters = pgTable(
  "rate_limit_counters",
  {
    key: text("key").notNull(),
    window_start: timestamp("window_start", { withTimezone: true }).notNull(),
    hits: integer("hits").notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.window_start] })],
);
