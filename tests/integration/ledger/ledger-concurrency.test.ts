import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { onPostgres, openTestDatabase } from "../test-database";
import { deposit, newKey } from "../ledger-fixtures";
import type { Database } from "~/server/db/client.server";
import { ledgerTransactions } from "~/server/db/schema";
import { getBalances, openAccount, type AccountView } from "~/server/ledger/accounts.server";
import {
  placeHold,
  postTransfer,
  releaseHold,
  reverseTransaction,
  settleHold,
  type LedgerAnswer,
} from "~/server/ledger/ledger.server";
import { transferEntries } from "~/domain/ledger-rules";
import { verifyLedger } from "~/server/ledger/verify.server";

/**
 * Many clients at once: 8 workers doing random transfers, holds, settlements, releases and
 * reversals among 20 accounts, retrying idempotency keys (later, and twice at the same moment).
 * On PostgreSQL the workers share a pool of 10 connections, so row locks really contend; on
 * PGlite (one connection) they are concurrent async tasks whose transactions queue.
 */

const WORKERS = 8;
const ACCOUNTS = 20;
const OPERATIONS_PER_WORKER = onPostgres ? 500 : 250;
const OPENING_CENTS = 50_000;
/** Refusals a random workload is expected to meet; anything else fails the test. */
const EXPECTED_REFUSALS = new Set([
  "insufficient_funds",
  "not_pending",
  "not_posted",
  "already_reversed",
  "reversal_not_reversible",
]);

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase({ pool_max: 10 });
});
afterAll(async () => {
  await database?.close();
});

