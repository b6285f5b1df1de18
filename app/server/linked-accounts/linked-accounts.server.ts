import crypto from "node:crypto";
import { and, asc, count, desc, eq, isNull, ne } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { inRefusableTransaction as inTransaction } from "~/server/db/refusable-transaction.server";
import { linkedAccounts, users, type LinkedAccount } from "~/server/db/schema";
import { decryptField, encryptField } from "~/server/security/crypto.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { institution } from "~/config/institution.server";
import { cancelPendingPulls } from "./money-in.server";
import { refusal, type Refusal } from "~/domain/refusals";
import {
  LINKED_ACCOUNT_MESSAGES as M,
  MICRO_DEPOSIT_TRIES,
  confirmMicroDeposits,
  drawMicroDeposits,
  type LinkAccountForm,
  type LinkedAccountStatus,
} from "~/domain/linked-accounts";

/**
 * Linked accounts at other banks (docs/product.md#linked-accounts): a member links one, its
 * micro-deposits go out with the next ACH file (app/server/rails/export.server.ts takes them
 * from here), the member confirms the two amounts (three tries) and may remove it. Only the
 * member's own links are ever read or changed: another member's id answers "not found".
 */

export interface LinkedAccountView {
  id: number;
  nickname: string;
  routing_number: string;
  bank_name: string | null;
  /** "••1234": the full number is never sent to the browser. */
  masked: string;
  account_type: "checking" | "savings";
  status: LinkedAccountStatus;
  /** The micro-deposits went out in an ACH file: the member can look for them now. */
  deposits_sent: boolean;
  tries_left: number;
  /** The return code that failed it, when the other bank sent its deposits or a pull back. */
  return_code: string | null;
  created_at: Date;
}

export interface LinkMember {
  id: string;
  email: string;
}

/** What sealing the account number binds it to: a sealed number moved to another member's row does not open. */
export function accountNumberContext(member_id: string): string {
  return `linked_accounts.account_number:${member_id}`;
}

function bankName(routing_number: string): string | null {
  return institution().us_banks.find((b) => b.routing_number === routing_number)?.name ?? null;
}

function view(row: LinkedAccount): LinkedAccountView {
  return {
    id: Number(row.id),
    nickname: row.nickname,
    routing_number: row.routing_number,
    bank_name: bankName(row.routing_number),
    masked: `••${row.account_last4}`,
    account_type: row.account_type,
    status: row.status,
    deposits_sent: row.micro_file_id !== null,
    tries_left: Math.max(0, MICRO_DEPOSIT_TRIES - row.attempts),
    return_code: row.return_code,
    created_at: row.created_at,
  };
}

/** The member's links, newest first; removed ones are kept in the database but not listed. */
export async function listLinkedAccounts(db: DbOrTx, member_id: string): Promise<LinkedAccountView[]> {
  const rows = await db
    .select()
    .from(linkedAccounts)
    .where(and(eq(linkedAccounts.member_id, member_id), ne(linkedAccounts.status, "removed")))
    .orderBy(desc(linkedAccounts.id));
  return rows.map(view);
}

/** The member's verified links, for Move money in and To US Bank. */
export async function verifiedLinkedAccounts(db: DbOrTx, member_id: string): Promise<LinkedAccountView[]> {
  return (await listLinkedAccounts(db, member_id)).filter((a) => a.status === "verified");
}

/** One verified link of the member's with its account number opened, to send money to or pull from. */
export async function usableLinkedAccount(
  db: DbOrTx,
  member_id: string,
  id: number,
): Promise<(LinkedAccountView & { account_number: string }) | null> {
  if (!Number.isSafeInteger(id) || id <= 0) return null;
  const [row] = await db
    .select()
    .from(linkedAccounts)
    .where(and(eq(linkedAccounts.id, id), eq(linkedAccounts.member_id, member_id)));
  if (!row || row.status !== "verified") return null;
  return { ...view(row), account_number: decryptField(row.account_number_enc, accountNumberContext(member_id)) };
}

/** Links the account and draws its two micro-deposits; they go out with the next ACH file. */
export async function linkAccount(
  db: Db,
  member: LinkMember,
  form: LinkAccountForm,
  origin: AuditOrigin,
): Promise<LinkedAccountView> {
  const [first, second] = drawMicroDeposits(crypto.randomInt);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(linkedAccounts)
      .values({
        member_id: member.id,
        routing_number: form.routing_number,
        account_number_enc: encryptField(form.account_number, accountNumberContext(member.id)),
        account_last4: form.account_number.slice(-4),
        account_type: form.account_type,
        nickname: form.nickname,
        micro_first_cents: first,
        micro_second_cents: second,
      })
      .returning();
    await recordAudit(tx, {
      actor_id: member.id,
      actor_email: member.email,
      action: "linked_account.link",
      subject_type: "linked_account",
      subject_id: row!.id,
      member_id: member.id,
      // Never the account number or the amounts: the routing number and the last four only.
      after: { routing_number: form.routing_number, account_last4: row!.account_last4, status: "pending" },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return view(row!);
  });
}

export type ConfirmAnswer =
  | { ok: true; status: "verified"; account: LinkedAccountView }
  | Refusal<"wrong" | "failed" | "not_pending" | "not_found">;

