import "../admin-support";
import crypto from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { and, count, desc, eq, sql } from "drizzle-orm";
import type { Database, Db } from "~/server/db/client.server";
import { auditLog, cardAuthorizations, debitCards, notifications } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import * as cardsRoute from "~/routes/member/cards";
import * as adminCardsRoute from "~/routes/admin/card-transactions";
import { getBalances, institutionAccount, memberAccounts, setAccountStatus } from "~/server/ledger/accounts.server";
import { memberHistoryPage, parseHistoryFilters } from "~/server/accounts/history.server";
import { getTransaction } from "~/server/ledger/history.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { issueDebitCard, isLuhnValid, renewExpiringCards } from "~/server/cards/cards.server";
import {
  authorizeCardPurchase,
  releaseCardPurchase,
  releaseUnsettledCardPurchases,
  settleCardPurchase,
} from "~/server/cards/authorization.server";
import { reverseMemberTransaction } from "~/server/member-accounts/reversals.server";
import { memberTransactionsPage } from "~/server/member-accounts/transactions.server";
import { memberCardsView, reportCardLost, verifyCardPin } from "~/server/cards/controls.server";
import { seedDemoHistory } from "~/server/seed/demo-history.server";
import { DEMO_SIGNINS } from "~/server/auth/demo-signins.server";
import { users } from "~/server/db/schema";
import { openTestDatabase } from "../test-database";
import { applicant, person, signedIn } from "../admin-support";
import { routeContext, run, SignedIn } from "../authorization-matrix";
import { lastTransferCode, newMember } from "../member-support";
import { fieldErrors } from "../../form-reply";

/**
 * Cards (docs/product.md#cards): the one card authorization and its settle, each rule refusing
 * with nothing written; the member's controls through /dashboard/cards (own cards only, audited,
 * notified; details and PIN only after the emailed code); the back office's Post card
 * transaction for staff who may move money only. verifyLedger after each test.
 */
type Persona = "anonymous" | "applicant" | "member" | "another_member" | "reviewer" | "staff";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "another_member", "reviewer", "staff"];

let database: Database;
let db: Db;
let people: SignedIn<Persona>;
let owner: Awaited<ReturnType<typeof newMember>>;

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  db = database.db;
  owner = await newMember(db, { checking_cents: 50_000 });
  const another = await newMember(db, { checking_cents: 10_000 });
  await issueDebitCard(db, { member_id: another.member.id, account_id: another.checking.id });
  people = await SignedIn.as(db, {
    member: owner.member.id,
    another_member: another.member.id,
    applicant: (await applicant(db)).id,
    reviewer: (await person(db, "reviewer")).id,
    staff: (await person(db, "admin")).id,
  });
});
afterEach(async () => {
  expect((await verifyLedger(db)).problems).toEqual([]);
});
afterAll(async () => {
  await database?.close();
});

/** A fresh funded member with a debit card of their own (tests change cards). */
async function cardholder(checking_cents = 50_000, daily_limit_cents?: number) {
  const m = await newMember(db, { checking_cents });
  const card = await issueDebitCard(db, {
    member_id: m.member.id,
    account_id: m.checking.id,
    ...(daily_limit_cents ? { daily_limit_cents } : {}),
  });
  return { ...m, card };
}

const purchase = (card_id: number, amount_cents: number, extra: { now?: Date; key?: string } = {}) =>
  authorizeCardPurchase(db, {
    card_id,
    merchant: "Harbor Hardware",
    amount_cents,
    category: "Shopping",
    idempotency_key: extra.key ?? crypto.randomUUID(),
    initiator: "staff:test",
    created_by: "staff:test",
    ...(extra.now ? { now: extra.now } : {}),
  });

async function balance(account_id: number) {
  const [a] = await getBalances(db, [account_id]);
  return { current: a!.current_cents, available: a!.available_cents };
}

async function authorizations(card_id: number) {
  return db.select().from(cardAuthorizations).where(eq(cardAuthorizations.card_id, card_id));
}

async function setStatus(card_id: number, status: "active" | "locked") {
  await db.update(debitCards).set({ status }).where(eq(debitCards.id, card_id));
}

