import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  check,
  date,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  unique,
  uniqueIndex,
  type AnyPgColumn,
} from "drizzle-orm/pg-core";
import { ledgerAccounts, ledgerTransactions } from "./ledger";

/**
 * Debit cards (issued at approval, docs/product.md#staff-review; Card Services are
 * docs/product.md#cards). The full number is encrypted at rest (`encryptField(number,
 * "debit_cards.card_number:<member id>")`) and only ever shown masked; a keyed hash of it keeps
 * numbers unique without reading them. The PIN, once a member sets one, is stored as a slow hash
 * only. Status: active, locked (by the member, undone by Unlock) or blocked (reported lost or
 * stolen: for good; `replaced_by_id` names the card issued in its place). Nothing is deleted.
 */
const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const DEBIT_CARD_STATUSES = ["active", "locked", "blocked"] as const;
/** Why a card is blocked for good: the member reported it, or staff closed its account. */
export const CARD_BLOCK_REASONS = ["lost", "stolen", "account_closed"] as const;

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
    pin_changed_at: timestamptz("pin_changed_at"),
    blocked_at: timestamptz("blocked_at"),
    blocked_reason: text("blocked_reason", { enum: CARD_BLOCK_REASONS }),
    /** The replacement issued when this card was reported lost or stolen. */
    replaced_by_id: bigint("replaced_by_id", { mode: "number" }).references((): AnyPgColumn => debitCards.id),
    /** The expiring card this one renews (issued by the nightly renewal); each card is renewed once. */
    renews_id: bigint("renews_id", { mode: "number" }).references((): AnyPgColumn => debitCards.id),
    created_at: timestamptz("created_at").defaultNow().notNull(),
    updated_at: timestamptz("updated_at").defaultNow().notNull(),
  },
  (t) => [
    index("debit_cards_member_idx").on(t.member_id),
    index("debit_cards_account_idx").on(t.account_id),
    uniqueIndex("debit_cards_renews_unique")
      .on(t.renews_id)
      .where(sql`${t.renews_id} is not null`),
    check("debit_cards_status_valid", sql`${t.status} in ('active', 'locked', 'blocked')`),
    // Blocked is for good and says why; only a blocked card has a replacement.
    check(
      "debit_cards_blocked_shape",
      sql`(${t.status} = 'blocked') = (${t.blocked_at} is not null and ${t.blocked_reason} in ('lost', 'stolen', 'account_closed')) and (${t.replaced_by_id} is null or ${t.status} = 'blocked')`,
    ),
    check("debit_cards_last4_format", sql`${t.last4} ~ '^[0-9]{4}$'`),
    check(
      "debit_cards_expiry_valid",
      sql`${t.expiry_month} between 1 and 12 and ${t.expiry_year} between 2000 and 2200`,
    ),
    check("debit_cards_daily_limit_not_negative", sql`${t.daily_limit_cents} >= 0`),
  ],
);

export type DebitCard = typeof debitCards.$inferSelect;

export const CARD_AUTHORIZATION_STATUSES = ["pending", "settled", "released"] as const;

/**
 * Every authorized card purchase (app/server/cards/authorization.server.ts): the card, the
 * merchant, and the ledger transaction that holds then posts the money (kind card_payment, the
 * card network's settlement account on the other side). A card's transactions are these rows'
 * ledger transactions. `business_date` is the institution's business day of the authorization:
 * the card's daily limit counts the day's rows that are not released.
 */
export const cardAuthorizations = pgTable(
  "card_authorizations",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    card_id: bigint("card_id", { mode: "number" })
      .notNull()
      .references(() => debitCards.id),
    account_id: bigint("account_id", { mode: "number" })
      .notNull()
      .references(() => ledgerAccounts.id),
    transaction_id: bigint("transaction_id", { mode: "number" })
      .notNull()
      .references(() => ledgerTransactions.id),
    merchant: text("merchant").notNull(),
    category: text("category").notNull(),
    amount_cents: bigint("amount_cents", { mode: "number" }).notNull(),
    business_date: date("business_date", { mode: "string" }).notNull(),
    status: text("status", { enum: CARD_AUTHORIZATION_STATUSES }).notNull(),
    /** Who sent it ("staff:<id>", "system:demo") and its key: a repeat answers with the first. */
    initiator: text("initiator").notNull(),
    idempotency_key: text("idempotency_key").notNull(),
    created_at: timestamptz("created_at").defaultNow().notNull(),
    settled_at: timestamptz("settled_at"),
    /** When the hold was given back: the merchant cancelled, or the network never settled it in time. */
    released_at: timestamptz("released_at"),
  },
  (t) => [
    unique("card_authorizations_initiator_key_unique").on(t.initiator, t.idempotency_key),
    unique("card_authorizations_transaction_unique").on(t.transaction_id),
    index("card_authorizations_card_day_idx").on(t.card_id, t.business_date),
    // The nightly release of authorizations the network never settled reads the oldest pending ones.
    index("card_authorizations_pending_idx")
      .on(t.business_date)
      .where(sql`${t.status} = 'pending'`),
    check("card_authorizations_amount_positive", sql`${t.amount_cents} > 0`),
    check("card_authorizations_status_valid", sql`${t.status} in ('pending', 'settled', 'released')`),
  ],
);

export type CardAuthorization = typeof cardAuthorizations.$inferSelect;
