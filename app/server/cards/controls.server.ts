import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { cardAuthorizations, debitCards, ledgerAccounts, ledgerTransactions, type DebitCard } from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { notify } from "~/server/notifications/notifications.server";
import { hashPassword, verifyPassword } from "~/server/auth/auth.server";
import { decryptField, keyedHash } from "~/server/security/crypto.server";
import {
  lockWait,
  sendStepUpCode,
  verifyStepUpCode,
  type StepUpCheck,
  type StepUpWording,
} from "~/server/payments/step-up.server";
import { businessDate, toCents, toId } from "~/domain/ledger-rules";
import { maskAccountNumber, referenceNumber } from "~/domain/account-display";
import {
  CARD_MESSAGES,
  CARD_STATUS_LABELS,
  cardExpiryLabel,
  cardWorks,
  isCardExpired,
  pinProblem,
  type CardStatus,
} from "~/domain/cards";
import { formatCents } from "~/domain/money";
import {
  codedRefusal,
  refusalMessage,
  type CodedRefusal,
  type RefusalDetails,
  type RefusalKind,
} from "~/domain/refusals";
import { cardNumberContext, issueDebitCard } from "./cards.server";
import { lockCard, spentOnDaySql } from "./authorization.server";
import { jsonRows } from "~/server/accounts/history.server";

/**
 * Card Services for the signed-in member (docs/product.md#cards): the cards page's data and
 * every control, each on the member's own cards only (another member's card is "not found").
 * Every change is one database transaction with its audit row (actor: the member) and a
 * notification. The full number and the PIN never reach a log, an audit row or a notification.
 */

export interface CardMember {
  id: string;
  email: string;
}

/** Done, with what to tell the member; or a refusal (docs/architecture.md#refusals) next to its field ("otp", "pin_code", "pin_code_confirm"), if it has one. */
export type CardControlAnswer = { ok: true; message: string } | CodedRefusal<CardRefusalCode>;

type CardRefusalCode = keyof typeof CARD_REFUSAL_KINDS;

/**
 * What kind of "no" each refusal is (the route picks the HTTP status from it): a card that is not
 * the member's (`not_found`, the same whether it exists or not), a blocked card (`conflict`), a
 * lock or too many codes (`too_many`); the rest are the form's input (`bad_input`).
 */
const CARD_REFUSAL_KINDS = {
  card_not_found: "not_found",
  card_blocked: "conflict",
  codes_rate_limited: "too_many",
  otp_locked: "too_many",
  otp_missing: "bad_input",
  otp_invalid: "bad_input",
  card_pin: "bad_input",
} as const satisfies Record<string, RefusalKind>;

export type CardCodePurpose = "details" | "pin";

/** How many of a card's transactions its page lists (the newest). */
export const CARD_TRANSACTIONS_SHOWN = 10;
const CARDS_MAX = 20;

function refused(
  code: Exclude<CardRefusalCode, "card_pin">,
  field?: "otp",
  details?: RefusalDetails,
): CardControlAnswer {
  return codedRefusal(CARD_REFUSAL_KINDS[code], refusalMessage(code, details), code, field ? { field } : {});
}

/** A code that did not confirm: wrong, or the member's codes are locked (docs/product.md#step-up-codes). */
function codeRefused(check: Exclude<StepUpCheck, { ok: true }>): CardControlAnswer {
  return check.code === "otp_locked"
    ? refused("otp_locked", "otp", { wait: lockWait(check.retry_after_s) })
    : refused("otp_invalid", "otp");
}

function ending(card: Pick<DebitCard, "last4">): string {
  return `debit card ending ${card.last4}`;
}

/**
 * The member's own card for a control, or the refusal to answer: a card that is not theirs (or
 * no card, or an id no card can have) is "not found", the same answer, so a member learns nothing
 * of other members' cards; a blocked card refuses every control. `lock` takes the card's row lock
 * for the caller's transaction (a change follows); `read` only reads it (a code, the details).
 * Every control goes through here, so the rule is written once.
 */