describe("card authorization", () => {
  it("holds an authorized purchase on the card's account, then settles it against the card network's account", async () => {
    const m = await cardholder();
    const network = await institutionAccount(db, "card_settlement");
    const network_before = (await getBalances(db, [network.id]))[0]!.current_cents;
    const answer = await purchase(m.card.id, 2_500);
    expect(answer).toMatchObject({
      ok: true,
      replayed: false,
      authorization: { status: "pending", amount_cents: 2_500, card_id: m.card.id },
    });
    expect(await balance(m.checking.id)).toEqual({ current: 50_000, available: 47_500 });
    const held = await getTransaction(db, answer.ok ? answer.authorization.transaction_id : 0);
    expect(held?.transaction).toMatchObject({
      kind: "card_payment",
      status: "pending",
      memo: "Debit card purchase: Harbor Hardware",
      category: "Shopping",
    });
    const settled = await settleCardPurchase(db, {
      authorization_id: answer.ok ? answer.authorization.id : 0,
      resolved_by: "staff:test",
    });
    expect(settled).toMatchObject({ ok: true, replayed: false, authorization: { status: "settled" } });
    expect(await balance(m.checking.id)).toEqual({ current: 47_500, available: 47_500 });
    expect((await getBalances(db, [network.id]))[0]!.current_cents - network_before).toBe(2_500);
    // Settling again answers with the first settle and moves nothing.
    expect(
      await settleCardPurchase(db, {
        authorization_id: answer.ok ? answer.authorization.id : 0,
        resolved_by: "staff:test",
      }),
    ).toMatchObject({ ok: true, replayed: true });
    expect(await balance(m.checking.id)).toEqual({ current: 47_500, available: 47_500 });
  });

  it("releases an authorized purchase the merchant cancelled: the hold comes back, the day's limit is freed, the member is told, once", async () => {
    const m = await cardholder(50_000, 10_000);
    const day = new Date("2030-04-02T15:00:00Z");
    const first = await purchase(m.card.id, 8_000, { now: day });
    if (!first.ok) throw new Error(first.message);
    expect(await purchase(m.card.id, 3_000, { now: day })).toMatchObject({ ok: false, code: "over_card_daily_limit" });
    const released = await releaseCardPurchase(db, {
      authorization_id: first.authorization.id,
      resolved_by: "staff:test",
      reason: "cancelled",
    });
    expect(released).toMatchObject({ ok: true, replayed: false, authorization: { status: "released" } });
    expect(await balance(m.checking.id)).toEqual({ current: 50_000, available: 50_000 });
    expect((await getTransaction(db, first.authorization.transaction_id))?.transaction.status).toBe("failed");
    const [bell] = await db
      .select()
      .from(notifications)
      .where(eq(notifications.member_id, m.member.id))
      .orderBy(desc(notifications.id))
      .limit(1);
    expect(bell).toMatchObject({ kind: "card_activity", title: "Card purchase released: $80.00 at Harbor Hardware" });
    expect(bell!.body).toBe(
      `The merchant cancelled this purchase on your debit card ending ${m.card.last4}. The held money is available again.`,
    );
    // The released purchase no longer counts against the day's limit.
    expect(await purchase(m.card.id, 3_000, { now: day })).toMatchObject({ ok: true });
    // Again: the first release's answer, nothing moved and no second message; a released purchase cannot be settled.
    expect(
      await releaseCardPurchase(db, {
        authorization_id: first.authorization.id,
        resolved_by: "staff:test",
        reason: "cancelled",
      }),
    ).toMatchObject({ ok: true, replayed: true });
    expect(
      await settleCardPurchase(db, { authorization_id: first.authorization.id, resolved_by: "staff:test" }),
    ).toMatchObject({ ok: false, code: "not_pending" });
    const bells = await db
      .select()
      .from(notifications)
      .where(and(eq(notifications.member_id, m.member.id), sql`${notifications.title} like 'Card purchase released%'`));
    expect(bells).toHaveLength(1);
    expect(await balance(m.checking.id)).toEqual({ current: 50_000, available: 47_000 });
    // The member's history says Released, as the cards page does, not the ledger's Failed.
    const accounts = await memberAccounts(db, m.member.id);
    const { rows } = await memberHistoryPage(db, accounts, parseHistoryFilters(new URLSearchParams(), accounts));
    expect(
      rows.filter((r) => r.kind === "card_payment").map((r) => `${r.amount_cents} ${r.status_label} ${r.badge}`),
    ).toEqual(["-3000 Pending pending", "-8000 Released reversed"]);
  });

  it("a purchase authorized before the account was frozen still settles (the network paid the merchant); a new one is declined", async () => {
    const m = await cardholder();
    const before = await purchase(m.card.id, 2_000);
    if (!before.ok) throw new Error(before.message);
    expect(await setAccountStatus(db, m.checking.id, "frozen")).toMatchObject({ ok: true });
    expect(await purchase(m.card.id, 500)).toMatchObject({ ok: false, code: "account_frozen" });
    expect(
      await settleCardPurchase(db, { authorization_id: before.authorization.id, resolved_by: "staff:test" }),
    ).toMatchObject({ ok: true, authorization: { status: "settled" } });
    expect(await balance(m.checking.id)).toEqual({ current: 48_000, available: 48_000 });
    expect(await setAccountStatus(db, m.checking.id, "active")).toMatchObject({ ok: true });
  });

  it("a settled purchase cannot be released (a reversal corrects it), and an unknown one is not found", async () => {
    const m = await cardholder();
    const answer = await purchase(m.card.id, 1_500);
    if (!answer.ok) throw new Error(answer.message);
    await settleCardPurchase(db, { authorization_id: answer.authorization.id, resolved_by: "staff:test" });
    expect(
      await releaseCardPurchase(db, {
        authorization_id: answer.authorization.id,
        resolved_by: "staff:test",
        reason: "cancelled",
      }),
    ).toMatchObject({ ok: false, code: "not_pending" });
    expect(
      await releaseCardPurchase(db, { authorization_id: 999_999_999, resolved_by: "staff:test", reason: "cancelled" }),
    ).toMatchObject({ ok: false, code: "transaction_not_found" });
    expect(await balance(m.checking.id)).toEqual({ current: 48_500, available: 48_500 });
  });

  it("the nightly job releases what the network has not settled after 7 days, each once, and leaves newer and settled ones", async () => {
    const m = await cardholder(100_000);
    // Authorized on 2026-01-05 (a day before anything else in this file), one settled the same day.
    const old = await purchase(m.card.id, 2_000, { now: new Date("2026-01-05T15:00:00Z") });
    const settled = await purchase(m.card.id, 1_000, { now: new Date("2026-01-05T16:00:00Z") });
    const newer = await purchase(m.card.id, 500, { now: new Date("2026-01-06T15:00:00Z") });
    if (!old.ok || !settled.ok || !newer.ok) throw new Error("a purchase was refused");
    await settleCardPurchase(db, { authorization_id: settled.authorization.id, resolved_by: "staff:test" });
    // On the 12th the purchase of the 5th has waited 7 days: not yet.
    expect(await releaseUnsettledCardPurchases(db, new Date("2026-01-12T06:00:00Z"))).toEqual({ released: 0 });
    expect(await releaseUnsettledCardPurchases(db, new Date("2026-01-13T06:00:00Z"))).toEqual({ released: 1 });
    const rows = new Map((await authorizations(m.card.id)).map((a) => [Number(a.id), a]));
    expect(rows.get(old.authorization.id)).toMatchObject({ status: "released" });
    expect(rows.get(old.authorization.id)!.released_at).toEqual(new Date("2026-01-13T06:00:00Z"));
    expect(rows.get(settled.authorization.id)).toMatchObject({ status: "settled", released_at: null });
    expect(rows.get(newer.authorization.id)).toMatchObject({ status: "pending" });
    expect(await balance(m.checking.id)).toEqual({ current: 99_000, available: 98_500 });
    const [bell] = await db
      .select()
      .from(notifications)
      .where(eq(notifications.member_id, m.member.id))
      .orderBy(desc(notifications.id))
      .limit(1);
    expect(bell!.body).toBe(
      `The merchant did not complete this purchase within 7 days on your debit card ending ${m.card.last4}. The held money is available again.`,
    );
    // A second run the same night releases nothing more.
    expect(await releaseUnsettledCardPurchases(db, new Date("2026-01-13T07:00:00Z"))).toEqual({ released: 0 });
    expect(await releaseUnsettledCardPurchases(db, new Date("2026-01-14T06:00:00Z"))).toEqual({ released: 1 });
    expect(await balance(m.checking.id)).toEqual({ current: 99_000, available: 99_000 });
  });

  it("staff cannot release a card purchase's hold from the member's transactions: it is settled or released as a card purchase", async () => {
    const m = await cardholder();
    const answer = await purchase(m.card.id, 2_500);
    if (!answer.ok) throw new Error(answer.message);
    const id = answer.authorization.transaction_id;
    expect((await memberTransactionsPage(db, m.member.id)).rows.find((r) => r.id === id)).toMatchObject({
      status: "pending",
      pending_owner: "card_purchase",
    });
    const admin = await person(db, "admin");
    const staff = { id: admin.id, email: admin.email };
    expect(
      await reverseMemberTransaction(db, {
        staff,
        origin: { request_id: "cards-test", ip: "203.0.113.9" },
        member_id: m.member.id,
        transaction_id: id,
      }),
    ).toMatchObject({
      ok: false,
      code: "resolved_elsewhere",
      message:
        "Error reversing transaction: this is a card purchase waiting for the card network: settle or release it on Post card transaction.",
    });
    expect((await authorizations(m.card.id))[0]).toMatchObject({ status: "pending" });
    expect(
      await settleCardPurchase(db, { authorization_id: answer.authorization.id, resolved_by: "staff:test" }),
    ).toMatchObject({ ok: true, replayed: false });
  });

  it("a repeat of the same purchase (same key) holds once", async () => {
    const m = await cardholder();
    const key = crypto.randomUUID();
    const first = await purchase(m.card.id, 1_000, { key });
    const again = await purchase(m.card.id, 1_000, { key });
    expect(again).toMatchObject({ ok: true, replayed: true });
    expect(again.ok && first.ok && again.authorization.id === first.authorization.id).toBe(true);
    expect(await authorizations(m.card.id)).toHaveLength(1);
    expect(await balance(m.checking.id)).toEqual({ current: 50_000, available: 49_000 });
  });

  it("refuses a locked card, with nothing written, and tells the member", async () => {
    const m = await cardholder();
    await setStatus(m.card.id, "locked");
    expect(await purchase(m.card.id, 1_000)).toEqual({ ok: false, code: "card_locked", message: "The card is locked" });
    expect(await authorizations(m.card.id)).toHaveLength(0);
    expect(await balance(m.checking.id)).toEqual({ current: 50_000, available: 50_000 });
    const [bell] = await db
      .select()
      .from(notifications)
      .where(eq(notifications.member_id, m.member.id))
      .orderBy(desc(notifications.id))
      .limit(1);
    expect(bell).toMatchObject({ kind: "card_activity", title: "Card purchase declined: $10.00 at Harbor Hardware" });
  });

  it("refuses a purchase over the card's daily limit, counted over the institution's business day", async () => {
    const m = await cardholder(500_000, 10_000);
    // 15:00 UTC is 10:00 or 11:00 in New York: one business day; the next day starts afresh.
    const day = new Date("2030-03-05T15:00:00Z");
    const next_day = new Date("2030-03-06T15:00:00Z");
    expect(await purchase(m.card.id, 6_000, { now: day })).toMatchObject({ ok: true });
    expect(await purchase(m.card.id, 4_001, { now: day })).toEqual({
      ok: false,
      code: "over_card_daily_limit",
      message: "The purchase would pass the card's daily limit of $100.00 ($40.00 left today)",
    });
    expect(await purchase(m.card.id, 4_000, { now: day })).toMatchObject({ ok: true });
    expect(await purchase(m.card.id, 1, { now: day })).toMatchObject({ ok: false, code: "over_card_daily_limit" });
    expect(await purchase(m.card.id, 10_000, { now: next_day })).toMatchObject({ ok: true });
    // 02:00 UTC on the 7th is still the 6th in New York: that day's limit is spent.
    expect(await purchase(m.card.id, 1, { now: new Date("2030-03-07T02:00:00Z") })).toMatchObject({
      ok: false,
      code: "over_card_daily_limit",
    });
    expect(await authorizations(m.card.id)).toHaveLength(3);
  });

  it("refuses insufficient funds and a frozen account (the ledger's answer), holding nothing", async () => {
    const m = await cardholder(1_000);
    expect(await purchase(m.card.id, 1_001)).toMatchObject({
      ok: false,
      code: "insufficient_funds",
      message: "Insufficient funds",
    });
    expect(await setAccountStatus(db, m.checking.id, "frozen")).toMatchObject({ ok: true });
    expect(await purchase(m.card.id, 100)).toMatchObject({ ok: false, code: "account_frozen" });
    expect(await authorizations(m.card.id)).toHaveLength(0);
    expect(await balance(m.checking.id)).toEqual({ current: 1_000, available: 1_000 });
  });

  it("two purchases at the same moment: the same one holds once, two that together pass the limit cannot both pass", async () => {
    const m = await cardholder(500_000, 10_000);
    const key = crypto.randomUUID();
    const same = await Promise.all([purchase(m.card.id, 3_000, { key }), purchase(m.card.id, 3_000, { key })]);
    expect(same.every((a) => a.ok)).toBe(true);
    expect(same.filter((a) => a.ok && a.replayed)).toHaveLength(1);
    const racing = await Promise.all([purchase(m.card.id, 5_000), purchase(m.card.id, 5_000)]);
    expect(racing.filter((a) => a.ok)).toHaveLength(1);
    expect(racing.filter((a) => !a.ok && a.code === "over_card_daily_limit")).toHaveLength(1);
    expect((await authorizations(m.card.id)).map((a) => Number(a.amount_cents)).sort()).toEqual([3_000, 5_000]);
    expect(await balance(m.checking.id)).toEqual({ current: 500_000, available: 492_000 });
  });

  it("refuses an expired card and an unknown card", async () => {
    const m = await cardholder();
    await db.update(debitCards).set({ expiry_month: 1, expiry_year: 2020 }).where(eq(debitCards.id, m.card.id));
    expect(await purchase(m.card.id, 100)).toMatchObject({ ok: false, code: "card_expired" });
    expect(await purchase(999_999_999, 100)).toMatchObject({ ok: false, code: "card_not_found" });
  });
});

