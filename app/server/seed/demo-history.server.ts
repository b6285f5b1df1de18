import { and, count, eq, inArray } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { currencyRates, debitCards, ledgerAccounts, ledgerEntries, users, type DebitCard } from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { institutionAccount, memberAccounts, openAccount, type AccountView } from "~/server/ledger/accounts.server";
import { postBatch, type EntryInput, type PostingKind } from "~/server/ledger/ledger.server";
import { issueDebitCard } from "~/server/cards/cards.server";
import {
  authorizeCardPurchase,
  authorizedPastPurchases,
  recordSettledPurchases,
} from "~/server/cards/authorization.server";
import { assert } from "~/domain/ledger-rules";
import { setCurrencyRate } from "~/server/payments/rates.server";
import { notify } from "~/server/notifications/notifications.server";
import { payAccountDividendsSince } from "~/server/dividends/dividends.server";
import { DEMO_SIGNINS } from "../auth/demo-signins.server";

/**
 * Demo history (demo mode only, for demo members whose accounts have no history yet): the demo members get a checking and a
 * savings account if they have none, and six months of realistic history posted through the
 * ledger against the institution's own accounts: payroll, card purchases in several categories,
 * bills, a monthly move to savings, the savings account's monthly dividends, and one pending card purchase. Each demo member's
 * checking account gets its debit card, and the card purchases are the card's: the past ones
 * decided by the card's own rule (`authorizedPastPurchases`) and posted settled in the history's
 * batches, the pending one authorized by `authorizeCardPurchase` as a live purchase is. Plus a few currency
 * rates for international transfers, marked as set by the demo. Deterministic (seeded), so the
 * demo looks the same on every fresh start.
 *
 * Call once after the demo people exist (e.g. as a DEMO_SEED_STEP, or after seedDemoIfEmpty).
 */
export const DEMO_RATES: ReadonlyArray<[code: string, usd_per_unit: string]> = [
  ["EUR", "1.08375"],
  ["GBP", "1.2715"],
  ["CAD", "0.7342"],
  ["MXN", "0.0583"],
  ["JPY", "0.00667"],
  ["INR", "0.01198"],
  ["AUD", "0.6571"],
  ["CHF", "1.1302"],
];

interface Profile {
  payroll_cents: number;
  employer: string;
  rent_cents: number;
  landlord: string;
  savings_move_cents: number;
  opening_checking_cents: number;
  opening_savings_cents: number;
}

const PROFILES: Record<string, Profile> = {
  "alex.morgan@harborview.example": {
    payroll_cents: 412_500,
    employer: "Seacoast Medical Group",
    rent_cents: 185_000,
    landlord: "Pleasant Street Properties",
    savings_move_cents: 50_000,
    opening_checking_cents: 640_000,
    opening_savings_cents: 1_850_000,
  },
  "priya.shah@harborview.example": {
    payroll_cents: 318_000,
    employer: "Granite State Software",
    rent_cents: 142_500,
    landlord: "Cutts Avenue Apartments",
    savings_move_cents: 40_000,
    opening_checking_cents: 310_000,
    opening_savings_cents: 920_000,
  },
  "sam.okafor@harborview.example": {
    payroll_cents: 276_000,
    employer: "Exeter Public Schools",
    rent_cents: 0,
    landlord: "",
    savings_move_cents: 25_000,
    opening_checking_cents: 480_000,
    opening_savings_cents: 3_150_000,
  },
};

const MERCHANTS: Record<string, Array<[name: string, min_cents: number, max_cents: number]>> = {
  Groceries: [
    ["Market Basket", 4_200, 16_800],
    ["Hannaford Supermarket", 2_800, 11_900],
    ["Whole Foods Market", 3_500, 9_800],
  ],
  Dining: [
    ["Street 360 Cafe", 1_400, 4_800],
    ["Portsmouth Brewery", 2_600, 8_900],
    ["Dunkin'", 450, 1_600],
  ],
  Shopping: [
    ["Target", 1_900, 12_500],
    ["Amazon.com", 1_200, 9_900],
    ["L.L.Bean", 4_500, 18_000],
  ],
  Transportation: [
    ["Irving Oil", 3_200, 6_900],
    ["EZ-Pass NH", 1_000, 4_000],
    ["C&J Bus Lines", 1_500, 3_600],
  ],
  Entertainment: [
    ["Music Hall Portsmouth", 3_000, 9_000],
    ["Netflix", 1_549, 1_549],
    ["Regal Fox Run", 1_800, 4_200],
  ],
  Health: [
    ["CVS Pharmacy", 900, 4_800],
    ["Planet Fitness", 2_499, 2_499],
  ],
};

