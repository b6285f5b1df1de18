import type { StaffRefusal } from "~/domain/member-accounts";
import { inRefusableTransaction, refuse } from "~/server/db/refusable-transaction.server";
import { refusal } from "~/domain/refusals";
import type { Actor } from "~/domain/actor";
import { and, asc, count, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { balanceAdjustments, ledgerAccounts, users } from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { recordAudit } from "~/server/audit/audit.server";
import { notify } from "~/server/notifications/notifications.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { postTransfer } from "~/server/ledger/ledger.server";
import { refusalMessage } from "~/domain/refusals";
import { formatCents } from "~/domain/money";
import { ACCOUNT_NOT_FOUND, ADJUSTMENT_FAILED } from "~/domain/member-accounts";
import { dualControlReasonsText } from "~/domain/dual-control";
import { lockMakersCredits, lockStaffCredits, staffCreditDecision } from "~/server/staff-credits/dual-control.server";
import { accountLabel, accountOfMember, ledgerOrRefuse, type StaffRequest } from "./common.server";
import type { AuditOrigin } from "~/server/audit/audit.server";

/**
 * Balance adjustments (docs/product.md#member-accounts-staff). Staff type the balance the account
 * should have and why; the difference posts as an `adjustment` transaction between the account
 * and the credit union's adjustments ledger account (the balance itself is never written). A
 * difference above the profile's `adjustment_second_approval_above_cents` waits for a second staff
 * member (maker-checker): the maker cannot approve or decline it (the database refuses it too);
 * approving posts the difference that was asked for, declining records the reason. An adjustment
 * up creates money for the member, so it goes through the one dual-control rule of every staff
 * credit (app/domain/dual-control.ts, docs/security.md#dual-control): it also waits when it
 * would bring what this staff member credited to the member in 24 hours, or to all members this
 * business day, above the profile's totals. An adjustment down waits above the same amount.
 *
 * The balance may move between the request and the approval (a deposit, a card purchase). The
 * adjustment is a correction of an amount: the maker and the checker agree on that amount, and
 * approving posts exactly it, never a difference recomputed to reach the typed target (that would
 * post an amount nobody approved, and count the day's ordinary activity as part of the
 * correction). So the checker sees the balance at the request and now, and what the account will
 * hold after approving; the approval carries the balance the checker saw, and is refused if the
 * balance has moved since, asking them to look again (docs/product.md#member-accounts-staff).
 */
export type AdjustResult =
  | { ok: true; status: "posted"; message: string; adjustment_id: number; transaction_id: number }
  | { ok: true; status: "awaiting_approval"; message: string; adjustment_id: number }
  | StaffRefusal;

export function secondApprovalAboveCents(): number {
  return institution().limits.adjustment_second_approval_above_cents;
}

export async function requestAdjustment(
  db: DbOrTx,
  request: StaffRequest & { account_id: number; target_cents: number; reason: string; now?: Date },
): Promise<AdjustResult> {
  const { staff, origin, member_id, account_id, target_cents, reason } = request;
  const now = request.now ?? new Date();
  const account = await accountOfMember(db, member_id, account_id);
  if (!account) return refusal("not_found", ACCOUNT_NOT_FOUND, { field: "account_id", code: "account_not_found" });
  const adjustments = await institutionAccount(db, "adjustments");
  const failed = (message: string, code?: StaffRefusal["code"]) =>
    refusal("conflict", `${ADJUSTMENT_FAILED}: ${message}`, { code, field: "target_balance" });

  return inRefusableTransaction(db, async (tx) => {
    // The maker's credits are counted under their lock, taken before any account lock (the
    // order every staff credit takes them in).
    await lockStaffCredits(tx, staff.id);
    // Both accounts locked (in id order, the ledger's order) while the difference is worked out
    // and posted: a transfer at the same moment cannot make the result miss the target.
    const locked = await tx.execute(sql`
        select id, status, posted_cents, held_cents, overdraft_limit_cents from ledger_accounts
         where id in (${account.id}, ${adjustments.id}) order by id for update`);
    const row = locked.rows.find((r) => Number(r.id) === account.id)!;
    const from_cents = Number(row.posted_cents);
    const amount_cents = target_cents - from_cents;
    if (amount_cents === 0)
      refuse(
        refusal("conflict", `The balance is already ${formatCents(from_cents)}`, {
          field: "target_balance",
          code: "no_change",
        }),
      );
    if (row.status !== "active")
      refuse(
        failed(
          refusalMessage(row.status === "frozen" ? "account_frozen" : "account_closed"),
          row.status === "frozen" ? "account_frozen" : "account_closed",
        ),
      );
    if (
      amount_cents < 0 &&
      from_cents - Number(row.held_cents) + Number(row.overdraft_limit_cents) + amount_cents < 0
    ) {
      refuse(
        failed(
          `${refusalMessage("insufficient_funds")}: ${formatCents(Number(row.held_cents))} is on hold; release holds first or choose a higher balance.`,
          "insufficient_funds",
        ),
      );
    }
    const [adjustment] = await tx
      .insert(balanceAdjustments)
      .values({
        account_id,
        member_id,
        from_cents,
        target_cents,
        amount_cents,
        reason,
        status: "awaiting_approval",
        requested_by: staff.id,
        requested_by_email: staff.email,
        requested_at: now,
      })
      .returning({ id: balanceAdjustments.id });
    const adjustment_id = adjustment!.id;
    const rule =
      amount_cents > 0
        ? await staffCreditDecision(tx, { staff_id: staff.id, member_id, credits_cents: [amount_cents], now })
        : null;
    const needs_approval = rule ? rule.decision === "wait" : -amount_cents > secondApprovalAboveCents();
    const audit = {
      actor_id: staff.id,
      actor_email: staff.email,
      subject_type: "ledger_account",
      subject_id: account_id,
      member_id,
      before: { balance_cents: from_cents },
      ...origin,
    };
    if (needs_approval) {
      await recordAudit(tx, {
        ...audit,
        action: "ledger.adjustment.request",
        after: { adjustment_id, target_cents, amount_cents, reason, status: "awaiting_approval" },
      });
      return {
        ok: true as const,
        status: "awaiting_approval" as const,
        adjustment_id,
        message: waitMessage(amount_cents, rule),
      };
    }
    const transaction_id = await postAdjustment(
      tx,
      { adjustment_id, account, adjustments_account_id: adjustments.id, amount_cents, reason, staff },
      failed,
    );
    await recordAudit(tx, {
      ...audit,
      action: "ledger.adjustment.post",
      after: { adjustment_id, balance_cents: target_cents, amount_cents, reason, transaction_id },
    });
    await notifyAdjusted(tx, member_id, account, amount_cents);
    return {
      ok: true as const,
      status: "posted" as const,
      adjustment_id,
      transaction_id,
      message: `Balance adjusted to ${formatCents(target_cents)}.`,
    };
  });
}

/**
 * Why the adjustment waits. Above the amount for one posting alone, the words staff know; a total
 * passed says which and by how much (docs/product.md#member-accounts-staff).
 */
function waitMessage(amount_cents: number, rule: Awaited<ReturnType<typeof staffCreditDecision>> | null): string {
  const reasons = rule?.decision === "wait" ? rule.reasons : [];
  if (reasons.length === 0 || (reasons.length === 1 && reasons[0]!.code === "posting")) {
    return `The adjustment of ${formatCents(amount_cents)} is above ${formatCents(secondApprovalAboveCents())}: it waits for a second staff member's approval.`;
  }
  return `The adjustment of ${formatCents(amount_cents)} waits for a second staff member's approval: ${dualControlReasonsText(reasons, "adjustment")}.`;
}

async function postAdjustment(
  tx: DbOrTx,
  input: {
    adjustment_id: number;
    account: { id: number };
    adjustments_account_id: number;
    amount_cents: number;
    reason: string;
    staff: Actor;
  },
  failed: (message: string, code?: StaffRefusal["code"]) => StaffRefusal,
): Promise<number> {
  const posted = await ledgerOrRefuse(
    () =>
      postTransfer(tx, {
        idempotency_key: `adjustment:${input.adjustment_id}`,
        initiator: `staff:${input.staff.id}`,
        kind: "adjustment",
        created_by: input.staff.id,
        memo: `Balance adjustment: ${input.reason}`.slice(0, 500),
        category: "Other",
        entries: [
          { account_id: input.account.id, amount_cents: input.amount_cents },
          { account_id: input.adjustments_account_id, amount_cents: -input.amount_cents },
        ],
      }),
    failed,
  );
  const transaction_id = posted.transaction.id;
  await tx
    .update(balanceAdjustments)
    .set({ status: "posted", transaction_id })
    .where(eq(balanceAdjustments.id, input.adjustment_id));
  return transaction_id;
}

async function notifyAdjusted(
  tx: DbOrTx,
  member_id: string,
  account: { name: string; account_number: string },
  amount_cents: number,
) {
  await notify(tx, {
    member_id,
    kind: "account_correction",
    title: "Balance adjusted",
    body: `The credit union ${amount_cents > 0 ? "credited" : "debited"} ${formatCents(Math.abs(amount_cents))} to ${accountLabel(account)} as a correction. Contact us if you have questions.`,
  });
}

export interface AwaitingAdjustment {
  id: number;
  member_id: string;
  member_email: string | null;
  account_id: number;
  account_name: string;
  account_number: string;
  from_cents: number;
  target_cents: number;
  amount_cents: number;
  reason: string;
  requested_by: string;
  requested_by_email: string | null;
  requested_at: Date;
  /** The account's balance now: approving leaves it at this plus amount_cents. */
  balance_now_cents: number;
}

/** Adjustments waiting for a second approval, oldest first (at most 100 at a time). */
export async function awaitingAdjustments(db: DbOrTx): Promise<AwaitingAdjustment[]> {
  const rows = await db
    .select({
      id: balanceAdjustments.id,
      member_id: balanceAdjustments.member_id,
      member_email: users.email,
      account_id: balanceAdjustments.account_id,
      account_name: ledgerAccounts.name,
      account_number: ledgerAccounts.account_number,
      from_cents: balanceAdjustments.from_cents,
      target_cents: balanceAdjustments.target_cents,
      amount_cents: balanceAdjustments.amount_cents,
      reason: balanceAdjustments.reason,
      requested_by: balanceAdjustments.requested_by,
      requested_by_email: balanceAdjustments.requested_by_email,
      requested_at: balanceAdjustments.requested_at,
      balance_now_cents: ledgerAccounts.posted_cents,
    })
    .from(balanceAdjustments)
    .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, balanceAdjustments.account_id))
    .leftJoin(users, eq(users.id, balanceAdjustments.member_id))
    .where(eq(balanceAdjustments.status, "awaiting_approval"))
    .orderBy(asc(balanceAdjustments.requested_at), asc(balanceAdjustments.id))
    .limit(100);
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    account_id: Number(r.account_id),
    from_cents: Number(r.from_cents),
    target_cents: Number(r.target_cents),
    amount_cents: Number(r.amount_cents),
    balance_now_cents: Number(r.balance_now_cents),
  }));
}

