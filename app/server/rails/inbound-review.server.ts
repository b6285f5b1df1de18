import type { Actor } from "~/domain/actor";
import { refusal, type Refusal } from "~/domain/refusals";
import { inRefusableTransaction, refuse } from "~/server/db/refusable-transaction.server";
import { count, eq } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import {
  achCreditReviews,
  achInboundEntries,
  achInboundFiles,
  ledgerAccounts,
  type AchCreditReview,
} from "~/server/db/schema";
import { releaseHold, reverseTransaction, today } from "~/server/ledger/ledger.server";
import { byDueDate, reviewDeadline, type ReviewDeadline } from "~/domain/review-deadlines";
import { notify } from "~/server/notifications/notifications.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { formatCents } from "~/domain/money";
import { maskAccountNumber } from "~/domain/account-display";
import { CREDIT_RETURN_CODES, isCreditReturnCode, type CreditReturnCode } from "~/domain/ach-credit-policy";
import { INBOUND_INITIATOR, readableWords } from "./inbound-posting.server";

/**
 * Incoming credits to review (docs/product.md#incoming-credits-to-review): credits that met a
 * monitoring rule posted with their amount held. Staff decide each, in one database transaction,
 * audited: Release (the hold is released, the money is available, the member told it is) or
 * Return (R17 questionable, or R23 refused by the member: the hold released and the credit
 * reversed, the entry waits in Returned items for the next return file).
 */

export const CREDIT_REVIEW_MESSAGES = {
  not_found: "This credit to review was not found.",
  decided: "This credit was already released or returned.",
  code: "Please choose why the credit goes back: questionable (R17) or refused by the member (R23).",
  blocked:
    "This credit cannot be returned while the account is frozen or closed: its amount stays held. Make the account active first, or ask a colleague who handles frozen accounts.",
} as const;

export async function creditReviewsCount(db: DbOrTx): Promise<number> {
  const [row] = await db.select({ n: count() }).from(achCreditReviews).where(eq(achCreditReviews.status, "waiting"));
  return Number(row?.n ?? 0);
}

export interface CreditReviewRow {
  id: number;
  company_name: string;
  entry_description: string;
  sec_code: string;
  individual_name: string;
  /** The account as staff read it: type and number masked but for the last four. */
  account: string;
  amount_cents: number;
  reasons: { rule: string; detail: string }[];
  trace_number: string;
  file_name: string;
  line: number;
  received_at: Date;
  /** When it must be decided (docs/product.md#review-deadlines), its age and how it stands. */
  deadline: ReviewDeadline;
}

export const CREDIT_REVIEW_ROWS_MAX = 100;

/** The credits waiting, by due date (the most overdue first), each with its deadline and age. */
export async function waitingCreditReviews(db: DbOrTx, now: Date = new Date()): Promise<CreditReviewRow[]> {
  const day = today(now);
  const rows = await db
    .select({
      r: achCreditReviews,
      e: achInboundEntries,
      file_name: achInboundFiles.file_name,
      uploaded_at: achInboundFiles.uploaded_at,
      account_type: ledgerAccounts.type,
      account_number: ledgerAccounts.account_number,
    })
    .from(achCreditReviews)
    .innerJoin(achInboundEntries, eq(achInboundEntries.id, achCreditReviews.entry_id))
    .innerJoin(achInboundFiles, eq(achInboundFiles.id, achInboundEntries.file_id))
    .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, achCreditReviews.account_id))
    .where(eq(achCreditReviews.status, "waiting"))
    .orderBy(achCreditReviews.id)
    .limit(CREDIT_REVIEW_ROWS_MAX);
  const list = rows.map(({ r, e, file_name, uploaded_at, account_type, account_number }) => ({
    id: Number(r.id),
    company_name: e.company_name,
    entry_description: e.entry_description,
    sec_code: e.sec_code,
    individual_name: e.individual_name,
    account: `${accountWord(account_type)} ${maskAccountNumber(account_number)}`,
    amount_cents: Number(r.amount_cents),
    reasons: r.reasons,
    trace_number: e.trace_number,
    file_name,
    line: e.line,
    received_at: uploaded_at,
    deadline: reviewDeadline("credit_review", today(uploaded_at), day),
  }));
  return byDueDate(list);
}

function accountWord(type: string): string {
  return type === "savings" ? "Savings" : type === "checking" ? "Checking" : "Account";
}

export type CreditReviewResult = { ok: true; message: string } | Refusal;

async function lockWaiting(tx: DbOrTx, review_id: number): Promise<AchCreditReview> {
  if (!Number.isSafeInteger(review_id) || review_id <= 0)
    return refuse(refusal("not_found", CREDIT_REVIEW_MESSAGES.not_found));
  const [review] = await tx.select().from(achCreditReviews).where(eq(achCreditReviews.id, review_id)).for("update");
  if (!review) return refuse(refusal("not_found", CREDIT_REVIEW_MESSAGES.not_found));
  if (review.status !== "waiting") return refuse(refusal("conflict", CREDIT_REVIEW_MESSAGES.decided));
  return review;
}

async function entryOf(tx: DbOrTx, review: AchCreditReview) {
  const [entry] = await tx
    .select()
    .from(achInboundEntries)
    .where(eq(achInboundEntries.id, review.entry_id))
    .for("update");
  const [account] = await tx.select().from(ledgerAccounts).where(eq(ledgerAccounts.id, review.account_id));
  if (!entry || !account) throw new Error(`credit review ${review.id} names no entry or account`);
  return { entry, where: `${accountWord(account.type)} ${maskAccountNumber(account.account_number)}` };
}

