import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { openTestDatabase } from "../test-database";
import { STAFF, accepted, deposit, newKey, openMember, refusalOf } from "../ledger-fixtures";
import type { Database } from "~/server/db/client.server";
import { getBalances, institutionAccount, transferCount } from "~/server/ledger/accounts.server";
import { postBatch, type BatchInput, type PostingKind } from "~/server/ledger/ledger.server";
import { transferEntries } from "~/domain/ledger-rules";
import { verifyLedger } from "~/server/ledger/verify.server";

/**
 * Large batches against one counterpart account (a staff CSV import against cash, an inbound ACH
 * file against settlement): every item planned in turn, written in bulk, with one new version of
 * each account row whatever the number of items.
 */

let database: Database;
const db = () => database.db;

beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

const ITEMS = 2_000;
const MEMBERS = 20;
const SAVINGS_DEBITS_PER_MEMBER = 4;
const CATEGORIES = ["Payroll", "Groceries", "Utilities"] as const;

type Item = BatchInput["transactions"][number];

describe("a batch of 2,000 items against one counterpart account", () => {
  it("posts the right balances, savings counts and daily totals, and the verifier agrees; a refused item writes nothing", async () => {
    const cash = await institutionAccount(db(), "cash");
    const members = [];
    for (let m = 0; m < MEMBERS; m++)
      members.push(await openMember(db(), { checking_cents: 1_000_000, savings_cents: 500_000 }));
    const member_ids = members.flatMap((m) => [m.checking.id, m.savings.id]);
    const opening = new Map((await getBalances(db(), [cash.id, ...member_ids])).map((a) => [a.id, a.current_cents]));

    // Four savings debits per member first (they count toward the monthly limit), then credits
    // and debits of each member's checking against cash, over 20 days and three categories.
    const items: Item[] = [];
    for (let i = 0; i < ITEMS; i++) {
      const member = members[i % MEMBERS]!;
      const effective_date = `2026-11-${String(1 + (i % 20)).padStart(2, "0")}`;
      const category = CATEGORIES[i % CATEGORIES.length]!;
      let kind: PostingKind;
      let entries;
      if (i < MEMBERS * SAVINGS_DEBITS_PER_MEMBER) {
        kind = "ach_out";
        entries = transferEntries(member.savings.id, cash.id, 1_000 + i);
      } else if (i % 2 === 0) {
        kind = "ach_in";
        entries = transferEntries(cash.id, member.checking.id, 100 + i);
      } else {
        kind = "withdrawal";
        entries = transferEntries(member.checking.id, cash.id, 50 + (i % 7));
      }
      items.push({ kind, entries, effective_date, category, memo: `Row ${i + 1}, imported`, reference: `R${i}` });
    }
    const expected = new Map(opening);
    for (const item of items)
      for (const e of item.entries) expected.set(e.account_id, expected.get(e.account_id)! + e.amount_cents);

    const key = newKey("big-batch");
    const batch = await accepted(postBatch(db(), { ...STAFF, idempotency_key: key, transactions: items }));
    expect(batch.transactions).toHaveLength(ITEMS);
    const ids = batch.transactions.map((t) => t.transaction.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids); // ids ascend in item order
    expect(batch.transactions[7]!.transaction).toMatchObject({
      kind: items[7]!.kind,
      status: "posted",
      batch_key: key,
      idempotency_key: `${key}#7`,
      memo: "Row 8, imported",
      reference: "R7",
      category: items[7]!.category,
      effective_date: items[7]!.effective_date,
    });
    expect(batch.transactions[7]!.entries).toEqual(items[7]!.entries);

    const balances = await getBalances(db(), [cash.id, ...member_ids]);
    for (const account of balances)
      expect([account.id, account.current_cents, account.held_cents]).toEqual([
        account.id,
        expected.get(account.id),
        0,
      ]);
    for (const member of members)
      expect(await transferCount(db(), member.member_id, "2026-11")).toBe(SAVINGS_DEBITS_PER_MEMBER);

    // The cash account's daily totals, recomputed from the items.
    const model = new Map<string, { credits: number; debits: number }>();
    for (const item of items) {
      const amount = item.entries.find((e) => e.account_id === cash.id)!.amount_cents;
      const k = `${item.effective_date}|${item.kind}|${item.category}`;
      const total = model.get(k) ?? { credits: 0, debits: 0 };
      if (amount > 0) total.credits += amount;
      else total.debits -= amount;
      model.set(k, total);
    }
    const kept = await db().execute(sql`
      select effective_date::text as effective_date, kind, category, credits_cents, debits_cents
        from ledger_daily_totals where account_id = ${cash.id} and effective_date between '2026-11-01' and '2026-11-20'`);
    const keptMap = new Map(
      kept.rows.map((r) => [
        `${String(r.effective_date)}|${String(r.kind)}|${String(r.category)}`,
        { credits: Number(r.credits_cents), debits: Number(r.debits_cents) },
      ]),
    );
    expect(keptMap).toEqual(model);

    const report = await verifyLedger(db());
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);

    // A repeat answers with the first batch and moves nothing.
    const again = await accepted(postBatch(db(), { ...STAFF, idempotency_key: key, transactions: items }));
    expect(again.replayed).toBe(true);
    expect(again.transactions.map((t) => t.transaction.id)).toEqual(ids);

    // The last item overdraws a member: the whole batch is refused, nothing is written.
    const m0 = members[0]!;
    const after = new Map((await getBalances(db(), [cash.id, ...member_ids])).map((a) => [a.id, a.current_cents]));
    const overdrawn: Item[] = items.slice(MEMBERS * SAVINGS_DEBITS_PER_MEMBER);
    overdrawn.push({
      kind: "withdrawal",
      entries: transferEntries(m0.checking.id, cash.id, after.get(m0.checking.id)! + 1_000_000),
    });
    const refusedKey = newKey("big-batch-refused");
    const refused = await refusalOf(
      postBatch(db(), { ...STAFF, idempotency_key: refusedKey, transactions: overdrawn }),
    );
    expect(refused).toMatchObject({
      code: "insufficient_funds",
      batch_index: overdrawn.length - 1,
      subject_id: m0.checking.id,
    });

    // A savings debit past the monthly limit (6) in the middle: refused, nothing written.
    const limited: Item[] = items.slice(MEMBERS * SAVINGS_DEBITS_PER_MEMBER, 1_000);
    for (let i = 0; i < 3; i++)
      limited.push({
        kind: "ach_out",
        entries: transferEntries(m0.savings.id, cash.id, 100),
        effective_date: "2026-11-25",
      });
    limited.push(...items.slice(1_000));
    const limitedKey = newKey("big-batch-limited");
    const overLimit = await refusalOf(
      postBatch(db(), { ...STAFF, idempotency_key: limitedKey, transactions: limited }),
    );
    expect(overLimit).toMatchObject({
      code: "transfer_limit",
      batch_index: 1_000 - MEMBERS * SAVINGS_DEBITS_PER_MEMBER + 2,
      subject_id: m0.savings.id,
    });

    expect(new Map((await getBalances(db(), [cash.id, ...member_ids])).map((a) => [a.id, a.current_cents]))).toEqual(
      after,
    );
    expect(await transferCount(db(), m0.member_id, "2026-11")).toBe(SAVINGS_DEBITS_PER_MEMBER);
    const written = await db().execute(
      sql`select count(*)::int as n from ledger_transactions where batch_key in (${refusedKey}, ${limitedKey})`,
    );
    expect(written.rows[0]!.n).toBe(0);
    expect((await verifyLedger(db())).ok).toBe(true);
  });

  it("updates each account row once, however many items touch it", async () => {
    const cash = await institutionAccount(db(), "cash");
    const member = await openMember(db());
    await deposit(db(), member.savings.id, 1); // the member's savings is not in the batch
    const items: Item[] = Array.from({ length: ITEMS }, (_, i) => ({
      kind: "ach_in" as const,
      entries: transferEntries(cash.id, member.checking.id, 1 + i),
    }));
    // Inside a caller's transaction (the import's path): the session's statistics count row
    // updates, and are not reported (reset) while a transaction is open, so the difference is
    // exactly what the batch did.
    const updated = await db().transaction(async (tx) => {
      const rowUpdates = async () =>
        Number(
          (await tx.execute(sql`select n_tup_upd from pg_stat_xact_user_tables where relname = 'ledger_accounts'`))
            .rows[0]!.n_tup_upd,
        );
      const before = await rowUpdates();
      await accepted(postBatch(tx, { ...STAFF, idempotency_key: newKey("one-update"), transactions: items }));
      return (await rowUpdates()) - before;
    });
    expect(updated).toBe(2);
    const [checking] = await getBalances(db(), [member.checking.id]);
    expect(checking!.current_cents).toBe((ITEMS * (ITEMS + 1)) / 2);
    expect((await verifyLedger(db())).ok).toBe(true);
  });
});