/** How many adjustments wait for a second approval (the back office's Queues count). */
export async function awaitingAdjustmentCount(db: DbOrTx): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(balanceAdjustments)
    .where(eq(balanceAdjustments.status, "awaiting_approval"));
  return Number(row?.n ?? 0);
}

export type DecideResult =
  { ok: true; status: "posted" | "declined"; message: string; member_id: string } | StaffRefusal;

/**
 * The second staff member decides: approve posts the difference asked for; decline records why.
 * `seen_balance_cents`: the account's balance on the approver's screen (the Approve form always
 * sends it); approving is refused if the balance is no longer that. A request without it (a
 * script, an older page) is not checked: it approves the amount asked for, as before.
 */
export async function decideAdjustment(
  db: DbOrTx,
  request: {
    staff: Actor;
    origin: AuditOrigin;
    adjustment_id: number;
    decision: "approve" | "decline";
    reason?: string;
    seen_balance_cents?: number;
    now?: Date;
  },
): Promise<DecideResult> {
  const { staff, origin, adjustment_id, decision } = request;
  const adjustments = await institutionAccount(db, "adjustments");
  const failed = (message: string, code?: StaffRefusal["code"]) =>
    refusal("conflict", `${ADJUSTMENT_FAILED}: ${message}`, { code });
  return inRefusableTransaction(db, async (tx) => {
    // The maker's credits lock first (what posts counts for the maker), then the row.
    await lockMakersCredits(tx, "balance_adjustments", adjustment_id);
    const [row] = await tx
      .select()
      .from(balanceAdjustments)
      .where(eq(balanceAdjustments.id, adjustment_id))
      .for("update");
    if (!row) refuse(refusal("not_found", "Adjustment not found"));
    if (row.status !== "awaiting_approval")
      refuse(
        refusal("conflict", `This adjustment was already ${row.status === "posted" ? "approved" : "declined"}.`, {
          code: "already_decided",
        }),
      );
    if (row.requested_by === staff.id) {
      refuse(
        refusal("forbidden", "You asked for this adjustment: another staff member must approve or decline it.", {
          code: "maker_cannot_approve",
        }),
      );
    }
    const [account] = await tx
      .select({ id: ledgerAccounts.id, name: ledgerAccounts.name, account_number: ledgerAccounts.account_number })
      .from(ledgerAccounts)
      .where(eq(ledgerAccounts.id, row.account_id));
    const decided = { decided_by: staff.id, decided_by_email: staff.email, decided_at: request.now ?? new Date() };
    const audit = {
      actor_id: staff.id,
      actor_email: staff.email,
      subject_type: "balance_adjustment",
      subject_id: adjustment_id,
      member_id: row.member_id,
      before: {
        status: "awaiting_approval",
        amount_cents: Number(row.amount_cents),
        requested_by: row.requested_by,
        reason: row.reason,
      },
      ...origin,
    };
    if (decision === "decline") {
      await tx
        .update(balanceAdjustments)
        .set({ ...decided, status: "declined", decline_reason: request.reason ?? "" })
        .where(and(eq(balanceAdjustments.id, adjustment_id), eq(balanceAdjustments.status, "awaiting_approval")));
      await recordAudit(tx, {
        ...audit,
        action: "ledger.adjustment.decline",
        after: { status: "declined", reason: request.reason },
      });
      return {
        ok: true as const,
        status: "declined" as const,
        member_id: row.member_id,
        message: "Adjustment declined.",
      };
    }
    // The account and the adjustments account locked (id order, the ledger's) so the balance
    // compared is the one the posting starts from.
    const locked = await tx.execute(sql`
        select id, posted_cents from ledger_accounts where id in (${row.account_id}, ${adjustments.id}) order by id for update`);
    const balance_now_cents = Number(locked.rows.find((r) => Number(r.id) === Number(row.account_id))?.posted_cents);
    const seen_cents = request.seen_balance_cents;
    const amount_cents = Number(row.amount_cents);
    if (seen_cents !== undefined && balance_now_cents !== seen_cents) {
      refuse(
        refusal(
          "conflict",
          `The balance of this account is now ${formatCents(balance_now_cents)} (it was ${formatCents(seen_cents)} when you looked; ${formatCents(Number(row.from_cents))} at the request). Approving would post ${formatCents(amount_cents)} and leave ${formatCents(balance_now_cents + amount_cents)}: look at it again, then approve, or decline and ask for a new adjustment.`,
          { code: "balance_changed" },
        ),
      );
    }
    await tx.update(balanceAdjustments).set(decided).where(eq(balanceAdjustments.id, adjustment_id));
    const transaction_id = await postAdjustment(
      tx,
      {
        adjustment_id,
        account: { id: Number(row.account_id) },
        adjustments_account_id: adjustments.id,
        amount_cents,
        reason: row.reason,
        staff,
      },
      failed,
    );
    await recordAudit(tx, {
      ...audit,
      action: "ledger.adjustment.approve",
      after: { status: "posted", transaction_id },
    });
    await notifyAdjusted(tx, row.member_id, account!, amount_cents);
    return {
      ok: true as const,
      status: "posted" as const,
      member_id: row.member_id,
      message: `Adjustment of ${formatCents(amount_cents)} approved and posted.`,
    };
  });
}
