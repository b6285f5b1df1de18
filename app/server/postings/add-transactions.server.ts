import type { Actor } from "~/domain/actor";
import { eq } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { staffPostingRequests, users, type StaffPostingRequestRow } from "~/server/db/schema";
import { effectiveRole } from "~/server/auth/roles.server";
import { institution } from "~/config/institution.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { institutionAccount, memberAccounts, type AccountView } from "~/server/ledger/accounts.server";
import { placeHold, postBatch, today, type EntryInput, type LedgerRefusal } from "~/server/ledger/ledger.server";
import { inRefusableTransaction, refuse } from "~/server/db/refusable-transaction.server";
import { refusal, type Refusal, type RefusalCode } from "~/domain/refusals";
import {
  checkRow,
  errorsMessage,
  MEMBER_ACCOUNT_TYPE_LABELS,
  POSTING_LIMITS_TEXT,
  POSTING_ROWS_MAX,
  type DraftRow,
  type PostingRow,
} from "~/domain/staff-postings";
import type { LineError } from "~/domain/staff-postings";
import { dualControlReasonsText } from "~/domain/dual-control";
import { staffCreditDecision } from "~/server/staff-credits/dual-control.server";

/**
 * Add Transactions (docs/product.md#add-transactions): staff post rows to one member's accounts
 * against the institution's configured counterpart account. Every row is checked first and the
 * file or table posts only when all are valid; then all rows post in ONE database transaction:
 * the Completed rows as one ledger batch (`postBatch`), the Pending rows as holds, and the audit
 * record, so either everything lands or nothing does. The row's date is the effective date; the
 * ledger records the real time of posting. A table or file whose credits pass the dual-control
 * rule (docs/security.md#dual-control) waits instead, whole, for a second staff member.
 */
export interface NumberedRow {
  /** The file line (CSV) or the table row number the row came from, for messages. */
  line: number;
  raw: DraftRow;
}

export type AddTransactionsResult =
  | { ok: true; status: "added"; count: number; posted: number; held: number; replayed: boolean }
  | { ok: true; status: "awaiting_approval"; count: number; request_id: number; message: string; replayed: boolean }
  /** Rows that do not pass their checks (`line_errors`), or no rows, or too many: nothing posted. */
  | (Refusal<"invalid"> & { code: "invalid"; line_errors: LineError[] })
  /** The ledger refused a row (its code), or the request was declined before: nothing posted. */
  | (Refusal<RefusalCode | "already_declined"> & { kind: "conflict" })
  | (Refusal<"member_not_found"> & { kind: "not_found" });

export interface AddTransactionsInput {
  member_id: string;
  staff: Actor;
  rows: readonly NumberedRow[];
  /** The form's idempotency key: a repeat of the same submission posts nothing twice. */
  batch_key: string;
  source: "csv" | "table";
  /** "line" for a file, "row" for the table. */
  origin: AuditOrigin;
  file_name?: string | null;
  now?: Date;
}

/**
 * Checks every row, then, in one database transaction: the dual-control rule
 * (app/domain/dual-control.ts) on the request's credit rows, the request recorded, and either
 * every row posted now or the whole request left waiting for a second staff member
 * (`decidePostingRequest`). A repeat of the same submission (same key) finds its request and
 * answers as the first time, posting nothing twice.
 */