const BILLS: Array<[name: string, category: string, min_cents: number, max_cents: number]> = [
  ["Eversource Energy", "Utilities", 8_900, 18_500],
  ["Comcast Xfinity", "Utilities", 8_999, 8_999],
  ["Verizon Wireless", "Utilities", 6_500, 9_200],
  ["Geico Insurance", "Transportation", 12_400, 12_400],
];

/** A small seeded generator (mulberry32): the same demo on every start. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

type Item = {
  kind: PostingKind;
  entries: EntryInput[];
  memo: string;
  category: string;
  effective_date: string;
  reference?: string;
  card_purchase?: { merchant: string; amount_cents: number };
};

/** Returns whether it seeded anything. */
export async function seedDemoHistory(db: Db, now: Date = new Date()): Promise<boolean> {
  if (!institution().demo) return false;
  const [{ n: rates } = { n: 0 }] = await db.select({ n: count() }).from(currencyRates);
  if (rates === 0)
    for (const [code, rate] of DEMO_RATES) await setCurrencyRate(db, { code, usd_per_unit: rate, updated_by: "demo" });
  let seeded = false;

  const emails = DEMO_SIGNINS.filter((s) => s.kind === "member").map((s) => s.email);
  const members = await db
    .select({ id: users.id, email: users.email, name: users.name })
    .from(users)
    .where(inArray(users.email, emails));
  const books: Books = {
    cash: (await institutionAccount(db, "cash")).id,
    ach: (await institutionAccount(db, "ach_settlement")).id,
    bills: (await institutionAccount(db, "bill_pay_settlement")).id,
    card_network: (await institutionAccount(db, "card_settlement")).id,
  };

  for (const [index, member] of members.entries()) {
    const profile = PROFILES[member.email];
    if (!profile) continue;
    const accounts = await demoAccounts(db, member.id);
    if (!accounts) continue;
    const card = await demoCard(db, member.id, accounts.checking.id, now);
    // Only a demo member whose accounts have no history yet (safe to call on every start).
    const [{ n: entries } = { n: 0 }] = await db
      .select({ n: count() })
      .from(ledgerEntries)
      .where(inArray(ledgerEntries.account_id, [accounts.checking.id, accounts.savings.id]));
    if (entries > 0) continue;
    seeded = true;
    await seedMemberHistory(db, { member_id: member.id, profile, index, ...accounts, card, books, now });
  }
  return seeded;
}

/** The credit union's own accounts the history's money comes from and goes to. */
interface Books {
  cash: number;
  ach: number;
  bills: number;
  card_network: number;
}

/** One demo member's history to write: their profile, accounts and card, and the day it is written. */
interface MemberHistory {
  member_id: string;
  profile: Profile;
  /** The member's place in the list: the seed of their random history, so each start writes the same. */
  index: number;
  checking: AccountView;
  savings: AccountView;
  card: DebitCard;
  books: Books;
  now: Date;
}

/** The member's checking and savings accounts, opened when they have none; null when one is missing. */
async function demoAccounts(
  db: Db,
  member_id: string,
): Promise<{ checking: AccountView; savings: AccountView } | null> {
  let accounts = await memberAccounts(db, member_id);
  if (accounts.length === 0) {
    await openAccount(db, { member_id, type: "checking", name: "Personal Checking" });
    await openAccount(db, { member_id, type: "savings", name: "Personal Savings" });
    accounts = await memberAccounts(db, member_id);
  }
  const checking = accounts.find((a) => a.type === "checking");
  const savings = accounts.find((a) => a.type === "savings");
  return checking && savings ? { checking, savings } : null;
}

/** The checking account's debit card (approval issues one; the demo's members were seeded approved). */
async function demoCard(db: Db, member_id: string, checking_id: number, now: Date): Promise<DebitCard> {
  const activeCard = async () =>
    (
      await db
        .select()
        .from(debitCards)
        .where(and(eq(debitCards.account_id, checking_id), eq(debitCards.status, "active")))
        .limit(1)
    )[0];
  let card = await activeCard();
  if (!card) {
    await issueDebitCard(db, { member_id, account_id: checking_id, now });
    card = await activeCard();
  }
  assert(card, "demo card not issued");
  return card;
}

