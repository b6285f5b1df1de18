import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { openTestDatabase } from "../test-database";
import { deposit, newKey } from "../ledger-fixtures";
import type { Database } from "~/server/db/client.server";
import {
  getBalances,
  institutionAccount,
  openAccount,
  resetTransferCount,
  setAccountStatus,
  setOverdraftLimit,
} from "~/server/ledger/accounts.server";
import {
  placeHold,
  postBatch,
  postTransfer,
  releaseHold,
  reverseTransaction,
  settleHold,
  type BatchResult,
  type LedgerRefusal,
  type LedgerResult,
  type PostingKind,
} from "~/server/ledger/ledger.server";
import { getTransaction } from "~/server/ledger/history.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { institution } from "~/config/institution.server";

/**
 * Random sequences of operations run against the ledger and against a small in-memory model of
 * the rules written independently here; after every operation both must agree on the outcome
 * (success, replay or the refusal's code), and at the end on every balance and status.
 */

// ---- The model -------------------------------------------------------------------------------

type Status = "active" | "frozen";
interface ModelAccount {
  id: number;
  owner: "member" | "institution";
  type: "checking" | "savings" | "cash";
  member_id: string | null;
  status: Status;
  posted: number;
  held: number;
  overdraft: number;
  count: number;
  month: string | null;
}
interface ModelEntry {
  account: number; // index into the model's accounts
  amount: number;
}
interface ModelTx {
  id: number;
  kind: string;
  status: "pending" | "posted" | "failed" | "reversed";
  entries: ModelEntry[];
  resolution_key: string | null;
}
type Outcome = { ok: true; tx_ids: number[]; replayed: boolean } | { ok: false; code: string };

const LIMITED = new Set(["transfer", "member_transfer", "ach_out", "wire_out", "bill_payment"]);

class Model {
  txs: ModelTx[] = [];
  keys = new Map<string, number[]>(); // succeeded idempotency keys -> model tx indexes
  constructor(
    public accounts: ModelAccount[],
    private limit: number,
  ) {}

  /** Plans one new transaction on a copy of the accounts; throws the refusal code. */
  private plan(
    accounts: ModelAccount[],
    kind: string,
    status: "posted" | "pending",
    entries: ModelEntry[],
    date: string,
  ): void {
    if (new Set(entries.map((e) => e.account)).size !== entries.length) throw "same_account";
    for (const e of entries) if (accounts[e.account]!.status === "frozen") throw "account_frozen";
    for (const e of entries) {
      const a = accounts[e.account]!;
      if (e.amount < 0 && a.type === "savings" && LIMITED.has(kind)) {
        const month = a.month !== null && a.month > date.slice(0, 7) ? a.month : date.slice(0, 7);
        const used = a.month === month ? a.count : 0;
        if (used >= this.limit) throw "transfer_limit";
        a.count = used + 1;
        a.month = month;
      }
    }
    for (const e of entries) {
      const a = accounts[e.account]!;
      if (e.amount < 0 && a.owner === "member" && a.posted - a.held + a.overdraft + e.amount < 0)
        throw "insufficient_funds";
    }
    for (const e of entries) {
      const a = accounts[e.account]!;
      if (status === "posted") a.posted += e.amount;
      else if (e.amount < 0) a.held -= e.amount;
    }
  }

  private attempt(key: string, work: (accounts: ModelAccount[]) => number[]): Outcome {
    const first = this.keys.get(key);
    if (first) return { ok: true, tx_ids: first.map((i) => this.txs[i]!.id), replayed: true };
    const copy = this.accounts.map((a) => ({ ...a }));
    const txs_before = this.txs.length;
    try {
      const created = work(copy);
      this.accounts = copy;
      this.keys.set(key, created);
      return { ok: true, tx_ids: created.map((i) => this.txs[i]!.id), replayed: false };
    } catch (code) {
      if (typeof code !== "string") throw code;
      this.txs.length = txs_before;
      return { ok: false, code };
    }
  }

