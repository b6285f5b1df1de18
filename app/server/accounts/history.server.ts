import { accountLabel, referenceNumber } from "~/domain/account-display";
import { sql, type SQL } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import type { AccountView } from "~/server/ledger/accounts.server";
import { toCents, toId } from "~/domain/ledger-rules";
import { CALENDAR_DATE_MESSAGE, isCalendarDate } from "~/domain/calendar-date";
import { PLAIN_TEXT_MESSAGE, hasControlCharacters } from "~/domain/plain-text";
import { csvDocument, csvField } from "~/server/files/csv.server";
import { memberPaymentStatus, type PaymentStatus } from "~/domain/payment-status";
import { LEDGER_STATUS_LABELS, shownItem, type BillPaymentStatus } from "~/domain/member-transactions";
import { institution } from "~/config/institution.server";
import { returnReason } from "~/domain/nacha/return-file";
import { centsAsDecimal } from "~/domain/money";

type StoredPaymentStatus = Parameters<typeof memberPaymentStatus>[0];

/**
 * A member's transaction history across their accounts (docs/product.md#transaction-history):
 * filters, keyset pages (newest first, by ledger entry id) and CSV export of the filtered set.
 *
 * Each account's rows are read by walking its (account_id, id) index backwards from the cursor,
 * one subquery per account (UNION ALL, each with its own LIMIT), so a page costs about its own
 * size whatever the history's depth, instead of sorting every row of a member's accounts.
 */
export const TRANSACTION_CATEGORIES = [
  "Income",
  "Groceries",
  "Dining",
  "Shopping",
  "Transportation",
  "Utilities",
  "Housing",
  "Entertainment",
  "Health",
  "Transfers",
  "Fees",
  "Interest",
  "Deposits",
  "Other",
] as const;

/** The Status filter's choices: the ledger's statuses in the member's words. */
export const STATUS_LABELS = LEDGER_STATUS_LABELS;
export type StatusKey = keyof typeof STATUS_LABELS;

export interface HistoryFilters {
  account_id?: number;
  type?: "credit" | "debit";
  category?: string;
  status?: StatusKey;
  /** YYYY-MM-DD, inclusive. */
  from?: string;
  to?: string;
  q?: string;
}

export interface MemberTransaction {
  entry_id: number;
  transaction_id: number;
  reference_number: string;
  account_id: number;
  account_label: string;
  /** Signed for the member's account: positive money in. */
  amount_cents: number;
  direction: "credit" | "debit";
  kind: string;
  /** The ledger's status of the transaction (what the Status filter matches). */
  status: StatusKey;
  /**
   * What the member reads (`shownItem`, app/domain/member-transactions.ts): the ledger's status in
   * words, or the thing's own (a payment to another bank Sent, a bill payment Scheduled or
   * Cancelled, a card purchase Released, a mobile deposit Pending review).
   */
  status_label: string;
  /** The badge's colour, as a ledger status: a sent payment looks posted, a cancelled one reversed. */
  badge: StatusKey;
  /**
   * For a payment to another bank (To US Bank, International), where the payment itself stands:
   * the ledger only knows its hold settled (posted) or was released (failed), which would read
   * "Completed" or "Failed" to the member. Null for every other transaction.
   */
  payment_status: PaymentStatus | null;
  /** The effective date of the file that sent the payment (ACH) or its requested execution date (wire). */
  sent_effective_date: string | null;
  /** A payment the other bank returned: why, in plain words (as the member's notification says it). */
  return_reason: string | null;
  /** The date the member reads (YYYY-MM-DD): the ledger's effective date, a bill payment's payment date. */
  effective_date: string;
  /** When the ledger wrote it. */
  created_at: string;
  /** The moment whose time is shown beside the date, or null when the date stands alone (written on another day: a payment scheduled ahead). */
  time: string | null;
  description: string;
  category: string;
  reference: string | null;
}

export type { PaymentStatus };

export const PAGE_SIZE = 25;
export const CSV_ROWS_MAX = 100_000;
const SEARCH_LENGTH_MAX = 100;

/** The typed filters (dates, search words) the member must correct: a message per field. */
export type HistoryFilterProblems = Partial<Record<"from" | "to" | "q", string>>;

/**
 * What is wrong with the typed filters of a URL's query, or null. An impossible date
 * (2024-02-31) or a control character in the search is answered with a message next to the
 * field instead of being sent to the database, which refuses both with an error.
 */
export function historyFilterProblems(params: URLSearchParams): HistoryFilterProblems | null {
  const problems: HistoryFilterProblems = {};
  for (const name of ["from", "to"] as const) {
    const date = params.get(name)?.trim();
    if (date && !isCalendarDate(date)) problems[name] = CALENDAR_DATE_MESSAGE;
  }
  const q = params.get("q");
  if (q && hasControlCharacters(q)) problems.q = PLAIN_TEXT_MESSAGE;
  return Object.keys(problems).length ? problems : null;
}

