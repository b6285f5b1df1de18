import type { Actor } from "~/domain/actor";
import { refusal, type Refusal } from "~/domain/refusals";
import { inRefusableTransaction, refuse } from "~/server/db/refusable-transaction.server";
import { accountLabel } from "~/domain/account-display";
import { and, asc, eq, or } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { ledgerAccounts, mobileDeposits, type MobileDepositRow } from "~/server/db/schema";
import { getBalances, institutionAccount, memberAccounts, type AccountView } from "~/server/ledger/accounts.server";
import { placeHold, releaseHold, settleHold, today, type LedgerAnswer } from "~/server/ledger/ledger.server";
import { notify } from "~/server/notifications/notifications.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { institution } from "~/config/institution.server";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { asSentence } from "~/domain/plain-text";
import { REFUSAL_MESSAGES } from "~/domain/refusals";
import { MOBILE_DEPOSIT_MESSAGES } from "~/domain/mobile-deposit";
import {
  availabilityPlan,
  holdNoticeText,
  HOLD_EXCEPTION_LABELS,
  HOLD_EXCEPTION_RULES,
  type ApproveHold,
  type AvailabilityPlan,
  type HoldException,
} from "~/domain/funds-availability";
import { onPaperDelivery } from "~/server/electronic-delivery/electronic-delivery.server";
import { checkCheckImage, removeCheckImage, storeCheckImage } from "./images.server";
import { depositFacts, mailHoldNotice, type HoldNoticeToSend } from "./availability.server";

/**
 * Mobile Deposit (docs/product.md#mobile-deposit). The money moves only through the ledger:
 *   - submit: a PENDING credit to the member's account against deposits in transit. A pending
 *     credit changes neither balance: the member sees it as Pending, and cannot spend it;
 *   - approve: that credit settles (the current balance rises), and the part the availability
 *     policy does not yet release is held (pending debits against deposits in transit), one hold
 *     per availability date; `releaseAvailableDeposits` (a job) releases each on its date;
 *   - reject: the pending credit fails, with the reason the member is told.
 * Every step writes its row, its ledger change, the member's notification and the audit record in
 * one database transaction. Staff review one deposit at a time: the row is locked, so two staff
 * deciding at once decide once.
 */

export type SubmitResult = { ok: true; deposit_id: number; amount_cents: number; replayed: boolean } | Refusal;

export type ReviewResult = { ok: true; deposit_id: number; message: string } | Refusal;

export const REVIEW_MESSAGES = {
  not_found: "This deposit was not found.",
  already_reviewed: "This deposit was already reviewed.",
  reason_missing: "Please give the reason the deposit is rejected.",
  reason_too_long: "The reason is at most 300 characters.",
} as const;
const REASON_MAX_CHARS = 300;
/** Accounts a check may be deposited to. */
const DEPOSIT_ACCOUNT_TYPES = new Set(["checking", "savings"]);

/** The member's accounts a check may go to (open checking and savings). */
export async function depositAccounts(db: DbOrTx, member_id: string): Promise<AccountView[]> {
  return (await memberAccounts(db, member_id)).filter(
    (a) => DEPOSIT_ACCOUNT_TYPES.has(a.type) && a.status !== "closed",
  );
}

function ledgerOrRefuse<T extends LedgerAnswer>(answer: T, field?: "account_id"): Extract<T, { ok: true }> {
  if (answer.ok) return answer as Extract<T, { ok: true }>;
  const message =
    answer.code === "account_frozen" || answer.code === "account_closed"
      ? REFUSAL_MESSAGES[answer.code]
      : MOBILE_DEPOSIT_MESSAGES.failed;
  return refuse(refusal("conflict", message, field ? { field } : {}));
}

/**
 * A member's deposit. `input` is the form's checked fields (mobileDepositSchema) and the two
 * uploads. The account must be one of the member's open checking or savings accounts; another
 * member's answers like one that does not exist. The same form sent twice (its idempotency key)
 * makes one deposit. A deposit of the same amount to the same account with a photo already sent
 * is accepted but marked for staff (`duplicate_of_id`).
 */
