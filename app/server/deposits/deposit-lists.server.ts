import type { Actor } from "~/domain/actor";
import { accountLabel } from "~/domain/account-display";
import { asc, count, desc, eq } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { ledgerAccounts, mobileDeposits, users, type MobileDepositRow } from "~/server/db/schema";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { type CheckSide } from "~/domain/mobile-deposit";
import { holdReasonText, HOLD_EXCEPTION_RULES, type HoldException } from "~/domain/funds-availability";
import { readCheckImage, readCheckThumbnail } from "./images.server";

/**
 * What the member's Deposit page and the staff queue list of mobile deposits, and a check's
 * images for staff (docs/product.md#mobile-deposit). Reads only.
 */

export interface MemberDeposit {
  id: number;
  account: string;
  amount_cents: number;
  status: MobileDepositRow["status"];
  created_at: Date;
  reviewed_at: Date | null;
  reject_reason: string | null;
  /** Approved: the parts still held and when each becomes available; empty once all is. */
  availability: { amount_cents: number; available_on: string }[];
  /** The exception hold notice (229.13(g)) the member was given, while it stands or after. */
  hold_notice: {
    exception: HoldException;
    rule: string;
    reason: string;
    deposited_on: string;
    amount_cents: number;
    available_on: string;
  } | null;
}

export const MEMBER_DEPOSITS_MAX = 50;

export async function memberDeposits(db: DbOrTx, member_id: string): Promise<MemberDeposit[]> {
  const rows = await db
    .select({ d: mobileDeposits, account_number: ledgerAccounts.account_number, account_type: ledgerAccounts.type })
    .from(mobileDeposits)
    .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, mobileDeposits.account_id))
    .where(eq(mobileDeposits.member_id, member_id))
    .orderBy(desc(mobileDeposits.id))
    .limit(MEMBER_DEPOSITS_MAX);
  return rows.map(({ d, account_number, account_type }) => ({
    id: Number(d.id),
    account: accountLabel({ type: account_type, account_number }),
    amount_cents: Number(d.amount_cents),
    status: d.status,
    created_at: d.created_at,
    reviewed_at: d.reviewed_at,
    reject_reason: d.reject_reason,
    availability:
      d.status === "approved" && !d.funds_available_at
        ? [
            { amount_cents: Number(d.next_day_amount_cents), available_on: d.next_day_available_on ?? "" },
            { amount_cents: Number(d.later_amount_cents), available_on: d.later_available_on ?? "" },
            { amount_cents: Number(d.exception_amount_cents), available_on: d.exception_available_on ?? "" },
          ].filter((p) => p.amount_cents > 0 && p.available_on)
        : [],
    hold_notice:
      d.hold_exception && d.hold_notice_at && d.exception_available_on && d.deposited_on
        ? {
            exception: d.hold_exception,
            rule: HOLD_EXCEPTION_RULES[d.hold_exception],
            reason: holdReasonText(d.hold_exception, d.hold_reason, d.deposited_on),
            deposited_on: d.deposited_on,
            amount_cents: Number(d.exception_amount_cents),
            available_on: d.exception_available_on,
          }
        : null,
  }));
}

export interface QueuedDeposit {
  id: number;
  member_name: string;
  member_email: string;
  account: string;
  /** False when the account is frozen or closed: approving would be refused. */
  account_active: boolean;
  amount_cents: number;
  created_at: Date;
  /** An earlier deposit of the same check (same amount, account and photo), or null. */
  duplicate_of_id: number | null;
}

export const DEPOSIT_QUEUE_ROWS_MAX = 100;

export async function pendingDeposits(db: DbOrTx): Promise<QueuedDeposit[]> {
  const rows = await db
    .select({
      d: mobileDeposits,
      member_name: users.name,
      member_email: users.email,
      account_number: ledgerAccounts.account_number,
      account_type: ledgerAccounts.type,
      account_status: ledgerAccounts.status,
    })
    .from(mobileDeposits)
    .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, mobileDeposits.account_id))
    .leftJoin(users, eq(users.id, mobileDeposits.member_id))
    .where(eq(mobileDeposits.status, "pending_review"))
    .orderBy(asc(mobileDeposits.id))
    .limit(DEPOSIT_QUEUE_ROWS_MAX);
  return rows.map(({ d, ...r }) => ({
    id: Number(d.id),
    member_name: r.member_name ?? "",
    member_email: r.member_email ?? "",
    account: accountLabel({ type: r.account_type, account_number: r.account_number }),
    account_active: r.account_status === "active",
    amount_cents: Number(d.amount_cents),
    created_at: d.created_at,
    duplicate_of_id: d.duplicate_of_id === null ? null : Number(d.duplicate_of_id),
  }));
}

export async function pendingDepositCount(db: DbOrTx): Promise<number> {
  const [row] = await db.select({ n: count() }).from(mobileDeposits).where(eq(mobileDeposits.status, "pending_review"));
  return Number(row?.n ?? 0);
}

/**
 * One photo of a deposit for staff, full size or as the review queue's thumbnail. The queue shows
 * every waiting deposit's two thumbnails (made once at upload, stored encrypted like the photo),
 * which is where staff tell one check from another; the account number and signature are read on
 * the full-size photo, so that view, and only that one, is audited (one audit row per photo a
 * person opened, not two per row each time the queue is listed).
 */
export async function depositImage(
  db: DbOrTx,
  deposit_id: number,
  side: CheckSide,
  staff: Actor,
  origin: AuditOrigin,
  size: "full" | "thumbnail" = "full",
): Promise<Buffer | null> {
  if (!Number.isSafeInteger(deposit_id) || deposit_id <= 0) return null;
  const [deposit] = await db.select().from(mobileDeposits).where(eq(mobileDeposits.id, deposit_id));
  if (!deposit) return null;
  const file = side === "front" ? deposit.front_image_file : deposit.back_image_file;
  if (size === "thumbnail") return readCheckThumbnail(file);
  const content = await readCheckImage(file);
  if (!content) return null;
  await recordAudit(db, {
    actor_id: staff.id,
    actor_email: staff.email,
    action: "mobile_deposit.image_view",
    subject_type: "mobile_deposit",
    subject_id: deposit_id,
    member_id: deposit.member_id,
    after: { side },
    ...origin,
  });
  return content;
}
