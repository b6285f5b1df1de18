import { sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { HISTORY_PAGE_LIMIT_MAX, assert, toCents, toId, type TransactionKind } from "~/domain/ledger-rules";
import type { LedgerResult, TransactionStatus } from "./ledger.server";
import { TRANSACTION_COLUMNS, readEntries, toView } from "./rows.server";

/**
 * Reading the ledger: one transaction with its entries, and an account's history page by page
 * (docs/architecture.md#ledger). Nothing here locks or writes.
 */

/** A transaction and its entries, or null. */
export async function getTransaction(db: DbOrTx, transaction_id: number): Promise<LedgerResult | null> {
  assert(Number.isSafeInteger(transaction_id), "bad transaction id");
  const result = await db.execute(
    sql.raw(`SELECT ${TRANSACTION_COLUMNS} FROM ledger_transactions WHERE id = ${transaction_id}`),
  );
  const row = result.rows[0];
  if (!row) return null;
  return { ok: true, transaction: toView(row), entries: await readEntries(db, transaction_id), replayed: false };
}

export interface HistoryRow {
  entry_id: number;
  transaction_id: number;
  /** Signed, for this account: positive = credit (money in), negative = debit. */
  amount_cents: number;
  direction: "credit" | "debit";
  kind: TransactionKind;
  status: TransactionStatus;
  effective_date: string;
  created_at: Date;
  memo: string | null;
  reference: string | null;
  category: string | null;
  reverses_id: number | null;
}

export interface HistoryPage {
  rows: HistoryRow[];
  /** Pass as `before` for the next (older) page; null when this is the oldest. */
  next_before: string | null;
}

/**
 * One page of an account's history, newest first, by keyset on the entry id (an index range
 * scan on (account_id, id): as fast a million entries deep as on the first page). `before` is
 * the opaque cursor from the previous page.
 */
export async function historyPage(
  db: DbOrTx,
  account_id: number,
  options: { before?: string | null; limit?: number } = {},
): Promise<HistoryPage> {
  const limit = options.limit ?? 20;
  assert(
    Number.isInteger(limit) && limit >= 1 && limit <= HISTORY_PAGE_LIMIT_MAX,
    `history limit must be 1..${HISTORY_PAGE_LIMIT_MAX}`,
  );
  const before = options.before ?? null;
  assert(before === null || /^[1-9]\d{0,15}$/.test(before), "bad history cursor");
  // ORDER BY (account_id, id) spells out the index's order: the planner then walks that index
  // backwards from the cursor, instead of scanning the primary key for a busy account's rows.
  const result = await db.execute(sql`
    select e.id as entry_id, e.transaction_id, e.amount_cents, t.kind, t.status,
           t.effective_date::text as effective_date,
           (extract(epoch from t.created_at) * 1000)::float8 as created_at_ms,
           t.memo, t.reference, t.category, t.reverses_id
      from ledger_entries e
      join ledger_transactions t on t.id = e.transaction_id
     where e.account_id = ${account_id} ${before === null ? sql`` : sql`and e.id < ${before}::bigint`}
     order by e.account_id desc, e.id desc
     limit ${limit + 1}`);
  const all = result.rows.map((r): HistoryRow => {
    const amount_cents = toCents(r.amount_cents);
    return {
      entry_id: toId(r.entry_id),
      transaction_id: toId(r.transaction_id),
      amount_cents,
      direction: amount_cents > 0 ? "credit" : "debit",
      kind: r.kind as TransactionKind,
      status: r.status as TransactionStatus,
      effective_date: String(r.effective_date),
      created_at: new Date(Number(r.created_at_ms)),
      memo: (r.memo as string | null) ?? null,
      reference: (r.reference as string | null) ?? null,
      category: (r.category as string | null) ?? null,
      reverses_id: r.reverses_id === null ? null : toId(r.reverses_id),
    };
  });
  const rows = all.slice(0, limit);
  return { rows, next_before: all.length > limit ? String(rows[rows.length - 1]!.entry_id) : null };
}
