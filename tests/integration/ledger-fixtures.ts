import crypto from "node:crypto";
import type { DbOrTx } from "~/server/db/client.server";
import { institutionAccount, openAccount, type AccountView } from "~/server/ledger/accounts.server";
import { postTransfer } from "~/server/ledger/ledger.server";
import { transferEntries } from "~/server/ledger/rules";

/** Shared set-up for the ledger's integration tests. */

const run = crypto.randomBytes(3).toString("hex");
let sequence = 0;

/** A fresh idempotency key. */
export function newKey(label = "key"): string {
  sequence += 1;
  return `${label}-${run}-${sequence}`;
}

export const STAFF = { initiator: "staff:test", created_by: "staff:test" } as const;

/** Puts money into an account from the institution's cash account (a deposit). */
export async function deposit(db: DbOrTx, account_id: number, amount_cents: number): Promise<void> {
  const cash = await institutionAccount(db, "cash");
  await postTransfer(db, {
    ...STAFF,
    idempotency_key: newKey("deposit"),
    kind: "deposit",
    entries: transferEntries(cash.id, account_id, amount_cents),
  });
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