export async function submitMobileDeposit(
  db: Db,
  member: Actor,
  input: { account_id: number; amount_cents: number; idempotency_key: string; front: File | null; back: File | null },
  origin: AuditOrigin,
): Promise<SubmitResult> {
  const account = (await depositAccounts(db, member.id)).find((a) => a.id === input.account_id);
  if (!account) return refusal("not_found", REFUSAL_MESSAGES.not_your_account, { field: "account_id" });
  const max = institution().limits.mobile_deposit_max_cents;
  if (!Number.isSafeInteger(input.amount_cents) || input.amount_cents < 1 || input.amount_cents > max) {
    return refusal("bad_input", MOBILE_DEPOSIT_MESSAGES.amount, { field: "amount" });
  }
  const repeat = await findByKey(db, member.id, input.idempotency_key);
  if (repeat) return { ok: true, deposit_id: repeat.id, amount_cents: repeat.amount_cents, replayed: true };

  const front = await checkCheckImage("front", input.front);
  if (!front.ok) return refusal("bad_input", front.message, { field: "front_image" });
  const back = await checkCheckImage("back", input.back);
  if (!back.ok) return refusal("bad_input", back.message, { field: "back_image" });

  const files = [await storeCheckImage(front.content), await storeCheckImage(back.content)] as const;
  const forget = () => Promise.all(files.map((f) => removeCheckImage(f).catch(() => undefined)));
  const check = { front: front.sha256, back: back.sha256, files };
  try {
    const result = await inRefusableTransaction(db, (tx) => recordDeposit(tx, member, account, input, check, origin));
    if (!result.ok) await forget();
    return result;
  } catch (error) {
    await forget();
    // The same form raced itself: the other request made the deposit.
    const again = await findByKey(db, member.id, input.idempotency_key).catch(() => null);
    if (again) return { ok: true, deposit_id: again.id, amount_cents: again.amount_cents, replayed: true };
    throw error;
  }
}

/** The check's two stored photos and their fingerprints. */
type CheckImages = { front: string; back: string; files: readonly [string, string] };

/**
 * The deposit in the ledger (a pending credit against deposits in transit), its row (marked when
 * the same check seems sent before), the member's notification and the audit row.
 */
async function recordDeposit(
  tx: DbOrTx,
  member: Actor,
  account: AccountView,
  input: { amount_cents: number; idempotency_key: string },
  check: CheckImages,
  origin: AuditOrigin,
): Promise<SubmitResult> {
  const in_transit = await institutionAccount(tx, "deposits_in_transit");
  const credit = ledgerOrRefuse(
    await placeHold(tx, {
      idempotency_key: `mobile-deposit:${input.idempotency_key}`,
      initiator: `member:${member.id}`,
      kind: "mobile_deposit",
      created_by: member.id,
      memo: "Mobile deposit",
      category: "Deposit",
      entries: [
        { account_id: account.id, amount_cents: input.amount_cents },
        { account_id: in_transit.id, amount_cents: -input.amount_cents },
      ],
    }),
    "account_id",
  );
  const duplicate_of_id = await sameCheckBefore(tx, account.id, input.amount_cents, check);
  const [row] = await tx
    .insert(mobileDeposits)
    .values({
      member_id: member.id,
      account_id: account.id,
      amount_cents: input.amount_cents,
      pending_transaction_id: credit.transaction.id,
      idempotency_key: input.idempotency_key,
      front_image_file: check.files[0],
      back_image_file: check.files[1],
      front_image_sha256: check.front,
      back_image_sha256: check.back,
      duplicate_of_id,
    })
    .returning({ id: mobileDeposits.id });
  const deposit_id = Number(row!.id);
  await notify(tx, {
    member_id: member.id,
    kind: "deposit_decision",
    title: `Mobile deposit of ${formatCents(input.amount_cents)} received`,
    body: `Your check to ${accountLabel(account)} is pending review. It is not available until the credit union approves it; you will be told when it is.`,
  });
  await recordAudit(tx, {
    actor_id: member.id,
    actor_email: member.email,
    action: "mobile_deposit.submit",
    subject_type: "mobile_deposit",
    subject_id: deposit_id,
    member_id: member.id,
    after: {
      status: "pending_review",
      account_id: account.id,
      amount_cents: input.amount_cents,
      transaction_id: credit.transaction.id,
      duplicate_of_id,
    },
    ...origin,
  });
  return { ok: true as const, deposit_id, amount_cents: input.amount_cents, replayed: false };
}