/**
 * The filters from a URL's query, keeping only valid values: a choice that is not on the list
 * (another member's account, an unknown status) is ignored; typed values that are not valid are
 * ignored here too and reported by `historyFilterProblems`.
 */
export function parseHistoryFilters(params: URLSearchParams, accounts: readonly AccountView[]): HistoryFilters {
  const filters: HistoryFilters = {};
  const account = Number(params.get("account"));
  if (accounts.some((a) => a.id === account)) filters.account_id = account;
  const type = params.get("type");
  if (type === "credit" || type === "debit") filters.type = type;
  const category = params.get("category");
  if (category && (TRANSACTION_CATEGORIES as readonly string[]).includes(category)) filters.category = category;
  const status = params.get("status");
  if (status && Object.hasOwn(STATUS_LABELS, status)) filters.status = status as StatusKey;
  const from = params.get("from")?.trim();
  if (from && isCalendarDate(from)) filters.from = from;
  const to = params.get("to")?.trim();
  if (to && isCalendarDate(to)) filters.to = to;
  const q = params.get("q")?.trim();
  if (q && !hasControlCharacters(q)) filters.q = q.slice(0, SEARCH_LENGTH_MAX);
  return filters;
}

/** The filters as ` and ...` conditions on entries `e` and transactions `t`; null when there are none. */
function conditions(filters: HistoryFilters): SQL | null {
  const parts: SQL[] = [];
  if (filters.type === "credit") parts.push(sql`e.amount_cents > 0`);
  if (filters.type === "debit") parts.push(sql`e.amount_cents < 0`);
  if (filters.category) parts.push(sql`t.category = ${filters.category}`);
  if (filters.status) parts.push(sql`t.status = ${filters.status}`);
  if (filters.from) parts.push(sql`t.effective_date >= ${filters.from}::date`);
  if (filters.to) parts.push(sql`t.effective_date <= ${filters.to}::date`);
  if (filters.q) {
    const pattern = `%${filters.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    parts.push(sql`(t.memo ilike ${pattern} or t.reference ilike ${pattern} or t.category ilike ${pattern})`);
  }
  return parts.length === 0 ? null : sql` and ${sql.join(parts, sql` and `)}`;
}

/**
 * One page, newest first. `before` is the previous page's `next_before` (an entry id). The
 * accounts are the member's own: the caller passes `memberAccounts(member)`, so another
 * member's account id in the URL matches nothing.
 */
export async function memberHistoryPage(
  db: DbOrTx,
  accounts: readonly AccountView[],
  filters: HistoryFilters,
  options: { before?: string | null; limit?: number } = {},
): Promise<{ rows: MemberTransaction[]; next_before: string | null }> {
  const limit = Math.min(Math.max(options.limit ?? PAGE_SIZE, 1), 1000);
  const before = options.before && /^[1-9]\d{0,15}$/.test(options.before) ? options.before : null;
  const chosen = accounts.filter(
    (a) => a.owner === "member" && (filters.account_id === undefined || a.id === filters.account_id),
  );
  if (chosen.length === 0) return { rows: [], next_before: null };
  const where = conditions(filters);
  const page_sql =
    where === null
      ? unfilteredPage(chosen, before, limit)
      : await filteredPage(db, chosen, where, filters, before, limit);
  const result = await db.execute(
    sql`select p.page, ${paymentStates(sql`p.page`)} as payments, ${billPaymentStates(sql`p.page`)} as bill_payments from (${page_sql} offset 0) p`,
  );
  const row = result.rows[0];
  return historyPage(row?.page, accounts, limit, { payments: row?.payments, bill_payments: row?.bill_payments });
}

/**
 * A page as the member sees it, from the JSON array of up to `limit + 1` entries that the page
 * statements return (the extra entry says whether there is a next page), and the page's
 * `paymentStates` and `billPaymentStates`.
 */
export function historyPage(
  value: unknown,
  accounts: readonly AccountView[],
  limit: number,
  states: { payments?: unknown; bill_payments?: unknown } = {},
): { rows: MemberTransaction[]; next_before: string | null } {
  const labels = new Map(accounts.map((a) => [a.id, accountLabel(a)]));
  const payments = new Map(
    jsonRows(states.payments).map((p) => {
      const return_code = (p.return_code as string | null) ?? null;
      return [
        toId(p.transaction_id),
        {
          status: memberPaymentStatus(String(p.status) as StoredPaymentStatus, return_code),
          effective_date: (p.effective_date as string | null) ?? null,
          return_code,
        },
      ];
    }),
  );
  const bill_payments = new Map(
    jsonRows(states.bill_payments).map((b) => [toId(b.transaction_id), String(b.status) as BillPaymentStatus]),
  );
  const time_zone = institution().time_zone;
  const all = jsonRows(value).map((r) => toMemberTransaction(r, labels, payments, bill_payments, time_zone));
  const rows = all.slice(0, limit);
  return { rows, next_before: all.length > limit ? String(rows[rows.length - 1]!.entry_id) : null };
}

/** The ledger kinds of a payment to another bank's hold (app/server/payments/transfers.server.ts). */
const EXTERNAL_PAYMENT_KINDS = ["ach_out", "wire_out"];

/**
 * The page's payments to other banks as a JSON array of { transaction_id, status, effective_date,
 * return_code } (the R-code of the ACH return that reversed it, found by the payment's index):
 * each payment found by its hold (the page's transaction id, unique in external_payments), with
 * the effective date of the file that sent it. `page` is the page's JSON array (a column of the
 * enclosing statement, so the page is read once); pages without such a transaction read nothing.
 */
export function paymentStates(page: SQL): SQL {
  return sql`(select coalesce(json_agg(json_build_object('transaction_id', xp.hold_transaction_id, 'status', xp.status, 'effective_date', xf.effective_date::text, 'return_code', xr.return_code)), '[]')
      from external_payments xp left join payment_export_files xf on xf.id = xp.export_file_id
      left join ach_inbound_entries xr on xr.payment_id = xp.id and xr.status = 'applied'
     where xp.hold_transaction_id in (select (xj->>'transaction_id')::bigint from json_array_elements(${page}) xj
                                       where xj->>'kind' in (${sql.join(
                                         EXTERNAL_PAYMENT_KINDS.map((k) => sql`${k}`),
                                         sql`, `,
                                       )})))`;
}

/**
 * The statuses of the bill payments whose released holds are on the page, as a JSON array of
 * { transaction_id, status }: a released hold whose payment was cancelled or failed on its date
 * (found by the payment's hold, on its index). A released hold no payment points at was replaced
 * by an edit. Pages without a released bill payment hold read nothing.
 */
export function billPaymentStates(page: SQL): SQL {
  return sql`(select coalesce(json_agg(json_build_object('transaction_id', bp.hold_transaction_id, 'status', bp.status)), '[]')
      from bill_payments bp
     where bp.hold_transaction_id in (select (xj->>'transaction_id')::bigint from json_array_elements(${page}) xj
                                       where xj->>'kind' = 'bill_payment' and xj->>'status' = 'failed'))`;
}

/** Account ids as a `bigint[]` argument for the member functions of migration 0012. */
export function accountIdArray(ids: readonly number[]): SQL {
  return sql`array[${sql.join(
    ids.map((id) => sql`${id}::bigint`),
    sql`, `,
  )}]::bigint[]`;
}

/**
 * Without filters (the dashboard's recent list, history's unfiltered pages): the
 * `member_recent_entries` function (migration 0012), whose plan each connection makes once;
 * planning this statement took twice as long as running it.
 */
function unfilteredPage(accounts: readonly AccountView[], before: string | null, limit: number): SQL {
  return sql`select ${recentEntries(accounts, before, limit)} as page`;
}

/** The unfiltered page as an expression (the JSON array `historyPage` reads), for statements that read more beside it. */
export function recentEntries(accounts: readonly AccountView[], before: string | null, limit: number): SQL {
  return sql`member_recent_entries(${accountIdArray(accounts.map((a) => a.id))}, ${before}::bigint, ${limit + 1})`;
}

/** With filters: per account the newest matching entries (by the (account_id, id) index), then the newest of those. */
async function filteredPage(
  db: DbOrTx,
  accounts: readonly AccountView[],
  where: SQL,
  filters: HistoryFilters,
  before: string | null,
  limit: number,
): Promise<SQL> {
  const from_bound = filters.from ? await firstTransactionOnOrAfter(db, filters.from) : null;
  const parts = accounts.map(
    (a) => sql`(select e.id as entry_id, e.account_id, e.transaction_id, e.amount_cents, t.kind, t.status,
        t.effective_date::text as effective_date, (extract(epoch from t.created_at) * 1000)::float8 as created_at_ms,
        t.memo, t.reference, t.category
      from ledger_entries e join ledger_transactions t on t.id = e.transaction_id
     where e.account_id = ${a.id}${before ? sql` and e.id < ${before}::bigint` : sql``}${from_bound === null ? sql`` : sql` and e.transaction_id >= ${from_bound}::bigint`}${where}
     order by e.account_id desc, e.id desc limit ${limit + 1})`,
  );
  return sql`
    select coalesce(json_agg(h order by h.entry_id desc), '[]') as page
      from (select * from (${sql.join(parts, sql` union all `)}) u order by entry_id desc limit ${limit + 1}) h`;
}

/**
 * The smallest transaction id dated on or after `date` (a range scan of the (effective_date, id)
 * index): every transaction of the range has an id at least this, so a member account's entries
 * of the range start at this transaction id on (account_id, transaction_id). The OFFSET 0 fence
 * keeps the planner from rewriting min(id) as "walk the primary key from the oldest id until a
 * row matches", which reads the whole history when the range is recent (EXPLAIN on 100,000
 * transactions: 97,000 rows filtered out, 30 ms, against a range of a few thousand index entries).
 */
export async function firstTransactionOnOrAfter(db: DbOrTx, date: string): Promise<number | null> {
  const result = await db.execute(
    sql`select min(id) as id from (select id from ledger_transactions where effective_date >= ${date}::date offset 0) r`,
  );
  const id = result.rows[0]?.id;
  return id === null || id === undefined ? Number.MAX_SAFE_INTEGER : toId(id);
}

/** A json column as rows: drivers hand json back parsed, but a text value is parsed here too. */
export function jsonRows(value: unknown): Record<string, unknown>[] {
  const parsed = jsonValue(value);
  return Array.isArray(parsed) ? (parsed as Record<string, unknown>[]) : [];
}

/** A `json` column's value: the driver may hand it over parsed or as text. */
export function jsonValue(value: unknown): unknown {
  return typeof value === "string" ? JSON.parse(value) : value;
}

type PaymentState = { status: PaymentStatus; effective_date: string | null; return_code: string | null };

function toMemberTransaction(
  r: Record<string, unknown>,
  labels: Map<number, string>,
  payments: Map<number, PaymentState>,
  bill_payments: Map<number, BillPaymentStatus>,
  time_zone: string,
): MemberTransaction {
  const amount_cents = toCents(r.amount_cents);
  const status = String(r.status) as StatusKey;
  const account_id = toId(r.account_id);
  const transaction_id = toId(r.transaction_id);
  const payment = payments.get(transaction_id);
  const created_at = new Date(Number(r.created_at_ms));
  const shown = shownItem(
    {
      kind: String(r.kind),
      status,
      amount_cents,
      effective_date: String(r.effective_date),
      created_at,
      payment_status: payment?.status ?? null,
      bill_payment_status: bill_payments.get(transaction_id) ?? null,
    },
    time_zone,
  );
  return {
    entry_id: toId(r.entry_id),
    transaction_id,
    reference_number: referenceNumber(transaction_id),
    account_id,
    account_label: labels.get(account_id) ?? "",
    amount_cents,
    direction: amount_cents > 0 ? "credit" : "debit",
    kind: String(r.kind),
    status,
    status_label: shown.label,
    badge: shown.badge,
    payment_status: payment?.status ?? null,
    sent_effective_date: payment?.status === "sent" ? payment.effective_date : null,
    return_reason: payment?.status === "returned" && payment.return_code ? returnReason(payment.return_code) : null,
    effective_date: shown.date,
    created_at: created_at.toISOString(),
    time: shown.time?.toISOString() ?? null,
    description: (r.memo as string | null) ?? defaultDescription(String(r.kind)),
    category: (r.category as string | null) ?? "Other",
    reference: (r.reference as string | null) ?? null,
  };
}

function defaultDescription(kind: string): string {
  return kind.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
}

/** Free text in the history export: always quoted, formulas made inert (csv.server.ts). */
function text(value: string): string {
  return csvField(value, { quote: "always" });
}

const HISTORY_CSV_HEADER = [
  "Date",
  "Time (UTC)",
  "Description",
  "Category",
  "Type",
  "Amount",
  "Status",
  "Reference",
  "Account",
  "Reference number",
] as const;

/** The filtered set as CSV (RFC 4180, CRLF), newest first, at most CSV_ROWS_MAX rows. */
export async function memberHistoryCsv(
  db: DbOrTx,
  accounts: readonly AccountView[],
  filters: HistoryFilters,
): Promise<string> {
  const lines: string[][] = [];
  let before: string | null = null;
  for (let count = 0; count < CSV_ROWS_MAX;) {
    const page: { rows: MemberTransaction[]; next_before: string | null } = await memberHistoryPage(
      db,
      accounts,
      filters,
      { before, limit: 1000 },
    );
    for (const row of page.rows) {
      lines.push([
        row.effective_date,
        // Empty when the date stands alone (a payment scheduled ahead): see MemberTransaction.time.
        row.time?.slice(11, 19) ?? "",
        text(row.description),
        text(row.category),
        row.direction === "credit" ? "Credit" : "Debit",
        centsAsDecimal(row.amount_cents),
        row.status_label,
        text(row.reference ?? ""),
        text(row.account_label),
        row.reference_number,
      ]);
    }
    count += page.rows.length;
    if (!page.next_before) break;
    before = page.next_before;
  }
  return csvDocument(HISTORY_CSV_HEADER, lines);
}