  post(
    key: string,
    kind: string,
    status: "posted" | "pending",
    entries: ModelEntry[],
    date: string,
    id: () => number,
  ): Outcome {
    return this.attempt(key, (accounts) => {
      this.plan(accounts, kind, status, entries, date);
      this.txs.push({ id: id(), kind, status, entries, resolution_key: null });
      return [this.txs.length - 1];
    });
  }

  batch(key: string, items: ModelEntry[][], date: string, ids: () => number): Outcome {
    return this.attempt(key, (accounts) => {
      // The shape of every item is checked before any rule, as a malformed import is refused whole.
      for (const entries of items)
        if (new Set(entries.map((e) => e.account)).size !== entries.length) throw "same_account";
      for (const entries of items) this.plan(accounts, "import", "posted", entries, date);
      const created: number[] = [];
      for (const entries of items) {
        this.txs.push({ id: ids(), kind: "import", status: "posted", entries, resolution_key: null });
        created.push(this.txs.length - 1);
      }
      return created;
    });
  }

  resolve(index: number, key: string, outcome: "posted" | "failed"): Outcome {
    const tx = this.txs[index]!;
    if (tx.status !== "pending") {
      if (tx.status === outcome && tx.resolution_key === key) return { ok: true, tx_ids: [tx.id], replayed: true };
      return { ok: false, code: "not_pending" };
    }
    if (outcome === "posted" && tx.entries.some((e) => this.accounts[e.account]!.status === "frozen"))
      return { ok: false, code: "account_frozen" };
    for (const e of tx.entries) {
      const a = this.accounts[e.account]!;
      if (e.amount < 0) a.held += e.amount;
      if (outcome === "posted") a.posted += e.amount;
    }
    tx.status = outcome;
    tx.resolution_key = key;
    return { ok: true, tx_ids: [tx.id], replayed: false };
  }

  reverse(key: string, index: number, date: string, id: () => number): Outcome {
    return this.attempt(key, (accounts) => {
      const original = this.txs[index]!;
      if (original.kind === "reversal") throw "reversal_not_reversible";
      if (original.status === "reversed") throw "already_reversed";
      if (original.status !== "posted") throw "not_posted";
      const entries = original.entries.map((e) => ({ account: e.account, amount: -e.amount }));
      this.plan(accounts, "reversal", "posted", entries, date);
      original.status = "reversed"; // undone below if the plan threw (it cannot after this line)
      this.txs.push({ id: id(), kind: "reversal", status: "posted", entries, resolution_key: null });
      return [this.txs.length - 1];
    });
  }
}

// ---- The operations --------------------------------------------------------------------------

const ACCOUNTS = 5; // member A checking, A savings, B checking, B savings, the institution's cash
const account = fc.integer({ min: 0, max: ACCOUNTS - 1 });
const date = fc.constantFrom("2030-01-15", "2030-02-15");
const amount = fc.integer({ min: 1, max: 3_000 });
const kind = fc.constantFrom<PostingKind>("transfer", "transfer", "member_transfer", "ach_out", "fee", "deposit");