const context = routeContext({ request_id: "cards-0001", ip: "203.0.113.80" });

/** A request as one of the people, or as "cookie:<a session cookie>" for a member made in the test. */
function request(persona: Persona | string, path: string, form?: Record<string, string>): Request {
  if (!persona.startsWith("cookie:")) return people.request(persona as Persona, path, form);
  const made = people.request("anonymous", path, form);
  made.headers.set("cookie", persona.slice("cookie:".length));
  return made;
}

const memberAction = (who: Persona | string, form: Record<string, string>) =>
  run(() =>
    cardsRoute.action({ request: request(who, "/dashboard/cards", form), params: {}, context: context() } as never),
  );

async function card(card_id: number) {
  const [row] = await db.select().from(debitCards).where(eq(debitCards.id, card_id));
  return row!;
}

async function auditCount(action: string, subject_id: number) {
  const [row] = await db
    .select({ n: count() })
    .from(auditLog)
    .where(and(eq(auditLog.action, action), eq(auditLog.subject_id, String(subject_id))));
  return Number(row!.n);
}

describe("renewal before a card expires", () => {
  it("renews each card whose month ends within 45 days once (same account and limit, the member told); not a blocked card or a closed account's; the old one is listed apart once expired", async () => {
    // Issued in January 2026: valid to the end of January 2030.
    const issued = new Date("2026-01-10T15:00:00Z");
    const m = await newMember(db, { checking_cents: 10_000 });
    const card = await issueDebitCard(db, {
      member_id: m.member.id,
      account_id: m.checking.id,
      daily_limit_cents: 25_000,
      now: issued,
    });
    const blocked = await cardholder(0);
    await db
      .update(debitCards)
      .set({ expiry_month: 1, expiry_year: 2030, status: "blocked", blocked_at: issued, blocked_reason: "stolen" })
      .where(eq(debitCards.id, blocked.card.id));
    const closing = await newMember(db, { checking_cents: 0 });
    const closed = await issueDebitCard(db, {
      member_id: closing.member.id,
      account_id: closing.checking.id,
      now: issued,
    });
    expect(await setAccountStatus(db, closing.checking.id, "closed")).toMatchObject({ ok: true });
    const renewalOf = async (id: number) => (await db.select().from(debitCards).where(eq(debitCards.renews_id, id)))[0];

    // 16 December 2029: January's end is 46 days away, not yet.
    await renewExpiringCards(db, new Date("2029-12-16T15:00:00Z"));
    expect(await renewalOf(card.id)).toBeUndefined();
    await renewExpiringCards(db, new Date("2029-12-17T15:00:00Z"));
    const renewal = await renewalOf(card.id);
    expect(renewal).toMatchObject({
      member_id: m.member.id,
      account_id: m.checking.id,
      daily_limit_cents: 25_000,
      status: "active",
      pin_hash: null,
      expiry_month: 12,
      expiry_year: 2033,
    });
    expect(renewal!.last4).not.toBe(card.last4);
    expect(await renewalOf(blocked.card.id)).toBeUndefined();
    expect(await renewalOf(closed.id)).toBeUndefined();
    const [bell] = await db
      .select()
      .from(notifications)
      .where(eq(notifications.member_id, m.member.id))
      .orderBy(desc(notifications.id))
      .limit(1);
    expect(bell).toMatchObject({ kind: "card_activity", title: `Your new debit card ends ${renewal!.last4}` });
    expect(bell!.body).toContain(`Your debit card ending ${card.last4} expires at the end of 01/30`);
    // Again, the same night or later: no second renewal.
    expect(await renewExpiringCards(db, new Date("2029-12-18T15:00:00Z"))).toEqual({ renewed: 0 });
    expect(await db.select().from(debitCards).where(eq(debitCards.renews_id, card.id))).toHaveLength(1);

    // Both work in January; in February the old one is expired, declined and listed apart.
    const january = await memberCardsView(db, m.member.id, new Date("2030-01-20T15:00:00Z"));
    expect(january.map((c) => [c.last4, c.expired, c.renews_last4, c.renewed_by_last4])).toEqual([
      [renewal!.last4, false, card.last4, null],
      [card.last4, false, null, renewal!.last4],
    ]);
    const february = new Date("2030-02-02T15:00:00Z");
    expect((await memberCardsView(db, m.member.id, february)).map((c) => [c.last4, c.expired])).toEqual([
      [renewal!.last4, false],
      [card.last4, true],
    ]);
    expect(await purchase(card.id, 100, { now: february })).toMatchObject({ ok: false, code: "card_expired" });
  });
});

