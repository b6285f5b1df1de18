import { and, asc, eq, isNull, or, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { ledgerAccounts, ledgerTransactions, mobileDeposits, users, type MobileDepositRow } from "~/server/db/schema";
import { releaseHold, today } from "~/server/ledger/ledger.server";
import { notify } from "~/server/notifications/notifications.server";
import { logger } from "~/server/logger.server";
import { institution } from "~/config/institution.server";
import { formatCents } from "~/domain/money";
import { availabilityPolicyText, bankingDayOfDeposit, isNewAccount } from "~/domain/funds-availability";
import { sendEmail } from "~/server/mail/outbox.server";

/**
 * When a mobile deposit's money becomes available (Regulation CC, docs/product.md#mobile-deposit):
 * the facts its schedule is computed from, the hold notice's email, the nightly release of the
 * holds whose day has come, and the policy in the member's words. The approval that places the
 * holds is in deposits.server.ts.
 */

/** The facts Regulation CC's schedule needs about a deposit: its banking day, the day's earlier checks, a new account. */
export async function depositFacts(tx: DbOrTx, deposit: MobileDepositRow) {
  const deposited_on = bankingDayOfDeposit(today(deposit.created_at));
  const accounts = await tx
    .select({ id: ledgerAccounts.id, opened_at: ledgerAccounts.opened_at })
    .from(ledgerAccounts)
    .where(and(eq(ledgerAccounts.owner, "member"), eq(ledgerAccounts.member_id, deposit.member_id)));
  const account = accounts.find((a) => Number(a.id) === Number(deposit.account_id));
  const others = accounts
    .filter((a) => Number(a.id) !== Number(deposit.account_id))
    .map((a) => today(a.opened_at))
    .sort();
  // The amounts aggregate over the member's checks of one banking day, on any account (229.10(c)(1)(vii), 229.13(b)).
  const [before] = await tx
    .select({ cents: sql<string>`coalesce(sum(${mobileDeposits.amount_cents}), 0)` })
    .from(mobileDeposits)
    .where(
      and(
        eq(mobileDeposits.member_id, deposit.member_id),
        eq(mobileDeposits.status, "approved"),
        eq(mobileDeposits.deposited_on, deposited_on),
      ),
    );
  return {
    deposited_on,
    same_day_before_cents: Number(before?.cents ?? 0),
    new_account: account ? isNewAccount(today(account.opened_at), deposited_on, others[0] ?? null) : false,
  };
}

/** The hold notice a step left to send after its transaction committed. */
export interface HoldNoticeToSend {
  member_id: string;
  subject: string;
  text: string;
}

/** The hold notice by email, queued after the approval committed; the notice stands in the app if it cannot be. */
export async function mailHoldNotice(db: Db, notice: HoldNoticeToSend): Promise<void> {
  try {
    const [member] = await db.select({ email: users.email }).from(users).where(eq(users.id, notice.member_id));
    if (!member) return;
    const profile = institution();
    await sendEmail(db, {
      kind: "deposit_hold_notice",
      to: member.email,
      user_id: notice.member_id,
      subject: notice.subject,
      text: `${notice.text}\n\n${profile.name}\n${profile.support_email} · ${profile.support_phone}`,
    });
  } catch (error) {
    logger.error({ err: error }, "could not queue a deposit hold notice email");
  }
}

/**
 * The availability job: releases every approved deposit's hold whose date has come (the business
 * date in the institution's time zone), and tells the member once all of the deposit is available.
 * Each deposit is its own database transaction; a repeat releases nothing twice (the release's key).
 */
export async function releaseAvailableDeposits(
  db: Db,
  now: Date = new Date(),
): Promise<{ released: number; deposits: number }> {
  const on = today(now);
  const due = await db
    .select({ id: mobileDeposits.id })
    .from(mobileDeposits)
    .where(
      and(
        eq(mobileDeposits.status, "approved"),
        isNull(mobileDeposits.funds_available_at),
        or(
          sql`${mobileDeposits.next_day_available_on} <= ${on}`,
          sql`${mobileDeposits.later_available_on} <= ${on}`,
          sql`${mobileDeposits.exception_available_on} <= ${on}`,
        ),
      ),
    )
    .orderBy(asc(mobileDeposits.id))
    .limit(1000);
  let released = 0;
  for (const { id } of due) {
    released += await db.transaction(async (tx) => {
      const [deposit] = await tx.select().from(mobileDeposits).where(eq(mobileDeposits.id, id)).for("update");
      if (!deposit || deposit.funds_available_at) return 0;
      let count = 0;
      let open = 0;
      for (const part of ["next_day", "later", "exception"] as const) {
        const transaction_id = deposit[`${part}_hold_transaction_id`];
        const available_on = deposit[`${part}_available_on`];
        if (transaction_id === null || available_on === null) continue;
        const [t] = await tx
          .select({ status: ledgerTransactions.status })
          .from(ledgerTransactions)
          .where(eq(ledgerTransactions.id, Number(transaction_id)));
        if (t?.status !== "pending") continue;
        if (available_on > on) {
          open += 1;
          continue;
        }
        const answer = await releaseHold(tx, {
          transaction_id: Number(transaction_id),
          idempotency_key: `mobile-deposit-available:${id}:${part}`,
          resolved_by: "system:mobile-deposits",
        });
        if (!answer.ok) {
          logger.error({ deposit_id: id, code: answer.code }, "a mobile deposit hold could not be released");
          open += 1;
          continue;
        }
        count += 1;
      }
      if (open === 0) {
        await tx.update(mobileDeposits).set({ funds_available_at: now }).where(eq(mobileDeposits.id, id));
        await notify(tx, {
          member_id: deposit.member_id,
          kind: "deposit_decision",
          title: `Mobile deposit of ${formatCents(Number(deposit.amount_cents))} is available`,
          body: "All of your deposited check is now available to spend.",
        });
      }
      return count;
    });
  }
  return { released, deposits: due.length };
}

// ---------------------------------------------------------------------------------------------
// What the member and staff see.

/** The funds availability policy in the member's words, with Regulation CC's amounts in force today. */
export function depositPolicyText(): string {
  return availabilityPolicyText(institution().limits.mobile_deposit_availability, today());
}