const operation = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant("post" as const),
      from: account,
      to: account,
      amount,
      kind,
      date,
      pending: fc.boolean(),
    }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constantFrom("settle" as const, "release" as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("reverse" as const), pick: fc.nat(), date }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("repeat" as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("batch" as const),
      items: fc.array(fc.record({ from: account, to: account, amount }), { minLength: 1, maxLength: 4 }),
      date,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constantFrom("freeze" as const, "unfreeze" as const),
      account: fc.integer({ min: 0, max: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("overdraft" as const),
      account: fc.integer({ min: 0, max: 3 }),
      cents: fc.integer({ min: 0, max: 2_000 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("reset" as const), member: fc.integer({ min: 0, max: 1 }) }) },
);
type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never;

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

async function outcomeOf(
  run: () => Promise<LedgerResult | LedgerResult[] | BatchResult | LedgerRefusal | { ok: true; account: unknown }>,
): Promise<Outcome> {
  const result = await run();
  if (!Array.isArray(result) && !result.ok) return { ok: false, code: result.code };
  if (!Array.isArray(result) && "account" in result) return { ok: true, tx_ids: [], replayed: false };
  const list = Array.isArray(result) ? result : "transactions" in result ? result.transactions : [result];
  const replayed = Array.isArray(result) ? false : result.replayed;
  return { ok: true, tx_ids: list.map((r) => r.transaction.id), replayed };
}

describe("the ledger agrees with a model of its rules", () => {
  it("over random sequences of posts, holds, settlements, releases, reversals, batches and repeats", async () => {
    const db = database.db;
    const cash = await institutionAccount(db, "cash");
    const limit = institution().limits.savings_transfers_per_month;
    const seen = new Set<string>();

    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 4_000 }), { minLength: 4, maxLength: 4 }),
        fc.array(operation, { minLength: 1, maxLength: 40 }),
        async (opening, ops) => {
          const initiator = `member:${newKey("prop")}`;
          const members = [`${initiator}-a`, `${initiator}-b`];
          const opened = [];
          for (const [i, type] of (["checking", "savings", "checking", "savings"] as const).entries()) {
            opened.push(await openAccount(db, { member_id: members[i >> 1]!, type, name: type }));
          }
          for (const [i, cents] of opening.entries()) if (cents > 0) await deposit(db, opened[i]!.id, cents);
          const model = new Model(
            [
              ...opened.map((a, i): ModelAccount => ({
                id: a.id,
                owner: "member",
                type: a.type as "checking" | "savings",
                member_id: members[i >> 1]!,
                status: "active",
                posted: opening[i]!,
                held: 0,
                overdraft: 0,
                count: 0,
                month: null,
              })),
              {
                id: cash.id,
                owner: "institution",
                type: "cash",
                member_id: null,
                status: "active",
                posted: 0,
                held: 0,
                overdraft: 0,
                count: 0,
                month: null,
              },
            ],
            limit,
          );
          // The cash account is shared by every run: the model follows what this run does to it.
          const cash_before = (await getBalances(db, [cash.id]))[0]!;
          const requests: Array<{ run: () => Promise<Outcome>; model: () => Outcome }> = [];
          // Real ids come back in the result; the model takes them in the same order.
          let pending_ids: number[] = [];
          const nextId = () => {
            const id = pending_ids.shift();
            if (id === undefined) throw new Error("the model created a transaction the ledger did not");
            return id;
          };
          const check = async (request: { run: () => Promise<Outcome>; model: () => Outcome }, op: Operation) => {
            const real = await request.run();
            pending_ids = real.ok ? [...real.tx_ids] : [];
            const expected = request.model();
            expect(real, JSON.stringify(op)).toEqual(expected);
            seen.add(real.ok ? (real.replayed ? `${op.op}:replayed` : `${op.op}:ok`) : real.code);
          };
          const entries = (from: number, to: number, cents: number) => ({
            real: [
              { account_id: model.accounts[from]!.id, amount_cents: -cents },
              { account_id: model.accounts[to]!.id, amount_cents: cents },
            ],
            model: [
              { account: from, amount: -cents },
              { account: to, amount: cents },
            ],
          });

          for (const op of ops) {
            switch (op.op) {
              case "post": {
                const key = newKey("p");
                const e = entries(op.from, op.to, op.amount);
                const status = op.pending ? "pending" : "posted";
                const input = {
                  idempotency_key: key,
                  initiator,
                  created_by: initiator,
                  kind: op.kind,
                  entries: e.real,
                  effective_date: op.date,
                };
                const request = {
                  run: () => outcomeOf(() => (op.pending ? placeHold(db, input) : postTransfer(db, input))),
                  model: () => model.post(key, op.kind, status, e.model, op.date, nextId),
                };
                requests.push(request);
                await check(request, op);
                break;
              }
              case "batch": {
                const key = newKey("b");
                const items = op.items.map((i) => entries(i.from, i.to, i.amount));
                const request = {
                  run: () =>
                    outcomeOf(() =>
                      postBatch(db, {
                        idempotency_key: key,
                        initiator,
                        created_by: initiator,
                        transactions: items.map((i) => ({
                          kind: "import" as const,
                          entries: i.real,
                          effective_date: op.date,
                        })),
                      }),
                    ),
                  model: () =>
                    model.batch(
                      key,
                      items.map((i) => i.model),
                      op.date,
                      nextId,
                    ),
                };
                requests.push(request);
                await check(request, op);
                break;
              }
              case "settle":
              case "release": {
                if (model.txs.length === 0) break;
                const index = op.pick % model.txs.length;
                const key = newKey("r");
                const outcome = op.op === "settle" ? "posted" : "failed";
                const input = { transaction_id: model.txs[index]!.id, idempotency_key: key, resolved_by: initiator };
                const request = {
                  run: () => outcomeOf(() => (outcome === "posted" ? settleHold(db, input) : releaseHold(db, input))),
                  model: () => model.resolve(index, key, outcome),
                };
                requests.push(request);
                await check(request, op);
                break;
              }
              case "reverse": {
                if (model.txs.length === 0) break;
                const index = op.pick % model.txs.length;
                const key = newKey("v");
                const transaction_id = model.txs[index]!.id;
                const request = {
                  run: () =>
                    outcomeOf(() =>
                      reverseTransaction(db, {
                        transaction_id,
                        idempotency_key: key,
                        initiator,
                        created_by: initiator,
                        effective_date: op.date,
                      }),
                    ),
                  model: () => model.reverse(key, index, op.date, nextId),
                };
                requests.push(request);
                await check(request, op);
                break;
              }
              case "repeat": {
                if (requests.length === 0) break;
                await check(requests[op.pick % requests.length]!, op);
                break;
              }
              case "freeze":
              case "unfreeze": {
                const status = op.op === "freeze" ? "frozen" : "active";
                await setAccountStatus(db, model.accounts[op.account]!.id, status);
                model.accounts[op.account]!.status = status;
                break;
              }
              case "overdraft": {
                const a = model.accounts[op.account]!;
                const allowed = a.posted - a.held + op.cents >= 0;
                const real = await outcomeOf(() => setOverdraftLimit(db, a.id, op.cents));
                expect(real.ok).toBe(allowed);
                if (allowed) a.overdraft = op.cents;
                break;
              }
              case "reset": {
                await resetTransferCount(db, members[op.member]!);
                for (const a of model.accounts)
                  if (a.member_id === members[op.member] && a.type === "savings") a.count = 0;
                break;
              }
            }
          }

          // Every balance and status agrees; the money in the run only moved between its accounts
          // and the cash account, so their total is what was deposited.
          const real = await getBalances(
            db,
            model.accounts.map((a) => a.id),
          );
          for (const [i, a] of model.accounts.entries()) {
            const r = real.find((x) => x.id === a.id)!;
            const base = a.owner === "institution" ? cash_before : { current_cents: 0, held_cents: 0 };
            expect({ i, current: r.current_cents, held: r.held_cents, status: r.status }).toEqual({
              i,
              current: base.current_cents + a.posted,
              held: base.held_cents + a.held,
              status: a.status,
            });
          }
          const member_total = model.accounts.filter((a) => a.owner === "member").reduce((s, a) => s + a.posted, 0);
          expect(member_total + model.accounts[4]!.posted).toBe(opening.reduce((s, c) => s + c, 0));
          for (const tx of model.txs) {
            expect((await getTransaction(db, tx.id))!.transaction.status).toBe(tx.status);
          }
        },
      ),
      // A fixed seed by default, so that the check below (every outcome reached) cannot fail by
      // the luck of one run; LEDGER_PROPERTY_SEED=random (or a number) explores other sequences.
      { numRuns: Number(process.env.LEDGER_PROPERTY_RUNS ?? 40), seed: propertySeed() },
    );
    const report = await verifyLedger(db);
    expect(report.problems).toEqual([]);
    // The random runs really reached the interesting outcomes, not only the happy path.
    for (const outcome of [
      "post:ok",
      "settle:ok",
      "release:ok",
      "reverse:ok",
      "batch:ok",
      "repeat:replayed",
      "insufficient_funds",
      "not_pending",
      "not_posted",
      "same_account",
      "account_frozen",
    ]) {
      expect([...seen], outcome).toContain(outcome);
    }
  });
});

function propertySeed(): number | undefined {
  const wanted = process.env.LEDGER_PROPERTY_SEED;
  if (wanted === "random") return undefined;
  return wanted ? Number(wanted) : 20261122;
}
