import { describe, expect, it } from "vitest";
import type { Db } from "~/server/db/client.server";
import { setAppDatabase } from "~/server/db/db.server";
import { issueDebitCard } from "~/server/cards/cards.server";
import { authorizeCardPurchase } from "~/server/cards/authorization.server";
import { memberCardsView } from "~/server/cards/controls.server";
import { cardServicesSummary } from "~/server/cards/page.server";
import { fileDatabase, onPostgres, statementsOf } from "../test-database";
import { key, newMember } from "../member-support";

/**
 * The dashboard's Card Services (docs/product.md#dashboard): the member's cards are read in one
 * statement, whatever their number (each card's transactions and today's spending come with it),
 * and the Statements view's data is built only when that view is shown. Before, each card cost
 * two more statements, and the statements were built on every dashboard load.
 */
process.env.LOG_LEVEL = "silent";
let db: Db;
fileDatabase({
  onOpen: (database) => {
    db = database.db;
    setAppDatabase(database);
  },
});

async function memberWithCards(n: number) {
  const m = await newMember(db, { checking_cents: 100_000 });
  const cards = [];
  for (let i = 0; i < n; i++)
    cards.push(await issueDebitCard(db, { member_id: m.member.id, account_id: m.checking.id }));
  return { m, cards };
}

describe("the dashboard's Card Services", () => {
  it("each card carries its newest transactions and today's spending", async () => {
    const { m, cards } = await memberWithCards(2);
    for (const [amount_cents, merchant] of [
      [1_250, "Corner Cafe"],
      [4_000, "Book Shop"],
    ] as const) {
      const answer = await authorizeCardPurchase(db, {
        card_id: cards[0]!.id,
        amount_cents,
        merchant,
        category: "Shopping",
        idempotency_key: key(),
        initiator: "system:test",
        created_by: "system:test",
      });
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