export async function addTransactions(db: Db, input: AddTransactionsInput): Promise<AddTransactionsResult> {
  const [member] = await db.select({ id: users.id, role: users.role }).from(users).where(eq(users.id, input.member_id));
  if (!member || effectiveRole(member.role) !== "user")
    return { ...refusal("not_found", "this member was not found", { code: "member_not_found" }), kind: "not_found" };
  const where = input.source === "csv" ? "line" : "row";
  if (input.rows.length === 0) return invalid("there are no rows to add", []);
  if (input.rows.length > POSTING_ROWS_MAX)
    return invalid(
      `more than ${POSTING_ROWS_MAX.toLocaleString("en-US")} rows; the limit is ${POSTING_LIMITS_TEXT}`,
      [],
    );

  const accounts = await memberAccounts(db, input.member_id);
  const now = input.now ?? new Date();
  const context = { today: today(now), now_time: clockTime(now) };
  const checked: StaffPostingRequestRow[] = [];
  const line_errors: LineError[] = [];
  for (const { line, raw } of input.rows) {
    const result = checkRow(raw, context);
    if (!result.ok) {
      line_errors.push({ line, message: result.errors.join("; ") });
      continue;
    }
    const account = resolveAccount(result.row, accounts);
    if (typeof account === "string") line_errors.push({ line, message: account });
    else {
      const { direction, amount_cents, description, category, date, time, status } = result.row;
      checked.push({
        line,
        account_id: account.id,
        direction,
        amount_cents,
        description,
        category,
        date,
        time,
        status,
      });
    }
  }
  if (line_errors.length) return invalid(errorsMessage(line_errors, where), line_errors);

  const credits_cents = checked.filter((r) => r.direction === "credit").map((r) => r.amount_cents);
  const totals = {
    credit_total_cents: credits_cents.reduce((sum, c) => sum + c, 0),
    debit_total_cents: checked.filter((r) => r.direction === "debit").reduce((sum, r) => sum + r.amount_cents, 0),
  };
  const subject = input.source === "csv" ? "file" : "table";
  return inRefusableTransaction<AddTransactionsResult>(db, async (tx) => {
    // The rule takes the maker's lock first: a repeat sent at the same moment waits here and
    // then finds the request the first one recorded.
    const rule = await staffCreditDecision(tx, {
      staff_id: input.staff.id,
      member_id: input.member_id,
      credits_cents,
      now,
    });
    const [earlier] = await tx
      .select()
      .from(staffPostingRequests)
      .where(eq(staffPostingRequests.batch_key, input.batch_key));
    if (earlier) return replayOf(earlier);
    const wait_reason = rule.decision === "wait" ? dualControlReasonsText(rule.reasons, subject) : null;
    const [request] = await tx
      .insert(staffPostingRequests)
      .values({
        member_id: input.member_id,
        source: input.source,
        file_name: input.file_name ?? null,
        batch_key: input.batch_key,
        rows: checked,
        row_count: checked.length,
        ...totals,
        wait_reason,
        status: wait_reason ? "awaiting_approval" : "posted",
        requested_by: input.staff.id,
        requested_by_email: input.staff.email,
        requested_at: now,
      })
      .returning({ id: staffPostingRequests.id });
    const request_id = request!.id;
    const audit = {
      actor_id: input.staff.id,
      actor_email: input.staff.email,
      subject_type: "member",
      subject_id: input.member_id,
      member_id: input.member_id,
      request_id: input.origin.request_id,
      ip: input.origin.ip,
    };
    if (wait_reason) {
      await recordAudit(tx, {
        ...audit,
        action: "ledger.staff_postings.request",
        after: {
          posting_request_id: request_id,
          source: input.source,
          file_name: input.file_name ?? null,
          batch_key: input.batch_key,
          rows: checked.length,
          ...totals,
          status: "awaiting_approval",
          reason: wait_reason,
        },
      });
      return {
        ok: true as const,
        status: "awaiting_approval" as const,
        count: checked.length,
        request_id,
        replayed: false,
        message: waitingMessage(subject, wait_reason),
      };
    }
    const posted = await postRequestRows(tx, {
      member_id: input.member_id,
      rows: checked,
      batch_key: input.batch_key,
      poster: input.staff,
      where,
      accounts,
      onRowRefused: (message, code) => ({ ...refusal("conflict", message, { code }), kind: "conflict" as const }),
    });
    await recordAudit(tx, {
      ...audit,
      action: "ledger.staff_postings.add",
      before: { accounts: balancesOf(accounts, checked) },
      after: {
        posting_request_id: request_id,
        source: input.source,
        file_name: input.file_name ?? null,
        batch_key: input.batch_key,
        counterpart_account_id: posted.counterpart_account_id,
        posted: posted.posted,
        held: posted.held,
        rows: posted.audit_rows,
      },
    });
    return {
      ok: true as const,
      status: "added" as const,
      count: checked.length,
      posted: posted.posted,
      held: posted.held,
      replayed: false,
    };
  });
}

