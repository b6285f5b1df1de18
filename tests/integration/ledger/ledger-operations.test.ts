import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { openTestDatabase } from "../test-database";
import { STAFF, accepted, deposit, newKey, openMember, refusalOf } from "../ledger-fixtures";
import type { Database } from "~/server/db/client.server";
import {
  getBalances,
  generateAccountNumber,
  institutionAccount,
  memberAccounts,
  openAccount,
  resetAllTransferCounts,
  resetTransferCount,
  routingNumber,
  setAccountStatus,
  setOverdraftLimit,
  transferCount,
  type AccountView,
} from "~/server/ledger/accounts.server";
import {
  placeHold,
  postBatch,
  postTransfer,
  releaseHold,
  reverseTransaction,
  settleHold,
  type TransactionInput,
} from "~/server/ledger/ledger.server";
import { getTransaction, historyPage } from "~/server/ledger/history.server";
import { transferEntries } from "~/domain/ledger-rules";
import { verifyLedger } from "~/server/ledger/verify.server";
import { isValidAccountNumber } from "~/domain/account-number";
import { institution } from "~/config/institution.server";
import { isValidRoutingNumber } from "~/domain/routing-number";

let database: Database;
const db = () => database.db;

beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

async function balanceOf(account: AccountView | number) {
  const id = typeof account === "number" ? account : account.id;
  const [view] = await getBalances(db(), [id]);
  return {
    current: view!.current_cents,
    held: view!.held_cents,
    available: view!.available_cents,
    status: view!.status,
  };
}

function transfer(
  from: number,
  to: number,
  amount_cents: number,
  extra: Partial<TransactionInput> = {},
): TransactionInput {
  return {
    idempotency_key: newKey("t"),
    initiator: "member:test",
    created_by: "member:test",
    kind: "transfer",
    entries: transferEntries(from, to, amount_cents),
    ...extra,
  };
}

/** Runs raw SQL in its own transaction, bypassing the ledger module; returns the error, if any. */
async function rawError(statements: ReturnType<typeof sql>[]): Promise<string> {
  try {
    await db().transaction(async (tx) => {
      for (const statement of statements) await tx.execute(statement);
    });
  } catch (error) {
    const parts: string[] = [];
    for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) parts.push(String((e as Error).message));
    return parts.join(" | ");
  }
  return "no error";
}

describe("accounts", () => {
  it("opens member accounts with unique 10-digit numbers and the institution's routing number", async () => {
    const member_id = `member-${newKey()}`;
    const opened: AccountView[] = [];
    for (let i = 0; i < 40; i++)
      opened.push(await openAccount(db(), { member_id, type: i % 2 ? "savings" : "checking", name: "Account" }));
    const numbers = new Set(opened.map((a) => a.account_number));
    expect(numbers.size).toBe(40);
    for (const account of opened) {
      expect(isValidAccountNumber(account.account_number)).toBe(true);
      expect(account).toMatchObject({
        owner: "member",
        status: "active",
        current_cents: 0,
        held_cents: 0,
        available_cents: 0,
      });
    }
    expect(isValidAccountNumber(await generateAccountNumber(db()))).toBe(true);
    expect(routingNumber()).toBe(institution().routing_number);
    expect(isValidRoutingNumber(routingNumber())).toBe(true);
    expect((await memberAccounts(db(), member_id)).map((a) => a.id)).toEqual(opened.map((a) => a.id));
  });

  it("opens each institution account once", async () => {
    const first = await institutionAccount(db(), "ach_settlement");
    const again = await institutionAccount(db(), "ach_settlement");
    expect(again.id).toBe(first.id);
    expect(first).toMatchObject({ owner: "institution", member_id: null, type: "ach_settlement" });
  });

  it("closes only an empty account, and a closed account stays closed", async () => {
    const { checking } = await openMember(db(), { checking_cents: 100 });
    expect((await refusalOf(setAccountStatus(db(), checking.id, "closed"))).code).toBe("balance_not_zero");
    const empty = await openAccount(db(), { member_id: "member-close", type: "checking", name: "Checking" });
    expect((await accepted(setAccountStatus(db(), empty.id, "closed"))).account.status).toBe("closed");
    const reopen = await refusalOf(setAccountStatus(db(), empty.id, "active"));
    expect(reopen.code).toBe("account_closed");
    expect((await refusalOf(setAccountStatus(db(), 987654321, "frozen"))).code).toBe("account_not_found");
  });
});