describe("the day's count follows a card to the card that replaces or renews it", () => {
  const origin = { request_id: "cards-line-0001", ip: "203.0.113.81" };
  const over = (max: string, left: string) => ({
    ok: false,
    code: "over_card_daily_limit",
    message: `The purchase would pass the card's daily limit of ${max} (${left} left today)`,
  });

  it("Report lost: the replacement, and its own replacement, carry what the cards before them spent today; the next day starts afresh", async () => {
    // 15:00 UTC is 10:00 or 11:00 in New York: one business day.
    const today = new Date();
    today.setUTCHours(15, 0, 0, 0);
    const tomorrow = new Date(today.getTime() + 24 * 60 * 60 * 1000);
    const m = await cardholder(500_000, 5_000);
    expect(await purchase(m.card.id, 2_000, { now: today })).toMatchObject({ ok: true });
    expect(await reportCardLost(db, m.member, m.card.id, "lost", origin)).toMatchObject({ ok: true });
    const second = (await card(m.card.id)).replaced_by_id!;
    // Not a fresh $50.00: $20.00 of it went on the lost card today.
    expect(await purchase(second, 3_001, { now: today })).toEqual(over("$50.00", "$30.00"));
    expect(await purchase(second, 2_000, { now: today })).toMatchObject({ ok: true });
    expect(await reportCardLost(db, m.member, second, "stolen", origin)).toMatchObject({ ok: true });
    const third = (await card(second)).replaced_by_id!;
    expect(await purchase(third, 1_001, { now: today })).toEqual(over("$50.00", "$10.00"));
    expect(await purchase(third, 1_000, { now: today })).toMatchObject({ ok: true });
    expect(await purchase(third, 1, { now: today })).toEqual(over("$50.00", "$0.00"));
    // The page shows the line's total on the card that works.
    const view = await memberCardsView(db, m.member.id, today);
    expect(view.map((c) => [c.id, c.spent_today_cents])).toEqual([
      [third, 5_000],
      [second, 0],
      [m.card.id, 0],
    ]);
    // A released purchase gives its part back to the line.
    const [first] = await authorizations(m.card.id);
    expect(
      await releaseCardPurchase(db, {
        authorization_id: Number(first!.id),
        resolved_by: "staff:test",
        reason: "cancelled",
      }),
    ).toMatchObject({ ok: true });
    expect(await purchase(third, 2_000, { now: today })).toMatchObject({ ok: true });
    expect(await purchase(third, 5_000, { now: tomorrow })).toMatchObject({ ok: true });
  });

  it("Renewal: the old card and its renewal share one day's count both ways while both work, even when used at the same moment", async () => {
    const issued = new Date("2026-01-10T15:00:00Z");
    const m = await newMember(db, { checking_cents: 500_000 });
    const old = await issueDebitCard(db, {
      member_id: m.member.id,
      account_id: m.checking.id,
      daily_limit_cents: 5_000,
      now: issued,
    });
    await renewExpiringCards(db, new Date("2029-12-17T15:00:00Z"));
    const [renewal] = await db.select().from(debitCards).where(eq(debitCards.renews_id, old.id));
    const january_20 = new Date("2030-01-20T15:00:00Z");
    expect(await purchase(old.id, 3_000, { now: january_20 })).toMatchObject({ ok: true });
    expect(await purchase(renewal!.id, 2_001, { now: january_20 })).toEqual(over("$50.00", "$20.00"));
    expect(await purchase(renewal!.id, 2_000, { now: january_20 })).toMatchObject({ ok: true });
    expect(await purchase(old.id, 1, { now: january_20 })).toEqual(over("$50.00", "$0.00"));
    expect((await memberCardsView(db, m.member.id, january_20)).map((c) => c.spent_today_cents)).toEqual([
      5_000, 5_000,
    ]);
    // The next day, one purchase on each card at once: together they pass the limit, so one is declined.
    const january_21 = new Date("2030-01-21T15:00:00Z");
    const racing = await Promise.all([
      purchase(old.id, 3_000, { now: january_21 }),
      purchase(renewal!.id, 3_000, { now: january_21 }),
    ]);
    expect(racing.filter((a) => a.ok)).toHaveLength(1);
    expect(racing.filter((a) => !a.ok && a.code === "over_card_daily_limit")).toHaveLength(1);
  });
});