function invalid(message: string, line_errors: LineError[]): AddTransactionsResult {
  return { ...refusal("bad_input", message, { code: "invalid" }), code: "invalid", line_errors };
}

/** "Sent for a second approval: …": what the maker reads when the rule holds the request back. */
export function waitingMessage(subject: "file" | "table", reason: string): string {
  return `Sent for a second staff member's approval: ${reason}. Nothing is posted until another staff member approves the whole ${subject} in Payment queues.`;
}

/** The answer to a repeat of a submission already recorded: as the first time, nothing posted again. */
function replayOf(request: typeof staffPostingRequests.$inferSelect): AddTransactionsResult {
  const rows = request.rows;
  if (request.status === "posted") {
    return {
      ok: true,
      status: "added",
      count: rows.length,
      posted: rows.filter((r) => r.status === "completed").length,
      held: rows.filter((r) => r.status === "pending").length,
      replayed: true,
    };
  }
  if (request.status === "declined")
    return {
      ...refusal(
        "conflict",
        `this request was already declined by ${request.decided_by_email ?? "another staff member"}: ${request.decline_reason ?? ""}`,
        { code: "already_declined" },
      ),
      kind: "conflict",
    };
  return {
    ok: true,
    status: "awaiting_approval",
    count: rows.length,
    request_id: request.id,
    replayed: true,
    message: waitingMessage(request.source === "csv" ? "file" : "table", request.wait_reason ?? ""),
  };
}

/**
 * Posts a request's rows inside the caller's database transaction: the Completed rows as one
 * ledger batch (`postBatch`, keyed by the request's batch key, so a repeat posts nothing twice),
 * the Pending rows as holds, against the profile's counterpart account. A row the ledger refuses
 * (insufficient funds, a frozen account) ends the caller's `inRefusableTransaction` with
 * `onRowRefused`'s answer (the message names the row), undoing every row already written.
 */