describe("posting", () => {
  it("moves money between accounts: current and available change at once", async () => {
    const { checking, savings } = await openMember(db(), { checking_cents: 10_000 });
    const result = await accepted(
      postTransfer(
        db(),
        transfer(checking.id, savings.id, 2_500, { memo: "to savings", reference: "R1", category: "Transfers" }),
      ),
    );
    expect(result.replayed).toBe(false);
    expect(result.transaction).toMatchObject({
      status: "posted",
      kind: "transfer",
      memo: "to savings",
      reference: "R1",
      category: "Transfers",
    });
    expect(result.transaction.created_at).toBeInstanceOf(Date);
    expect(await balanceOf(checking)).toMatchObject({ current: 7_500, available: 7_500, held: 0 });
    expect(await balanceOf(savings)).toMatchObject({ current: 2_500, available: 2_500 });
    const stored = await getTransaction(db(), result.transaction.id);
    expect(stored!.transaction).toMatchObject({
      id: result.transaction.id,
      status: "posted",
      effective_date: result.transaction.effective_date,
    });
    expect(stored!.entries).toEqual(result.entries);
  });

  it("refuses bad amounts and shapes with stated reasons", async () => {
    const { checking, savings } = await openMember(db(), { checking_cents: 10_000 });
    const base = transfer(checking.id, savings.id, 1);
    const cases: Array<[TransactionInput["entries"], string]> = [
      [
        [
          { account_id: checking.id, amount_cents: 0 },
          { account_id: savings.id, amount_cents: 0 },
        ],
        "invalid_amount",
      ],
      [
        [
          { account_id: checking.id, amount_cents: -1.5 },
          { account_id: savings.id, amount_cents: 1.5 },
        ],
        "invalid_amount",
      ],
      [
        [
          { account_id: checking.id, amount_cents: -5 },
          { account_id: checking.id, amount_cents: 5 },
        ],
        "same_account",
      ],
      [[{ account_id: checking.id, amount_cents: -5 }], "too_few_entries"],
      [
        [
          { account_id: checking.id, amount_cents: -5 },
          { account_id: savings.id, amount_cents: 4 },
        ],
        "unbalanced",
      ],
      [
        [
          { account_id: checking.id, amount_cents: -5 },
          { account_id: 987654321, amount_cents: 5 },
        ],
        "account_not_found",
      ],
    ];
    for (const [entries, code] of cases) {
      expect((await refusalOf(postTransfer(db(), { ...base, idempotency_key: newKey(), entries }))).code).toBe(code);
    }
    // The refusals carry their member-facing words.
    const same = await refusalOf(
      postTransfer(db(), {
        ...base,
        idempotency_key: newKey(),
        entries: [
          { account_id: checking.id, amount_cents: -5 },
          { account_id: checking.id, amount_cents: 5 },
        ],
      }),
    );
    expect(same.message).toBe("Cannot transfer to the same account");
    const zero = await refusalOf(
      postTransfer(db(), {
        ...base,
        idempotency_key: newKey(),
        entries: [
          { account_id: checking.id, amount_cents: 0 },
          { account_id: savings.id, amount_cents: 0 },
        ],
      }),
    );
    expect(zero.message).toBe("Please enter a valid amount");
    // Building a transfer of a bad amount or to the same account is a caller's bug: it throws.
    expect(() => transferEntries(checking.id, checking.id, 5)).toThrow(/assertion/);
    expect(() => transferEntries(checking.id, savings.id, -5)).toThrow(/assertion/);
    expect(await balanceOf(checking)).toMatchObject({ current: 10_000 });
  });

  it("refuses more than the available balance: Insufficient funds", async () => {
    const { checking, savings } = await openMember(db(), { checking_cents: 1_000 });
    const refusal = await refusalOf(postTransfer(db(), transfer(checking.id, savings.id, 1_001)));
    expect(refusal).toMatchObject({
      code: "insufficient_funds",
      message: "Insufficient funds",
      subject_id: checking.id,
    });
    await accepted(postTransfer(db(), transfer(checking.id, savings.id, 1_000)));
    expect(await balanceOf(checking)).toMatchObject({ current: 0 });
  });

  it("lets an overdraft limit take a member account below zero, and no further", async () => {
    const { checking, savings } = await openMember(db(), { checking_cents: 1_000 });
    await accepted(setOverdraftLimit(db(), checking.id, 500));
    await accepted(postTransfer(db(), transfer(checking.id, savings.id, 1_500)));
    expect(await balanceOf(checking)).toMatchObject({ current: -500, available: -500 });
    expect((await refusalOf(postTransfer(db(), transfer(checking.id, savings.id, 1)))).code).toBe("insufficient_funds");
    expect((await refusalOf(setOverdraftLimit(db(), checking.id, 499))).code).toBe("overdraft_in_use");
  });

  it("lets institution accounts go negative: they are the other side of member money", async () => {
    const { checking } = await openMember(db(), { checking_cents: 123 });
    const cash = await institutionAccount(db(), "cash");
    expect((await balanceOf(cash)).current).toBeLessThanOrEqual(-123);
    expect(await balanceOf(checking)).toMatchObject({ current: 123 });
  });

  it("blocks frozen and closed accounts with their messages, in both directions", async () => {
    const a = await openMember(db(), { checking_cents: 1_000 });
    const b = await openMember(db(), { checking_cents: 1_000 });
    await accepted(setAccountStatus(db(), a.checking.id, "frozen"));
    const out = await refusalOf(postTransfer(db(), transfer(a.checking.id, b.checking.id, 10)));
    expect(out).toMatchObject({
      code: "account_frozen",
      message: "Transactions on this account are blocked for security reasons.",
    });
    expect((await refusalOf(postTransfer(db(), transfer(b.checking.id, a.checking.id, 10)))).code).toBe(
      "account_frozen",
    );
    // Frozen beats insufficient funds: the member must learn the real reason.
    expect((await refusalOf(postTransfer(db(), transfer(a.checking.id, b.checking.id, 999_999)))).code).toBe(
      "account_frozen",
    );
    await accepted(setAccountStatus(db(), a.checking.id, "active"));
    await accepted(postTransfer(db(), transfer(a.checking.id, b.checking.id, 10)));

    const closed = await openAccount(db(), { member_id: b.member_id, type: "savings", name: "Old savings" });
    await accepted(setAccountStatus(db(), closed.id, "closed"));
    const refusal = await refusalOf(postTransfer(db(), transfer(b.checking.id, closed.id, 10)));
    expect(refusal).toMatchObject({ code: "account_closed", message: "This account is closed." });
  });
});