/**
 * The first earlier deposit of the same amount to the same account with either photo already
 * sent (front or back, either way round): the same check deposited twice, for staff to see.
 */
async function sameCheckBefore(
  tx: DbOrTx,
  account_id: number,
  amount_cents: number,
  check: CheckImages,
): Promise<number | null> {
  const [duplicate] = await tx
    .select({ id: mobileDeposits.id })
    .from(mobileDeposits)
    .where(
      and(
        eq(mobileDeposits.account_id, account_id),
        eq(mobileDeposits.amount_cents, amount_cents),
        or(
          eq(mobileDeposits.front_image_sha256, check.front),
          eq(mobileDeposits.back_image_sha256, check.back),
          eq(mobileDeposits.front_image_sha256, check.back),
          eq(mobileDeposits.back_image_sha256, check.front),
        ),
      ),
    )
    .orderBy(asc(mobileDeposits.id))
    .limit(1);
  return duplicate?.id ?? null;
}

async function findByKey(
  db: DbOrTx,
  member_id: string,
  idempotency_key: string,
): Promise<{ id: number; amount_cents: number } | null> {
  const [row] = await db
    .select({ id: mobileDeposits.id, amount_cents: mobileDeposits.amount_cents })
    .from(mobileDeposits)
    .where(and(eq(mobileDeposits.member_id, member_id), eq(mobileDeposits.idempotency_key, idempotency_key)));
  return row ? { id: Number(row.id), amount_cents: Number(row.amount_cents) } : null;
}

async function lockPending(tx: DbOrTx, deposit_id: number): Promise<MobileDepositRow> {
  if (!Number.isSafeInteger(deposit_id) || deposit_id <= 0)
    return refuse(refusal("not_found", REVIEW_MESSAGES.not_found));
  const [deposit] = await tx.select().from(mobileDeposits).where(eq(mobileDeposits.id, deposit_id)).for("update");
  if (!deposit) return refuse(refusal("not_found", REVIEW_MESSAGES.not_found));
  if (deposit.status !== "pending_review") return refuse(refusal("conflict", REVIEW_MESSAGES.already_reviewed));
  return deposit;
}

/** A review step in one database transaction; a refusal inside it (`refuse`) rolls it back. */
function review(db: Db, work: (tx: DbOrTx) => Promise<ReviewResult>): Promise<ReviewResult> {
  return inRefusableTransaction(db, work);
}

/**
 * Staff approve: the pending credit settles, and the amounts not yet available are held until the
 * dates of Regulation CC's schedule (app/domain/funds-availability.ts, with the profile's policy),
 * counted from the banking day the member sent the check; an exception hold (a new account, a
 * large deposit, or the one staff chose) is held longer and the member gets the hold notice of
 * 12 CFR 229.13(g), in the app and by email (and on the paper list when they have not consented to
 * electronic delivery). A part whose day has already come is not held. A hold never takes more than
 * the account has available after the credit (an overdrawn account keeps what it owes).
 */