export async function postRequestRows(
  tx: DbOrTx,
  input: {
    member_id: string;
    rows: readonly StaffPostingRequestRow[];
    batch_key: string;
    poster: { id: string };
    where: "line" | "row";
    accounts?: readonly AccountView[];
    onRowRefused: (message: string, code: RefusalCode) => { ok: false };
  },
): Promise<{
  posted: number;
  held: number;
  replayed: boolean;
  counterpart_account_id: number;
  audit_rows: (string | number | null)[][];
}> {
  const accounts = input.accounts ?? (await memberAccounts(tx, input.member_id));
  const counterpart = await institutionAccount(tx, institution().staff_postings_counterpart);
  const initiator = `staff:${input.poster.id}`;
  const entriesOf = (row: StaffPostingRequestRow): EntryInput[] =>
    row.direction === "debit"
      ? [
          { account_id: row.account_id, amount_cents: -row.amount_cents },
          { account_id: counterpart.id, amount_cents: row.amount_cents },
        ]
      : [
          { account_id: counterpart.id, amount_cents: -row.amount_cents },
          { account_id: row.account_id, amount_cents: row.amount_cents },
        ];
  const posting = (row: StaffPostingRequestRow) => ({
    kind: "import" as const,
    entries: entriesOf(row),
    memo: row.description,
    category: row.category,
    effective_date: row.date,
  });
  const refusedAt = (refusal: LedgerRefusal, row: StaffPostingRequestRow | undefined) => {
    const account = row ? accounts.find((a) => a.id === row.account_id) : undefined;
    const label = account
      ? `${MEMBER_ACCOUNT_TYPE_LABELS[account.type as keyof typeof MEMBER_ACCOUNT_TYPE_LABELS] ?? account.type} ${account.account_number}`
      : `account ${row?.account_id}`;
    return refuse(
      input.onRowRefused(`${row ? `${input.where} ${row.line} (${label}): ` : ""}${refusal.message}`, refusal.code),
    );
  };
  const completed = input.rows.filter((r) => r.status === "completed");
  const pending = input.rows.filter((r) => r.status === "pending");
  let replayed = false;
  const transaction_ids = new Map<number, number>();
  if (completed.length) {
    const batch = await postBatch(tx, {
      idempotency_key: input.batch_key,
      initiator,
      created_by: input.poster.id,
      transactions: completed.map(posting),
    });
    if (!batch.ok) return refusedAt(batch, batch.batch_index === undefined ? undefined : completed[batch.batch_index]);
    replayed = batch.replayed;
    batch.transactions.forEach((t, i) => transaction_ids.set(completed[i]!.line, t.transaction.id));
  }
  for (const row of pending) {
    const hold = await placeHold(tx, {
      ...posting(row),
      idempotency_key: `${input.batch_key}#hold-${row.line}`,
      initiator,
      created_by: input.poster.id,
    });
    if (!hold.ok) return refusedAt(hold, row);
    replayed ||= hold.replayed;
    transaction_ids.set(row.line, hold.transaction.id);
  }
  return {
    posted: completed.length,
    held: pending.length,
    replayed,
    counterpart_account_id: counterpart.id,
    // Each row as stated: [line, transaction id, account id, signed cents, date, time].
    audit_rows: input.rows.map((r) => [
      r.line,
      transaction_ids.get(r.line) ?? null,
      r.account_id,
      r.direction === "debit" ? -r.amount_cents : r.amount_cents,
      r.date,
      r.time,
    ]),
  };
}

/** The member's account a row names, or why it names none. */
function resolveAccount(row: PostingRow, accounts: readonly AccountView[]): AccountView | string {
  if (row.account.by === "number") {
    const { account_number } = row.account;
    return (
      accounts.find((a) => a.account_number === account_number) ??
      `account ${account_number} is not one of this member's accounts`
    );
  }
  const type = row.account.type;
  const label = MEMBER_ACCOUNT_TYPE_LABELS[type];
  const open = accounts.filter((a) => a.type === type && a.status !== "closed");
  if (open.length === 0) return `this member has no open ${label} account`;
  if (open.length > 1) return `this member has ${open.length} ${label} accounts: give the account number instead`;
  return open[0]!;
}

export function balancesOf(accounts: readonly AccountView[], rows: readonly { account_id: number }[]) {
  const touched = new Set(rows.map((r) => r.account_id));
  return accounts
    .filter((a) => touched.has(a.id))
    .map((a) => ({
      id: a.id,
      account_number: a.account_number,
      current_cents: a.current_cents,
      available_cents: a.available_cents,
    }));
}

/** HH:MM:SS on the institution's clock. */
function clockTime(now: Date): string {
  return new Intl.DateTimeFormat("en-GB", {
    timeZone: institution().time_zone,
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  }).format(now);
}

/** The member a page of Add Transactions is for: email and accounts; null when not a member. */
export async function postingMember(
  db: Db,
  member_id: string,
): Promise<{ user_id: string; email: string; accounts: AccountView[] } | null> {
  const [member] = await db
    .select({ id: users.id, email: users.email, role: users.role })
    .from(users)
    .where(eq(users.id, member_id));
  if (!member || effectiveRole(member.role) !== "user") return null;
  return { user_id: member.id, email: member.email, accounts: await memberAccounts(db, member.id) };
}
