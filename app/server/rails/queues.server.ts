import { and, asc, count, desc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { achInboundEntries, externalPayments, ledgerAccounts, paymentExportFiles, users } from "~/server/db/schema";
import { maskAccountNumber, referenceNumber } from "~/domain/account-display";
import { maskedNumber, maskedWireAccount } from "~/server/payments/payment-destination.server";
import { formatCurrencyAmount } from "~/domain/currencies";
import { QUEUE_TITLES } from "~/domain/queues";
import { memberPaymentStatus, type PaymentStatus } from "~/domain/payment-status";
import { returnReason } from "~/domain/nacha/return-file";
import { recentExportFiles, type ExportFileSummary, type PaymentKind } from "./export.server";
import { returnedItemsCount } from "./inbound-returns.server";
import { waitingChangesCount } from "./inbound-noc.server";
import { heldEntriesCount } from "./inbound-held.server";
import { creditReviewsCount } from "./inbound-review.server";
import { pendingDepositCount } from "~/server/deposits/deposit-lists.server";
import { awaitingAdjustmentCount } from "~/server/member-accounts/adjustments.server";
import { unsentMicroDepositCount } from "~/server/linked-accounts/linked-accounts.server";
import { unsentPullCount } from "~/server/linked-accounts/money-in.server";
import { awaitingPostingRequestCount } from "~/server/postings/approvals.server";
import { pendingStaffGrantCount } from "~/server/admin/staff-grants.server";

/**
 * The back office's payment queues (/admin/queues, docs/product.md#payment-queues): the work
 * waiting for staff who may move money. Each queue is a section with a count; the page and the
 * navigation's total read `QUEUE_SECTIONS`, so a new kind of work (mobile deposits to review,
 * adjustments awaiting a second approval, returned items) is one more entry here and one more
 * component on the page.
 */

export interface QueueSection {
  id: string;
  title: string;
  /** Items waiting; the navigation shows the sum of every section's. */
  count: (db: DbOrTx) => Promise<number>;
}

async function pendingCount(db: DbOrTx, kind: PaymentKind): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(externalPayments)
    .where(and(eq(externalPayments.kind, kind), eq(externalPayments.status, "pending")));
  return Number(row?.n ?? 0);
}

export const QUEUE_SECTIONS: readonly QueueSection[] = [
  // With the linked accounts whose micro-deposits wait for the next ACH file (docs/product.md#linked-accounts).
  {
    id: "ach",
    title: QUEUE_TITLES.ach,
    // And the money members move in from their linked accounts (docs/product.md#move-money-in).
    count: async (db) =>
      (await pendingCount(db, "ach")) + (await unsentMicroDepositCount(db)) + (await unsentPullCount(db)),
  },
  { id: "wire", title: QUEUE_TITLES.wire, count: (db) => pendingCount(db, "wire") },
  // ACH in: entries that could not post, waiting for the return file, and returns of ours to look into.
  { id: "returns", title: QUEUE_TITLES.returns, count: returnedItemsCount },
  // ACH in: entries repeating one received in the last few business days, held for staff to post or return.
  { id: "duplicates", title: QUEUE_TITLES.duplicates, count: heldEntriesCount },
  // ACH in: credits that met a monitoring rule, posted with their money held (Nacha's 2026 monitoring of credits).
  { id: "credit_reviews", title: QUEUE_TITLES.credit_reviews, count: creditReviewsCount },
  // ACH in: notifications of change about our payments, waiting for staff to apply or note.
  { id: "changes", title: QUEUE_TITLES.changes, count: waitingChangesCount },
  // Checks members deposited, waiting for review (docs/product.md#mobile-deposit).
  { id: "deposits", title: QUEUE_TITLES.deposits, count: pendingDepositCount },
  // Staff credits held back by the dual-control rule (balance adjustments and Add Transactions
  // files), waiting for another staff member (maker-checker, docs/security.md#dual-control).
  {
    id: "adjustments",
    title: QUEUE_TITLES.adjustments,
    count: async (db) => (await awaitingAdjustmentCount(db)) + (await awaitingPostingRequestCount(db)),
  },
  // Staff roles asked for, waiting for another admin (docs/product.md#staff-role-grants).
  { id: "staff_grants", title: QUEUE_TITLES.staff_grants, count: pendingStaffGrantCount },
];

/** Every queue's count, by section id, and their total (for the navigation). */
export async function queueCounts(db: DbOrTx): Promise<{ total: number; sections: Record<string, number> }> {
  const counts = await Promise.all(QUEUE_SECTIONS.map(async (s) => [s.id, await s.count(db)] as const));
  return { total: counts.reduce((sum, [, n]) => sum + n, 0), sections: Object.fromEntries(counts) };
}

export interface QueuedPayment {
  id: number;
  kind: PaymentKind;
  reference_number: string;
  member_name: string;
  member_email: string;
  from_account: string;
  /** False when the source account is frozen or closed: it cannot be sent until it is open again. */
  account_active: boolean;
  amount_cents: number;
  fee_cents: number;
  /** The wire's amount in its currency ("EUR 1,234.56"); null for ACH. */
  foreign_amount: string | null;
  payee: string;
  /** Bank and account, masked: the full numbers go only into the file. */
  payee_bank: string;
  created_at: Date;
  /** Why an export left it out (it cannot be written into the file); null while it can go out. */
  export_problem: string | null;
  /**
   * A wire's end of the member's 30-minute cancellation window (ISO text; docs/product.md#remittance-transfers):
   * no export takes it before. Null when no window applies.
   */
  cancel_until: string | null;
}

/** Shown per queue at most; the count says how many wait in all. */
export const QUEUE_ROWS_MAX = 100;