export async function approveMobileDeposit(
  db: Db,
  deposit_id: number,
  staff: Actor,
  origin: AuditOrigin,
  hold: ApproveHold = { exception: null, reason: "" },
): Promise<ReviewResult> {
  let notice: HoldNoticeToSend | null = null;
  const result = await review(db, async (tx) => {
    const deposit = await lockPending(tx, deposit_id);
    const id = Number(deposit.id);
    const amount_cents = Number(deposit.amount_cents);
    ledgerOrRefuse(
      await settleHold(tx, {
        transaction_id: Number(deposit.pending_transaction_id),
        idempotency_key: `mobile-deposit-approve:${id}`,
        resolved_by: `staff:${staff.id}`,
      }),
    );
    const facts = await depositFacts(tx, deposit);
    const plan = availabilityPlan(
      { amount_cents, ...facts, staff_exception: hold.exception },
      institution().limits.mobile_deposit_availability,
    );
    const holds = await placeAvailabilityHolds(tx, deposit, plan, staff);
    const approval: Approval = {
      deposit,
      amount_cents,
      deposited_on: facts.deposited_on,
      plan,
      holds,
      held_exception: holds.exception.amount > 0 ? plan.exception : null,
      reason: hold.reason,
      channel: null,
    };
    if (approval.held_exception) approval.channel = (await onPaperDelivery(tx, deposit.member_id)) ? "mail" : "email";
    await recordApproval(tx, approval, staff);
    await tellMemberApproved(tx, approval);
    if (approval.held_exception) notice = await sendHoldNotice(tx, approval, approval.held_exception);
    await auditApproval(tx, approval, staff, origin);
    return { ok: true, deposit_id: id, message: approvalMessage(approval) };
  });
  const sent = notice as HoldNoticeToSend | null;
  if (result.ok && sent) await mailHoldNotice(db, sent);
  return result;
}

/** One availability hold placed (nothing held: amount 0, no transaction). */
type PlacedHold = { amount: number; transaction_id: number | null };

/** An approval as its steps write it: the plan, the holds placed, and how a hold notice goes out. */
interface Approval {
  deposit: MobileDepositRow;
  amount_cents: number;
  deposited_on: string;
  plan: AvailabilityPlan;
  holds: { next_day: PlacedHold; later: PlacedHold; exception: PlacedHold };
  /** The exception hold actually placed (none when its part was not held). */
  held_exception: HoldException | null;
  /** Staff's reason for a reasonable-cause hold. */
  reason: string;
  channel: "mail" | "email" | null;
}

/**
 * The plan's parts not yet available, each held until its date (pending debits against deposits
 * in transit). A part whose day has already come is not held, and the holds never take more than
 * the account has available after the credit (an overdrawn account keeps what it owes).
 */
async function placeAvailabilityHolds(
  tx: DbOrTx,
  deposit: MobileDepositRow,
  plan: AvailabilityPlan,
  staff: Actor,
): Promise<Approval["holds"]> {
  const id = Number(deposit.id);
  const approved_on = today();
  const [account] = await getBalances(tx, [Number(deposit.account_id)]);
  let spendable = Math.max(0, account!.available_cents);
  const in_transit = await institutionAccount(tx, "deposits_in_transit");
  const place = async (part: "next_day" | "later" | "exception", wanted_cents: number, available_on: string) => {
    const amount = available_on > approved_on ? Math.min(wanted_cents, spendable) : 0;
    if (amount <= 0) return { amount: 0, transaction_id: null };
    spendable -= amount;
    const answer = ledgerOrRefuse(
      await placeHold(tx, {
        idempotency_key: `mobile-deposit-hold:${id}:${part}`,
        initiator: "system:mobile-deposits",
        kind: "mobile_deposit",
        created_by: staff.id,
        memo: `Deposit hold: available ${formatBusinessDate(available_on)}`,
        category: "Deposit",
        effective_date: approved_on,
        entries: [
          { account_id: Number(deposit.account_id), amount_cents: -amount },
          { account_id: in_transit.id, amount_cents: amount },
        ],
      }),
    );
    return { amount, transaction_id: answer.transaction.id };
  };
  // The part released last first: what the account cannot hold comes off it.
  const exception = await place("exception", plan.exception_cents, plan.exception_available_on);
  const later = await place("later", plan.later_cents, plan.later_available_on);
  const next_day = await place("next_day", plan.next_day_cents, plan.next_day_available_on);
  return { next_day, later, exception };
}

