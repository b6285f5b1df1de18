import crypto from "node:crypto";
import { expect } from "vitest";
import type { DbOrTx } from "~/server/db/client.server";
import { getBalances, institutionAccount, openAccount, type AccountView } from "~/server/ledger/accounts.server";
import { postTransfer, type LedgerRefusal } from "~/server/ledger/ledger.server";
import { transferEntries } from "~/domain/ledger-rules";
import { verifyLedger } from "~/server/ledger/verify.server";

/** Shared set-up for the ledger's integration tests. */

const run = crypto.randomBytes(3).toString("hex");
let sequence = 0;

/** A fresh idempotency key. */
export function newKey(label = "key"): string {
  sequence += 1;
  return `${label}-${run}-${sequence}`;
}

export const STAFF = { initiator: "staff:test", created_by: "staff:test" } as const;

/**
 * The result of a ledger operation the test expects to go through: the ledger answers a refusal
 * as a value, so a test that expects success says so, and fails naming the refusal's code.
 */
export async function accepted<T extends { ok: boolean }>(answer: T | Promise<T>): Promise<Extract<T, { ok: true }>> {
  const settled = await answer;
  if (!settled.ok)
    throw new Error(`expected the ledger to accept, but it refused: ${(settled as { code?: string }).code}`);
  return settled as Extract<T, { ok: true }>;
}

/** The refusal a ledger operation answered with; fails the test when the operation went through. */
export async function refusalOf(answer: Promise<{ ok: boolean }> | { ok: boolean }): Promise<LedgerRefusal> {
  const settled = await answer;
  if (settled.ok) throw new Error("expected a refusal, but the operation succeeded");
  return settled as LedgerRefusal;
}

/** Puts money into an account from the institution's cash account (a deposit). */
export async function deposit(db: DbOrTx, account_id: number, amount_cents: number): Promise<void> {
  const cash = await institutionAccount(db, "cash");
  await accepted(
    postTransfer(db, {
      ...STAFF,
      idempotency_key: newKey("deposit"),
      kind: "deposit",
      entries: transferEntries(cash.id, account_id, amount_cents),
    }),
  );
}

/** A member with a checking and a savings account, funded as asked. */
export async function openMember(
  db: DbOrTx,
  options: { checking_cents?: number; savings_cents?: number; member_id?: string } = {},
): Promise<{ member_id: string; checking: AccountView; savings: AccountView }> {
  const member_id = options.member_id ?? `member-${newKey("m")}`;
  const checking = await openAccount(db, { member_id, type: "checking", name: "Personal Checking" });
  const savings = await openAccount(db, { member_id, type: "savings", name: "Personal Savings" });
  if (options.checking_cents) await deposit(db, checking.id, options.checking_cents);
  if (options.savings_cents) await deposit(db, savings.id, options.savings_cents);
  return { member_id, checking, savings };
}

/** The ledger verifies clean; when it does not, the failure lists its problems. */
export async function expectLedgerVerifies(db: DbOrTx): Promise<void> {
  const report = await verifyLedger(db);
  expect(report.problems).toEqual([]);
  expect(report.ok).toBe(true);
}

/** An account's current balance in cents. */
export async function currentCents(db: DbOrTx, account_id: number): Promise<number> {
  const [a] = await getBalances(db, [account_id]);
  return a!.current_cents;
}
