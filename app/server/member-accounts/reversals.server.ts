import type { StaffRefusal } from "~/domain/member-accounts";
import { inRefusableTransaction, refuse } from "~/server/db/refusable-transaction.server";
import { refusal } from "~/domain/refusals";
import { sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { recordAudit } from "~/server/audit/audit.server";
import { notify } from "~/server/notifications/notifications.server";
import { reverseTransaction } from "~/server/ledger/ledger.server";
import { formatCents } from "~/domain/money";
import {
  isPendingStaffPosting,
  PENDING_OWNERS,
  type PendingOwner,
  REVERSE_ALL_EMAIL_MESSAGE,
  REVERSE_ALL_FAILED,
  TRANSACTION_NOT_FOUND,
  TRANSACTION_POST_FAILED,
  TRANSACTION_POSTED,
  TRANSACTION_RELEASED,
  TRANSACTION_REVERSED,
  TRANSACTION_REVERSE_FAILED,
  reversedAllMessage,
} from "~/domain/member-accounts";
import { accountsOfMember, ledgerOrRefuse, memberEmail, pendingOwnerSql, type StaffRequest } from "./common.server";
import { memberTransaction, resolveForStaff } from "./holds.server";

/**
 * Reversals from the back office (docs/product.md#member-accounts-staff). A posted transaction is
 * corrected by a reversing one (nothing is deleted); a pending one is released instead (the held
 * money comes back, nothing was posted). A reversal is never reversed, and a transaction is
 * reversed once: the ledger locks the original and refuses the second, so two staff pressing
 * Reverse at the same moment get one reversal and one "already reversed".
 *
 * Each reversal's idempotency key is `reverse:<transaction id>` in the staff member's scope: a
 * double press by the same person replays the first, which is reported as already reversed.
 */

/** How many transactions Reverse All reverses in its one database transaction. */
export const REVERSE_ALL_MAX = 1000;

export type ReverseResult =
  { ok: true; status: "reversed" | "released"; message: string; transaction_id: number } | StaffRefusal;

export async function reverseMemberTransaction(
  db: DbOrTx,
  request: StaffRequest & { transaction_id: number },
): Promise<ReverseResult> {
  const { staff, origin, member_id, transaction_id } = request;
  const { accounts, found, legs } = await memberTransaction(db, member_id, transaction_id);
  if (!found || legs.length === 0)
    return refusal("not_found", TRANSACTION_NOT_FOUND, { field: "transaction_id", code: "transaction_not_found" });
  const original = found.transaction;
  const failed = (message: string, code?: StaffRefusal["code"]) =>
    refusal("conflict", `${TRANSACTION_REVERSE_FAILED}: ${message}`, { code });

  if (original.status === "pending") {
    // A queued payment, a bill payment, a card purchase or a deposit waiting for review is
    // resolved where it lives, which also updates it; released here, it would wait forever.
    const owner = await pendingOwner(db, transaction_id);
    if (owner) return failed(`this is ${PENDING_OWNERS[owner]}.`, "resolved_elsewhere");
    return inRefusableTransaction(db, async (tx) => {
      await resolveForStaff(tx, {
        outcome: "release",
        staff,
        origin,
        member_id,
        transaction_id,
        before: { status: "pending" },
        after: { status: "failed" },
        failed,
      });
      await notifyOwners(
        tx,
        legs,
        accounts,
        member_id,
        "A pending transaction was cancelled",
        (amount) =>
          `A pending transaction of ${formatCents(Math.abs(amount))} (${original.memo ?? "no description"}) was cancelled by the credit union; the held money is available again.`,
      );
      return { ok: true as const, status: "released" as const, message: TRANSACTION_RELEASED, transaction_id };
    });
  }

  return inRefusableTransaction(db, async (tx) => {
    const reversal = await ledgerOrRefuse(
      () =>
        reverseTransaction(tx, {
          transaction_id,
          idempotency_key: `reverse:${transaction_id}`,
          initiator: `staff:${staff.id}`,
          created_by: staff.id,
        }),
      (message, code) => failed(message, code),
    );
    if (reversal.replayed) refuse(failed("This transaction has already been reversed.", "already_reversed"));
    await recordAudit(tx, {
      actor_id: staff.id,
      actor_email: staff.email,
      action: "ledger.transaction.reverse",
      subject_type: "ledger_transaction",
      subject_id: transaction_id,
      member_id,
      before: { status: original.status, entries: found.entries },
      after: { status: "reversed", reversal_id: reversal.transaction.id, entries: reversal.entries },
      ...origin,
    });
    await notifyOwners(
      tx,
      legs,
      accounts,
      member_id,
      "A transaction was reversed",
      (amount) =>
        `The credit union reversed a transaction of ${formatCents(Math.abs(amount))} (${original.memo ?? "no description"}) on your account.`,
    );
    return { ok: true as const, status: "reversed" as const, message: TRANSACTION_REVERSED, transaction_id };
  });
}

async function pendingOwner(db: DbOrTx, transaction_id: number) {
  const result = await db.execute(sql`select ${pendingOwnerSql(sql`${transaction_id}::bigint`)} as owner`);
  return (result.rows[0]?.owner ?? null) as PendingOwner | null;
}

export type PostPendingResult = { ok: true; status: "posted"; message: string; transaction_id: number } | StaffRefusal;

/**
 * Post a pending row added with Add Transactions once it has completed: its hold settles (the
 * current balance moves, as a Completed row would have moved it), audited, and the member told.
 * Only such rows (`isPendingStaffPosting`); a second Post is refused as no longer pending.
 */
export async function postPendingMemberTransaction(
  db: DbOrTx,
  request: StaffRequest & { transaction_id: number },
): Promise<PostPendingResult> {
  const { staff, origin, member_id, transaction_id } = request;
  const { accounts, found, legs } = await memberTransaction(db, member_id, transaction_id);
  if (!found || legs.length === 0)
    return refusal("not_found", TRANSACTION_NOT_FOUND, { field: "transaction_id", code: "transaction_not_found" });
  const failed = (message: string, code?: StaffRefusal["code"]) =>
    refusal("conflict", `${TRANSACTION_POST_FAILED}: ${message}`, { code });
  if (found.transaction.status !== "pending") return failed("This transaction is no longer pending.", "not_pending");
  if (!isPendingStaffPosting(found.transaction))
    return failed("only a pending transaction added with Add Transactions is posted here.", "resolved_elsewhere");
  return inRefusableTransaction(db, async (tx) => {
    await resolveForStaff(tx, {
      outcome: "post",
      staff,
      origin,
      member_id,
      transaction_id,
      before: { status: "pending", entries: found.entries },
      after: { status: "posted" },
      failed,
    });
    await notifyOwners(
      tx,
      legs,
      accounts,
      member_id,
      "A pending transaction completed",
      (amount) =>
        `A pending transaction of ${formatCents(Math.abs(amount))} (${found.transaction.memo ?? "no description"}) on your account was completed by the credit union.`,
    );
    return { ok: true as const, status: "posted" as const, message: TRANSACTION_POSTED, transaction_id };
  });
}

export type ReverseAllResult = { ok: true; status: "reversed"; count: number; message: string } | StaffRefusal;

/**
 * Reverse All Transactions: every posted transaction on the member's accounts that is not a
 * reversal and not yet reversed, newest first, all in one database transaction (all or none).
 * Newest first so that each step returns the accounts to a balance they had before; a transfer
 * to another member whose money is spent is refused, and then nothing is reversed.
 */
export async function reverseAllMemberTransactions(
  db: DbOrTx,
  request: StaffRequest & { confirm_email: string },
): Promise<ReverseAllResult> {
  const { staff, origin, member_id } = request;
  const email = await memberEmail(db, member_id);
  if (!email) return refusal("not_found", "User not found");
  if (request.confirm_email.trim().toLowerCase() !== email.toLowerCase())
    return refusal("bad_input", REVERSE_ALL_EMAIL_MESSAGE, { field: "confirm_email" });
  const accounts = await accountsOfMember(db, member_id);
  if (accounts.length === 0)
    return refusal("conflict", `${REVERSE_ALL_FAILED}: this member has no accounts.`, { code: "nothing_to_reverse" });
  const ids = sql.raw(accounts.map((a) => a.id).join(", "));
  const result = await db.execute(sql`
    select distinct t.id from ledger_transactions t join ledger_entries e on e.transaction_id = t.id
     where e.account_id in (${ids}) and t.status = 'posted' and t.kind <> 'reversal'
     order by t.id desc limit ${REVERSE_ALL_MAX + 1}`);
  const transaction_ids = result.rows.map((r) => Number(r.id));
  if (transaction_ids.length === 0)
    return refusal("conflict", `${REVERSE_ALL_FAILED}: there are no posted transactions to reverse.`, {
      code: "nothing_to_reverse",
    });
  if (transaction_ids.length > REVERSE_ALL_MAX) {
    return refusal(
      "conflict",
      `${REVERSE_ALL_FAILED}: this member has more than ${REVERSE_ALL_MAX} transactions; reverse them one by one or ask for a bulk correction.`,
    );
  }
  return inRefusableTransaction(db, async (tx) => {
    const reversal_ids: number[] = [];
    for (const transaction_id of transaction_ids) {
      const reversal = await ledgerOrRefuse(
        () =>
          reverseTransaction(tx, {
            transaction_id,
            idempotency_key: `reverse:${transaction_id}`,
            initiator: `staff:${staff.id}`,
            created_by: staff.id,
            memo: `Reversal of transaction ${transaction_id} (reverse all)`,
          }),
        (message, code) =>
          refusal("conflict", `${REVERSE_ALL_FAILED}: transaction ${transaction_id}: ${message}`, { code }),
      );
      if (reversal.replayed)
        refuse(
          refusal("conflict", `${REVERSE_ALL_FAILED}: transaction ${transaction_id} has already been reversed.`, {
            code: "already_reversed",
          }),
        );
      reversal_ids.push(reversal.transaction.id);
    }
    await recordAudit(tx, {
      actor_id: staff.id,
      actor_email: staff.email,
      action: "ledger.transaction.reverse_all",
      subject_type: "member",
      subject_id: member_id,
      member_id,
      before: { reversed: transaction_ids },
      after: { reversals: reversal_ids, count: reversal_ids.length },
      ...origin,
    });
    await notify(tx, {
      member_id,
      kind: "account_correction",
      title: "Transactions reversed",
      body: `The credit union reversed ${reversal_ids.length} transactions on your accounts. Contact us if you have questions.`,
    });
    return {
      ok: true as const,
      status: "reversed" as const,
      count: reversal_ids.length,
      message: reversedAllMessage(reversal_ids.length),
    };
  });
}

/** Tells the member what staff did, with the amount on their own account. */
async function notifyOwners(
  tx: DbOrTx,
  legs: readonly { account_id: number; amount_cents: number }[],
  accounts: readonly { id: number }[],
  member_id: string,
  title: string,
  body: (amount_cents: number) => string,
): Promise<void> {
  const mine = legs.find((leg) => accounts.some((a) => a.id === leg.account_id));
  if (mine) await notify(tx, { member_id, kind: "account_correction", title, body: body(mine.amount_cents) });
}