describe("/dashboard/cards: who may see and use it", () => {
  let owner_card_id = 0;
  beforeAll(async () => {
    owner_card_id = (await issueDebitCard(db, { member_id: owner.member.id, account_id: owner.checking.id })).id;
  });

  for (const persona of PERSONAS) {
    it(`the page and Lock for ${persona}`, async () => {
      const page = await run(() =>
        cardsRoute.loader({ request: request(persona, "/dashboard/cards"), params: {}, context: context() } as never),
      );
      const locked = await memberAction(persona, { intent: "lock", card_id: String(owner_card_id) });
      const after = await card(owner_card_id);
      if (persona === "member") {
        expect(page.status).toBe(200);
        const cards = (page.value as { cards: { id: number; masked_number: string }[] }).cards;
        expect(cards.map((c) => c.id)).toEqual([owner_card_id]);
        expect(page.body).not.toMatch(/\d{16}/);
        expect(locked.status).toBe(200);
        expect(after.status).toBe("locked");
        await setStatus(owner_card_id, "active");
        return;
      }
      expect(after.status).toBe("active");
      if (persona === "another_member") {
        // Their own page lists their own card only; the owner's card is "not found" to them.
        expect(page.status).toBe(200);
        expect((page.value as { cards: { id: number }[] }).cards.map((c) => c.id)).not.toContain(owner_card_id);
        expect(locked.status).toBe(404);
        expect(fieldErrors(locked.value)[""]).toBe("Card not found");
        return;
      }
      // A visitor is sent to sign in, others to their own home; a post is 401 / 403.
      expect(page.status).toBe(302);
      expect(page.location).toMatch(
        persona === "anonymous"
          ? /^\/login\?redirectTo=%2Fdashboard%2Fcards/
          : persona === "applicant"
            ? /^\/pending-approval/
            : /^\/admin/,
      );
      expect(locked.status).toBe(persona === "anonymous" ? 401 : 403);
    });
  }
});