/** The deposit row approved, with each held part's amount, date and hold transaction. */
async function recordApproval(tx: DbOrTx, a: Approval, staff: Actor): Promise<void> {
  const { plan, held_exception } = a;
  const { next_day, later, exception } = a.holds;
  const now = new Date();
  await tx
    .update(mobileDeposits)
    .set({
      status: "approved",
      reviewed_at: now,
      reviewed_by: staff.id,
      deposited_on: a.deposited_on,
      next_day_amount_cents: next_day.amount,
      next_day_available_on: next_day.amount > 0 ? plan.next_day_available_on : null,
      next_day_hold_transaction_id: next_day.transaction_id,
      later_amount_cents: later.amount,
      later_available_on: later.amount > 0 ? plan.later_available_on : null,
      later_hold_transaction_id: later.transaction_id,
      hold_exception: held_exception,
      hold_reason: held_exception === "reasonable_cause" ? a.reason : null,
      exception_amount_cents: exception.amount,
      exception_available_on: exception.amount > 0 ? plan.exception_available_on : null,
      exception_hold_transaction_id: exception.transaction_id,
      hold_notice_at: held_exception ? now : null,
      hold_notice_channel: a.channel,
      funds_available_at: next_day.amount + later.amount + exception.amount === 0 ? now : null,
    })
    .where(eq(mobileDeposits.id, Number(a.deposit.id)));
}

/** The member's notification, in the deposit page's words for each part ("$275.00 available on Nov 30, 2026"). */
async function tellMemberApproved(tx: DbOrTx, a: Approval): Promise<void> {
  const { plan } = a;
  const { next_day, later, exception } = a.holds;
  const available_now = a.amount_cents - next_day.amount - later.amount - exception.amount;
  const parts = [
    available_now > 0 ? `${formatCents(available_now)} is available now` : null,
    ...(
      [
        [next_day.amount, plan.next_day_available_on],
        [later.amount, plan.later_available_on],
        [exception.amount, plan.exception_available_on],
      ] as const
    )
      .filter(([cents]) => cents > 0)
      .map(([cents, on]) => `${formatCents(cents)} available on ${formatBusinessDate(on)}`),
  ].filter(Boolean);
  await notify(tx, {
    member_id: a.deposit.member_id,
    kind: "deposit_decision",
    title: `Mobile deposit of ${formatCents(a.amount_cents)} approved`,
    body: `Your check was approved and posted. ${parts.join("; ")}.`,
  });
}

/**
 * The hold notice of 12 CFR 229.13(g) for an exception hold: in the app now, and returned to be
 * emailed once the transaction has committed.
 */
async function sendHoldNotice(tx: DbOrTx, a: Approval, held_exception: HoldException): Promise<HoldNoticeToSend> {
  const [accountRow] = await tx
    .select({ type: ledgerAccounts.type, account_number: ledgerAccounts.account_number })
    .from(ledgerAccounts)
    .where(eq(ledgerAccounts.id, Number(a.deposit.account_id)));
  const text = holdNoticeText({
    account_label: accountRow ? accountLabel(accountRow) : "",
    deposited_on: a.deposited_on,
    deposit_cents: a.amount_cents,
    held_cents: a.holds.exception.amount,
    available_on: a.plan.exception_available_on,
    exception: held_exception,
    reason: held_exception === "reasonable_cause" ? a.reason : null,
    support_phone: institution().support_phone,
    support_email: institution().support_email,
  });
  const subject = `Notice of hold on your deposit of ${formatCents(a.amount_cents)}`;
  await notify(tx, { member_id: a.deposit.member_id, kind: "deposit_decision", title: subject, body: text });
  return { member_id: a.deposit.member_id, subject, text };
}