describe("savings transfer count", () => {
  it("allows 6 transfers out of savings a month, then names the limit; counts reset by month and by staff", async () => {
    const m = await openMember(db(), { savings_cents: 100_000 });
    const month = (day: string) => ({ effective_date: `2031-03-${day}` });
    for (let i = 0; i < 6; i++)
      await accepted(postTransfer(db(), transfer(m.savings.id, m.checking.id, 100, month("10"))));
    expect(await transferCount(db(), m.member_id, "2031-03")).toBe(6);
    const refusal = await refusalOf(postTransfer(db(), transfer(m.savings.id, m.checking.id, 100, month("11"))));
    expect(refusal).toMatchObject({
      code: "transfer_limit",
      message: "You have reached the limit of 6 transfers out of savings this month.",
    });
    // A hold out of savings counts too, and is refused the same way.
    expect(
      (
        await refusalOf(
          placeHold(db(), transfer(m.savings.id, m.checking.id, 100, { ...month("11"), kind: "ach_out" })),
        )
      ).code,
    ).toBe("transfer_limit");
    // Money into savings, and staff's own postings (a fee), are not the member's transfers out.
    await accepted(postTransfer(db(), transfer(m.checking.id, m.savings.id, 100, month("12"))));
    const fees = await institutionAccount(db(), "fees_income");
    await accepted(postTransfer(db(), { ...transfer(m.savings.id, fees.id, 5, month("12")), ...STAFF, kind: "fee" }));
    // A new month starts from zero.
    await accepted(postTransfer(db(), transfer(m.savings.id, m.checking.id, 100, { effective_date: "2031-04-01" })));
    expect(await transferCount(db(), m.member_id, "2031-04")).toBe(1);
    // A back-dated transfer counts in the latest month rather than resetting it.
    for (let i = 0; i < 5; i++)
      await accepted(postTransfer(db(), transfer(m.savings.id, m.checking.id, 100, month("20"))));
    expect(await transferCount(db(), m.member_id, "2031-04")).toBe(6);
    expect(
      (
        await refusalOf(
          postTransfer(db(), transfer(m.savings.id, m.checking.id, 100, { effective_date: "2031-04-02" })),
        )
      ).code,
    ).toBe("transfer_limit");

    expect(await resetTransferCount(db(), m.member_id)).toBe(1);
    expect(await transferCount(db(), m.member_id, "2031-04")).toBe(0);
    await accepted(postTransfer(db(), transfer(m.savings.id, m.checking.id, 100, { effective_date: "2031-04-02" })));
    expect(await transferCount(db(), m.member_id, "2031-04")).toBe(1);
    expect(await resetAllTransferCounts(db())).toBeGreaterThanOrEqual(1);
    expect(await transferCount(db(), m.member_id, "2031-04")).toBe(0);
  });
});

