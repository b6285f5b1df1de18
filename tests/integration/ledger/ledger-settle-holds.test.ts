import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { openTestDatabase } from "../test-database";
import { STAFF, accepted, newKey, openMember, refusalOf } from "../ledger-fixtures";
import type { Database } from "~/server/db/client.server";
import { getBalances, institutionAccount, setAccountStatus } from "~/server/ledger/accounts.server";
import * as ledger from "~/server/ledger/ledger.server";
import { placeHold, releaseHold, type BatchResult, type LedgerRefusal } from "~/server/ledger/ledger.server";
import { transferEntries } from "~/domain/ledger-rules";
import { verifyLedger } from "~/server/ledger/verify.server";

/**
 * Many holds settled at once against one settlement account (an ACH file going out): every
 * settle planned in turn, written in bulk, with one new version of each account row whatever the
 * number of holds; a refused hold refuses the call with nothing written.
 */

let database: Database;
const db = () => database.db;

beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

type SettleHolds = (
  db: unknown,
  input: { holds: Array<{ transaction_id: number }>; idempotency_key: string; resolved_by: string },
) => Promise<BatchResult | LedgerRefusal>;
/** Looked up by name, so that this file runs (and fails) against a ledger without the operation. */
function settleHolds(...args: Parameters<SettleHolds>): ReturnType<SettleHolds> {
  const operation = (ledger as Record<string, unknown>).settleHolds as SettleHolds | undefined;
  if (!operation) throw new Error("the ledger has no settleHolds");
  return operation(...args);
}

const HOLDS = 200;
const MEMBERS = 10;
const CATEGORIES = ["Rent", "Savings", "Gifts"] as const;
const DATES = ["2026-11-20", "2026-11-21"] as const;

async function holdAll(
  settlement_id: number,
  members: Array<{ checking: { id: number } }>,
  count: number,
  amount = (i: number) => 100 + i,
) {
  const holds: number[] = [];
  for (let i = 0; i < count; i++) {
    const member = members[i % members.length]!;
    const answer = await accepted(
      placeHold(db(), {
        ...STAFF,
        idempotency_key: newKey("hold"),
        kind: "ach_out",
        entries: transferEntries(member.checking.id, settlement_id, amount(i)),
        category: CATEGORIES[i % CATEGORIES.length]!,
        effective_date: DATES[i % DATES.length]!,
      }),
    );
    holds.push(answer.transaction.id);
  }
  return holds;
}

async function settlementTotals(account_id: number) {
  const kept = await db().execute(sql`
    select effective_date::text as effective_date, kind, category, credits_cents, debits_cents
      from ledger_daily_totals where account_id = ${account_id} and effective_date in ('2026-11-20', '2026-11-21')`);
  return new Map(
    kept.rows.map((r) => [
      `${String(r.effective_date)}|${String(r.kind)}|${String(r.category)}`,
      { credits: Number(r.credits_cents), debits: Number(r.debits_cents) },
    ]),
  );
}

