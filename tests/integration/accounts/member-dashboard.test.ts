import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import type { Database, Db } from "~/server/db/client.server";
import { users } from "~/server/db/schema";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { placeHold, postTransfer, reverseTransaction, settleHold } from "~/server/ledger/ledger.server";
import { dashboard } from "~/server/accounts/overview.server";
import { memberHistoryCsv, memberHistoryPage, parseHistoryFilters } from "~/server/accounts/history.server";
import { memberAccounts } from "~/server/ledger/accounts.server";
import { seedDemoHistory } from "~/server/seed/demo-history.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { transferBetweenAccounts } from "~/server/payments/between-accounts.server";
import { betweenAccountsSchema } from "~/domain/transfers";
import { DEMO_SIGNINS } from "~/server/auth/demo-signins.server";
import { openTestDatabase } from "../test-database";
import { accepted } from "../ledger-fixtures";
import { key, newMember } from "../member-support";

let database: Database;
let db: Db;
beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
});
afterAll(async () => {
  await database?.close();
});

const NOW = new Date("2026-11-22T15:00:00Z");

async function post(
  account_id: number,
  amount_cents: number,
  date: string,
  category: string,
  memo: string,
  kind: "card_payment" | "ach_in" = amount_cents < 0 ? "card_payment" : "ach_in",
) {
  const cash = await institutionAccount(db, "cash");
  return accepted(
    postTransfer(db, {
      kind,
      initiator: "system:test",
      idempotency_key: key(),
      created_by: "test",
      effective_date: date,
      category,
      memo,
      entries: [
        { account_id, amount_cents },
        { account_id: cash.id, amount_cents: -amount_cents },
      ],
    }),
  );
}