async function auditApproval(tx: DbOrTx, a: Approval, staff: Actor, origin: AuditOrigin): Promise<void> {
  const { plan, held_exception } = a;
  const { next_day, later, exception } = a.holds;
  await recordAudit(tx, {
    actor_id: staff.id,
    actor_email: staff.email,
    action: "mobile_deposit.approve",
    subject_type: "mobile_deposit",
    subject_id: Number(a.deposit.id),
    member_id: a.deposit.member_id,
    before: { status: "pending_review" },
    after: {
      status: "approved",
      amount_cents: a.amount_cents,
      deposited_on: a.deposited_on,
      next_day: {
        amount_cents: next_day.amount,
        available_on: plan.next_day_available_on,
        transaction_id: next_day.transaction_id,
      },
      later: {
        amount_cents: later.amount,
        available_on: plan.later_available_on,
        transaction_id: later.transaction_id,
      },
      exception: {
        kind: held_exception,
        rule: held_exception ? HOLD_EXCEPTION_RULES[held_exception] : null,
        amount_cents: exception.amount,
        available_on: plan.exception_available_on,
        transaction_id: exception.transaction_id,
        notice: a.channel,
      },
    },
    ...origin,
  });
}

/** What staff read: the deposit approved and, for an exception hold, what is held, why, and how the member was told. */
function approvalMessage(a: Approval): string {
  const { held_exception } = a;
  const held = held_exception
    ? ` ${formatCents(a.holds.exception.amount)} is held until ${formatBusinessDate(a.plan.exception_available_on)} (${HOLD_EXCEPTION_LABELS[held_exception].toLowerCase()}, ${HOLD_EXCEPTION_RULES[held_exception]}); the member was sent the hold notice${a.channel === "mail" ? " and is on the paper mail list for it" : ""}.`
    : "";
  return `Deposit of ${formatCents(a.amount_cents)} approved and posted.${held}`;
}

/** Staff reject with a reason: the pending credit fails, and the member is told why. */
export async function rejectMobileDeposit(
  db: Db,
  deposit_id: number,
  reason_text: string,
  staff: Actor,
  origin: AuditOrigin,
): Promise<ReviewResult> {
  const reason = reason_text.replace(/\s+/g, " ").trim();
  if (!reason) return refusal("bad_input", REVIEW_MESSAGES.reason_missing, { field: "reason" });
  if (reason.length > REASON_MAX_CHARS)
    return refusal("bad_input", REVIEW_MESSAGES.reason_too_long, { field: "reason" });
  return review(db, async (tx) => {
    const deposit = await lockPending(tx, deposit_id);
    const id = Number(deposit.id);
    const amount_cents = Number(deposit.amount_cents);
    ledgerOrRefuse(
      await releaseHold(tx, {
        transaction_id: Number(deposit.pending_transaction_id),
        idempotency_key: `mobile-deposit-reject:${id}`,
        resolved_by: `staff:${staff.id}`,
      }),
    );
    await tx
      .update(mobileDeposits)
      .set({ status: "rejected", reviewed_at: new Date(), reviewed_by: staff.id, reject_reason: reason })
      .where(eq(mobileDeposits.id, id));
    await notify(tx, {
      member_id: deposit.member_id,
      kind: "deposit_decision",
      title: `Mobile deposit of ${formatCents(amount_cents)} rejected`,
      body: `Your check was not deposited: ${asSentence(reason)} Nothing was added to your account. Please contact us if you have questions.`,
    });
    await recordAudit(tx, {
      actor_id: staff.id,
      actor_email: staff.email,
      action: "mobile_deposit.reject",
      subject_type: "mobile_deposit",
      subject_id: id,
      member_id: deposit.member_id,
      before: { status: "pending_review" },
      after: { status: "rejected", amount_cents, reason },
      ...origin,
    });
    return {
      ok: true,
      deposit_id: id,
      message: `Deposit of ${formatCents(amount_cents)} rejected; the member is told why.`,
    };
  });
}