export async function pendingPayments(db: DbOrTx, kind: PaymentKind): Promise<QueuedPayment[]> {
  const rows = await db
    .select({
      payment: externalPayments,
      member_name: users.name,
      member_email: users.email,
      account_number: ledgerAccounts.account_number,
      account_type: ledgerAccounts.type,
      account_status: ledgerAccounts.status,
    })
    .from(externalPayments)
    .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, externalPayments.from_account_id))
    .leftJoin(users, eq(users.id, externalPayments.member_id))
    .where(and(eq(externalPayments.kind, kind), eq(externalPayments.status, "pending")))
    .orderBy(asc(externalPayments.id))
    .limit(QUEUE_ROWS_MAX);
  return rows.map(({ payment: p, ...r }) => {
    const d = p.details;
    const type = r.account_type === "checking" ? "Checking" : r.account_type === "savings" ? "Savings" : "Account";
    return {
      id: Number(p.id),
      kind: p.kind,
      reference_number: referenceNumber(Number(p.hold_transaction_id)),
      member_name: r.member_name ?? "",
      member_email: r.member_email ?? "",
      from_account: `${type} ${maskAccountNumber(r.account_number)}`,
      account_active: r.account_status === "active",
      amount_cents: Number(p.amount_cents),
      fee_cents: Number(p.fee_cents),
      foreign_amount: p.kind === "wire" ? formatCurrencyAmount(Number(p.foreign_amount_minor ?? 0), p.currency) : null,
      payee: p.kind === "ach" ? (d.account_name ?? "") : (d.recipient_name ?? ""),
      payee_bank:
        p.kind === "ach"
          ? `${d.bank_name || `Routing ${d.routing_number ?? ""}`}, ${d.account_type ?? "checking"} account ${maskedNumber(d, "account_number")}`
          : `${d.bank_name ?? ""} (${d.bic ?? ""}), ${d.country ?? ""}, account ${maskedWireAccount(d)}`,
      created_at: p.created_at,
      export_problem: p.export_problem,
      cancel_until: p.cancel_until?.toISOString() ?? null,
    };
  });
}

/** The page's rows; its counts are the admin frame's (one count per request, app/routes/admin/layout.server.ts). */
export interface QueuesView {
  ach: QueuedPayment[];
  wire: QueuedPayment[];
  files: ExportFileSummary[];
  /** Linked accounts whose micro-deposits go with the next ACH file. */
  verifications: number;
  /** Money members move in from linked accounts: debits that go with the next ACH file. */
  pulls: number;
}

export async function loadQueues(db: DbOrTx): Promise<QueuesView> {
  const [ach, wire, files, verifications, pulls] = await Promise.all([
    pendingPayments(db, "ach"),
    pendingPayments(db, "wire"),
    recentExportFiles(db),
    unsentMicroDepositCount(db),
    unsentPullCount(db),
  ]);
  return { ach, wire, files, verifications, pulls };
}

// ---------------------------------------------------------------------------------------------
// The member's side: their payments to other banks and where each stands.

export interface MemberPayment {
  id: number;
  kind: PaymentKind;
  status: PaymentStatus;
  /** Returned: why, in the words of the member's notification (the return's R-code as plain words). */
  return_reason: string | null;
  reference_number: string;
  payee: string;
  amount_cents: number;
  fee_cents: number;
  foreign_amount: string | null;
  created_at: Date;
  /** When sent: the file's effective date (ACH) or requested execution date (wire). */
  sent_effective_date: string | null;
  /** Until when the member may cancel a wire (remittance transfer), null when no window applies. */
  cancel_until: Date | null;
}

export const MEMBER_PAYMENTS_MAX = 50;

export async function memberPayments(db: DbOrTx, member_id: string): Promise<MemberPayment[]> {
  const rows = await db
    .select({
      payment: externalPayments,
      effective_date: paymentExportFiles.effective_date,
      return_code: achInboundEntries.return_code,
    })
    .from(externalPayments)
    .leftJoin(paymentExportFiles, eq(paymentExportFiles.id, externalPayments.export_file_id))
    // The return that reversed it, if one came back (at most one is applied per payment).
    .leftJoin(
      achInboundEntries,
      and(eq(achInboundEntries.payment_id, externalPayments.id), eq(achInboundEntries.status, "applied")),
    )
    .where(eq(externalPayments.member_id, member_id))
    .orderBy(desc(externalPayments.created_at), desc(externalPayments.id))
    .limit(MEMBER_PAYMENTS_MAX);
  return rows.map(({ payment: p, effective_date, return_code }) => ({
    id: Number(p.id),
    kind: p.kind,
    status: memberPaymentStatus(p.status, return_code),
    return_reason: return_code ? returnReason(return_code) : null,
    reference_number: referenceNumber(Number(p.hold_transaction_id)),
    payee:
      p.kind === "ach"
        ? `${p.details.account_name ?? ""}, ${p.details.account_type ?? "checking"} ${maskedNumber(p.details, "account_number")}`
        : `${p.details.recipient_name ?? ""}, ${p.details.bank_name ?? ""}`,
    amount_cents: Number(p.amount_cents),
    fee_cents: Number(p.fee_cents),
    foreign_amount: p.kind === "wire" ? formatCurrencyAmount(Number(p.foreign_amount_minor ?? 0), p.currency) : null,
    created_at: p.created_at,
    sent_effective_date: effective_date ?? null,
    // A wire's 30-minute cancellation window (docs/product.md#remittance-transfers); null: no window.
    cancel_until: p.cancel_until,
  }));
}

/** For the member's pages: how many payments are still pending (cheap: the member's index). */
export async function memberPendingCount(db: DbOrTx, member_id: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(externalPayments)
    .where(and(eq(externalPayments.member_id, member_id), eq(externalPayments.status, "pending")));
  return Number(row?.n ?? 0);
}