describe("the member's controls", () => {
  it("Lock then Unlock: audited and in the bell; a locked card's purchase is refused, an unlocked one's goes through", async () => {
    const m = await cardholder();
    const cookie = `cookie:${await signedIn(db, m.member.id)}`;
    expect((await memberAction(cookie, { intent: "lock", card_id: String(m.card.id) })).status).toBe(200);
    expect(await purchase(m.card.id, 500)).toMatchObject({ ok: false, code: "card_locked" });
    expect((await memberAction(cookie, { intent: "unlock", card_id: String(m.card.id) })).status).toBe(200);
    expect(await purchase(m.card.id, 500)).toMatchObject({ ok: true });
    expect(await auditCount("card.lock", m.card.id)).toBe(1);
    expect(await auditCount("card.unlock", m.card.id)).toBe(1);
    const titles = (
      await db
        .select({ title: notifications.title })
        .from(notifications)
        .where(eq(notifications.member_id, m.member.id))
    ).map((n) => n.title);
    expect(titles).toEqual(expect.arrayContaining(["Card locked", "Card unlocked"]));
  });

  it("Set Transaction Limits: within $10.00 to $5,000.00, refused outside with nothing changed", async () => {
    const m = await cardholder();
    const cookie = `cookie:${await signedIn(db, m.member.id)}`;
    for (const bad of ["9.99", "5000.01", "abc", "", "12.345"]) {
      const answer = await memberAction(cookie, { intent: "set_limit", card_id: String(m.card.id), daily_limit: bad });
      expect(answer.status, bad).toBe(400);
      expect(fieldErrors(answer.value).daily_limit).toBe("Please enter a daily limit between $10.00 and $5,000.00");
    }
    expect(Number((await card(m.card.id)).daily_limit_cents)).toBe(100_000);
    expect(
      (await memberAction(cookie, { intent: "set_limit", card_id: String(m.card.id), daily_limit: "250.00" })).status,
    ).toBe(200);
    expect(Number((await card(m.card.id)).daily_limit_cents)).toBe(25_000);
    expect(await auditCount("card.daily_limit", m.card.id)).toBe(1);
    expect(await purchase(m.card.id, 25_001)).toMatchObject({ ok: false, code: "over_card_daily_limit" });
  });

  it("View Card Details: only with the emailed code; missing, malformed or wrong codes refused", async () => {
    const m = await cardholder();
    const cookie = `cookie:${await signedIn(db, m.member.id)}`;
    const form = { intent: "view_details", card_id: String(m.card.id) };
    expect(fieldErrors((await memberAction(cookie, { ...form, otp: "" })).value).otp).toBe("Please enter OTP");
    expect(fieldErrors((await memberAction(cookie, { ...form, otp: "12ab" })).value).otp).toBe(
      "The code is at most 6 digits",
    );
    expect(fieldErrors((await memberAction(cookie, { ...form, otp: "1234567" })).value).otp).toBe(
      "The code is at most 6 digits",
    );
    // No code sent yet: any code is wrong.
    expect(fieldErrors((await memberAction(cookie, { ...form, otp: "123456" })).value).otp).toBe("Invalid OTP");
    const sent = await memberAction(cookie, { intent: "send_details_code", card_id: String(m.card.id) });
    expect(sent.value).toMatchObject({ tone: "success", code_step: "details" });
    const code = await lastTransferCode(db, m.member.email);
    const wrong = code === "000000" ? "000001" : "000000";
    const refused = await memberAction(cookie, { ...form, otp: wrong });
    expect(refused.status).toBe(400);
    expect(refused.value).toMatchObject({ code_step: "details" });
    expect(refused.body).not.toContain('details":{');
    expect(await auditCount("card.details_viewed", m.card.id)).toBe(0);
    const shown = await memberAction(cookie, { ...form, otp: code });
    expect(shown.status).toBe(200);
    const details = (shown.value as { details: { number: string; expiry: string } }).details;
    expect(details.number.replace(/ /g, "")).toMatch(/^400000\d{10}$/);
    expect(isLuhnValid(details.number.replace(/ /g, ""))).toBe(true);
    expect(details.number.endsWith(m.card.last4)).toBe(true);
    expect(await auditCount("card.details_viewed", m.card.id)).toBe(1);
    // A code works once.
    expect(fieldErrors((await memberAction(cookie, { ...form, otp: code })).value).otp).toBe("Invalid OTP");
    // A code sent for the PIN does not show details.
    await memberAction(cookie, { intent: "send_pin_code", card_id: String(m.card.id) });
    expect(
      fieldErrors((await memberAction(cookie, { ...form, otp: await lastTransferCode(db, m.member.email) })).value).otp,
    ).toBe("Invalid OTP");
  });

  it("Change PIN: 4 digits twice after the code; sequences, repeats and a mismatch refused; stored only as a slow hash", async () => {
    const m = await cardholder();
    const cookie = `cookie:${await signedIn(db, m.member.id)}`;
    await memberAction(cookie, { intent: "send_pin_code", card_id: String(m.card.id) });
    const code = await lastTransferCode(db, m.member.email);
    const form = (pin: string, confirm: string, otp = code) => ({
      intent: "change_pin",
      card_id: String(m.card.id),
      otp,
      pin_code: pin,
      pin_code_confirm: confirm,
    });
    const cases: Array<[string, string, string, string]> = [
      [
        "1234",
        "1234",
        "pin_code",
        "Please choose a PIN that is not a sequence such as 1234 or one digit repeated such as 1111",
      ],
      [
        "9876",
        "9876",
        "pin_code",
        "Please choose a PIN that is not a sequence such as 1234 or one digit repeated such as 1111",
      ],
      [
        "7777",
        "7777",
        "pin_code",
        "Please choose a PIN that is not a sequence such as 1234 or one digit repeated such as 1111",
      ],
      ["123", "123", "pin_code", "Please enter a 4-digit PIN"],
      ["12a4", "12a4", "pin_code", "Please enter a 4-digit PIN"],
      ["2580", "2581", "pin_code_confirm", "The two PINs do not match"],
    ];
    for (const [pin, confirm, field, message] of cases) {
      const answer = await memberAction(cookie, form(pin, confirm));
      expect(answer.status, pin).toBe(400);
      expect(fieldErrors(answer.value)[field], pin).toBe(message);
      // The PINs never come back to the page.
      expect(answer.body).not.toContain(`"${pin}"`);
    }
    expect((await card(m.card.id)).pin_hash).toBeNull();
    expect(fieldErrors((await memberAction(cookie, form("2580", "2580", ""))).value).otp).toBe("Please enter OTP");
    // The refusals above did not spend the code.
    const changed = await memberAction(cookie, form("2580", "2580"));
    expect(changed.status, changed.body).toBe(200);
    const row = await card(m.card.id);
    expect(row.pin_hash).toMatch(/^\$argon2id\$/);
    expect(row.pin_hash).not.toContain("2580");
    expect(await verifyCardPin(row, "2580")).toBe(true);
    expect(await verifyCardPin(row, "2581")).toBe(false);
    expect(await auditCount("card.pin_changed", m.card.id)).toBe(1);
    const [audit] = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "card.pin_changed"), eq(auditLog.subject_id, String(m.card.id))));
    expect(JSON.stringify(audit)).not.toContain("2580");
  });

  it("Report lost or stolen: blocked for good, a replacement with a new number; the old card is declined, the new one works", async () => {
    const m = await cardholder();
    const cookie = `cookie:${await signedIn(db, m.member.id)}`;
    const missing = await memberAction(cookie, { intent: "report_lost", card_id: String(m.card.id), reason: "stolen" });
    expect(missing.status).toBe(400);
    expect(fieldErrors(missing.value).confirm).toBe("Please confirm that this card should stop working for good");
    expect((await card(m.card.id)).status).toBe("active");
    const reported = await memberAction(cookie, {
      intent: "report_lost",
      card_id: String(m.card.id),
      reason: "stolen",
      confirm: "on",
    });
    expect(reported.status, reported.body).toBe(200);
    const old = await card(m.card.id);
    expect(old).toMatchObject({ status: "blocked", blocked_reason: "stolen" });
    const replacement = await card(old.replaced_by_id!);
    expect(replacement).toMatchObject({ status: "active", account_id: m.checking.id, member_id: m.member.id });
    expect(replacement.card_number_hash).not.toBe(old.card_number_hash);
    expect(await purchase(old.id, 100)).toMatchObject({ ok: false, code: "card_blocked" });
    expect(await purchase(replacement.id, 100)).toMatchObject({ ok: true });
    // Blocked for good: no unlock, no second report.
    expect((await memberAction(cookie, { intent: "unlock", card_id: String(old.id) })).status).toBe(409);
    expect((await card(old.id)).status).toBe("blocked");
    expect(await auditCount("card.reported_lost", old.id)).toBe(1);
    const page = await run(() =>
      cardsRoute.loader({ request: request(cookie, "/dashboard/cards"), params: {}, context: context() } as never),
    );
    const cards = (page.value as { cards: { id: number; status: string; transactions: unknown[] }[] }).cards;
    expect(cards.map((c) => [c.id, c.status])).toEqual([
      [replacement.id, "active"],
      [old.id, "blocked"],
    ]);
    expect(cards[0]!.transactions).toHaveLength(1);
  });

  it("an unknown intent is a 400 that changes nothing", async () => {
    const m = await cardholder();
    const cookie = `cookie:${await signedIn(db, m.member.id)}`;
    expect((await memberAction(cookie, { intent: "delete", card_id: String(m.card.id) })).status).toBe(400);
    expect((await card(m.card.id)).status).toBe("active");
  });
});