describe("dashboard figures come from the ledger", () => {
  it("totals, pending, month income/outgoing, 30-day categories and the recent 20", async () => {
    const m = await newMember(db, { first_name: "Alex", last_name: "Rivera", joint_name: "Jordan Rivera" });
    await post(m.checking.id, 300_000, "2026-10-15", "Income", "Payroll October");
    await post(m.checking.id, 250_000, "2026-11-01", "Income", "Payroll November");
    await post(m.checking.id, -12_345, "2026-10-20", "Groceries", "Market Basket"); // > 30 days before Nov 22? no: Oct 24 is the start
    await post(m.checking.id, -4_500, "2026-10-30", "Dining", "Cafe"); // in 30 days, not this month
    await post(m.checking.id, -8_000, "2026-11-05", "Groceries", "Hannaford");
    const cafe_again = await post(m.checking.id, -2_000, "2026-11-21", "Dining", "Cafe again");
    // Own move: neither income nor spending.
    await transferBetweenAccounts(
      db,
      m.member,
      betweenAccountsSchema.parse({
        from_account_id: String(m.checking.id),
        to_account_id: String(m.savings.id),
        amount: "100.00",
        reference: "save",
        idempotency_key: key(),
      }),
    );
    const cash = await institutionAccount(db, "cash");
    const hold = await accepted(
      placeHold(db, {
        kind: "card_payment",
        initiator: "system:test",
        idempotency_key: key(),
        created_by: "test",
        effective_date: "2026-11-22",
        category: "Shopping",
        memo: "Pending purchase",
        entries: [
          { account_id: m.checking.id, amount_cents: -1_500 },
          { account_id: cash.id, amount_cents: 1_500 },
        ],
      }),
    );

    const d = await dashboard(db, { id: m.member.id, name: m.member.name }, NOW);
    expect(d.first_name).toBe("Alex");
    expect(d.joint).toBe(true);
    expect(d.holder).toBe("Alex Rivera & Jordan Rivera");
    expect(d.accounts.map((a) => a.type_label)).toEqual(["Personal Checking", "Personal Savings"]);
    const checking_current = 300_000 + 250_000 - 12_345 - 4_500 - 8_000 - 2_000 - 10_000;
    expect(d.accounts[0]).toMatchObject({
      current_cents: checking_current,
      available_cents: checking_current - 1_500,
      status: "active",
    });
    expect(d.total_available_cents).toBe(checking_current - 1_500 + 10_000);
    expect(d.pending).toEqual({ total_cents: 1_500, count: 1 });
    expect(d.month).toMatchObject({ label: "November 2026", income_cents: 250_000, outgoing_cents: 10_000 });
    // 30 days: Oct 24 .. Nov 22, money that has left (posted debits; own moves excluded). The
    // pending purchase is held, not spent: it counts once it settles.
    expect(d.spending).toMatchObject({ from: "2026-10-24", to: "2026-11-22" });
    expect(d.spending.categories).toEqual([
      { category: "Groceries", amount_cents: 8_000 },
      { category: "Dining", amount_cents: 6_500 },
    ]);
    expect(d.recent.length).toBe(9);
    expect(d.recent[0]!.description).toBe("Pending purchase");
    expect(d.recent[0]!.status_label).toBe("Pending");

    // Settled, the purchase is posted spending; reversed, the second cafe is neither outgoing nor spending.
    await accepted(
      settleHold(db, { transaction_id: hold.transaction.id, idempotency_key: key(), resolved_by: "system:test" }),
    );
    await accepted(
      reverseTransaction(db, {
        transaction_id: cafe_again.transaction.id,
        idempotency_key: key(),
        initiator: "staff:test",
        created_by: "staff:test",
      }),
    );
    const after = await dashboard(db, { id: m.member.id, name: m.member.name }, NOW);
    expect(after.pending).toEqual({ total_cents: 0, count: 0 });
    expect(after.month).toMatchObject({ income_cents: 250_000, outgoing_cents: 8_000 + 1_500 });
    expect(after.spending.categories).toEqual([
      { category: "Groceries", amount_cents: 8_000 },
      { category: "Dining", amount_cents: 4_500 },
      { category: "Shopping", amount_cents: 1_500 },
    ]);
    expect((await verifyLedger(db)).problems).toEqual([]);
  });

  it("the chart and the month count only money that has left: a scheduled bill payment (next year), a pending purchase and a posting dated after today are not spent yet", async () => {
    const m = await newMember(db, { checking_cents: 500_000 });
    await post(m.checking.id, -3_000, "2026-11-20", "Dining", "Cafe");
    await post(m.checking.id, -7_000, "2026-11-24", "Shopping", "Dated after today");
    const settlement = await institutionAccount(db, "bill_pay_settlement");
    const cash = await institutionAccount(db, "cash");
    const hold = (
      kind: "bill_payment" | "card_payment",
      amount_cents: number,
      effective_date: string,
      category: string,
      creditor: number,
    ) =>
      accepted(
        placeHold(db, {
          kind,
          initiator: "system:test",
          idempotency_key: key(),
          created_by: "test",
          effective_date,
          category,
          memo: category,
          entries: [
            { account_id: m.checking.id, amount_cents: -amount_cents },
            { account_id: creditor, amount_cents },
          ],
        }),
      );
    await hold("bill_payment", 25_000, "2027-01-15", "Bill Pay", settlement.id);
    await hold("card_payment", 1_500, "2026-11-22", "Shopping", cash.id);

    const d = await dashboard(db, { id: m.member.id, name: m.member.name }, NOW);
    expect(d.spending).toEqual({
      from: "2026-10-24",
      to: "2026-11-22",
      categories: [{ category: "Dining", amount_cents: 3_000 }],
      total_cents: 3_000,
    });
    expect(d.month.outgoing_cents).toBe(3_000);
    // Both holds are pending (what the Pending figure counts), and the member's available balance is less by them.
    expect(d.pending).toEqual({ total_cents: 26_500, count: 2 });
    // On Nov 24 the posting dated that day has left: it is spent.
    expect(
      (await dashboard(db, { id: m.member.id, name: m.member.name }, new Date("2026-11-24T15:00:00Z"))).spending
        .total_cents,
    ).toBe(10_000);
  });

  it("a first-time member sees zeros, not invented figures", async () => {
    const m = await newMember(db);
    const d = await dashboard(db, { id: m.member.id, name: m.member.name }, NOW);
    expect(d.total_available_cents).toBe(0);
    expect(d.pending).toEqual({ total_cents: 0, count: 0 });
    expect(d.month.income_cents).toBe(0);
    expect(d.spending.categories).toEqual([]);
    expect(d.recent).toEqual([]);
  });

  it("a person with neither a profile nor accounts gets their sign-in name and zeros", async () => {
    const id = `no-profile-${key()}`;
    await db
      .insert(users)
      .values({ id, name: "Casey Morgan", email: `${id}@example.com`, role: "user", emailVerified: true });
    const d = await dashboard(db, { id, name: "Casey Morgan" }, NOW);
    expect(d).toMatchObject({
      first_name: "Casey",
      holder: "Casey Morgan",
      joint: false,
      accounts: [],
      total_available_cents: 0,
      recent: [],
    });
    expect(d.pending).toEqual({ total_cents: 0, count: 0 });
    expect(d.spending).toMatchObject({ categories: [], total_cents: 0 });
  });
});