async function ownCard(
  db: DbOrTx,
  member_id: string,
  card_id: number,
  how: "lock" | "read",
): Promise<{ ok: true; card: DebitCard } | { ok: false; answer: CardControlAnswer }> {
  const card =
    !Number.isSafeInteger(card_id) || card_id < 1
      ? null
      : how === "lock"
        ? await lockCard(db, card_id)
        : ((await db.select().from(debitCards).where(eq(debitCards.id, card_id)))[0] ?? null);
  if (!card || card.member_id !== member_id) return { ok: false, answer: refused("card_not_found") };
  if (card.status === "blocked") return { ok: false, answer: refused("card_blocked") };
  return { ok: true, card };
}

async function audit(
  tx: DbOrTx,
  member: CardMember,
  origin: AuditOrigin,
  action: string,
  card: DebitCard,
  before?: unknown,
  after?: unknown,
) {
  await recordAudit(tx, {
    actor_id: member.id,
    actor_email: member.email,
    action,
    subject_type: "debit_card",
    subject_id: card.id,
    member_id: member.id,
    before,
    after,
    request_id: origin.request_id,
    ip: origin.ip,
  });
}

/** Lock (purchases declined at once) or Unlock. A blocked card stays blocked. */
export async function setCardLocked(
  db: Db,
  member: CardMember,
  card_id: number,
  locked: boolean,
  origin: AuditOrigin,
): Promise<CardControlAnswer> {
  return db.transaction(async (tx): Promise<CardControlAnswer> => {
    const own = await ownCard(tx, member.id, card_id, "lock");
    if (!own.ok) return own.answer;
    const { card } = own;
    const status = locked ? "locked" : "active";
    if (card.status === status)
      return { ok: true, message: `Your ${ending(card)} is already ${locked ? "locked" : "unlocked"}.` };
    await tx.update(debitCards).set({ status, updated_at: new Date() }).where(eq(debitCards.id, card.id));
    await audit(tx, member, origin, locked ? "card.lock" : "card.unlock", card, { status: card.status }, { status });
    const message = locked
      ? `Your ${ending(card)} is locked: purchases are declined until you unlock it.`
      : `Your ${ending(card)} is unlocked and works again.`;
    await notify(tx, {
      member_id: member.id,
      kind: "card_activity",
      title: locked ? "Card locked" : "Card unlocked",
      body: message,
    });
    return { ok: true, message };
  });
}

/** The card's daily purchase limit (the schema has checked its bounds). */
export async function setCardDailyLimit(
  db: Db,
  member: CardMember,
  card_id: number,
  daily_limit_cents: number,
  origin: AuditOrigin,
): Promise<CardControlAnswer> {
  return db.transaction(async (tx): Promise<CardControlAnswer> => {
    const own = await ownCard(tx, member.id, card_id, "lock");
    if (!own.ok) return own.answer;
    const { card } = own;
    const before = Number(card.daily_limit_cents);
    const message = `The daily purchase limit of your ${ending(card)} is now ${formatCents(daily_limit_cents)}.`;
    if (before === daily_limit_cents) return { ok: true, message };
    await tx.update(debitCards).set({ daily_limit_cents, updated_at: new Date() }).where(eq(debitCards.id, card.id));
    await audit(tx, member, origin, "card.daily_limit", card, { daily_limit_cents: before }, { daily_limit_cents });
    await notify(tx, { member_id: member.id, kind: "card_activity", title: "Card limit changed", body: message });
    return { ok: true, message };
  });
}

const CODE_WORDING: Record<CardCodePurpose, { summary: string; wording: StepUpWording }> = {
  details: {
    summary: "To show the full number of your",
    wording: {
      subject: "your code to see your card details",
      lead: "Your one-time code is",
      unasked: "your card details",
      confirms: "the card request",
    },
  },
  pin: {
    summary: "To change the PIN of your",
    wording: {
      subject: "your code to change your card PIN",
      lead: "Your one-time code is",
      unasked: "a new PIN",
      confirms: "the card request",
    },
  },
};

/** What an emailed code confirms: this card and this control only. */
function codeBinding(card_id: number, purpose: CardCodePurpose): string {
  return `card:${card_id}:${purpose}`;
}

