import { eq } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { users } from "~/server/db/schema";
import { effectiveRole } from "~/server/auth/roles.server";
import { institution } from "~/config/institution.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { institutionAccount, memberAccounts, type AccountView } from "~/server/ledger/accounts.server";
import { placeHold, postBatch, today, type EntryInput, type LedgerRefusal } from "~/server/ledger/ledger.server";
import { checkRow, errorsMessage, MEMBER_ACCOUNT_TYPE_LABELS, POSTING_LIMITS_TEXT, POSTING_ROWS_MAX, type DraftRow, type PostingRow } from "~/domain/staff-postings";
import type { LineError } from "~/domain/staff-postings";

/**
 * Add Transactions (docs/product.md#add-transactions): staff post rows to one member's accounts
 * against the institution's configured counterpart account. Every row is checked first and the
 * file or table posts only when all are valid; then all rows post in ONE database transaction:
 * the Completed rows as one ledger batch (`postBatch`), the Pending rows as holds, and the audit
 * record, so either everything lands or nothing does. The row's date is the effective date; the
 * ledger records the real time of posting.
 */
export interface NumberedRow {
  /** The file line (CSV) or the table row number the row came from, for messages. */
  line: number;
  raw: DraftRow;
}

export type AddTransactionsResult =
  | { status: "added"; count: number; posted: number; held: number; replayed: boolean }
  | { status: "invalid"; message: string; line_errors: LineError[] }
  | { status: "refused"; message: string }
  | { status: "member_not_found" };

export interface AddTransactionsInput {
  member_id: string;
  staff: { id: string; email: string };
  rows: readonly NumberedRow[];
  /** The form's idempotency key: a repeat of the same submission posts nothing twice. */
  batch_key: string;
  source: "csv" | "table";
  /** "line" for a file, "row" for the table. */
  origin: AuditOrigin;
  file_name?: string | null;
  now?: Date;
}

