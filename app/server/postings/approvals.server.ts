import type { StaffRefusal } from "~/domain/member-accounts";
import { inRefusableTransaction, refuse } from "~/server/db/refusable-transaction.server";
import { refusal } from "~/domain/refusals";
import type { Actor } from "~/domain/actor";
import { data } from "react-router";
import { and, asc, count, eq, inArray, sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { ledgerAccounts, staffPostingRequests, users, type StaffPostingRequestRow } from "~/server/db/schema";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { memberAccounts } from "~/server/ledger/accounts.server";
import { formatCents } from "~/domain/money";
import { MEMBER_ACCOUNT_TYPE_LABELS } from "~/domain/staff-postings";
import {
  ApprovePostingRequestSchema,
  DeclinePostingRequestSchema,
  POSTING_REQUEST_NOT_FOUND,
} from "~/domain/member-accounts";
import { mayMoveMoney, NOT_ALLOWED_MESSAGE, type StaffRole } from "~/domain/staff-roles";
import { parseSubmission, refusalStatus, replyTo, type FormReply } from "~/server/http/form.server";
import { balancesOf, postRequestRows } from "./add-transactions.server";
import { lockMakersCredits } from "~/server/staff-credits/dual-control.server";

/**
 * Add Transactions requests waiting for a second staff member (docs/product.md#payment-queues,
 * docs/security.md#dual-control): listed beside the balance adjustments that wait, approved
 * (every row posts with the same posting code, all or nothing) or declined with a reason. The
 * maker cannot decide their own request; the database refuses it too
 * (`staff_posting_requests_checker_not_maker`).
 */

/** Rows of one request shown to the approver; the rest are counted (a file holds up to 10,000). */
export const REQUEST_ROWS_SHOWN = 50;
/** Requests listed at once, oldest first; the queue's count says how many wait in all. */
const REQUESTS_LISTED = 100;

export interface AwaitingPostingRequestRow {
  line: number;
  /** "Checking ••7890". */
  account: string;
  direction: "debit" | "credit";
  amount_cents: number;
  description: string;
  date: string;
  status: "completed" | "pending";
}

export interface AwaitingPostingRequest {
  id: number;
  member_id: string;
  member_email: string | null;
  source: "csv" | "table";
  file_name: string | null;
  row_count: number;
  credit_total_cents: number;
  debit_total_cents: number;
  reason: string;
  requested_by: string;
  requested_by_email: string | null;
  requested_at: Date;
  /** The first REQUEST_ROWS_SHOWN rows, in order. */
  rows: AwaitingPostingRequestRow[];
}

export async function awaitingPostingRequests(db: DbOrTx): Promise<AwaitingPostingRequest[]> {
  const requests = await db
    .select({
      id: staffPostingRequests.id,
      member_id: staffPostingRequests.member_id,
      member_email: users.email,
      source: staffPostingRequests.source,
      file_name: staffPostingRequests.file_name,
      row_count: staffPostingRequests.row_count,
      credit_total_cents: staffPostingRequests.credit_total_cents,
      debit_total_cents: staffPostingRequests.debit_total_cents,
      reason: staffPostingRequests.wait_reason,
      requested_by: staffPostingRequests.requested_by,
      requested_by_email: staffPostingRequests.requested_by_email,
      requested_at: staffPostingRequests.requested_at,
      // Only the rows shown are read, not a whole 10,000-row file per request.
      rows: sql<
        StaffPostingRequestRow[]
      >`(select coalesce(jsonb_agg(r.value order by r.ordinality), '[]'::jsonb) from jsonb_array_elements(${staffPostingRequests.rows}) with ordinality r where r.ordinality <= ${REQUEST_ROWS_SHOWN})`,
    })
    .from(staffPostingRequests)
    .leftJoin(users, eq(users.id, staffPostingRequests.member_id))
    .where(eq(staffPostingRequests.status, "awaiting_approval"))
    .orderBy(asc(staffPostingRequests.requested_at), asc(staffPostingRequests.id))
    .limit(REQUESTS_LISTED);
  const account_ids = [...new Set(requests.flatMap((r) => r.rows.map((row) => Number(row.account_id))))];
  const accounts = account_ids.length
    ? await db
        .select({ id: ledgerAccounts.id, type: ledgerAccounts.type, account_number: ledgerAccounts.account_number })
        .from(ledgerAccounts)
        .where(inArray(ledgerAccounts.id, account_ids))
    : [];
  const label = new Map(
    accounts.map((a) => [
      Number(a.id),
      `${MEMBER_ACCOUNT_TYPE_LABELS[a.type as keyof typeof MEMBER_ACCOUNT_TYPE_LABELS] ?? a.type} ••${a.account_number.slice(-4)}`,
    ]),
  );
  return requests.map((r) => ({
    ...r,
    id: Number(r.id),
    credit_total_cents: Number(r.credit_total_cents),
    debit_total_cents: Number(r.debit_total_cents),
    reason: r.reason ?? "",
    rows: r.rows.map((row) => ({
      line: row.line,
      account: label.get(Number(row.account_id)) ?? `account ${row.account_id}`,
      direction: row.direction,
      amount_cents: Number(row.amount_cents),
      description: row.description,
      date: row.date,
      status: row.status,
    })),
  }));
}

/** How many Add Transactions requests wait (part of the Queues count). */
export async function awaitingPostingRequestCount(db: DbOrTx): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(staffPostingRequests)
    .where(eq(staffPostingRequests.status, "awaiting_approval"));
  return Number(row?.n ?? 0);
}