async function lockOwn(tx: DbOrTx, member_id: string, id: number): Promise<LinkedAccount | null> {
  if (!Number.isSafeInteger(id) || id <= 0) return null;
  const [row] = await tx
    .select()
    .from(linkedAccounts)
    .where(and(eq(linkedAccounts.id, id), eq(linkedAccounts.member_id, member_id)))
    .for("update");
  return row ?? null;
}

/**
 * The member's confirmation of the two amounts, under the link's row lock (two tries at once
 * count as two). A pending link whose deposits have not gone out yet cannot be confirmed: the
 * member cannot know the amounts, so a try would only be a guess.
 */
export async function confirmLinkedAccount(
  db: Db,
  member: LinkMember,
  id: number,
  typed: readonly [number, number],
  origin: AuditOrigin,
): Promise<ConfirmAnswer> {
  // A plain transaction: a wrong try is a refusal that must still be counted (committed).
  return db.transaction(async (tx): Promise<ConfirmAnswer> => {
    const row = await lockOwn(tx, member.id, id);
    if (!row || row.status === "removed") return refusal("not_found", "That linked account was not found.");
    if (row.micro_file_id === null)
      return refusal(
        "conflict",
        "The deposits have not been sent yet. Please check again after the next business day.",
        {
          code: "not_pending",
        },
      );
    const answer = confirmMicroDeposits(
      { status: row.status, attempts: row.attempts, amounts: [row.micro_first_cents, row.micro_second_cents] },
      typed,
    );
    if (answer.outcome === "not_pending") return refusal("conflict", M.not_pending, { code: "not_pending" });
    const status: LinkedAccountStatus =
      answer.outcome === "verified" ? "verified" : answer.outcome === "failed" ? "failed" : "pending";
    const [updated] = await tx
      .update(linkedAccounts)
      .set({ attempts: answer.attempts, status, ...(status === "pending" ? {} : { resolved_at: new Date() }) })
      .where(eq(linkedAccounts.id, row.id))
      .returning();
    await recordAudit(tx, {
      actor_id: member.id,
      actor_email: member.email,
      action: `linked_account.confirm_${answer.outcome}`,
      subject_type: "linked_account",
      subject_id: row.id,
      member_id: member.id,
      before: { status: row.status, attempts: row.attempts },
      after: { status, attempts: answer.attempts },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    if (answer.outcome === "verified") return { ok: true, status: "verified", account: view(updated!) };
    if (answer.outcome === "failed") return refusal("unprocessable", M.failed, { code: "failed" });
    const left = answer.tries_left;
    return refusal("unprocessable", `${M.wrong} You have ${left} ${left === 1 ? "try" : "tries"} left.`, {
      code: "wrong",
      field: "first",
    });
  });
}

/** Removes a link (status `removed`, the row kept): nothing can be sent to or pulled from it again. */
export async function removeLinkedAccount(
  db: Db,
  member: LinkMember,
  id: number,
  origin: AuditOrigin,
): Promise<{ ok: true } | Refusal<"not_found">> {
  return inTransaction(db, async (tx) => {
    const row = await lockOwn(tx, member.id, id);
    if (!row || row.status === "removed") return refusal("not_found", "That linked account was not found.");
    await tx
      .update(linkedAccounts)
      .set({ status: "removed", resolved_at: new Date() })
      .where(eq(linkedAccounts.id, row.id));
    // Money asked for from it and not yet sent is not taken (docs/product.md#move-money-in).
    await cancelPendingPulls(
      tx,
      row.id,
      `You removed ${row.nickname}, so the money was not taken from it and nothing was added to your account.`,
    );
    await recordAudit(tx, {
      actor_id: member.id,
      actor_email: member.email,
      action: "linked_account.remove",
      subject_type: "linked_account",
      subject_id: row.id,
      member_id: member.id,
      before: { status: row.status },
      after: { status: "removed" },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return { ok: true } as const;
  });
}

/** A link whose micro-deposits the next ACH file carries, its account number opened for the file. */
export interface UnsentMicroDeposits {
  link: LinkedAccount;
  account_number: string;
  /** The member's name: the receiver of the entries at their own bank. */
  member_name: string;
}

/** Most links verified by one file (three entries each); the rest go with the next. */
export const MICRO_DEPOSIT_LINKS_PER_FILE = 1_000;

/** The pending links whose micro-deposits have not gone out, oldest first, locked for the export's transaction. */
export async function lockUnsentMicroDeposits(tx: DbOrTx, limit: number): Promise<UnsentMicroDeposits[]> {
  const rows = await tx
    .select({ link: linkedAccounts, member_name: users.name })
    .from(linkedAccounts)
    .innerJoin(users, eq(users.id, linkedAccounts.member_id))
    .where(and(eq(linkedAccounts.status, "pending"), isNull(linkedAccounts.micro_file_id)))
    .orderBy(asc(linkedAccounts.id))
    .limit(limit)
    .for("update", { of: linkedAccounts });
  return rows.map(({ link, member_name }) => ({
    link,
    member_name,
    account_number: decryptField(link.account_number_enc, accountNumberContext(link.member_id)),
  }));
}

/** Links whose micro-deposits wait for the next ACH file: the ACH queue counts them (staff export them). */
export async function unsentMicroDepositCount(db: DbOrTx): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(linkedAccounts)
    .where(and(eq(linkedAccounts.status, "pending"), isNull(linkedAccounts.micro_file_id)));
  return Number(row?.n ?? 0);
}