describe("settling 200 holds against one settlement account at once", () => {
  it("posts the right balances, held amounts and daily totals, and the verifier agrees; a refused hold writes nothing", async () => {
    const settlement = await institutionAccount(db(), "ach_settlement");
    const members = [];
    for (let m = 0; m < MEMBERS; m++) members.push(await openMember(db(), { checking_cents: 1_000_000 }));
    const holds = await holdAll(settlement.id, members, HOLDS);
    const account_ids = [settlement.id, ...members.map((m) => m.checking.id)];
    const opening = new Map((await getBalances(db(), account_ids)).map((a) => [a.id, a]));
    const totals_before = await settlementTotals(settlement.id);

    // One hold released, then listed with the others: the call is refused and nothing moves.
    const released = await accepted(
      placeHold(db(), {
        ...STAFF,
        idempotency_key: newKey("hold"),
        kind: "ach_out",
        entries: transferEntries(members[0]!.checking.id, settlement.id, 5),
      }),
    );
    await accepted(
      releaseHold(db(), {
        transaction_id: released.transaction.id,
        idempotency_key: newKey("release"),
        resolved_by: "x",
      }),
    );
    const refused = await refusalOf(
      settleHolds(db(), {
        holds: [...holds, released.transaction.id].map((id) => ({ transaction_id: id })),
        idempotency_key: newKey("settle"),
        resolved_by: "staff:test",
      }),
    );
    expect(refused).toMatchObject({ code: "not_pending", batch_index: HOLDS, subject_id: released.transaction.id });
    // A frozen account in the middle: refused too.
    await accepted(setAccountStatus(db(), members[3]!.checking.id, "frozen"));
    const frozen = await refusalOf(
      settleHolds(db(), {
        holds: holds.map((id) => ({ transaction_id: id })),
        idempotency_key: newKey("settle"),
        resolved_by: "staff:test",
      }),
    );
    expect(frozen).toMatchObject({ code: "account_frozen", batch_index: 3, subject_id: members[3]!.checking.id });
    await accepted(setAccountStatus(db(), members[3]!.checking.id, "active"));
    expect(new Map((await getBalances(db(), account_ids)).map((a) => [a.id, a]))).toEqual(opening);
    const still_pending = await db().execute(
      sql`select count(*)::int as n from ledger_transactions where id in (${sql.join(
        holds.map((id) => sql`${id}`),
        sql`, `,
      )}) and status = 'pending'`,
    );
    expect(still_pending.rows[0]!.n).toBe(HOLDS);
    expect(await settlementTotals(settlement.id)).toEqual(totals_before);

    const key = newKey("settle");
    const settled = await accepted(
      settleHolds(db(), {
        holds: holds.map((id) => ({ transaction_id: id })),
        idempotency_key: key,
        resolved_by: "staff:test",
      }),
    );
    expect(settled.replayed).toBe(false);
    expect(
      settled.transactions.map((t) => [t.transaction.id, t.transaction.status, t.transaction.resolved_by]),
    ).toEqual(holds.map((id) => [id, "posted", "staff:test"]));

    // Each member's debit posts and leaves the held amount; the settlement account receives the total.
    const expected = new Map([...opening].map(([id, a]) => [id, { current: a.current_cents, held: a.held_cents }]));
    for (let i = 0; i < HOLDS; i++) {
      const member = expected.get(members[i % MEMBERS]!.checking.id)!;
      member.current -= 100 + i;
      member.held -= 100 + i;
      expected.get(settlement.id)!.current += 100 + i;
    }
    const balances = await getBalances(db(), account_ids);
    for (const a of balances)
      expect([a.id, a.current_cents, a.held_cents]).toEqual([
        a.id,
        expected.get(a.id)!.current,
        expected.get(a.id)!.held,
      ]);
    for (const m of members) expect((await getBalances(db(), [m.checking.id]))[0]!.held_cents).toBe(0);

    // The settlement account's daily totals now count every settled hold under its day and category.
    const model = new Map(totals_before);
    for (let i = 0; i < HOLDS; i++) {
      const k = `${DATES[i % DATES.length]}|ach_out|${CATEGORIES[i % CATEGORIES.length]}`;
      const total = model.get(k) ?? { credits: 0, debits: 0 };
      model.set(k, { credits: total.credits + 100 + i, debits: total.debits });
    }
    expect(await settlementTotals(settlement.id)).toEqual(model);

    const report = await verifyLedger(db());
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);

    // A repeat with the same key settles nothing again.
    const again = await accepted(
      settleHolds(db(), {
        holds: holds.map((id) => ({ transaction_id: id })),
        idempotency_key: key,
        resolved_by: "staff:test",
      }),
    );
    expect(again.replayed).toBe(true);
    expect(new Map((await getBalances(db(), account_ids)).map((a) => [a.id, a.current_cents]))).toEqual(
      new Map(balances.map((a) => [a.id, a.current_cents])),
    );
    // Another key finds them settled: refused.
    expect(
      await refusalOf(
        settleHolds(db(), {
          holds: [{ transaction_id: holds[0]! }],
          idempotency_key: newKey("settle"),
          resolved_by: "x",
        }),
      ),
    ).toMatchObject({ code: "not_pending", batch_index: 0 });
  });

  it("updates each account row once, however many holds touch it", async () => {
    const settlement = await institutionAccount(db(), "ach_settlement");
    const member = await openMember(db(), { checking_cents: 1_000_000 });
    const holds = await holdAll(settlement.id, [member], HOLDS, () => 7);
    // Inside a caller's transaction (the export's path): the session's statistics count row
    // updates while the transaction is open, so the difference is exactly what the call did.
    const updated = await db().transaction(async (tx) => {
      const rowUpdates = async () =>
        Number(
          (await tx.execute(sql`select n_tup_upd from pg_stat_xact_user_tables where relname = 'ledger_accounts'`))
            .rows[0]!.n_tup_upd,
        );
      const before = await rowUpdates();
      await accepted(
        settleHolds(tx, {
          holds: holds.map((id) => ({ transaction_id: id })),
          idempotency_key: newKey("one-update"),
          resolved_by: "staff:test",
        }),
      );
      return (await rowUpdates()) - before;
    });
    expect(updated).toBe(2);
    expect((await verifyLedger(db())).ok).toBe(true);
  });
});