export type DecidePostingResult =
  { ok: true; status: "posted" | "declined"; message: string; member_id: string } | StaffRefusal;

export const POSTING_APPROVAL_FAILED = "Failed to approve the transactions";

/**
 * The second staff member decides. Approve posts every row of the request, exactly as asked and
 * checked, in one database transaction with the decision and its audit record: a refusal of any
 * row (the money is no longer there, an account was frozen since) posts nothing and leaves the
 * request waiting. The maker's staff-credit lock is taken first (what posts counts for the maker),
 * then the request row, so two approvers at the same moment get one posting and one "already
 * approved"; the ledger's batch key makes a repeat post nothing twice.
 */
export async function decidePostingRequest(
  db: DbOrTx,
  input: {
    staff: Actor;
    origin: AuditOrigin;
    request_id: number;
    decision: "approve" | "decline";
    reason?: string;
    now?: Date;
  },
): Promise<DecidePostingResult> {
  const { staff, origin, request_id, decision } = input;
  const now = input.now ?? new Date();
  return inRefusableTransaction<DecidePostingResult>(db, async (tx) => {
    await lockMakersCredits(tx, "staff_posting_requests", request_id);
    const [request] = await tx
      .select()
      .from(staffPostingRequests)
      .where(eq(staffPostingRequests.id, request_id))
      .for("update");
    if (!request) refuse(refusal("not_found", POSTING_REQUEST_NOT_FOUND));
    if (request.status !== "awaiting_approval") {
      refuse(
        refusal("conflict", `This request was already ${request.status === "posted" ? "approved" : "declined"}.`, {
          code: "already_decided",
        }),
      );
    }
    if (request.requested_by === staff.id) {
      refuse(
        refusal("forbidden", "You sent these transactions: another staff member must approve or decline them.", {
          code: "maker_cannot_approve",
        }),
      );
    }
    const decided = { decided_by: staff.id, decided_by_email: staff.email, decided_at: now };
    const credit = formatCents(Number(request.credit_total_cents));
    const debit = formatCents(Number(request.debit_total_cents));
    const audit = {
      actor_id: staff.id,
      actor_email: staff.email,
      subject_type: "staff_posting_request",
      subject_id: request_id,
      member_id: request.member_id,
      request_id: origin.request_id,
      ip: origin.ip,
    };
    const before = {
      status: "awaiting_approval",
      requested_by: request.requested_by,
      rows: request.row_count,
      credit_total_cents: Number(request.credit_total_cents),
      debit_total_cents: Number(request.debit_total_cents),
      reason: request.wait_reason,
    };
    if (decision === "decline") {
      await tx
        .update(staffPostingRequests)
        .set({ ...decided, status: "declined", decline_reason: input.reason ?? "" })
        .where(and(eq(staffPostingRequests.id, request_id), eq(staffPostingRequests.status, "awaiting_approval")));
      await recordAudit(tx, {
        ...audit,
        action: "ledger.staff_postings.decline",
        before,
        after: { status: "declined", reason: input.reason },
      });
      return {
        ok: true as const,
        status: "declined" as const,
        member_id: request.member_id,
        message: `Declined: ${request.row_count} ${request.row_count === 1 ? "transaction" : "transactions"} (${credit} in credits) will not post.`,
      };
    }
    await tx
      .update(staffPostingRequests)
      .set({ ...decided, status: "posted" })
      .where(eq(staffPostingRequests.id, request_id));
    const accounts = await memberAccounts(tx, request.member_id);
    const posted = await postRequestRows(tx, {
      member_id: request.member_id,
      rows: request.rows,
      batch_key: request.batch_key,
      poster: staff,
      where: request.source === "csv" ? "line" : "row",
      accounts,
      onRowRefused: (message, code) =>
        refusal("conflict", `${POSTING_APPROVAL_FAILED}: ${message}. Nothing was posted; the request still waits.`, {
          code,
        }),
    });
    await recordAudit(tx, {
      ...audit,
      action: "ledger.staff_postings.approve",
      before: { ...before, accounts: balancesOf(accounts, request.rows) },
      after: {
        status: "posted",
        batch_key: request.batch_key,
        counterpart_account_id: posted.counterpart_account_id,
        posted: posted.posted,
        held: posted.held,
        rows: posted.audit_rows,
      },
    });
    const count = request.row_count;
    return {
      ok: true as const,
      status: "posted" as const,
      member_id: request.member_id,
      message: `Approved and posted: ${count} ${count === 1 ? "transaction" : "transactions"}, ${credit} in credits and ${debit} in debits.`,
    };
  });
}

