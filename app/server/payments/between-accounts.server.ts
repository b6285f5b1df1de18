import type { Db } from "~/server/db/client.server";
import { postTransferChecked, type LockedAccount } from "~/server/ledger/ledger.server";
import { formatCents } from "~/domain/money";
import { accountLabel } from "~/domain/account-display";
import type { BetweenAccountsTransfer } from "~/domain/transfers";

import {
  initiator,
  refuse,
  type Member,
  type TransferRefusal,
  type TransferResult,
  answerOf,
} from "./transfers.server";

/**
 * Between Accounts (docs/product.md#transfers): money between the member's own accounts, posted at
 * once through the ledger. The shared refusals, idempotency and limits are in transfers.server.ts.
 */

/**
 * One database transaction on the ledger's posting path: the accounts are locked, checked to be
 * the member's under the lock, and the transfer and its notification written in one statement.
 * The key comes first: a repeat answers with the first transfer whatever the accounts hold now
 * (the ledger looks the key up when anything refuses), and another transfer under it is refused.
 */
export async function transferBetweenAccounts(
  db: Db,
  member: Member,
  form: BetweenAccountsTransfer,
): Promise<TransferResult> {
  const entries = [
    { account_id: form.from_account_id, amount_cents: -form.amount_cents },
    { account_id: form.to_account_id, amount_cents: form.amount_cents },
  ];
  const result = await postTransferChecked<TransferRefusal>(
    db,
    {
      kind: "transfer",
      initiator: initiator(member),
      idempotency_key: form.idempotency_key,
      created_by: member.id,
      entries,
      reference: form.reference,
      category: "Transfers",
    },
    async (accounts) => {
      const from = ownLocked(accounts, member, form.from_account_id);
      const to = ownLocked(accounts, member, form.to_account_id);
      if (!from || !to)
        return { ok: false, refusal: refuse("not_your_account", from ? "to_account_id" : "from_account_id") };
      const moved = `${formatCents(form.amount_cents)} moved from ${accountLabel(from)} to ${accountLabel(to)}.`;
      return {
        ok: true,
        memo: `Transfer from ${accountLabel(from)} to ${accountLabel(to)}`,
        notifications: [
          {
            member_id: member.id,
            kind: "transfer_sent",
            title: `Transfer of ${formatCents(form.amount_cents)} completed`,
            body: (reference) => `${moved} Reference ${reference}.`,
          },
        ],
      };
    },
  );
  // An account that does not exist is not the member's either.
  if (!result.ok && !("refused_by_check" in result) && result.code === "account_not_found") {
    return refuse("not_your_account", result.subject_id === form.from_account_id ? "from_account_id" : "to_account_id");
  }
  return answerOf(result, "internal", entries, form.amount_cents, form.from_account_id);
}

/** The member's own account among those the posting locked. */
function ownLocked(
  accounts: ReadonlyMap<number, LockedAccount>,
  member: Member,
  account_id: number,
): LockedAccount | undefined {
  const account = accounts.get(account_id);
  return account && account.owner === "member" && account.member_id === member.id ? account : undefined;
}