export async function addTransactions(db: Db, input: AddTransactionsInput): Promise<AddTransactionsResult> {
  const [member] = await db.select({ id: users.id, role: users.role }).from(users).where(eq(users.id, input.member_id));
  if (!member || effectiveRole(member.role) !== "user") return { status: "member_not_found" };
  const where = input.source === "csv" ? "line" : "row";
  if (input.rows.length === 0) return { status: "invalid", message: "there are no rows to add", line_errors: [] };
  if (input.rows.length > POSTING_ROWS_MAX) return { status: "invalid", message: `more than ${POSTING_ROWS_MAX.toLocaleString("en-US")} rows; the limit is ${POSTING_LIMITS_TEXT}`, line_errors: [] };

  const accounts = await memberAccounts(db, input.member_id);
  const now = input.now ?? new Date();
  const context = { today: today(now), now_time: clockTime(now) };
  const checked: { line: number; row: PostingRow; account: AccountView }[] = [];
  const line_errors: LineError[] = [];
  for (const { line, raw } of input.rows) {
    const result = checkRow(raw, context);
    if (!result.ok) {
      line_errors.push({ line, message: result.errors.join("; ") });
      continue;
    }
    const account = resolveAccount(result.row, accounts);
    if (typeof account === "string") line_errors.push({ line, message: account });
    else checked.push({ line, row: result.row, account });
  }
  if (line_errors.length) return { status: "invalid", message: errorsMessage(line_errors, where), line_errors };

  const counterpart = await institutionAccount(db, institution().staff_postings_counterpart);
  const initiator = `staff:${input.staff.id}`;
  const entriesOf = ({ row, account }: (typeof checked)[number]): EntryInput[] =>
    row.direction === "debit"
      ? [
          { account_id: account.id, amount_cents: -row.amount_cents },
          { account_id: counterpart.id, amount_cents: row.amount_cents },
        ]
      : [
          { account_id: counterpart.id, amount_cents: -row.amount_cents },
          { account_id: account.id, amount_cents: row.amount_cents },
        ];
  const posting = (item: (typeof checked)[number]) => ({
    kind: "import" as const,
    entries: entriesOf(item),
    memo: item.row.description,
    category: item.row.category,
    effective_date: item.row.date,
  });
  const completed = checked.filter((c) => c.row.status === "completed");
  const pending = checked.filter((c) => c.row.status === "pending");

  // A refusal after earlier rows were written must undo them: it leaves the database
  // transaction as this exception, and becomes the answer outside it.
  class Refused extends Error {
    constructor(readonly refusal: LedgerRefusal, readonly item: (typeof checked)[number] | undefined) {
      super(refusal.message);
    }
  }
  try {
    return await db.transaction(async (tx) => {
      let replayed = false;
      const transaction_ids = new Map<number, number>();
      if (completed.length) {
        const batch = await postBatch(tx, { idempotency_key: input.batch_key, initiator, created_by: input.staff.id, transactions: completed.map(posting) });
        if (!batch.ok) throw new Refused(batch, batch.batch_index === undefined ? undefined : completed[batch.batch_index]);
        replayed = batch.replayed;
        batch.transactions.forEach((t, i) => transaction_ids.set(completed[i]!.line, t.transaction.id));
      }
      for (const item of pending) {
        const hold = await placeHold(tx, { ...posting(item), idempotency_key: `${input.batch_key}#hold-${item.line}`, initiator, created_by: input.staff.id });
        if (!hold.ok) throw new Refused(hold, item);
        replayed ||= hold.replayed;
        transaction_ids.set(item.line, hold.transaction.id);
      }
      if (!replayed) {
        await recordAudit(tx, {
          actor_id: input.staff.id,
          actor_email: input.staff.email,
          action: "ledger.staff_postings.add",
          subject_type: "member",
          subject_id: input.member_id,
          before: { accounts: balancesOf(accounts, checked) },
          after: {
            source: input.source,
            file_name: input.file_name ?? null,
            batch_key: input.batch_key,
            counterpart_account_id: counterpart.id,
            posted: completed.length,
            held: pending.length,
            // Each row as stated: [line, transaction id, account id, signed cents, date, time].
            rows: checked.map((c) => [c.line, transaction_ids.get(c.line) ?? null, c.account.id, c.row.direction === "debit" ? -c.row.amount_cents : c.row.amount_cents, c.row.date, c.row.time]),
          },
          request_id: input.origin.request_id,
          ip: input.origin.ip,
        });
      }
      return { status: "added" as const, count: checked.length, posted: completed.length, held: pending.length, replayed };
    });
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    const { item } = error;
    const at = item ? `${where} ${item.line} (${MEMBER_ACCOUNT_TYPE_LABELS[item.account.type as keyof typeof MEMBER_ACCOUNT_TYPE_LABELS] ?? item.account.type} ${item.account.account_number}): ` : "";
    return { status: "refused", message: `${at}${error.refusal.message}` };
  }
}

/** The member's account a row names, or why it names none. */
function resolveAccount(row: PostingRow, accounts: readonly AccountView[]): AccountView | string {
  if (row.account.by === "number") {
    const { account_number } = row.account;
    return accounts.find((a) => a.account_number === account_number) ?? `account ${account_number} is not one of this member's accounts`;
  }
  const type = row.account.type;
  const label = MEMBER_ACCOUNT_TYPE_LABELS[type];
  const open = accounts.filter((a) => a.type === type && a.status !== "closed");
  if (open.length === 0) return `this member has no open ${label} account`;
  if (open.length > 1) return `this member has ${open.length} ${label} accounts: give the account number instead`;
  return open[0]!;
}

function balancesOf(accounts: readonly AccountView[], rows: readonly { account: AccountView }[]) {
  const touched = new Set(rows.map((r) => r.account.id));
  return accounts.filter((a) => touched.has(a.id)).map((a) => ({ id: a.id, account_number: a.account_number, current_cents: a.current_cents, available_cents: a.available_cents }));
}

/** HH:MM:SS on the institution's clock. */
function clockTime(now: Date): string {
  return new Intl.DateTimeFormat("en-GB", { timeZone: institution().time_zone, hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" }).format(now);
}

/** The member a page of Add Transactions is for: email and accounts; null when not a member. */
export async function postingMember(db: Db, member_id: string): Promise<{ user_id: string; email: string; accounts: AccountView[] } | null> {
  const [member] = await db.select({ id: users.id, email: users.email, role: users.role }).from(users).where(eq(users.id, member_id));
  if (!member || effectiveRole(member.role) !== "user") return null;
  return { user_id: member.id, email: member.email, accounts: await memberAccounts(db, member.id) };
}
