import crypto from "node:crypto";
import { and, asc, eq, inArray, ne, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { debitCards, type DebitCard } from "~/server/db/schema";
import { maskCardNumber } from "~/domain/account-display";
import { encryptField, keyedHash } from "~/server/security/crypto.server";
import { notify } from "~/server/notifications/notifications.server";
import { institution } from "~/config/institution.server";
import { businessDate } from "~/domain/ledger-rules";
import { addDays } from "~/domain/schedule";
import { CARD_RENEWAL_DAYS, cardExpiryLabel } from "~/domain/cards";

/**
 * Debit cards (approval issues one for the checking account, docs/product.md#staff-review). The
 * full number is made here, encrypted at once and never returned: callers see the masked number and
 * last four.
 */

/** Issuer prefix of the demo cards (a test range; a real credit union configures its own BIN). */
export const CARD_ISSUER_PREFIX = "400000";
export const CARD_NUMBER_DIGITS = 16;
/** Daily spending limit of a new card: $1,000.00 (to move into the institution profile). */
export const DEFAULT_CARD_DAILY_LIMIT_CENTS = 100_000;
export const CARD_VALID_YEARS = 4;
const CARD_NUMBER_ATTEMPTS_MAX = 20;

/** The Luhn check digit for a string of digits (ISO/IEC 7812-1). */
export function luhnCheckDigit(digits: string): string {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

export function isLuhnValid(number: string): boolean {
  return /^\d{12,19}$/.test(number) && luhnCheckDigit(number.slice(0, -1)) === number.slice(-1);
}

export function randomCardNumber(random_int: (max: number) => number = (max) => crypto.randomInt(max)): string {
  let body = CARD_ISSUER_PREFIX;
  while (body.length < CARD_NUMBER_DIGITS - 1) body += String(random_int(10));
  return body + luhnCheckDigit(body);
}

export function cardNumberContext(member_id: string): string {
  return `debit_cards.card_number:${member_id}`;
}

export interface DebitCardView {
  id: number;
  member_id: string;
  account_id: number;
  masked_number: string;
  last4: string;
  expiry_month: number;
  expiry_year: number;
  status: "active" | "locked" | "blocked";
  daily_limit_cents: number;
  has_pin: boolean;
  created_at: Date;
}

function toView(row: DebitCard): DebitCardView {
  return {
    id: row.id,
    member_id: row.member_id,
    account_id: Number(row.account_id),
    masked_number: row.masked_number,
    last4: row.last4,
    expiry_month: row.expiry_month,
    expiry_year: row.expiry_year,
    status: row.status,
    daily_limit_cents: Number(row.daily_limit_cents),
    has_pin: row.pin_hash !== null,
    created_at: row.created_at,
  };
}

/** Issues an active debit card for a member's account (inside the caller's transaction). */
export async function issueDebitCard(
  db: DbOrTx,
  input: { member_id: string; account_id: number; now?: Date; daily_limit_cents?: number; renews_id?: number },
): Promise<DebitCardView> {
  const now = input.now ?? new Date();
  const expiry = new Date(Date.UTC(now.getUTCFullYear() + CARD_VALID_YEARS, now.getUTCMonth(), 1));
  for (let attempt = 0; attempt < CARD_NUMBER_ATTEMPTS_MAX; attempt++) {
    const number = randomCardNumber();
    const rows = await db
      .insert(debitCards)
      .values({
        member_id: input.member_id,
        account_id: input.account_id,
        card_number_enc: encryptField(number, cardNumberContext(input.member_id)),
        card_number_hash: keyedHash("card-number", number),
        masked_number: maskCardNumber(number),
        last4: number.slice(-4),
        expiry_month: expiry.getUTCMonth() + 1,
        expiry_year: expiry.getUTCFullYear(),
        status: "active",
        daily_limit_cents: input.daily_limit_cents ?? DEFAULT_CARD_DAILY_LIMIT_CENTS,
        renews_id: input.renews_id ?? null,
        created_at: now,
        updated_at: now,
      })
      .onConflictDoNothing({ target: debitCards.card_number_hash })
      .returning();
    if (rows[0]) return toView(rows[0]);
  }
  throw new Error(`no unused card number after ${CARD_NUMBER_ATTEMPTS_MAX} tries`);
}

/**
 * The account's cards that still work (active or locked), locked until the caller's transaction
 * ends. Taken before the account's own row when an account closes: a card purchase locks its card
 * and then the account, so the same order here cannot deadlock with one.
 */
export async function lockWorkingCardsOfAccount(db: DbOrTx, account_id: number): Promise<DebitCard[]> {
  return db
    .select()
    .from(debitCards)
    .where(and(eq(debitCards.account_id, account_id), ne(debitCards.status, "blocked")))
    .orderBy(asc(debitCards.id))
    .for("update");
}

/** Blocks those cards for good because their account closed (no replacement: there is no account for one). */
export async function blockCardsOfClosedAccount(
  db: DbOrTx,
  cards: readonly DebitCard[],
  now: Date = new Date(),
): Promise<void> {
  if (cards.length === 0) return;
  await db
    .update(debitCards)
    .set({ status: "blocked", blocked_at: now, blocked_reason: "account_closed", updated_at: now })
    .where(
      inArray(
        debitCards.id,
        cards.map((c) => c.id),
      ),
    );
}

/**
 * The nightly renewal: every card that still works (not blocked, its account not closed), not yet
 * renewed, whose expiry month ends within CARD_RENEWAL_DAYS of the business day, gets a new card:
 * new number and expiry, the same account and daily limit, no PIN yet. The member is told in the
 * bell; the old card works to the end of its month. Each card in its own database transaction
 * under its row lock; the unique index on `renews_id` keeps it to one renewal however often or
 * wherever the job runs.
 */
export async function renewExpiringCards(db: Db, now: Date = new Date()): Promise<{ renewed: number }> {
  const horizon = addDays(businessDate(institution().time_zone, now), CARD_RENEWAL_DAYS);
  let renewed = 0;
  let after = 0;
  for (;;) {
    const due = await db.execute<{ id: number }>(sql`
      select c.id from debit_cards c join ledger_accounts a on a.id = c.account_id
       where c.status <> 'blocked' and a.status <> 'closed' and c.id > ${after}
         and (make_date(c.expiry_year, c.expiry_month, 1) + interval '1 month' - interval '1 day')::date <= ${horizon}::date
         and not exists (select 1 from debit_cards n where n.renews_id = c.id)
       order by c.id limit ${RENEWAL_BATCH}`);
    for (const { id } of due.rows) {
      if (await renewCard(db, Number(id), now)) renewed++;
    }
    if (due.rows.length < RENEWAL_BATCH) return { renewed };
    after = Number(due.rows[due.rows.length - 1]!.id);
  }
}

const RENEWAL_BATCH = 500;

async function renewCard(db: Db, card_id: number, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [card] = await tx.select().from(debitCards).where(eq(debitCards.id, card_id)).for("update");
    if (!card || card.status === "blocked") return false;
    const [already] = await tx.select({ id: debitCards.id }).from(debitCards).where(eq(debitCards.renews_id, card.id));
    if (already) return false;
    const renewal = await issueDebitCard(tx, {
      member_id: card.member_id,
      account_id: Number(card.account_id),
      daily_limit_cents: Number(card.daily_limit_cents),
      renews_id: card.id,
      now,
    });
    await notify(tx, {
      member_id: card.member_id,
      kind: "card_activity",
      title: `Your new debit card ends ${renewal.last4}`,
      body: `Your debit card ending ${card.last4} expires at the end of ${cardExpiryLabel(card)}, so we issued its renewal, ending ${renewal.last4}, for the same account and daily limit. It works now: choose its PIN on the Cards page. The old card works until it expires.`,
    });
    return true;
  });
}

/** A member's cards, oldest first (masked). */
export async function memberCards(db: DbOrTx, member_id: string): Promise<DebitCardView[]> {
  const rows = await db
    .select()
    .from(debitCards)
    .where(eq(debitCards.member_id, member_id))
    .orderBy(asc(debitCards.id))
    .limit(50);
  return rows.map(toView);
}
