import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { cardAuthorizations, debitCards, type DebitCard } from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { placeHold, releaseHold, settleHold } from "~/server/ledger/ledger.server";
import { tellCardDeclined } from "~/server/alerts/alerts.server";
import { notify } from "~/server/notifications/notifications.server";
import { businessDate, toCents } from "~/domain/ledger-rules";
import { addDays } from "~/domain/schedule";
import { CARD_AUTHORIZATION_HOLD_DAYS, decideCardPurchase, type CardStatus } from "~/domain/cards";
import { formatCents } from "~/domain/money";
import type { RefusalCode } from "~/domain/refusals";
import { refusalMessage } from "~/domain/refusals";

/**
 * Card purchases (docs/product.md#cards): the one way a card purchase reaches the ledger. The
 * card network (in this project the back office's Post card transaction, and the demo's pending
 * purchase) asks `authorizeCardPurchase`; it decides with the card's own rules
 * (`decideCardPurchase`: locked, blocked, expired, over the daily limit), then asks the ledger
 * for a hold on the card's account (which refuses insufficient funds and a frozen or closed
 * account), against the card network's settlement account. `settleCardPurchase` posts the hold
 * when the network settles; `releaseCardPurchase` gives it back when the merchant cancels, and
 * `releaseUnsettledCardPurchases` (a nightly job) when the network has not settled it within
 * CARD_AUTHORIZATION_HOLD_DAYS, so a purchase that never completes does not hold the member's
 * money for ever. A refusal is a value (`{ ok: false, code, message }`), nothing
 * written; the member is told in the bell.
 *
 * The daily limit counts the card's **line**: a card, the cards it replaced (Report lost) or renews,
 * and the cards that replaced or renew it. A replacement or renewal is the same card to the member
 * and to the limit, so it carries the day's count of the card before it, down the whole chain
 * (docs/product.md#cards); a renewal and the card it renews, which both work until the old one
 * expires, share one count both ways.
 *
 * Locking order: the rows of the card's line, by id (they serialize the line's day total: a
 * purchase on the old card and one on its renewal wait for each other), then the ledger's
 * accounts (inside placeHold), then the new authorization row.
 */

export interface CardPurchaseInput {
  card_id: number;
  merchant: string;
  amount_cents: number;
  category: string;
  /** Unique per initiator: a repeat answers with the first authorization. */
  idempotency_key: string;
  /** "staff:<id>" (the back office standing in for the network), "system:demo". */
  initiator: string;
  created_by: string;
  now?: Date;
}

export interface CardAuthorizationView {
  id: number;
  card_id: number;
  account_id: number;
  transaction_id: number;
  merchant: string;
  category: string;
  amount_cents: number;
  business_date: string;
  status: "pending" | "settled" | "released";
}

export interface CardRefusal {
  ok: false;
  code: RefusalCode;
  message: string;
}

export type CardAuthorizationAnswer =
  { ok: true; authorization: CardAuthorizationView; replayed: boolean } | CardRefusal;

function refusal(code: RefusalCode, details: Record<string, string> = {}): CardRefusal {
  return { ok: false, code, message: refusalMessage(code, details) };
}

function toView(row: typeof cardAuthorizations.$inferSelect): CardAuthorizationView {
  return {
    id: Number(row.id),
    card_id: Number(row.card_id),
    account_id: Number(row.account_id),
    transaction_id: Number(row.transaction_id),
    merchant: row.merchant,
    category: row.category,
    amount_cents: Number(row.amount_cents),
    business_date: row.business_date,
    status: row.status,
  };
}

/** The card's row, locked until the caller's transaction ends. */
export async function lockCard(tx: DbOrTx, card_id: number): Promise<DebitCard | null> {
  const [card] = await tx.select().from(debitCards).where(eq(debitCards.id, card_id)).for("update");
  return card ?? null;
}

/**
 * The ids of the card's line (above) as a subquery, for any card id expression: every card joined
 * to it by `replaced_by_id` or `renews_id`, either way, however long the chain. Within the
 * member's own cards (the links never cross members), so each step reads the member's index, and
 * `union` drops a card already found, so the walk ends.
 */
export function cardLineSql(card_id: SQL): SQL {
  return sql`(with recursive line(id, member_id, replaced_by_id, renews_id) as (
      select d.id, d.member_id, d.replaced_by_id, d.renews_id from debit_cards d where d.id = ${card_id}
      union
      select c.id, c.member_id, c.replaced_by_id, c.renews_id from debit_cards c join line l on c.member_id = l.member_id
         and (c.replaced_by_id = l.id or c.renews_id = l.id or c.id = l.replaced_by_id or c.id = l.renews_id))
    select line.id from line)`;
}