/** Emails the member a one-time code for View Card Details or Change PIN (the transfers' step-up code). */
export async function sendCardCode(
  db: Db,
  member: CardMember,
  card_id: number,
  purpose: CardCodePurpose,
): Promise<CardControlAnswer> {
  const own = await ownCard(db, member.id, card_id, "read");
  if (!own.ok) return own.answer;
  const { card } = own;
  const { summary, wording } = CODE_WORDING[purpose];
  const sent = await sendStepUpCode(db, member, `${summary} ${ending(card)}.`, codeBinding(card.id, purpose), wording);
  if (!sent.ok)
    return sent.code === "otp_locked"
      ? refused("otp_locked", undefined, { wait: lockWait(sent.retry_after_s) })
      : refused("codes_rate_limited");
  return {
    ok: true,
    message: `We emailed a one-time code to ${member.email}. Enter it below; it expires in 10 minutes.`,
  };
}

/** "4000001234567899" -> "4000 0012 3456 7899". */
function groupCardNumber(number: string): string {
  return number.replace(/(\d{4})(?=\d)/g, "$1 ");
}

export type CardDetailsAnswer =
  CardControlAnswer | { ok: true; message: string; details: { number: string; expiry: string; name_on_card: string } };

/** The full number and expiry, after the emailed code (audited, never logged). */
export async function revealCardDetails(
  db: Db,
  member: CardMember & { name: string },
  card_id: number,
  otp: string,
  origin: AuditOrigin,
): Promise<CardDetailsAnswer> {
  const own = await ownCard(db, member.id, card_id, "read");
  if (!own.ok) return own.answer;
  const { card } = own;
  if (otp.trim() === "") return refused("otp_missing", "otp");
  const checked = await verifyStepUpCode(db, member, {
    code: otp.trim(),
    transfer: codeBinding(card.id, "details"),
    action: "card_details",
    origin,
  });
  if (!checked.ok) return codeRefused(checked);
  const number = decryptField(card.card_number_enc, cardNumberContext(card.member_id));
  await db.transaction(async (tx) => {
    await audit(tx, member, origin, "card.details_viewed", card);
    await notify(tx, {
      member_id: member.id,
      kind: "card_activity",
      title: "Card details viewed",
      body: `The full number of your ${ending(card)} was shown after a one-time code.`,
    });
  });
  return {
    ok: true,
    message: "Your card details are shown below. Leave this page when you are done.",
    details: {
      number: groupCardNumber(number),
      expiry: cardExpiryLabel(card),
      name_on_card: member.name.toUpperCase(),
    },
  };
}

/**
 * The PIN's stored form: a slow hash (argon2id, as passwords) of a keyed hash of the card and the
 * PIN. Four digits are only 10,000 guesses, so the keyed hash makes a stolen table worthless
 * without the server's secret, and the card id keeps two cards with one PIN apart.
 */
function pinSecret(card_id: number, pin: string): string {
  return keyedHash("card-pin", `${card_id}:${pin}`);
}

export async function verifyCardPin(card: Pick<DebitCard, "id" | "pin_hash">, pin: string): Promise<boolean> {
  if (!card.pin_hash || !/^\d{4}$/.test(pin)) return false;
  return verifyPassword({ hash: card.pin_hash, password: pinSecret(card.id, pin) });
}

/** A new 4-digit PIN, entered twice, after the emailed code. */
export async function changeCardPin(
  db: Db,
  member: CardMember,
  card_id: number,
  input: { otp: string; pin: string; pin_confirm: string },
  origin: AuditOrigin,
): Promise<CardControlAnswer> {
  const problem = pinProblem(input.pin, input.pin_confirm);
  if (problem)
    return codedRefusal(CARD_REFUSAL_KINDS.card_pin, problem, "card_pin", {
      field: problem === CARD_MESSAGES.pin_mismatch ? "pin_code_confirm" : "pin_code",
    });
  const own = await ownCard(db, member.id, card_id, "read");
  if (!own.ok) return own.answer;
  const { card } = own;
  if (input.otp.trim() === "") return refused("otp_missing", "otp");
  const checked = await verifyStepUpCode(db, member, {
    code: input.otp.trim(),
    transfer: codeBinding(card.id, "pin"),
    action: "card_pin",
    origin,
  });
  if (!checked.ok) return codeRefused(checked);
  const pin_hash = await hashPassword(pinSecret(card.id, input.pin));
  return db.transaction(async (tx): Promise<CardControlAnswer> => {
    // Again under the lock: the card may have been reported lost while the PIN was hashed.
    const locked = await ownCard(tx, member.id, card.id, "lock");
    if (!locked.ok) return locked.answer;
    const now = new Date();
    await tx
      .update(debitCards)
      .set({ pin_hash, pin_changed_at: now, updated_at: now })
      .where(eq(debitCards.id, card.id));
    await audit(tx, member, origin, "card.pin_changed", card, { had_pin: card.pin_hash !== null }, { had_pin: true });
    const message = `The PIN of your ${ending(card)} is changed. Use the new PIN from now on.`;
    await notify(tx, { member_id: member.id, kind: "card_activity", title: "Card PIN changed", body: message });
    return { ok: true, message };
  });
}