/**
 * Six months of a member's life, written through the ledger as it would have happened: opening
 * deposits, payroll, rent, bills and card purchases (those the card and the balance allow), the
 * savings dividends, one purchase still pending, and a notification of the latest payroll.
 */
async function seedMemberHistory(db: Db, h: MemberHistory): Promise<void> {
  const rnd = random(7919 * (h.index + 1));
  const between = (min: number, max: number) => Math.round(min + rnd() * (max - min));
  const start = new Date(Date.UTC(h.now.getUTCFullYear(), h.now.getUTCMonth() - 6, 1));
  // The accounts were opened when their history begins: an account with six months of history is
  // not a new account (Regulation CC 229.13(a), Regulation E 1005.11(c)(3)).
  await db
    .update(ledgerAccounts)
    // Noon UTC on the history's first day: that same day in the institution's time zone.
    .set({ opened_at: new Date(start.getTime() + 12 * 60 * 60 * 1000) })
    .where(inArray(ledgerAccounts.id, [h.checking.id, h.savings.id]));
  const items = [...openingDeposits(h, start)];
  const yesterday = new Date(h.now.getTime() - 24 * 60 * 60 * 1000);
  for (
    let day = new Date(start.getTime() + 24 * 60 * 60 * 1000);
    day <= yesterday;
    day = new Date(day.getTime() + 24 * 60 * 60 * 1000)
  )
    items.push(...dayItems(h, day, rnd, between));
  await postHistory(db, h, affordable(items, h));
  // The savings account's dividends for each month of the history, worked out and paid by the
  // same rule and run as every member's (docs/product.md#dividends), never made up here.
  await payAccountDividendsSince(db, h.savings.id, isoDate(start).slice(0, 7), h.now);
  // One purchase still pending: a live authorization on the card.
  const held = await authorizeCardPurchase(db, {
    card_id: h.card.id,
    merchant: "Market Basket",
    amount_cents: between(2_500, 8_500),
    category: "Groceries",
    idempotency_key: `demo-history:${h.member_id}:pending`,
    initiator: "system:demo",
    created_by: "demo",
    now: h.now,
  });
  assert(held.ok, `demo pending purchase refused: ${held.ok ? "" : held.code}`);
  await notify(db, {
    member_id: h.member_id,
    kind: "transfer_received",
    title: `Direct deposit from ${h.profile.employer}`,
    body: "Your latest payroll deposit is in your checking account.",
  });
}

function openingDeposits({ profile, checking, savings, books }: MemberHistory, start: Date): Item[] {
  return [
    { account: checking.id, cents: profile.opening_checking_cents },
    { account: savings.id, cents: profile.opening_savings_cents },
  ].map(({ account, cents }) => ({
    kind: "opening_deposit" as const,
    entries: [
      { account_id: books.cash, amount_cents: -cents },
      { account_id: account, amount_cents: cents },
    ],
    memo: "Opening deposit",
    category: "Deposits",
    effective_date: isoDate(start),
  }));
}

/** One day of the history: payroll on the 1st and 15th, rent, the move to savings, the month's bills, card purchases. */
function dayItems(
  { profile, checking, savings, books, card }: MemberHistory,
  day: Date,
  rnd: () => number,
  between: (min: number, max: number) => number,
): Item[] {
  const items: Item[] = [];
  const date = isoDate(day);
  const dom = day.getUTCDate();
  const debit = (amount_cents: number, to: number): EntryInput[] => [
    { account_id: checking.id, amount_cents: -amount_cents },
    { account_id: to, amount_cents },
  ];
  // Payroll on the 1st and the 15th, by ACH from the employer.
  if (dom === 1 || dom === 15) {
    items.push({
      kind: "ach_in",
      entries: [
        { account_id: books.ach, amount_cents: -profile.payroll_cents },
        { account_id: checking.id, amount_cents: profile.payroll_cents },
      ],
      memo: `Direct deposit: ${profile.employer} payroll`,
      category: "Income",
      effective_date: date,
    });
  }
  if (dom === 2 && profile.rent_cents > 0)
    items.push({
      kind: "bill_payment",
      entries: debit(profile.rent_cents, books.bills),
      memo: `Rent: ${profile.landlord}`,
      category: "Housing",
      effective_date: date,
    });
  if (dom === 3)
    items.push({
      kind: "transfer",
      entries: [
        { account_id: checking.id, amount_cents: -profile.savings_move_cents },
        { account_id: savings.id, amount_cents: profile.savings_move_cents },
      ],
      memo: "Monthly transfer to savings",
      category: "Transfers",
      effective_date: date,
      reference: "Savings goal",
    });
  for (const [i, [name, category, min, max]] of BILLS.entries()) {
    if (dom === 5 + i * 4)
      items.push({
        kind: "bill_payment",
        entries: debit(between(min, max), books.bills),
        memo: `Bill payment: ${name}`,
        category,
        effective_date: date,
      });
  }
  items.push(...cardPurchases(day, card, debit, books.card_network, rnd, between));
  return items;
}