/**
 * What the card's line has authorized on the institution's business day `day` (released ones not
 * counted), as SQL for any card id expression: the purchase check reads it for one card, the
 * cards' view for each card in the same statement as the cards.
 */
export function spentOnDaySql(card_id: SQL, day: string): SQL<string> {
  return sql<string>`(select coalesce(sum(${cardAuthorizations.amount_cents}), 0) from ${cardAuthorizations}
     where ${cardAuthorizations.card_id} in ${cardLineSql(card_id)} and ${cardAuthorizations.business_date} = ${day} and ${cardAuthorizations.status} <> 'released')`;
}

/**
 * The card's row and those of its line, locked by id until the caller's transaction ends. A card
 * joins a line only while the card before it is locked (Report lost, the renewal job), so two
 * purchases on one line always meet on that card's lock.
 */
export async function lockCardLine(tx: DbOrTx, card_id: number): Promise<DebitCard | null> {
  const rows = await tx
    .select()
    .from(debitCards)
    .where(sql`${debitCards.id} in ${cardLineSql(sql`${card_id}`)}`)
    .orderBy(asc(debitCards.id))
    .for("update");
  return rows.find((row) => row.id === card_id) ?? null;
}

/** What the card's line has authorized on the institution's business day `day` (released ones not counted). */
export async function spentOnDay(db: DbOrTx, card_id: number, day: string): Promise<number> {
  const result = await db.execute(sql`select ${spentOnDaySql(sql`${card_id}`, day)} as total`);
  return toCents(result.rows[0]?.total ?? 0);
}

/** Authorizes one purchase: a hold on the card's account, or the refusal. */
export async function authorizeCardPurchase(db: DbOrTx, input: CardPurchaseInput): Promise<CardAuthorizationAnswer> {
  const first = await findAuthorization(db, input.initiator, input.idempotency_key);
  if (first) return { ok: true, authorization: first, replayed: true };
  const now = input.now ?? new Date();
  const today = businessDate(institution().time_zone, now);
  // Opened on first use, outside the purchase's transaction (as the other settlement accounts are).
  const settlement = await institutionAccount(db, "card_settlement");
  let declined: { member_id: string; last4: string; account_id: number } | null = null;
  const answer = await db.transaction(async (tx): Promise<CardAuthorizationAnswer> => {
    const card = await lockCardLine(tx, input.card_id);
    if (!card) return refusal("card_not_found");
    // The same purchase sent twice at once: the second waited for the card's lock; now it sees the first.
    const repeat = await findAuthorization(tx, input.initiator, input.idempotency_key);
    if (repeat) return { ok: true, authorization: repeat, replayed: true };
    const spent_today_cents = await spentOnDay(tx, card.id, today);
    const decision = decideCardPurchase({
      card: {
        status: card.status as CardStatus,
        expiry_month: card.expiry_month,
        expiry_year: card.expiry_year,
        daily_limit_cents: Number(card.daily_limit_cents),
      },
      amount_cents: input.amount_cents,
      spent_today_cents,
      today,
    });
    if (!decision.ok) {
      declined = { member_id: card.member_id, last4: card.last4, account_id: Number(card.account_id) };
      return decision;
    }
    const hold = await placeHold(tx, {
      idempotency_key: `card-authorization:${input.idempotency_key}`,
      initiator: input.initiator,
      kind: "card_payment",
      entries: [
        { account_id: Number(card.account_id), amount_cents: -input.amount_cents },
        { account_id: settlement.id, amount_cents: input.amount_cents },
      ],
      created_by: input.created_by,
      memo: `Debit card purchase: ${input.merchant}`,
      reference: `Card ${card.masked_number}`,
      category: input.category,
      effective_date: today,
    });
    if (!hold.ok) {
      declined = { member_id: card.member_id, last4: card.last4, account_id: Number(card.account_id) };
      return { ok: false, code: hold.code, message: hold.message };
    }
    const [row] = await tx
      .insert(cardAuthorizations)
      .values({
        card_id: card.id,
        account_id: Number(card.account_id),
        transaction_id: hold.transaction.id,
        merchant: input.merchant,
        category: input.category,
        amount_cents: input.amount_cents,
        business_date: today,
        status: "pending",
        initiator: input.initiator,
        idempotency_key: input.idempotency_key,
        created_at: now,
      })
      .returning();
    return { ok: true, authorization: toView(row!), replayed: false };
  });
  if (!answer.ok && declined) {
    const who = declined as { member_id: string; last4: string; account_id: number };
    // The member hears of a declined purchase at once (a real event: docs/product.md#notifications),
    // and by email too when they chose the alert (docs/product.md#alerts): both or neither.
    await db.transaction(async (tx) => {
      await notify(tx, {
        member_id: who.member_id,
        kind: "card_activity",
        title: `Card purchase declined: ${formatCents(input.amount_cents)} at ${input.merchant}`.slice(0, 140),
        body: `Your debit card ending ${who.last4} was declined: ${answer.message}.`,
      });
      await tellCardDeclined(tx, {
        member_id: who.member_id,
        account_id: who.account_id,
        amount_cents: input.amount_cents,
        merchant: input.merchant,
        reason: answer.message,
      });
    });
  }
  return answer;
}