describe("holds", () => {
  it("a hold reduces available but not current; settling posts it; a pending credit is not available", async () => {
    const a = await openMember(db(), { checking_cents: 10_000 });
    const b = await openMember(db());
    const hold = await accepted(placeHold(db(), transfer(a.checking.id, b.checking.id, 4_000, { kind: "ach_out" })));
    expect(hold.transaction.status).toBe("pending");
    expect(await balanceOf(a.checking)).toMatchObject({ current: 10_000, held: 4_000, available: 6_000 });
    expect(await balanceOf(b.checking)).toMatchObject({ current: 0, available: 0 });
    expect((await refusalOf(postTransfer(db(), transfer(a.checking.id, b.checking.id, 6_001)))).code).toBe(
      "insufficient_funds",
    );

    const key = newKey("settle");
    const settled = await accepted(
      settleHold(db(), { transaction_id: hold.transaction.id, idempotency_key: key, resolved_by: "staff:test" }),
    );
    expect(settled.transaction.status).toBe("posted");
    expect(settled.transaction.resolved_at).toBeInstanceOf(Date);
    expect(await balanceOf(a.checking)).toMatchObject({ current: 6_000, held: 0, available: 6_000 });
    expect(await balanceOf(b.checking)).toMatchObject({ current: 4_000, available: 4_000 });

    const again = await accepted(
      settleHold(db(), { transaction_id: hold.transaction.id, idempotency_key: key, resolved_by: "staff:test" }),
    );
    expect(again).toMatchObject({ replayed: true, transaction: { id: hold.transaction.id, status: "posted" } });
    expect(await balanceOf(b.checking)).toMatchObject({ current: 4_000 });
    const other = await refusalOf(
      settleHold(db(), { transaction_id: hold.transaction.id, idempotency_key: newKey(), resolved_by: "x" }),
    );
    expect(other).toMatchObject({ code: "not_pending", message: "This transaction is no longer pending." });
    expect(
      (
        await refusalOf(
          releaseHold(db(), { transaction_id: hold.transaction.id, idempotency_key: newKey(), resolved_by: "x" }),
        )
      ).code,
    ).toBe("not_pending");
    expect(
      (await refusalOf(settleHold(db(), { transaction_id: 987654321, idempotency_key: newKey(), resolved_by: "x" })))
        .code,
    ).toBe("transaction_not_found");
  });

  it("releasing a hold gives the money back, even on a frozen account; settling on a frozen account is refused", async () => {
    const a = await openMember(db(), { checking_cents: 10_000 });
    const b = await openMember(db());
    const hold = await accepted(
      placeHold(db(), transfer(a.checking.id, b.checking.id, 3_000, { kind: "bill_payment" })),
    );
    await accepted(setAccountStatus(db(), a.checking.id, "frozen"));
    expect(
      (
        await refusalOf(
          settleHold(db(), { transaction_id: hold.transaction.id, idempotency_key: newKey(), resolved_by: "x" }),
        )
      ).code,
    ).toBe("account_frozen");
    const key = newKey("release");
    const released = await accepted(
      releaseHold(db(), { transaction_id: hold.transaction.id, idempotency_key: key, resolved_by: "x" }),
    );
    expect(released.transaction.status).toBe("failed");
    expect(await balanceOf(a.checking)).toMatchObject({ current: 10_000, held: 0, available: 10_000 });
    expect(
      (
        await accepted(
          releaseHold(db(), { transaction_id: hold.transaction.id, idempotency_key: key, resolved_by: "x" }),
        )
      ).replayed,
    ).toBe(true);
    expect(
      (
        await refusalOf(
          settleHold(db(), { transaction_id: hold.transaction.id, idempotency_key: key, resolved_by: "x" }),
        )
      ).code,
    ).toBe("not_pending");
  });
});