describe("history: filters, keyset pages, CSV", () => {
  it("filters by text, type, category, status, dates and account, and pages without gaps", async () => {
    const m = await newMember(db, { checking_cents: 100_000 });
    for (let i = 0; i < 30; i++)
      await post(
        m.checking.id,
        -(100 + i),
        `2026-09-${String((i % 28) + 1).padStart(2, "0")}`,
        i % 2 ? "Dining" : "Groceries",
        `Purchase ${i}`,
      );
    await post(m.savings.id, 5_000, "2026-09-15", "Income", "Bonus =cmd");
    const accounts = await memberAccounts(db, m.member.id);
    const all: number[] = [];
    let before: string | null = null;
    for (let page = 0; page < 10; page++) {
      const result: Awaited<ReturnType<typeof memberHistoryPage>> = await memberHistoryPage(
        db,
        accounts,
        {},
        { before, limit: 7 },
      );
      all.push(...result.rows.map((r) => r.entry_id));
      if (!result.next_before) break;
      before = result.next_before;
    }
    expect(all).toHaveLength(32);
    expect([...all].sort((a, b) => b - a)).toEqual(all);
    const f = (q: string) => parseHistoryFilters(new URLSearchParams(q), accounts);
    expect((await memberHistoryPage(db, accounts, f("q=purchase 1"), { limit: 100 })).rows).toHaveLength(11);
    expect((await memberHistoryPage(db, accounts, f("type=credit"), { limit: 100 })).rows).toHaveLength(2);
    expect((await memberHistoryPage(db, accounts, f("category=Dining"), { limit: 100 })).rows).toHaveLength(15);
    // A filtered history pages the same way.
    const dining: number[] = [];
    for (let page = 0, cursor: string | null = null; page < 10; page++) {
      const result: Awaited<ReturnType<typeof memberHistoryPage>> = await memberHistoryPage(
        db,
        accounts,
        f("category=Dining"),
        { before: cursor, limit: 4 },
      );
      dining.push(...result.rows.map((r) => r.entry_id));
      if (!result.next_before) break;
      cursor = result.next_before;
    }
    expect(new Set(dining).size).toBe(15);
    expect([...dining].sort((a, b) => b - a)).toEqual(dining);
    expect(
      (await memberHistoryPage(db, accounts, f("from=2026-09-10&to=2026-09-12"), { limit: 100 })).rows.length,
    ).toBe(3);
    expect((await memberHistoryPage(db, accounts, f(`account=${m.savings.id}`), { limit: 100 })).rows).toHaveLength(1);
    expect((await memberHistoryPage(db, accounts, f("status=pending"), { limit: 100 })).rows).toHaveLength(0);

    const other = await newMember(db, { checking_cents: 1_000 });
    // Another member's account id in the URL is ignored: it filters nothing of theirs in.
    const leaked = await memberHistoryPage(db, accounts, f(`account=${other.checking.id}`), { limit: 100 });
    expect(leaked.rows.every((r) => r.account_id === m.checking.id || r.account_id === m.savings.id)).toBe(true);

    const csv = await memberHistoryCsv(db, accounts, f("q=bonus"));
    const lines = csv.trim().split("\r\n");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('"Bonus =cmd"');
    expect(lines[1]).toContain(",Credit,50.00,Completed,");
    const dangerous = await post(m.savings.id, 1_00, "2026-09-16", "Income", "=HYPERLINK(1)");
    void dangerous;
    const csv2 = await memberHistoryCsv(db, accounts, f("q=HYPERLINK"));
    expect(csv2).toContain(`"'=HYPERLINK(1)"`);
  });
});

describe("demo history", () => {
  it("opens accounts and posts six months through the ledger, once", async () => {
    for (const s of DEMO_SIGNINS.filter((p) => p.kind === "member")) {
      await db.insert(users).values({
        id: `demo-${s.email}`,
        name: `${s.first_name} ${s.last_name}`,
        email: s.email,
        role: "user",
        emailVerified: true,
      });
    }
    expect(await seedDemoHistory(db, NOW)).toBe(true);
    expect(await seedDemoHistory(db, NOW)).toBe(false);
    const accounts = await memberAccounts(db, "demo-alex.morgan@harborview.example");
    expect(accounts.map((a) => a.type)).toEqual(["checking", "savings"]);
    expect(accounts.every((a) => a.available_cents > 0)).toBe(true);
    const d = await dashboard(db, { id: "demo-alex.morgan@harborview.example", name: "Alex Morgan" }, NOW);
    expect(d.pending.count).toBe(1);
    expect(d.month.income_cents).toBeGreaterThan(0);
    expect(d.spending.categories.length).toBeGreaterThan(3);
    expect(d.recent).toHaveLength(20);
    const rates = await db.execute(sql`select count(*)::int as n from currency_rates where updated_by = 'demo'`);
    expect(Number(rates.rows[0]!.n)).toBeGreaterThan(3);
    expect((await verifyLedger(db)).ok).toBe(true);
  });
});
