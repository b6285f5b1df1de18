import type { StaffRefusal } from "~/domain/member-accounts";
import { inRefusableTransaction, refuse } from "~/server/db/refusable-transaction.server";
import { refusal } from "~/domain/refusals";
import { sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { notify } from "~/server/notifications/notifications.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { placeHold, releaseHold, settleHold } from "~/server/ledger/ledger.server";
import { getTransaction } from "~/server/ledger/history.server";
import { formatCents } from "~/domain/money";
import { ACCOUNT_NOT_FOUND, TRANSACTION_NOT_FOUND } from "~/domain/member-accounts";
import {
  accountLabel,
  accountOfMember,
  accountsOfMember,
  emailsOf,
  ledgerOrRefuse,
  type StaffRequest,
} from "./common.server";

/**
 * Staff holds (docs/product.md#member-accounts-staff): the available balance is never typed; staff
 * hold an amount instead (a pending transaction against the adjustments ledger account: it lowers
 * available, not current), and release it later with a reason. A staff hold's idempotency key
 * starts with `staff-hold:` and carries the form's request key, so pressing Place twice holds once.
 */
const HOLD_KEY_PREFIX = "staff-hold:";

export type HoldResult =
  { ok: true; status: "placed" | "released"; message: string; transaction_id: number } | StaffRefusal;

export async function placeStaffHold(
  db: DbOrTx,
  request: StaffRequest & { account_id: number; amount_cents: number; reason: string; request_key: string },
): Promise<HoldResult> {
  const { staff, origin, member_id, account_id, amount_cents, reason } = request;
  const account = await accountOfMember(db, member_id, account_id);
  if (!account) return refusal("not_found", ACCOUNT_NOT_FOUND, { field: "account_id", code: "account_not_found" });
  const adjustments = await institutionAccount(db, "adjustments");
  const failed = (message: string, code?: StaffRefusal["code"]) =>
    refusal("conflict", `Failed to place the hold: ${message}`, { code, field: "amount" });
  return inRefusableTransaction(db, async (tx) => {
    const hold = await ledgerOrRefuse(
      () =>
        placeHold(tx, {
          idempotency_key: `${HOLD_KEY_PREFIX}${request.request_key}`,
          initiator: `staff:${staff.id}`,
          kind: "adjustment",
          created_by: staff.id,
          memo: `Hold: ${reason}`.slice(0, 500),
          category: "Other",
          entries: [
            { account_id: account.id, amount_cents: -amount_cents },
            { account_id: adjustments.id, amount_cents },
          ],
        }),
      failed,
    );
    if (hold.replayed)
      return {
        ok: true as const,
        status: "placed" as const,
        transaction_id: hold.transaction.id,
        message: "Hold placed.",
      };
    await recordAudit(tx, {
      actor_id: staff.id,
      actor_email: staff.email,
      action: "ledger.hold.place",
      subject_type: "ledger_account",
      subject_id: account.id,
      member_id,
      before: { held_cents: account.held_cents, available_cents: account.posted_cents - account.held_cents },
      after: {
        held_cents: account.held_cents + amount_cents,
        available_cents: account.posted_cents - account.held_cents - amount_cents,
        transaction_id: hold.transaction.id,
        reason,
      },
      ...origin,
    });
    await notify(tx, {
      member_id,
      kind: "account_correction",
      title: "Hold placed",
      body: `The credit union placed a hold of ${formatCents(amount_cents)} on ${accountLabel(account)}. Contact us if you have questions.`,
    });
    return {
      ok: true as const,
      status: "placed" as const,
      transaction_id: hold.transaction.id,
      message: `Hold of ${formatCents(amount_cents)} placed.`,
    };
  });
}

/**
 * A transaction as staff act on it for a member: the member's accounts, the transaction, and its
 * entries on those accounts (none when it is not the member's, which callers answer as not found).
 */
export async function memberTransaction(db: DbOrTx, member_id: string, transaction_id: number) {
  const accounts = await accountsOfMember(db, member_id);
  const found = await getTransaction(db, transaction_id);
  const legs = found?.entries.filter((e) => accounts.some((a) => a.id === e.account_id)) ?? [];
  return { accounts, found, legs };
}

/**
 * Staff resolve a pending transaction inside `tx`: release it (Release Hold, and Release on a
 * pending transaction) or post it (Post on a pending Add Transactions row). The ledger's release
 * or settle, under one key per transaction and outcome so that a second one is refused as no
 * longer pending, and its audit entry (`before` and `after` say what was done).
 */
export async function resolveForStaff(
  tx: DbOrTx,
  input: {
    outcome: "release" | "post";
    staff: StaffRequest["staff"];
    origin: AuditOrigin;
    member_id: string;
    transaction_id: number;
    before: Record<string, unknown>;
    after: Record<string, unknown>;
    failed: (message: string, code?: StaffRefusal["code"]) => StaffRefusal;
  },
): Promise<void> {
  const { outcome, staff, origin, member_id, transaction_id, failed } = input;
  const resolve = outcome === "post" ? settleHold : releaseHold;
  const done = await ledgerOrRefuse(
    () => resolve(tx, { transaction_id, idempotency_key: `${outcome}:${transaction_id}`, resolved_by: staff.id }),
    failed,
  );
  if (done.replayed) refuse(failed("This transaction is no longer pending.", "not_pending"));
  await recordAudit(tx, {
    actor_id: staff.id,
    actor_email: staff.email,
    action: outcome === "post" ? "ledger.transaction.post" : "ledger.hold.release",
    subject_type: "ledger_transaction",
    subject_id: transaction_id,
    member_id,
    before: input.before,
    after: input.after,
    ...origin,
  });
}

export async function releaseStaffHold(
  db: DbOrTx,
  request: StaffRequest & { transaction_id: number; reason: string },
): Promise<HoldResult> {
  const { staff, origin, member_id, transaction_id, reason } = request;
  const { accounts, found, legs } = await memberTransaction(db, member_id, transaction_id);
  const leg = legs[0];
  if (
    !found ||
    !leg ||
    !found.transaction.idempotency_key.startsWith(HOLD_KEY_PREFIX) ||
    !found.transaction.initiator.startsWith("staff:")
  ) {
    return refusal("not_found", TRANSACTION_NOT_FOUND, { field: "transaction_id", code: "transaction_not_found" });
  }
  const account = accounts.find((a) => a.id === leg.account_id)!;
  const failed = (message: string, code?: StaffRefusal["code"]) =>
    refusal("conflict", `Failed to release the hold: ${message}`, { code });
  return inRefusableTransaction(db, async (tx) => {
    await resolveForStaff(tx, {
      outcome: "release",
      staff,
      origin,
      member_id,
      transaction_id,
      before: { status: "pending", held_cents: -leg.amount_cents },
      after: { status: "failed", reason },
      failed,
    });
    await notify(tx, {
      member_id,
      kind: "account_correction",
      title: "Hold released",
      body: `The hold of ${formatCents(-leg.amount_cents)} on ${accountLabel(account)} was released; the money is available again.`,
    });
    return {
      ok: true as const,
      status: "released" as const,
      transaction_id,
      message: `Hold of ${formatCents(-leg.amount_cents)} released.`,
    };
  });
}

export interface StaffHoldView {
  transaction_id: number;
  account_id: number;
  account_name: string;
  account_number: string;
  amount_cents: number;
  memo: string | null;
  placed_at: Date;
  placed_by_email: string | null;
}

/** The staff holds still pending on the member's accounts, newest first. */
export async function staffHolds(db: DbOrTx, member_id: string): Promise<StaffHoldView[]> {
  const accounts = await accountsOfMember(db, member_id);
  if (accounts.length === 0) return [];
  const result = await db.execute(sql`
    select t.id, e.account_id, e.amount_cents, t.memo, t.created_by, (extract(epoch from t.created_at) * 1000)::float8 as created_at_ms
      from ledger_transactions t join ledger_entries e on e.transaction_id = t.id
     where t.status = 'pending' and e.account_id in (${sql.raw(accounts.map((a) => a.id).join(", "))})
       and t.initiator like 'staff:%' and t.idempotency_key like ${`${HOLD_KEY_PREFIX}%`}
     order by t.id desc limit 100`);
  const emails = await emailsOf(
    db,
    result.rows.map((r) => String(r.created_by)),
  );
  return result.rows.map((r) => {
    const account = accounts.find((a) => a.id === Number(r.account_id))!;
    return {
      transaction_id: Number(r.id),
      account_id: account.id,
      account_name: account.name,
      account_number: account.account_number,
      amount_cents: -Number(r.amount_cents),
      memo: (r.memo as string | null) ?? null,
      placed_at: new Date(Number(r.created_at_ms)),
      placed_by_email: emails.get(String(r.created_by)) ?? null,
    };
  });
}