describe("reversals", () => {
  it("posts the opposite entries, marks the original reversed, and refuses a second reversal", async () => {
    const a = await openMember(db(), { checking_cents: 10_000 });
    const b = await openMember(db());
    const original = await accepted(postTransfer(db(), transfer(a.checking.id, b.checking.id, 2_000)));
    const key = newKey("reverse");
    const reversal = await accepted(
      reverseTransaction(db(), { ...STAFF, transaction_id: original.transaction.id, idempotency_key: key }),
    );
    expect(reversal.transaction).toMatchObject({
      kind: "reversal",
      status: "posted",
      reverses_id: original.transaction.id,
    });
    expect(reversal.entries).toEqual(
      original.entries.map((e) => ({ account_id: e.account_id, amount_cents: -e.amount_cents })),
    );
    expect((await getTransaction(db(), original.transaction.id))!.transaction).toMatchObject({
      status: "reversed",
      resolved_by: STAFF.created_by,
    });
    expect(await balanceOf(a.checking)).toMatchObject({ current: 10_000 });
    expect(await balanceOf(b.checking)).toMatchObject({ current: 0 });

    const repeat = await accepted(
      reverseTransaction(db(), { ...STAFF, transaction_id: original.transaction.id, idempotency_key: key }),
    );
    expect(repeat).toMatchObject({ replayed: true, transaction: { id: reversal.transaction.id } });
    const twice = await refusalOf(
      reverseTransaction(db(), { ...STAFF, transaction_id: original.transaction.id, idempotency_key: newKey() }),
    );
    expect(twice).toMatchObject({ code: "already_reversed", message: "This transaction has already been reversed." });
    const ofReversal = await refusalOf(
      reverseTransaction(db(), { ...STAFF, transaction_id: reversal.transaction.id, idempotency_key: newKey() }),
    );
    expect(ofReversal).toMatchObject({
      code: "reversal_not_reversible",
      message: "A reversal cannot itself be reversed.",
    });
    expect(await balanceOf(a.checking)).toMatchObject({ current: 10_000 });
  });

  it("reverses only posted transactions, and not into a negative member balance", async () => {
    const a = await openMember(db(), { checking_cents: 10_000 });
    const b = await openMember(db());
    const hold = await accepted(placeHold(db(), transfer(a.checking.id, b.checking.id, 100)));
    const pending = await refusalOf(
      reverseTransaction(db(), { ...STAFF, transaction_id: hold.transaction.id, idempotency_key: newKey() }),
    );
    expect(pending).toMatchObject({ code: "not_posted", message: "Only a posted transaction can be reversed." });
    await accepted(
      releaseHold(db(), { transaction_id: hold.transaction.id, idempotency_key: newKey(), resolved_by: "x" }),
    );
    expect(
      (
        await refusalOf(
          reverseTransaction(db(), { ...STAFF, transaction_id: hold.transaction.id, idempotency_key: newKey() }),
        )
      ).code,
    ).toBe("not_posted");
    expect(
      (await refusalOf(reverseTransaction(db(), { ...STAFF, transaction_id: 987654321, idempotency_key: newKey() })))
        .code,
    ).toBe("transaction_not_found");

    const paid = await accepted(postTransfer(db(), transfer(a.checking.id, b.checking.id, 5_000)));
    await accepted(postTransfer(db(), transfer(b.checking.id, a.checking.id, 4_000)));
    const refusal = await refusalOf(
      reverseTransaction(db(), { ...STAFF, transaction_id: paid.transaction.id, idempotency_key: newKey() }),
    );
    expect(refusal).toMatchObject({ code: "insufficient_funds", subject_id: b.checking.id });
  });
});

describe("inside a caller's transaction", () => {
  it("posts together with the caller's own writes, and is undone with them", async () => {
    const a = await openMember(db(), { checking_cents: 1_000 });
    const b = await openMember(db());
    await db().transaction(async (tx) => {
      const hold = await accepted(placeHold(tx, transfer(a.checking.id, b.checking.id, 300, { kind: "bill_payment" })));
      await accepted(
        settleHold(tx, { transaction_id: hold.transaction.id, idempotency_key: newKey(), resolved_by: "x" }),
      );
    });
    expect(await balanceOf(b.checking)).toMatchObject({ current: 300 });
    await expect(
      db().transaction(async (tx) => {
        await accepted(postTransfer(tx, transfer(a.checking.id, b.checking.id, 200)));
        throw new Error("the caller's own write failed");
      }),
    ).rejects.toThrow("the caller's own write failed");
    expect(await balanceOf(a.checking)).toMatchObject({ current: 700 });
    expect(await balanceOf(b.checking)).toMatchObject({ current: 300 });
    // A refusal inside the caller's transaction leaves that transaction usable.
    await db().transaction(async (tx) => {
      expect((await refusalOf(postTransfer(tx, transfer(a.checking.id, b.checking.id, 5_000)))).code).toBe(
        "insufficient_funds",
      );
      await accepted(postTransfer(tx, transfer(a.checking.id, b.checking.id, 100)));
    });
    expect(await balanceOf(b.checking)).toMatchObject({ current: 400 });
  });
});