/** Lost or stolen: the card is blocked for good and a new card (new number) replaces it. */
export async function reportCardLost(
  db: Db,
  member: CardMember,
  card_id: number,
  reason: "lost" | "stolen",
  origin: AuditOrigin,
): Promise<CardControlAnswer> {
  return db.transaction(async (tx): Promise<CardControlAnswer> => {
    const own = await ownCard(tx, member.id, card_id, "lock");
    if (!own.ok) return own.answer;
    const { card } = own;
    const now = new Date();
    const replacement = await issueDebitCard(tx, {
      member_id: member.id,
      account_id: Number(card.account_id),
      daily_limit_cents: Number(card.daily_limit_cents),
      now,
    });
    await tx
      .update(debitCards)
      .set({
        status: "blocked",
        blocked_at: now,
        blocked_reason: reason,
        replaced_by_id: replacement.id,
        updated_at: now,
      })
      .where(eq(debitCards.id, card.id));
    await audit(
      tx,
      member,
      origin,
      "card.reported_lost",
      card,
      { status: card.status },
      { status: "blocked", reason, replacement_card_id: replacement.id, replacement_last4: replacement.last4 },
    );
    const message = `Your ${ending(card)} is blocked for good. Your new card ends ${replacement.last4}; it is shown below and works now.`;
    await notify(tx, { member_id: member.id, kind: "card_activity", title: `Card reported ${reason}`, body: message });
    return { ok: true, message };
  });
}

// ---------------------------------------------------------------------------------------------
// The page's data.

export interface CardTransactionRow {
  transaction_id: number;
  reference_number: string;
  effective_date: string;
  created_at: string;
  merchant: string;
  category: string;
  amount_cents: number;
  status: "pending" | "posted" | "failed" | "reversed";
}

export interface MemberCard {
  id: number;
  masked_number: string;
  last4: string;
  expiry: string;
  status: CardStatus;
  status_label: string;
  daily_limit_cents: number;
  spent_today_cents: number;
  has_pin: boolean;
  account: { id: number; name: string; masked_number: string; status: string };
  blocked_reason: "lost" | "stolen" | "account_closed" | null;
  /** Its expiry month has ended: it no longer works (listed with the blocked cards). */
  expired: boolean;
  /** The expiring card this one renews, and the renewal issued for this one. */
  renews_last4: string | null;
  renewed_by_last4: string | null;
  replaced_by_last4: string | null;
  transactions: CardTransactionRow[];
}

/**
 * The member's cards (usable first, then blocked ones), each with its newest ledger transactions
 * (`transactions_max` of them: the cards page shows CARD_TRANSACTIONS_SHOWN, the dashboard's
 * summary one) and what it spent today. One statement for all the cards: each card's
 * transactions and today's total are subqueries of it, not two more round trips per card.
 */
