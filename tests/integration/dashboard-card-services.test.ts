import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database, Db } from "~/server/db/client.server";
import { setAppDatabase } from "~/server/db/db.server";
import { issueDebitCard } from "~/server/cards/cards.server";
import { authorizeCardPurchase } from "~/server/cards/authorization.server";
import { memberCardsView } from "~/server/cards/controls.server";
import { cardServicesSummary } from "~/server/cards/page.server";
import { onPostgres, openTestDatabase } from "./test-database";
import { key, newMember } from "./member-support";

/**
 * The dashboard's Card Services (docs/product.md#dashboard): the member's cards are read in one
 * statement, whatever their number (each card's transactions and today's spending come with it),
 * and the Statements view's data is built only when that view is shown. Before, each card cost
 * two more statements, and the statements were built on every dashboard load.
 */
let database: Database;
let db: Db;

beforeAll(async () => {
  process.env.LOG_LEVEL = "silent";
  database = await openTestDatabase();
  db = database.db;
  setAppDatabase(database);
});
afterAll(async () => {
  await database?.close();
});

async function statementsOf<T>(work: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const statements: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    statements.push(typeof first === "string" ? first : String(first?.text ?? ""));
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    return { result: await work(), statements };
  } finally {
    pg.Client.prototype.query = query;
  }
}

async function memberWithCards(n: number) {
  const m = await newMember(db, { checking_cents: 100_000 });
  const cards = [];
  for (let i = 0; i < n; i++) cards.push(await issueDebitCard(db, { member_id: m.member.id, account_id: m.checking.id }));
  return { m, cards };
}

describe("the dashboard's Card Services", () => {
  it("each card carries its newest transactions and today's spending", async () => {
    const { m, cards } = await memberWithCards(2);
    for (const [amount_cents, merchant] of [[1_250, "Corner Cafe"], [4_000, "Book Shop"]] as const) {
      const answer = await authorizeCardPurchase(db, { card_id: cards[0]!.id, amount_cents, merchant, category: "Shopping", idempotency_key: key(), initiator: "system:test", created_by: "system:test" });
      expect(answer.ok).toBe(true);
    }
    const view = await memberCardsView(db, m.member.id);
    const used = view.find((c) => c.id === cards[0]!.id)!;
    expect(used.spent_today_cents).toBe(5_250);
    expect(used.transactions.map((t) => [t.merchant, t.amount_cents, t.status])).toEqual([
      ["Book Shop", -4_000, "pending"],
      ["Corner Cafe", -1_250, "pending"],
    ]);
    expect(used.transactions[0]!.reference_number).toMatch(/^MU\d{8,}$/);
    expect(view.find((c) => c.id === cards[1]!.id)).toMatchObject({ spent_today_cents: 0, transactions: [] });
    const one = await memberCardsView(db, m.member.id, new Date(), 1);
    expect(one.find((c) => c.id === cards[0]!.id)!.transactions.map((t) => t.merchant)).toEqual(["Book Shop"]);
  });

  it("builds the statements only for the Statements view", async () => {
    const { m } = await memberWithCards(1);
    const overview = await cardServicesSummary({ id: m.member.id }, "overview");
    expect(overview.cards).toHaveLength(1);
    expect(overview.statements).toBeNull();
    const statements = await cardServicesSummary({ id: m.member.id }, "statements");
    expect(statements.statements?.map((a) => a.id).sort()).toEqual([m.checking.id, m.savings.id].sort());
  });

  it.skipIf(!onPostgres)("reads the cards in one statement whatever their number (PostgreSQL)", async () => {
    const { m } = await memberWithCards(4);
    const { result, statements } = await statementsOf(() => memberCardsView(db, m.member.id));
    expect(result).toHaveLength(4);
    expect(statements).toHaveLength(1);
  });
});