describe("idempotency", () => {
  it("a repeat returns the first result and moves nothing, even when it would now be refused", async () => {
    const a = await openMember(db(), { checking_cents: 1_000 });
    const b = await openMember(db());
    const input = transfer(a.checking.id, b.checking.id, 1_000);
    const first = await accepted(postTransfer(db(), input));
    const again = await accepted(postTransfer(db(), input));
    expect(again.replayed).toBe(true);
    expect(again.transaction.id).toBe(first.transaction.id);
    expect(again.entries).toEqual(first.entries);
    expect(await balanceOf(a.checking)).toMatchObject({ current: 0 });
    expect(await balanceOf(b.checking)).toMatchObject({ current: 1_000 });
  });

  it("does not store refusals: the same key succeeds once the cause is fixed", async () => {
    const a = await openMember(db(), { checking_cents: 100 });
    const b = await openMember(db());
    const input = transfer(a.checking.id, b.checking.id, 500);
    expect((await refusalOf(postTransfer(db(), input))).code).toBe("insufficient_funds");
    await deposit(db(), a.checking.id, 400);
    const result = await accepted(postTransfer(db(), input));
    expect(result.replayed).toBe(false);
    expect(await balanceOf(b.checking)).toMatchObject({ current: 500 });
  });

  it("scopes keys per initiator, and concurrent repeats move money once", async () => {
    const a = await openMember(db(), { checking_cents: 10_000 });
    const b = await openMember(db());
    const key = newKey("shared");
    await accepted(
      postTransfer(db(), {
        ...transfer(a.checking.id, b.checking.id, 100),
        idempotency_key: key,
        initiator: "member:one",
      }),
    );
    await accepted(
      postTransfer(db(), {
        ...transfer(a.checking.id, b.checking.id, 100),
        idempotency_key: key,
        initiator: "member:two",
      }),
    );
    expect(await balanceOf(b.checking)).toMatchObject({ current: 200 });

    const input = transfer(a.checking.id, b.checking.id, 1_000);
    const results = await Promise.all([1, 2, 3, 4].map(() => accepted(postTransfer(db(), input))));
    expect(new Set(results.map((r) => r.transaction.id)).size).toBe(1);
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    expect(await balanceOf(b.checking)).toMatchObject({ current: 1_200 });
  });
});

describe("bulk post", () => {
  it("posts an import batch all or nothing, and a repeat returns the first batch", async () => {
    const a = await openMember(db(), { checking_cents: 1_000 });
    const b = await openMember(db());
    const item = (amount_cents: number) => ({
      kind: "import" as const,
      entries: transferEntries(a.checking.id, b.checking.id, amount_cents),
    });

    const refused = await refusalOf(
      postBatch(db(), { ...STAFF, idempotency_key: newKey("batch"), transactions: [item(600), item(600)] }),
    );
    expect(refused).toMatchObject({ code: "insufficient_funds", batch_index: 1 });
    expect(await balanceOf(a.checking)).toMatchObject({ current: 1_000 });

    const key = newKey("batch");
    const batch = await accepted(
      postBatch(db(), { ...STAFF, idempotency_key: key, transactions: [item(300), item(300), item(400)] }),
    );
    expect(batch.replayed).toBe(false);
    expect(batch.transactions.map((t) => t.transaction.batch_key)).toEqual([key, key, key]);
    expect(await balanceOf(a.checking)).toMatchObject({ current: 0 });
    const again = await accepted(
      postBatch(db(), { ...STAFF, idempotency_key: key, transactions: [item(300), item(300), item(400)] }),
    );
    expect(again.replayed).toBe(true);
    expect(again.transactions.map((t) => t.transaction.id)).toEqual(batch.transactions.map((t) => t.transaction.id));
    expect(await balanceOf(b.checking)).toMatchObject({ current: 1_000 });

    expect((await refusalOf(postBatch(db(), { ...STAFF, idempotency_key: newKey(), transactions: [] }))).code).toBe(
      "batch_empty",
    );
    const huge = Array.from({ length: 10_001 }, () => item(1));
    const tooLarge = await refusalOf(postBatch(db(), { ...STAFF, idempotency_key: newKey(), transactions: huge }));
    expect(tooLarge).toMatchObject({
      code: "batch_too_large",
      message: "An import batch holds at most 10000 transactions.",
    });
    const badItem = await refusalOf(
      postBatch(db(), {
        ...STAFF,
        idempotency_key: newKey(),
        transactions: [item(1), { kind: "import", entries: [] }],
      }),
    );
    expect(badItem).toMatchObject({ code: "too_few_entries", batch_index: 1 });
  });
});

describe("history", () => {
  it("pages an account's history newest first by keyset, without gaps or repeats", async () => {
    const a = await openMember(db(), { checking_cents: 100_000 });
    const b = await openMember(db());
    for (let i = 1; i <= 25; i++)
      await accepted(postTransfer(db(), transfer(a.checking.id, b.checking.id, i, { memo: `payment ${i}` })));
    const seen: number[] = [];
    let before: string | null = null;
    for (let page = 0; page < 10; page++) {
      const result = await historyPage(db(), a.checking.id, { before, limit: 10 });
      seen.push(...result.rows.map((r) => r.entry_id));
      if (!result.next_before) break;
      before = result.next_before;
    }
    expect(seen).toHaveLength(26); // 25 payments and the opening deposit
    expect([...seen].sort((x, y) => y - x)).toEqual(seen);
    const newest = await historyPage(db(), a.checking.id, { limit: 1 });
    expect(newest.rows[0]).toMatchObject({
      amount_cents: -25,
      direction: "debit",
      memo: "payment 25",
      status: "posted",
      kind: "transfer",
    });
    const credit = await historyPage(db(), b.checking.id, { limit: 1 });
    expect(credit.rows[0]).toMatchObject({ amount_cents: 25, direction: "credit" });
    await expect(historyPage(db(), a.checking.id, { limit: 101 })).rejects.toThrow();
    await expect(historyPage(db(), a.checking.id, { before: "1; drop table x" })).rejects.toThrow();
  });
});