export type CardSettleAnswer = { ok: true; authorization: CardAuthorizationView; replayed: boolean } | CardRefusal;

/**
 * The network settles an authorized purchase: its hold is posted (current balance down, the
 * settlement account credited). Settling twice answers with the first settle.
 */
export async function settleCardPurchase(
  db: DbOrTx,
  input: { authorization_id: number; resolved_by: string },
): Promise<CardSettleAnswer> {
  return db.transaction(async (tx): Promise<CardSettleAnswer> => {
    const [row] = await tx
      .select()
      .from(cardAuthorizations)
      .where(eq(cardAuthorizations.id, input.authorization_id))
      .for("update");
    if (!row) return refusal("transaction_not_found");
    if (row.status === "settled") return { ok: true, authorization: toView(row), replayed: true };
    if (row.status !== "pending") return refusal("not_pending");
    const settled = await settleHold(tx, {
      transaction_id: Number(row.transaction_id),
      idempotency_key: `card-settle:${row.id}`,
      resolved_by: input.resolved_by,
    });
    if (!settled.ok) return { ok: false, code: settled.code, message: settled.message };
    const [updated] = await tx
      .update(cardAuthorizations)
      .set({ status: "settled", settled_at: new Date() })
      .where(eq(cardAuthorizations.id, row.id))
      .returning();
    return { ok: true, authorization: toView(updated!), replayed: false };
  });
}

export type CardReleaseAnswer = { ok: true; authorization: CardAuthorizationView; replayed: boolean } | CardRefusal;

/** Why a hold was given back, in the member's words (the bell). */
const RELEASE_REASONS = {
  cancelled: "The merchant cancelled this purchase",
  unsettled: `The merchant did not complete this purchase within ${CARD_AUTHORIZATION_HOLD_DAYS} days`,
} as const;

/**
 * The hold of an authorized purchase is given back (the ledger transaction fails: nothing was
 * posted), the authorization is Released and no longer counts against the card's daily limit,
 * and the member is told in the bell. Releasing twice answers with the first release; a settled
 * purchase is refused ("not pending": a settled purchase is corrected by a reversal).
 */
export async function releaseCardPurchase(
  db: DbOrTx,
  input: { authorization_id: number; resolved_by: string; reason: keyof typeof RELEASE_REASONS; now?: Date },
): Promise<CardReleaseAnswer> {
  return db.transaction(async (tx): Promise<CardReleaseAnswer> => {
    const [row] = await tx
      .select()
      .from(cardAuthorizations)
      .where(eq(cardAuthorizations.id, input.authorization_id))
      .for("update");
    if (!row) return refusal("transaction_not_found");
    if (row.status === "released") return { ok: true, authorization: toView(row), replayed: true };
    if (row.status !== "pending") return refusal("not_pending");
    // A hold may be given back on a frozen or closed account: the money returns to the member.
    const released = await releaseHold(tx, {
      transaction_id: Number(row.transaction_id),
      idempotency_key: `card-release:${row.id}`,
      resolved_by: input.resolved_by,
    });
    if (!released.ok) return { ok: false, code: released.code, message: released.message };
    const [updated] = await tx
      .update(cardAuthorizations)
      .set({ status: "released", released_at: input.now ?? new Date() })
      .where(eq(cardAuthorizations.id, row.id))
      .returning();
    const [card] = await tx
      .select({ member_id: debitCards.member_id, last4: debitCards.last4 })
      .from(debitCards)
      .where(eq(debitCards.id, row.card_id));
    await notify(tx, {
      member_id: card!.member_id,
      kind: "card_activity",
      title: `Card purchase released: ${formatCents(Number(row.amount_cents))} at ${row.merchant}`.slice(0, 140),
      body: `${RELEASE_REASONS[input.reason]} on your debit card ending ${card!.last4}. The held money is available again.`,
    });
    return { ok: true, authorization: toView(updated!), replayed: false };
  });
}

