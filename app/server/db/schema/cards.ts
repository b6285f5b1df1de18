import { sql } from "drizzle-orm";
import { bigint, bigserial, check, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { ledgerAccounts } from "./ledger";

/**
 * Debit cards (issued at approval, docs/product.md#staff-review; Card Services are
 * docs/product.md#cards). The full number is encrypted at rest (`encryptField(number,
 * "debit_cards.card_number:<member id>")`) and only ever shown masked; a keyed hash of it keeps
 * numbers unique without reading them. The PIN, once a member sets one, is stored as a hash only.
 */
const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const DEBIT_CARD_STATUSES = ["active", "locked"] as const;

export const debitCards = pgTable(
  "debit_cards",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    member_id: text("member_id").notNull(),
    account_id: bigint("account_id", { mode: "number" })
      .notNull()
      .references(() => ledgerAccounts.id),
    card_number_enc: text("card_number_enc").notNull(),
    /** keyedHash("card-number", number): uniqueness without decrypting. */
    card_number_hash: text("card_number_hash").notNull().unique("debit_cards_card_number_hash_unique"),
    /** "•••• 1234" */
    masked_number: text("masked_number").notNull(),
    last4: text("last4").notNull(),
    expiry_month: integer("expiry_month").notNull(),
    expiry_year: integer("expiry_year").notNull(),
    status: text("status", { enum: DEBIT_CARD_STATUSES }).notNull().default("active"),
    daily_limit_cents: bigint("daily_limit_cents", { mode: "number" }).notNull(),
    pin_hash: text("pin_hash"),
    created_at: timestamptz("created_at").defaultNow().notNull(),
    updated_at: timestamptz("updated_at").defaultNow().notNull(),
  },
  (t) => [
    index("debit_cards_member_idx").on(t.member_id),
    index("debit_cards_account_idx").on(t.account_id),
    check("debit_cards_status_valid", sql`${t.status} in ('active', 'locked')`),
    check("debit_cards_last4_format", sql`${t.last4} ~ '^[0-9]{4}$'`),
    check("debit_cards_expiry_valid", sql`${t.expiry_month} between 1 and 12 and ${t.expiry_year} between 2000 and 2200`),
    check("debit_cards_daily_limit_not_negative", sql`${t.daily_limit_cents} >= 0`),
  ],
);

export type DebitCard = typeof debitCards.$inferSelect;