export const POSTING_REQUEST_INTENTS = ["approve_posting_request", "decline_posting_request"] as const;
export type PostingRequestIntent = (typeof POSTING_REQUEST_INTENTS)[number];

/**
 * The queues page's Approve and post / Decline on a request: staff with money powers only (a
 * reviewer gets 403 before the form is read), the form checked with its schema (400, the message
 * next to the field), then the decision, whose refusal is its status with the message. The
 * answer has the shape of the member page's money actions (`intent`, `target`, `reply`), so each
 * request's forms find their own answer.
 */
export async function postingRequestAction(input: {
  db: DbOrTx;
  staff: Actor;
  role: StaffRole;
  origin: AuditOrigin;
  intent: PostingRequestIntent;
  form: FormData;
}) {
  const { db, staff, role, origin, intent, form } = input;
  if (!mayMoveMoney(role)) throw data({ form_error: NOT_ALLOWED_MESSAGE }, { status: 403 });
  const target = String(form.get("request_id") ?? "").slice(0, 40);
  const submission = parseSubmission(
    intent === "approve_posting_request" ? ApprovePostingRequestSchema : DeclinePostingRequestSchema,
    form,
  );
  const answer = (status: number, message: string, tone: "success" | "error", reply: FormReply) =>
    data({ intent, target, reply, message, tone }, { status });
  if (submission.status !== "success")
    return answer(400, "Please check the highlighted fields.", "error", replyTo(submission));
  const value = submission.value as { request_id: number; reason?: string };
  const result = await decidePostingRequest(db, {
    staff,
    origin,
    request_id: value.request_id,
    decision: intent === "approve_posting_request" ? "approve" : "decline",
    reason: value.reason,
  });
  if (!result.ok)
    return answer(
      refusalStatus(result.kind),
      result.message,
      "error",
      replyTo(submission, { formErrors: [result.message] }),
    );
  return answer(200, result.message, "success", replyTo(submission));
}