/** The oldest business day an authorization may have and still be waiting on `today`. */
export function oldestUnsettledDay(today: string): string {
  return addDays(today, -CARD_AUTHORIZATION_HOLD_DAYS);
}

/**
 * The nightly job: every authorization still pending after CARD_AUTHORIZATION_HOLD_DAYS days
 * (authorized before oldestUnsettledDay) is released, each in its own database transaction (a
 * repeat, or two runs at once, release each once: the row lock and the release's key).
 */
export async function releaseUnsettledCardPurchases(db: DbOrTx, now: Date = new Date()): Promise<{ released: number }> {
  const before = oldestUnsettledDay(businessDate(institution().time_zone, now));
  let released = 0;
  let after = 0;
  for (;;) {
    const due = await db
      .select({ id: cardAuthorizations.id })
      .from(cardAuthorizations)
      .where(
        and(
          eq(cardAuthorizations.status, "pending"),
          sql`${cardAuthorizations.business_date} < ${before}`,
          sql`${cardAuthorizations.id} > ${after}`,
        ),
      )
      .orderBy(cardAuthorizations.id)
      .limit(RELEASE_BATCH);
    for (const { id } of due) {
      const answer = await releaseCardPurchase(db, {
        authorization_id: Number(id),
        resolved_by: CARD_RELEASE_SYSTEM,
        reason: "unsettled",
        now,
      });
      if (!answer.ok) throw new Error(`card authorization ${id} could not be released: ${answer.code}`);
      if (!answer.replayed) released++;
    }
    if (due.length < RELEASE_BATCH) return { released };
    after = Number(due[due.length - 1]!.id);
  }
}

const RELEASE_BATCH = 500;
const CARD_RELEASE_SYSTEM = "system:card-authorizations";

async function findAuthorization(
  db: DbOrTx,
  initiator: string,
  idempotency_key: string,
): Promise<CardAuthorizationView | null> {
  const [row] = await db
    .select()
    .from(cardAuthorizations)
    .where(and(eq(cardAuthorizations.initiator, initiator), eq(cardAuthorizations.idempotency_key, idempotency_key)));
  return row ? toView(row) : null;
}

// ---------------------------------------------------------------------------------------------
// Past purchases (the demo's history): decided by the same rule, posted settled in batches.

export interface PastPurchase {
  merchant: string;
  category: string;
  amount_cents: number;
  /** The business day it was made (YYYY-MM-DD). */
  business_date: string;
}

/**
 * Which of a card's past purchases the card's rules authorize, in order (the same
 * `decideCardPurchase`, each day's total counted as it goes). The money side is the ledger's,
 * which refuses the whole batch rather than one purchase, so the caller keeps them affordable.
 */
export function authorizedPastPurchases<T extends PastPurchase>(
  card: Pick<DebitCard, "status" | "expiry_month" | "expiry_year" | "daily_limit_cents">,
  purchases: readonly T[],
): T[] {
  const spent = new Map<string, number>();
  return purchases.filter((p) => {
    const spent_today_cents = spent.get(p.business_date) ?? 0;
    const decision = decideCardPurchase({
      card: {
        status: card.status as CardStatus,
        expiry_month: card.expiry_month,
        expiry_year: card.expiry_year,
        daily_limit_cents: Number(card.daily_limit_cents),
      },
      amount_cents: p.amount_cents,
      spent_today_cents,
      today: p.business_date,
    });
    if (decision.ok) spent.set(p.business_date, spent_today_cents + p.amount_cents);
    return decision.ok;
  });
}

/** Links past purchases the ledger posted (settled, in a batch) to their card. */
export async function recordSettledPurchases(
  db: DbOrTx,
  card: Pick<DebitCard, "id" | "account_id">,
  rows: ReadonlyArray<PastPurchase & { transaction_id: number; initiator: string; idempotency_key: string }>,
): Promise<void> {
  if (rows.length === 0) return;
  await db.insert(cardAuthorizations).values(
    rows.map((r) => ({
      card_id: card.id,
      account_id: Number(card.account_id),
      transaction_id: r.transaction_id,
      merchant: r.merchant,
      category: r.category,
      amount_cents: r.amount_cents,
      business_date: r.business_date,
      status: "settled" as const,
      initiator: r.initiator,
      idempotency_key: r.idempotency_key,
      settled_at: new Date(),
    })),
  );
}