export async function memberCardsView(
  db: DbOrTx,
  member_id: string,
  now: Date = new Date(),
  transactions_max: number = CARD_TRANSACTIONS_SHOWN,
): Promise<MemberCard[]> {
  const today = businessDate(institution().time_zone, now);
  const rows = await db
    .select({
      card: debitCards,
      account_name: ledgerAccounts.name,
      account_number: ledgerAccounts.account_number,
      account_status: ledgerAccounts.status,
      spent_today: spentOnDaySql(sql`${debitCards.id}`, today),
      transactions: sql<unknown>`(select coalesce(json_agg(t order by t.authorization_id desc), '[]') from (
          select ${cardAuthorizations.id} as authorization_id, ${ledgerTransactions.id} as transaction_id, ${ledgerTransactions.effective_date}::text as effective_date,
                 (extract(epoch from ${ledgerTransactions.created_at}) * 1000)::bigint as created_at_ms, ${ledgerTransactions.status} as status,
                 ${cardAuthorizations.merchant} as merchant, ${cardAuthorizations.category} as category, ${cardAuthorizations.amount_cents} as amount_cents
            from ${cardAuthorizations} join ${ledgerTransactions} on ${ledgerTransactions.id} = ${cardAuthorizations.transaction_id}
           where ${cardAuthorizations.card_id} = ${debitCards.id}
           order by ${cardAuthorizations.id} desc limit ${transactions_max}) t)`,
    })
    .from(debitCards)
    .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, debitCards.account_id))
    .where(eq(debitCards.member_id, member_id))
    .orderBy(desc(debitCards.id))
    .limit(CARDS_MAX);
  const last4 = new Map(rows.map((r) => [r.card.id, r.card.last4]));
  const renewed_by = new Map(
    rows.filter((r) => r.card.renews_id !== null).map((r) => [r.card.renews_id!, r.card.last4]),
  );
  const cards: MemberCard[] = [];
  for (const { card, account_name, account_number, account_status, spent_today, transactions: json } of rows) {
    const transactions = jsonRows(json);
    cards.push({
      id: card.id,
      masked_number: card.masked_number,
      last4: card.last4,
      expiry: cardExpiryLabel(card),
      status: card.status as CardStatus,
      status_label: CARD_STATUS_LABELS[card.status as CardStatus],
      daily_limit_cents: Number(card.daily_limit_cents),
      spent_today_cents: card.status === "blocked" ? 0 : toCents(spent_today),
      has_pin: card.pin_hash !== null,
      account: {
        id: Number(card.account_id),
        name: account_name,
        masked_number: maskAccountNumber(account_number),
        status: account_status,
      },
      blocked_reason: card.blocked_reason ?? null,
      replaced_by_last4: card.replaced_by_id ? (last4.get(card.replaced_by_id) ?? null) : null,
      expired: isCardExpired(card, today),
      renews_last4: card.renews_id ? (last4.get(card.renews_id) ?? null) : null,
      renewed_by_last4: renewed_by.get(card.id) ?? null,
      transactions: transactions.map((t) => ({
        transaction_id: toId(t.transaction_id),
        reference_number: referenceNumber(toId(t.transaction_id)),
        effective_date: String(t.effective_date),
        created_at: new Date(Number(t.created_at_ms)).toISOString(),
        merchant: String(t.merchant),
        category: String(t.category),
        amount_cents: -toCents(t.amount_cents),
        status: t.status as CardTransactionRow["status"],
      })),
    });
  }
  // Usable cards first, then those that no longer work (blocked or expired); each group newest first.
  return [...cards.filter(cardWorks), ...cards.filter((c) => !cardWorks(c))];
}

/** A member's cards as the back office's Post card transaction lists them (any member, by staff). */
export async function cardsOfMember(db: DbOrTx, member_id: string) {
  const rows = await db
    .select()
    .from(debitCards)
    .where(eq(debitCards.member_id, member_id))
    .orderBy(desc(debitCards.id))
    .limit(CARDS_MAX);
  const pending =
    rows.length === 0
      ? []
      : await db
          .select({
            id: cardAuthorizations.id,
            card_id: cardAuthorizations.card_id,
            merchant: cardAuthorizations.merchant,
            amount_cents: cardAuthorizations.amount_cents,
            business_date: cardAuthorizations.business_date,
            transaction_id: cardAuthorizations.transaction_id,
          })
          .from(cardAuthorizations)
          .where(
            and(
              inArray(
                cardAuthorizations.card_id,
                rows.map((r) => r.id),
              ),
              eq(cardAuthorizations.status, "pending"),
            ),
          )
          .orderBy(desc(cardAuthorizations.id))
          .limit(50);
  return {
    cards: rows.map((c) => ({
      id: c.id,
      masked_number: c.masked_number,
      status: c.status as CardStatus,
      daily_limit_cents: Number(c.daily_limit_cents),
    })),
    pending: pending.map((p) => ({
      id: Number(p.id),
      card_id: Number(p.card_id),
      merchant: p.merchant,
      amount_cents: Number(p.amount_cents),
      business_date: p.business_date,
      reference_number: referenceNumber(Number(p.transaction_id)),
    })),
  };
}