describe("the database refuses bad writes made around the ledger module", () => {
  it("a transaction whose entries do not sum to zero, or with fewer than two entries", async () => {
    const a = await openMember(db(), { checking_cents: 1_000 });
    const insertTx = sql`insert into ledger_transactions (id, kind, status, initiator, idempotency_key, effective_date, created_by)
      values (900000001, 'adjustment', 'posted', 'raw', ${newKey()}, current_date, 'raw')`;
    const unbalanced = await rawError([
      insertTx,
      sql`insert into ledger_entries (transaction_id, account_id, amount_cents) values (900000001, ${a.checking.id}, 500)`,
      sql`insert into ledger_entries (transaction_id, account_id, amount_cents) values (900000001, ${a.savings.id}, -499)`,
    ]);
    expect(unbalanced).toMatch(/unbalanced/);
    expect(await rawError([insertTx])).toMatch(/unbalanced: 0 entries/);
    const existing = await accepted(postTransfer(db(), transfer(a.checking.id, a.savings.id, 10)));
    const slipped = await rawError([
      sql`insert into ledger_entries (transaction_id, account_id, amount_cents) values (${existing.transaction.id}, ${(await institutionAccount(db(), "cash")).id}, 5)`,
    ]);
    expect(slipped).toMatch(/unbalanced/);
  });

  it("a member account below zero available without overdraft", async () => {
    const a = await openMember(db(), { checking_cents: 1_000 });
    expect(await rawError([sql`update ledger_accounts set posted_cents = -1 where id = ${a.checking.id}`])).toMatch(
      /ledger_accounts_member_available_not_negative/,
    );
    expect(await rawError([sql`update ledger_accounts set held_cents = 1001 where id = ${a.checking.id}`])).toMatch(
      /ledger_accounts_member_available_not_negative/,
    );
  });

  it("changing or deleting history, and moving a status backwards or reversing twice", async () => {
    const a = await openMember(db(), { checking_cents: 1_000 });
    const t = await accepted(postTransfer(db(), transfer(a.checking.id, a.savings.id, 10)));
    expect(
      await rawError([sql`update ledger_entries set amount_cents = 1 where transaction_id = ${t.transaction.id}`]),
    ).toMatch(/append-only/);
    expect(await rawError([sql`delete from ledger_entries where transaction_id = ${t.transaction.id}`])).toMatch(
      /append-only/,
    );
    expect(await rawError([sql`delete from ledger_transactions where id = ${t.transaction.id}`])).toMatch(
      /append-only/,
    );
    expect(await rawError([sql`delete from ledger_accounts where id = ${a.checking.id}`])).toMatch(/append-only/);
    expect(
      await rawError([sql`update ledger_transactions set memo = 'changed' where id = ${t.transaction.id}`]),
    ).toMatch(/only its status/);
    expect(
      await rawError([sql`update ledger_transactions set status = 'pending' where id = ${t.transaction.id}`]),
    ).toMatch(/cannot become pending/);
    await accepted(reverseTransaction(db(), { ...STAFF, transaction_id: t.transaction.id, idempotency_key: newKey() }));
    const second = await rawError([
      sql`insert into ledger_transactions (kind, status, initiator, idempotency_key, reverses_id, effective_date, created_by)
          values ('reversal', 'posted', 'raw', ${newKey()}, ${t.transaction.id}, current_date, 'raw')`,
    ]);
    expect(second).toMatch(/ledger_transactions_reverses_id_unique/);
    expect(
      await rawError([sql`update ledger_accounts set account_number = '0123456789' where id = ${a.checking.id}`]),
    ).toMatch(/account_number_format/);
  });
});