describe("Post card transaction (back office)", () => {
  const path = (member_id: string) => `/admin/members/${member_id}/cards`;
  const post = (who: Persona, member_id: string, form: Record<string, string>) =>
    run(() =>
      adminCardsRoute.action({
        request: request(who, path(member_id), form),
        params: { memberId: member_id },
        context: context(),
      } as never),
    );

  it("staff who may move money authorize and settle; everyone else is refused with nothing written", async () => {
    const m = await cardholder();
    const form = () => ({
      intent: "authorize",
      card_id: String(m.card.id),
      merchant: "Seacoast Books",
      amount: "12.34",
      category: "Shopping",
      request_key: crypto.randomUUID(),
    });
    for (const persona of PERSONAS.filter((p) => p !== "staff")) {
      const page = await run(() =>
        adminCardsRoute.loader({
          request: request(persona, path(m.member.id)),
          params: { memberId: m.member.id },
          context: context(),
        } as never),
      );
      expect(page.status, persona).not.toBe(200);
      const answer = await post(persona, m.member.id, form());
      expect(answer.status, persona).toBe(persona === "anonymous" ? 401 : 403);
    }
    expect(await authorizations(m.card.id)).toHaveLength(0);
    const page = await run(() =>
      adminCardsRoute.loader({
        request: request("staff", path(m.member.id)),
        params: { memberId: m.member.id },
        context: context(),
      } as never),
    );
    expect(page.status).toBe(200);
    const authorized = await post("staff", m.member.id, form());
    expect(authorized.status, authorized.body).toBe(200);
    const [row] = await authorizations(m.card.id);
    expect(row).toMatchObject({ status: "pending", amount_cents: 1_234, merchant: "Seacoast Books" });
    expect(await auditCount("card.purchase_authorized", m.card.id)).toBe(1);
    const settled = await post("staff", m.member.id, { intent: "settle", authorization_id: String(row!.id) });
    expect(settled.status, settled.body).toBe(200);
    expect(await balance(m.checking.id)).toEqual({ current: 50_000 - 1_234, available: 50_000 - 1_234 });
  });

  it("Release: staff who may move money give a purchase's hold back, audited and told to the member; everyone else is refused with nothing changed", async () => {
    const m = await cardholder();
    const other = await cardholder();
    const held = await purchase(m.card.id, 4_321);
    if (!held.ok) throw new Error(held.message);
    const form = { intent: "release", authorization_id: String(held.authorization.id) };
    for (const persona of PERSONAS.filter((p) => p !== "staff")) {
      const answer = await post(persona, m.member.id, form);
      expect(answer.status, persona).toBe(persona === "anonymous" ? 401 : 403);
    }
    // Staff on another member's page: not found there, nothing released.
    const elsewhere = await post("staff", other.member.id, form);
    expect(elsewhere.status).toBe(404);
    expect((await authorizations(m.card.id))[0]).toMatchObject({ status: "pending" });
    expect(await balance(m.checking.id)).toEqual({ current: 50_000, available: 50_000 - 4_321 });

    const released = await post("staff", m.member.id, form);
    expect(released.status, released.body).toBe(200);
    expect((released.value as { message: string }).message).toBe(
      "Released: $43.21 at Harbor Hardware is no longer held; the member was told.",
    );
    expect((await authorizations(m.card.id))[0]).toMatchObject({ status: "released" });
    expect(await balance(m.checking.id)).toEqual({ current: 50_000, available: 50_000 });
    expect(await auditCount("card.purchase_released", m.card.id)).toBe(1);
    // A second press: the same answer, no second audit entry; Settle now refused.
    expect((await post("staff", m.member.id, form)).status).toBe(200);
    expect(await auditCount("card.purchase_released", m.card.id)).toBe(1);
    const settle = await post("staff", m.member.id, {
      intent: "settle",
      authorization_id: String(held.authorization.id),
    });
    expect(settle.status).toBe(409);
    expect(fieldErrors(settle.value)[""]).toBe("This transaction is no longer pending.");
  });

  it("a purchase on a locked card is declined and audited; another member's card or a bad amount is refused", async () => {
    const m = await cardholder();
    const other = await cardholder();
    await setStatus(m.card.id, "locked");
    const declined = await post("staff", m.member.id, {
      intent: "authorize",
      card_id: String(m.card.id),
      merchant: "Seacoast Books",
      amount: "5.00",
      category: "Shopping",
      request_key: crypto.randomUUID(),
    });
    expect(declined.status).toBe(409);
    expect(fieldErrors(declined.value)[""]).toBe("Declined: The card is locked.");
    expect(await auditCount("card.purchase_declined", m.card.id)).toBe(1);
    const wrongCard = await post("staff", m.member.id, {
      intent: "authorize",
      card_id: String(other.card.id),
      merchant: "X",
      amount: "5.00",
      category: "Shopping",
      request_key: crypto.randomUUID(),
    });
    expect(wrongCard.status).toBe(404);
    const badAmount = await post("staff", other.member.id, {
      intent: "authorize",
      card_id: String(other.card.id),
      merchant: "X",
      amount: "0",
      category: "Shopping",
      request_key: crypto.randomUUID(),
    });
    expect(badAmount.status).toBe(400);
    expect(fieldErrors(badAmount.value).amount).toBe("Please enter an amount from $0.01 to $25,000.00");
    expect(await authorizations(other.card.id)).toHaveLength(0);
    const [{ n } = { n: 0 }] = (
      await db.execute(sql`select count(*)::int as n from card_authorizations where card_id = ${m.card.id}`)
    ).rows as { n: number }[];
    expect(Number(n)).toBe(0);
  });
});