/** Release: staff found nothing wrong; the held amount becomes available. */
export async function releaseCreditReview(
  db: Db,
  review_id: number,
  staff: Actor,
  origin: AuditOrigin,
): Promise<CreditReviewResult> {
  return inRefusableTransaction(db, async (tx) => {
    const review = await lockWaiting(tx, review_id);
    const { entry, where } = await entryOf(tx, review);
    const released = await releaseHold(tx, {
      transaction_id: Number(review.hold_transaction_id),
      idempotency_key: `ach-credit-release:${review.id}`,
      resolved_by: `staff:${staff.id}`,
    });
    if (!released.ok) throw new Error(`credit review ${review.id}: its hold could not be released (${released.code})`);
    const now = new Date();
    await tx
      .update(achCreditReviews)
      .set({ status: "released", decided_by: staff.id, decided_at: now })
      .where(eq(achCreditReviews.id, review.id));
    const amount = formatCents(Number(review.amount_cents));
    await notify(tx, {
      member_id: review.member_id,
      kind: "ach_received",
      title: `Deposit of ${amount} from ${readableWords(entry.company_name)} is available`,
      body: `The hold on it was released; it is available in your ${where}.`,
    });
    await recordAudit(tx, {
      actor_id: staff.id,
      actor_email: staff.email,
      action: "ach_inbound.credit_released",
      subject_type: "ach_inbound_entry",
      subject_id: entry.id,
      member_id: review.member_id,
      before: { status: "waiting", reasons: review.reasons.map((r) => r.rule) },
      after: {
        status: "released",
        amount_cents: Number(review.amount_cents),
        hold_transaction_id: Number(review.hold_transaction_id),
      },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return { ok: true, message: `The credit of ${amount} was released; it is available to the member.` };
  });
}

/**
 * Return: R17 (the credit union believes it was sent under false pretenses; Nacha asks for
 * QUESTIONABLE in the return's addenda) or R23 (the member refuses it). The hold is released and
 * the credit reversed (the money goes back to the ACH settlement account), and the entry waits in
 * Returned items for the next return file.
 */
export async function returnCreditReview(
  db: Db,
  review_id: number,
  code: string,
  staff: Actor,
  origin: AuditOrigin,
): Promise<CreditReviewResult> {
  if (!isCreditReturnCode(code)) return refusal("bad_input", CREDIT_REVIEW_MESSAGES.code, { field: "return_code" });
  const return_code: CreditReturnCode = code;
  return inRefusableTransaction(db, async (tx) => {
    const review = await lockWaiting(tx, review_id);
    const { entry, where } = await entryOf(tx, review);
    const released = await releaseHold(tx, {
      transaction_id: Number(review.hold_transaction_id),
      idempotency_key: `ach-credit-return-release:${review.id}`,
      resolved_by: `staff:${staff.id}`,
    });
    if (!released.ok) throw new Error(`credit review ${review.id}: its hold could not be released (${released.code})`);
    const reversed = await reverseTransaction(tx, {
      transaction_id: Number(review.credit_transaction_id),
      idempotency_key: `ach-credit-return:${review.id}`,
      initiator: INBOUND_INITIATOR,
      created_by: staff.id,
      memo: `Returned to ${readableWords(entry.company_name)}`,
    });
    if (!reversed.ok) {
      if (reversed.code === "account_frozen" || reversed.code === "account_closed")
        return refuse(refusal("conflict", CREDIT_REVIEW_MESSAGES.blocked));
      if (reversed.code === "already_reversed") return refuse(refusal("conflict", CREDIT_REVIEW_MESSAGES.decided));
      throw new Error(`credit review ${review.id}: the credit could not be reversed (${reversed.code})`);
    }
    const now = new Date();
    await tx
      .update(achCreditReviews)
      .set({ status: "returned", return_code, decided_by: staff.id, decided_at: now })
      .where(eq(achCreditReviews.id, review.id));
    await tx
      .update(achInboundEntries)
      .set({ status: "returned", return_code, resolved_at: now })
      .where(eq(achInboundEntries.id, entry.id));
    const amount = formatCents(Number(review.amount_cents));
    const company = readableWords(entry.company_name);
    // No reason is given to the member: a return for suspected fraud must not tip anyone off.
    await notify(tx, {
      member_id: review.member_id,
      kind: "ach_returned",
      title: `The deposit of ${amount} from ${company} was sent back`,
      body: `It was returned to ${company} and is no longer in your ${where}.`,
    });
    await recordAudit(tx, {
      actor_id: staff.id,
      actor_email: staff.email,
      action: "ach_inbound.credit_returned",
      subject_type: "ach_inbound_entry",
      subject_id: entry.id,
      member_id: review.member_id,
      before: { status: "waiting", reasons: review.reasons.map((r) => r.rule) },
      after: {
        status: "returned",
        return_code,
        amount_cents: Number(review.amount_cents),
        reversal_transaction_id: reversed.transaction.id,
      },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return {
      ok: true,
      message: `The credit of ${amount} was returned as ${return_code} (${CREDIT_RETURN_CODES[return_code].replace(/ \(R\d\d\)$/, "")}); it waits in Returned items for the return file.`,
    };
  });
}