/** Card purchases: one to three a day, more on weekends, at merchants of a random category. */
function cardPurchases(
  day: Date,
  card: DebitCard,
  debit: (amount_cents: number, to: number) => EntryInput[],
  card_network: number,
  rnd: () => number,
  between: (min: number, max: number) => number,
): Item[] {
  const items: Item[] = [];
  const weekday = day.getUTCDay();
  const purchases = (weekday === 0 || weekday === 6 ? 2 : 1) + (rnd() < 0.35 ? 1 : 0);
  for (let p = 0; p < purchases; p++) {
    const categories = Object.keys(MERCHANTS);
    const category = categories[Math.floor(rnd() * categories.length)]!;
    const list = MERCHANTS[category]!;
    const [name, min, max] = list[Math.floor(rnd() * list.length)]!;
    const amount_cents = between(min, max);
    items.push({
      kind: "card_payment",
      entries: debit(amount_cents, card_network),
      memo: `Debit card purchase: ${name}`,
      reference: `Card ${card.masked_number}`,
      category,
      effective_date: isoDate(day),
      card_purchase: { merchant: name, amount_cents },
    });
  }
  return items;
}

/**
 * Keeps the story believable: the card's own rule (its daily limit) decides each purchase, as it
 * would have on the day, and a purchase that would overdraw checking is left out.
 */
function affordable(items: Item[], { card, checking }: MemberHistory): Item[] {
  const purchases = items
    .filter((item) => item.card_purchase)
    .map((item) => ({
      item,
      merchant: item.card_purchase!.merchant,
      category: item.category,
      amount_cents: item.card_purchase!.amount_cents,
      business_date: item.effective_date,
    }));
  const authorized = new Set(authorizedPastPurchases(card, purchases).map((p) => p.item));
  let checking_cents = 0;
  return items.filter((item) => {
    if (item.card_purchase && !authorized.has(item)) return false;
    const change = item.entries.find((e) => e.account_id === checking.id)?.amount_cents ?? 0;
    if (checking_cents + change < 0) return false;
    checking_cents += change;
    return true;
  });
}

/**
 * In batches (the ledger's batch limit), all or nothing each, in date order. Small batches: on
 * embedded PGlite a transaction holds the one connection, so other requests wait between batches,
 * not for the whole history. Each batch's card purchases become the card's transactions.
 */
async function postHistory(db: Db, { member_id, card }: MemberHistory, items: Item[]): Promise<void> {
  for (let i = 0, batch = 0; i < items.length; i += 100, batch++) {
    const posted = await postBatch(db, {
      idempotency_key: `demo-history:${member_id}:${batch}`,
      initiator: "system:demo",
      created_by: "demo",
      transactions: items.slice(i, i + 100).map((item) => ({
        kind: item.kind,
        entries: item.entries,
        memo: item.memo,
        category: item.category,
        effective_date: item.effective_date,
        reference: item.reference ?? null,
      })),
    });
    // The history was kept affordable: a refusal here is a bug in this file.
    assert(posted.ok, `demo history refused: ${posted.ok ? "" : posted.code}`);
    await recordSettledPurchases(
      db,
      card,
      items.slice(i, i + 100).flatMap((item, j) =>
        item.card_purchase
          ? [
              {
                merchant: item.card_purchase.merchant,
                category: item.category,
                amount_cents: item.card_purchase.amount_cents,
                business_date: item.effective_date,
                transaction_id: posted.transactions[j]!.transaction.id,
                initiator: "system:demo",
                idempotency_key: `demo-history:${member_id}:card:${i + j}`,
              },
            ]
          : [],
      ),
    );
  }
}