describe("the demo's card purchases", () => {
  it("each demo member's checking has its debit card, and the card's purchases are its ledger transactions: past ones settled, one pending", async () => {
    const now = new Date("2026-11-24T15:00:00Z");
    for (const s of DEMO_SIGNINS.filter((p) => p.kind === "member")) {
      await db.insert(users).values({
        id: `demo-card-${s.email}`,
        name: `${s.first_name} ${s.last_name}`,
        email: s.email,
        role: "user",
        emailVerified: true,
      });
    }
    expect(await seedDemoHistory(db, now)).toBe(true);
    const cards = await memberCardsView(db, "demo-card-alex.morgan@harborview.example", now);
    expect(cards).toHaveLength(1);
    const [card] = cards;
    expect(card!.transactions).toHaveLength(10);
    expect(card!.transactions[0]).toMatchObject({ merchant: "Market Basket", status: "pending" });
    expect(card!.transactions.slice(1).every((t) => t.status === "posted" && t.amount_cents < 0)).toBe(true);
    const rows = await authorizations(card!.id);
    expect(rows.length).toBeGreaterThan(100);
    // Every purchase is a card_payment against the card network's account; no day passes the card's limit.
    const kinds = await db.execute(
      sql`select distinct t.kind from card_authorizations a join ledger_transactions t on t.id = a.transaction_id where a.card_id = ${card!.id}`,
    );
    expect(kinds.rows.map((r) => r.kind)).toEqual(["card_payment"]);
    const days = await db.execute(
      sql`select business_date, sum(amount_cents)::bigint as total from card_authorizations where card_id = ${card!.id} group by business_date order by total desc limit 1`,
    );
    expect(Number(days.rows[0]!.total)).toBeLessThanOrEqual(card!.daily_limit_cents);
  });
});