describe("daily totals", () => {
  async function totalsOf(account_id: number) {
    const result = await db().execute(sql`
      select kind, category, credits_cents::int as credits, debits_cents::int as debits
        from ledger_daily_totals where account_id = ${account_id} order by kind, category`);
    return result.rows;
  }

  it("follow every posting, settle, release, reversal and re-filing, and the verifier agrees", async () => {
    const a = await openMember(db(), { checking_cents: 10_000 });
    const b = await openMember(db());
    expect(await totalsOf(a.checking.id)).toEqual([{ kind: "deposit", category: "", credits: 10_000, debits: 0 }]);

    const paid = await accepted(
      postTransfer(
        db(),
        transfer(a.checking.id, b.checking.id, 1_500, { kind: "member_transfer", category: "Dining" }),
      ),
    );
    const held = await accepted(
      placeHold(db(), transfer(a.checking.id, b.checking.id, 700, { kind: "ach_out", category: "Utilities" })),
    );
    const dropped = await accepted(
      placeHold(db(), transfer(a.checking.id, b.checking.id, 300, { kind: "ach_out", category: "Utilities" })),
    );
    // A pending hold is not posted money yet.
    expect(await totalsOf(a.checking.id)).toEqual([
      { kind: "deposit", category: "", credits: 10_000, debits: 0 },
      { kind: "member_transfer", category: "Dining", credits: 0, debits: 1_500 },
    ]);

    await accepted(
      settleHold(db(), { transaction_id: held.transaction.id, idempotency_key: newKey(), resolved_by: "x" }),
    );
    await accepted(
      releaseHold(db(), { transaction_id: dropped.transaction.id, idempotency_key: newKey(), resolved_by: "x" }),
    );
    await db().execute(sql`update ledger_transactions set category = 'Groceries' where id = ${paid.transaction.id}`);
    expect(await totalsOf(a.checking.id)).toEqual([
      { kind: "ach_out", category: "Utilities", credits: 0, debits: 700 },
      { kind: "deposit", category: "", credits: 10_000, debits: 0 },
      { kind: "member_transfer", category: "Dining", credits: 0, debits: 0 },
      { kind: "member_transfer", category: "Groceries", credits: 0, debits: 1_500 },
    ]);
    expect(await totalsOf(b.checking.id)).toEqual([
      { kind: "ach_out", category: "Utilities", credits: 700, debits: 0 },
      { kind: "member_transfer", category: "Dining", credits: 0, debits: 0 },
      { kind: "member_transfer", category: "Groceries", credits: 1_500, debits: 0 },
    ]);

    // A reversal takes the original out and counts itself under its own kind.
    await accepted(
      reverseTransaction(db(), { ...STAFF, transaction_id: paid.transaction.id, idempotency_key: newKey() }),
    );
    expect(await totalsOf(b.checking.id)).toEqual([
      { kind: "ach_out", category: "Utilities", credits: 700, debits: 0 },
      { kind: "member_transfer", category: "Dining", credits: 0, debits: 0 },
      { kind: "member_transfer", category: "Groceries", credits: 0, debits: 0 },
      { kind: "reversal", category: "Groceries", credits: 0, debits: 1_500 },
    ]);
    expect((await verifyLedger(db())).problems).toEqual([]);
  });

  it("a kept total that disagrees with the entries is named by the verifier", async () => {
    const a = await openMember(db(), { checking_cents: 2_500 });
    await db().execute(
      sql`update ledger_daily_totals set credits_cents = credits_cents + 1 where account_id = ${a.checking.id}`,
    );
    const broken = await verifyLedger(db());
    expect(broken.ok).toBe(false);
    expect(broken.problems.join("\n")).toContain(`daily totals of account ${a.checking.id}`);
    expect(broken.problems.join("\n")).toContain(
      "kept credits 2501 debits 0, but the posted entries give credits 2500 debits 0",
    );
    await db().execute(
      sql`update ledger_daily_totals set credits_cents = credits_cents - 1 where account_id = ${a.checking.id}`,
    );
    expect((await verifyLedger(db())).ok).toBe(true);
  });
});

describe("verifier", () => {
  it("passes on a consistent ledger and names a cached balance that disagrees with its entries", async () => {
    const clean = await verifyLedger(db());
    expect(clean.problems).toEqual([]);
    expect(clean.ok).toBe(true);
    expect(clean.total_posted_cents).toBe(0);
    const a = await openMember(db(), { checking_cents: 1_000 });
    await db().execute(sql`update ledger_accounts set posted_cents = posted_cents + 1 where id = ${a.checking.id}`);
    const broken = await verifyLedger(db());
    expect(broken.ok).toBe(false);
    expect(broken.problems.join("\n")).toContain(`account ${a.checking.id}`);
    expect(broken.problems.join("\n")).toContain("sum to 1 cents");
    await db().execute(sql`update ledger_accounts set posted_cents = posted_cents - 1 where id = ${a.checking.id}`);
    expect((await verifyLedger(db())).ok).toBe(true);
  });
});