describe("concurrent load", () => {
  it(`${WORKERS} workers x ${OPERATIONS_PER_WORKER} operations over ${ACCOUNTS} accounts keep every invariant`, async () => {
    const db = database.db;
    const initiator = `member:${newKey("load")}`;
    const accounts: AccountView[] = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      const account = await openAccount(db, { member_id: `load-${i}`, type: "checking", name: "Checking" });
      await deposit(db, account.id, OPENING_CENTS);
      accounts.push(account);
    }
    const ids = accounts.map((a) => a.id);
    const total_before = ACCOUNTS * OPENING_CENTS;

    const pending: number[] = [];
    const reversible: number[] = [];
    /** Every keyed request made, with the transaction its key first produced. */
    const requests: Array<{ key: string; creates: boolean; run: () => Promise<LedgerAnswer>; first_id?: number }> = [];
    const counts = new Map<string, number>();
    const count = (what: string) => counts.set(what, (counts.get(what) ?? 0) + 1);
    const pick = <T>(list: readonly T[]) => list[Math.floor(Math.random() * list.length)]!;

    async function attempt(request: (typeof requests)[number]): Promise<void> {
      const result = await request.run();
      if (!result.ok) {
        if (!EXPECTED_REFUSALS.has(result.code)) throw new Error(`unexpected refusal ${result.code}`);
        count(result.code);
        return;
      }
      {
        // Every success of one key names the same transaction: a repeat returns the first result.
        if (request.first_id === undefined) request.first_id = result.transaction.id;
        else expect(result.transaction.id).toBe(request.first_id);
        if (result.replayed) {
          count("replayed");
          return;
        }
        count(`${result.transaction.kind}:${result.transaction.status}`);
        if (result.transaction.status === "pending") pending.push(result.transaction.id);
        if (result.transaction.status === "posted") reversible.push(result.transaction.id);
      }
    }

    function newRequest(): (typeof requests)[number] {
      const key = newKey("c");
      const roll = Math.random();
      const from = pick(ids);
      let to = pick(ids);
      while (to === from) to = pick(ids);
      const amount_cents = 1 + Math.floor(Math.random() * 20_000);
      const transfer = {
        idempotency_key: key,
        initiator,
        created_by: initiator,
        kind: "member_transfer" as const,
        entries: transferEntries(from, to, amount_cents),
      };
      if (roll < 0.4) return { key, creates: true, run: () => postTransfer(db, transfer) };
      if (roll < 0.6) return { key, creates: true, run: () => placeHold(db, { ...transfer, kind: "ach_out" }) };
      if (roll < 0.85 && pending.length > 0) {
        const transaction_id = pick(pending);
        const input = { transaction_id, idempotency_key: key, resolved_by: initiator };
        return { key, creates: false, run: () => (roll < 0.75 ? settleHold(db, input) : releaseHold(db, input)) };
      }
      if (reversible.length > 0) {
        const transaction_id = pick(reversible);
        return {
          key,
          creates: true,
          run: () => reverseTransaction(db, { transaction_id, idempotency_key: key, initiator, created_by: initiator }),
        };
      }
      return { key, creates: true, run: () => postTransfer(db, transfer) };
    }

    async function worker(): Promise<void> {
      for (let i = 0; i < OPERATIONS_PER_WORKER; i++) {
        const roll = Math.random();
        if (roll < 0.1 && requests.length > 0) {
          await attempt(pick(requests)); // a client retrying later with the same key
        } else if (roll < 0.15) {
          const request = newRequest(); // a double click: the same request twice at once
          requests.push(request);
          await Promise.all([attempt(request), attempt(request)]);
        } else {
          const request = newRequest();
          requests.push(request);
          await attempt(request);
        }
      }
    }

    // While the workers run, a watcher reads the balances: no member account is ever negative.
    let running = true;
    let observations = 0;
    const watcher = (async () => {
      while (running) {
        for (const account of await getBalances(db, ids)) expect(account.available_cents).toBeGreaterThanOrEqual(0);
        observations += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const started_ms = performance.now();
    try {
      await Promise.all(Array.from({ length: WORKERS }, () => worker()));
    } finally {
      running = false;
      await watcher;
    }
    const elapsed_ms = performance.now() - started_ms;

    const report = await verifyLedger(db);
    expect(report.problems).toEqual([]);

    const balances = await getBalances(db, ids);
    expect(balances.reduce((sum, a) => sum + a.current_cents, 0)).toBe(total_before);
    for (const account of balances) expect(account.available_cents).toBeGreaterThanOrEqual(0);

    // No key moved money twice: exactly one transaction per key that succeeded, the one every
    // success of that key returned, and none for a key that never succeeded. A settle or release
    // key is recorded on the hold it resolved.
    const created = await db
      .select({ id: ledgerTransactions.id, key: ledgerTransactions.idempotency_key })
      .from(ledgerTransactions)
      .where(eq(ledgerTransactions.initiator, initiator));
    const id_of_key = new Map(created.map((c) => [c.key, c.id]));
    const creating = requests.filter((r) => r.creates);
    expect(created.length).toBe(creating.filter((r) => r.first_id !== undefined).length);
    for (const request of creating) expect(id_of_key.get(request.key)).toBe(request.first_id);
    const resolved = await db
      .select({ id: ledgerTransactions.id, key: ledgerTransactions.resolution_key })
      .from(ledgerTransactions)
      .where(and(eq(ledgerTransactions.initiator, initiator), sql`${ledgerTransactions.resolution_key} is not null`));
    const hold_of_key = new Map(resolved.map((r) => [r.key, r.id]));
    for (const request of requests.filter((r) => !r.creates))
      expect(hold_of_key.get(request.key)).toBe(request.first_id);

    if (onPostgres) {
      // Locks taken in id order: PostgreSQL never had to break a deadlock (the retry never ran).
      // Backends publish their statistics within a second of going idle.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const [stats] = (await db.execute(sql`select deadlocks from pg_stat_database where datname = current_database()`))
        .rows;
      expect(Number(stats!.deadlocks)).toBe(0);
    }

    const summary = Object.fromEntries([...counts.entries()].sort());
    console.info(
      `ledger concurrency (${database.kind}): ${requests.length} requests in ${Math.round(elapsed_ms)} ms, ` +
        `${observations} balance observations; ${JSON.stringify(summary)}`,
    );
    for (const outcome of [
      "member_transfer:posted",
      "ach_out:pending",
      "reversal:posted",
      "replayed",
      "insufficient_funds",
    ]) {
      expect(counts.get(outcome) ?? 0, outcome).toBeGreaterThan(0);
    }
  });
});
