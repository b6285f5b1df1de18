import { sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { NOTIFICATION_BODY_MAX, NOTIFICATION_TITLE_MAX } from "~/server/notifications/notifications.server";
import { ledgerRefusal, type LedgerRefusal } from "~/domain/refusals";
import { type LedgerSession } from "./session.server";
import {
  BATCH_TRANSACTIONS_MAX,
  assert,
  assertAccountState,
  toCents,
  toId,
  type AccountChange,
  type AccountState,
  type EntryInput,
  type TransactionKind,
} from "~/domain/ledger-rules";

import type {
  BatchInput,
  BatchResult,
  LedgerResult,
  LockedAccount,
  PostingNotification,
  TransactionStatus,
  TransactionView,
} from "./ledger.server";

/**
 * The ledger's rows in SQL (docs/architecture.md#ledger): locking accounts and transactions,
 * reading entries, and writing a transaction with its entries, notifications and the accounts'
 * cached figures in one statement. Only app/server/ledger calls these; the rules of what may be
 * written live in app/domain/ledger-rules.ts and the control flow in ledger.server.ts.
 */

/** `referenceNumber` in SQL, of the transaction id `id` (at least 8 digits, never cut). */
export const REFERENCE_NUMBER_SQL = (id: string) => `'MU' || lpad(${id}::text, greatest(8, length(${id}::text)), '0')`;
export interface NewTransactionRow {
  kind: TransactionKind;
  status: "posted" | "pending";
  initiator: string;
  idempotency_key: string;
  batch_key: string | null;
  reverses_id: number | null;
  effective_date: string;
  created_by: string;
  memo: string | null;
  reference: string | null;
  category: string | null;
}

/** Every hold's entries in one query, by transaction id (entries never change, so read before locking). */
export async function readEntriesOf(
  db: DbOrTx,
  transaction_ids: readonly number[],
): Promise<Map<number, EntryInput[]>> {
  const result = await db.execute(sql`
    select transaction_id, account_id, amount_cents from ledger_entries
     where transaction_id in (select value::bigint from jsonb_array_elements_text(${JSON.stringify(transaction_ids)}::jsonb))
     order by id`);
  const entries = new Map<number, EntryInput[]>();
  for (const r of result.rows) {
    const id = toId(r.transaction_id);
    let list = entries.get(id);
    if (!list) entries.set(id, (list = []));
    list.push({ account_id: toId(r.account_id), amount_cents: toCents(r.amount_cents) });
  }
  return entries;
}

const ACCOUNT_COLUMNS =
  "id, owner, type, status, posted_cents, held_cents, overdraft_limit_cents, transfer_count, transfer_count_month, member_id, account_number, alerts_on";

/**
 * Opens the database transaction and locks the accounts in id order, reading their figures.
 * ORDER BY id puts the row locks in that order (PostgreSQL locks rows as they leave the sort),
 * the same for every posting, so no two postings wait on each other in a cycle. The ids are
 * checked safe integers, inlined so that BEGIN and this statement travel in one round trip.
 */
export async function lockAccounts(
  session: LedgerSession,
  account_ids: readonly number[],
): Promise<Map<number, LockedAccount> | LedgerRefusal> {
  const ids = [...new Set(account_ids)].sort((a, b) => a - b);
  for (const id of ids) assert(Number.isSafeInteger(id) && id > 0, `bad account id ${id}`);
  const rows = await session.begin(
    `SELECT ${ACCOUNT_COLUMNS} FROM ledger_accounts WHERE id IN (${ids.join(", ")}) ORDER BY id FOR UPDATE`,
  );
  const accounts = new Map<number, LockedAccount>();
  for (const row of rows) {
    const account: LockedAccount = {
      id: toId(row.id),
      owner: row.owner as AccountState["owner"],
      type: String(row.type),
      status: row.status as AccountState["status"],
      posted_cents: toCents(row.posted_cents),
      held_cents: toCents(row.held_cents),
      overdraft_limit_cents: toCents(row.overdraft_limit_cents),
      transfer_count: Number(row.transfer_count),
      transfer_count_month: (row.transfer_count_month as string | null) ?? null,
      member_id: (row.member_id as string | null) ?? null,
      account_number: String(row.account_number),
      alerts_on: row.alerts_on === true,
    };
    assertAccountState(account); // the database's invariant, asserted again after reading
    accounts.set(account.id, account);
  }
  const missing = ids.find((id) => !accounts.has(id));
  if (missing !== undefined) return ledgerRefusal("account_not_found", { subject_id: missing });
  return accounts;
}

export const TRANSACTION_COLUMNS = `id, kind, status, initiator, idempotency_key, batch_key, reverses_id,
  effective_date::text AS effective_date, (extract(epoch from created_at) * 1000)::float8 AS created_at_ms, created_by,
  memo, reference, category, (extract(epoch from resolved_at) * 1000)::float8 AS resolved_at_ms, resolved_by, resolution_key`;

/** Locks a transaction row; always after its accounts, so the lock order stays one order. */
export async function lockTransaction(
  session: LedgerSession,
  transaction_id: number,
): Promise<(TransactionView & { ok: true; resolution_key: string | null }) | LedgerRefusal> {
  const [row] = await session.query(`SELECT ${TRANSACTION_COLUMNS} FROM ledger_transactions WHERE id = $1 FOR UPDATE`, [
    transaction_id,
  ]);
  if (!row) return ledgerRefusal("transaction_not_found", { subject_id: transaction_id });
  return { ...toView(row), ok: true, resolution_key: (row.resolution_key as string | null) ?? null };
}

export async function readEntries(db: DbOrTx, transaction_id: number): Promise<EntryInput[]> {
  const result = await db.execute(sql`
    select account_id, amount_cents from ledger_entries where transaction_id = ${transaction_id} order by id`);
  return result.rows.map((r) => ({ account_id: toId(r.account_id), amount_cents: toCents(r.amount_cents) }));
}

/** `, a AS (UPDATE ledger_accounts ...)` applying the changes, only if the CTE `t` wrote a row. */
export function accountUpdateSql(changes: readonly AccountChange[], params: unknown[]): string {
  if (changes.length === 0) return "";
  const p = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const values = changes
    .map(
      (c) =>
        `(${p(c.account_id)}::bigint, ${p(c.posted_delta_cents)}::bigint, ${p(c.held_delta_cents)}::bigint, ` +
        `${p(c.transfer_count?.count ?? null)}::integer, ${p(c.transfer_count?.month ?? null)}::text)`,
    )
    .join(", ");
  return `, a AS (
    UPDATE ledger_accounts AS acc
       SET posted_cents = acc.posted_cents + v.posted_delta,
           held_cents = acc.held_cents + v.held_delta,
           transfer_count = coalesce(v.transfer_count, acc.transfer_count),
           transfer_count_month = coalesce(v.transfer_count_month, acc.transfer_count_month)
      FROM (VALUES ${values}) AS v(id, posted_delta, held_delta, transfer_count, transfer_count_month)
     WHERE acc.id = v.id AND EXISTS (SELECT 1 FROM t)
  )`;
}

/**
 * `, n AS (INSERT INTO notifications ...)`, only if the CTE `t` wrote a row. Each body travels
 * as the text around its reference number, joined in SQL on the new transaction's reference
 * number: the body's own text (a member's reference, say) is never searched or replaced.
 */
export function notificationsSql(notifications: readonly PostingNotification[], params: unknown[]): string {
  if (notifications.length === 0) return "";
  const marker = `\u0001${crypto.randomUUID()}\u0001`;
  const items = notifications.map((n) => {
    assert(n.member_id !== "", "a notification needs its member");
    return {
      member_id: n.member_id,
      kind: n.kind,
      title: n.title.slice(0, NOTIFICATION_TITLE_MAX),
      body: n.body(marker).split(marker),
    };
  });
  params.push(JSON.stringify(items));
  return `, n AS (
    INSERT INTO notifications (member_id, kind, title, body)
    SELECT v.item->>'member_id', v.item->>'kind', v.item->>'title',
           left(array_to_string(ARRAY(SELECT jsonb_array_elements_text(v.item->'body')), ${REFERENCE_NUMBER_SQL("t.id")}), ${NOTIFICATION_BODY_MAX})
      FROM t CROSS JOIN jsonb_array_elements($${params.length}::jsonb) WITH ORDINALITY AS v(item, n)
     ORDER BY v.n
  )`;
}

/**
 * Writes the transaction, its entries, the account figures and the caller's notifications in
 * one statement (one round trip to the database). The insert yields nothing when the
 * idempotency key is already taken; then nothing else is written either and the caller returns
 * the first result.
 */
export async function writeNewTransaction(
  session: LedgerSession,
  row: NewTransactionRow,
  entries: readonly EntryInput[],
  changes: readonly AccountChange[],
  notifications: readonly PostingNotification[] = [],
): Promise<LedgerResult | "replay"> {
  const params: unknown[] = [
    row.kind,
    row.status,
    row.initiator,
    row.idempotency_key,
    row.batch_key,
    row.reverses_id,
    row.effective_date,
    row.created_by,
    row.memo,
    row.reference,
    row.category,
  ];
  const p = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const entry_values = entries.map((e) => `(${p(e.account_id)}::bigint, ${p(e.amount_cents)}::bigint)`).join(", ");
  const mark_original =
    row.reverses_id === null
      ? ""
      : `, o AS (
      UPDATE ledger_transactions
         SET status = 'reversed', resolved_at = now(), resolved_by = $8
       WHERE id = $6 AND status = 'posted' AND EXISTS (SELECT 1 FROM t)
    )`;
  const rows = await session.query(
    `WITH t AS (
      INSERT INTO ledger_transactions
        (kind, status, initiator, idempotency_key, batch_key, reverses_id, effective_date, created_by, memo, reference, category)
      VALUES ($1, $2, $3, $4, $5, $6::bigint, $7::date, $8, $9, $10, $11)
      ON CONFLICT (initiator, idempotency_key) DO NOTHING
      RETURNING id, (extract(epoch from created_at) * 1000)::float8 AS created_at_ms
    ), e AS (
      INSERT INTO ledger_entries (transaction_id, account_id, amount_cents)
      SELECT t.id, v.account_id, v.amount_cents FROM t CROSS JOIN (VALUES ${entry_values}) AS v(account_id, amount_cents)
    )${accountUpdateSql(changes, params)}${mark_original}${notificationsSql(notifications, params)}
    SELECT id, created_at_ms FROM t`,
    params,
    { prepare: true },
  );
  const written = rows[0];
  if (!written) return "replay";
  return {
    ok: true,
    transaction: {
      ...row,
      id: toId(written.id),
      created_at: new Date(Number(written.created_at_ms)),
      resolved_at: null,
      resolved_by: null,
    },
    entries: [...entries],
    replayed: false,
  };
}

/**
 * Items of a batch written per INSERT statement. The rows travel as one JSON parameter, so the
 * statement's text is the same for every chunk (one prepared statement) and no chunk comes near
 * PostgreSQL's limit of 65,535 parameters; the chunk bounds the size of one statement's text.
 */
const BATCH_WRITE_CHUNK = 1_000;

/**
 * The SQL of one chunk of a batch: its transactions, then their entries, joined on each item's
 * own key (the batch's key with "#<index>", unique per initiator). Rows go in item order, entries
 * in entry order, so ids ascend as they would one transaction at a time (a repeat of the batch
 * reads them back in id order). The entries' statement trigger adds the chunk to the daily
 * totals once per account, day, kind and category; the deferred triggers check at commit that
 * each transaction sums to zero.
 */
const BATCH_INSERT_SQL = `WITH v AS (
    SELECT * FROM jsonb_to_recordset($4::jsonb)
      AS v(n integer, key text, kind text, effective_date date, memo text, reference text, category text)
  ), t AS (
    INSERT INTO ledger_transactions
      (kind, status, initiator, idempotency_key, batch_key, reverses_id, effective_date, created_by, memo, reference, category)
    SELECT v.kind, 'posted', $1, v.key, $2, NULL, v.effective_date, $3, v.memo, v.reference, v.category FROM v ORDER BY v.n
    ON CONFLICT (initiator, idempotency_key) DO NOTHING
    RETURNING id, idempotency_key, (extract(epoch from created_at) * 1000)::float8 AS created_at_ms
  ), e AS (
    INSERT INTO ledger_entries (transaction_id, account_id, amount_cents)
    SELECT t.id, x.account_id, x.amount_cents
      FROM jsonb_to_recordset($5::jsonb) AS x(n integer, key text, account_id bigint, amount_cents bigint)
      JOIN t ON t.idempotency_key = x.key
     ORDER BY x.n
  )
  SELECT id, idempotency_key, created_at_ms FROM t`;

/**
 * Writes a planned batch: a few INSERT statements of many rows instead of one statement per item
 * (the same counterpart account updated 10,000 times in one database transaction costs time in
 * the square of the count: PostgreSQL walks the row's versions). Every item's key derives from
 * the batch's, which was checked unused under the locks, so every row must be written.
 */
export async function writeBatch(
  session: LedgerSession,
  input: BatchInput,
  items: ReadonlyArray<{ row: NewTransactionRow; entries: EntryInput[] }>,
): Promise<LedgerResult[]> {
  const results: LedgerResult[] = [];
  for (let start = 0; start < items.length; start += BATCH_WRITE_CHUNK) {
    const chunk = items.slice(start, start + BATCH_WRITE_CHUNK);
    const transactions = chunk.map(({ row }, n) => {
      assert(
        row.status === "posted" && row.reverses_id === null && row.batch_key === input.idempotency_key,
        "batch item is not a new posting of the batch",
      );
      return {
        n,
        key: row.idempotency_key,
        kind: row.kind,
        effective_date: row.effective_date,
        memo: row.memo,
        reference: row.reference,
        category: row.category,
      };
    });
    let n = 0;
    const entries = chunk.flatMap(({ row, entries }) =>
      entries.map((e) => ({
        n: n++,
        key: row.idempotency_key,
        account_id: e.account_id,
        amount_cents: e.amount_cents,
      })),
    );
    const rows = await session.query(
      BATCH_INSERT_SQL,
      [input.initiator, input.idempotency_key, input.created_by, JSON.stringify(transactions), JSON.stringify(entries)],
      { prepare: true },
    );
    assert(
      rows.length === chunk.length,
      `batch ${input.idempotency_key}: ${chunk.length - rows.length} item keys were already used`,
    );
    const written = new Map(rows.map((r) => [String(r.idempotency_key), r]));
    for (const { row, entries } of chunk) {
      const w = written.get(row.idempotency_key);
      assert(w, `batch item ${row.idempotency_key} was not written`);
      results.push({
        ok: true,
        transaction: {
          ...row,
          id: toId(w.id),
          created_at: new Date(Number(w.created_at_ms)),
          resolved_at: null,
          resolved_by: null,
        },
        entries: [...entries],
        replayed: false,
      });
    }
  }
  return results;
}

/** What a batch did to one account: its figures after every item against its figures before. */
export function figuresChange(before: AccountState, after: AccountState): AccountChange {
  const change: AccountChange = {
    account_id: after.id,
    posted_delta_cents: after.posted_cents - before.posted_cents,
    held_delta_cents: after.held_cents - before.held_cents,
  };
  assert(
    Number.isSafeInteger(change.posted_delta_cents) && Number.isSafeInteger(change.held_delta_cents),
    `account ${after.id}: batch change out of range`,
  );
  if (after.transfer_count !== before.transfer_count || after.transfer_count_month !== before.transfer_count_month) {
    assert(after.transfer_count_month !== null, `account ${after.id}: transfer count without a month`);
    change.transfer_count = { count: after.transfer_count, month: after.transfer_count_month };
  }
  return change;
}

/**
 * One UPDATE for every account a batch touched, each with its summed change: one new version of
 * each row, whatever the number of items. The CHECKs then see each account's final figures; the
 * plan already checked every item's figures in turn.
 */
export async function writeAccountFigures(session: LedgerSession, changes: readonly AccountChange[]): Promise<void> {
  const values = changes.map((c) => ({
    id: c.account_id,
    posted_delta: c.posted_delta_cents,
    held_delta: c.held_delta_cents,
    transfer_count: c.transfer_count?.count ?? null,
    transfer_count_month: c.transfer_count?.month ?? null,
  }));
  const rows = await session.query(
    `UPDATE ledger_accounts AS acc
        SET posted_cents = acc.posted_cents + v.posted_delta,
            held_cents = acc.held_cents + v.held_delta,
            transfer_count = coalesce(v.transfer_count, acc.transfer_count),
            transfer_count_month = coalesce(v.transfer_count_month, acc.transfer_count_month)
       FROM jsonb_to_recordset($1::jsonb) AS v(id bigint, posted_delta bigint, held_delta bigint, transfer_count integer, transfer_count_month text)
      WHERE acc.id = v.id
  RETURNING acc.id`,
    [JSON.stringify(values)],
    { prepare: true },
  );
  assert(rows.length === changes.length, `batch updated ${rows.length} of ${changes.length} accounts`);
}

export async function findByKey(db: DbOrTx, initiator: string, idempotency_key: string): Promise<LedgerResult | null> {
  const result = await db.execute(sql`
    select ${sql.raw(TRANSACTION_COLUMNS)} from ledger_transactions
     where initiator = ${initiator} and idempotency_key = ${idempotency_key}`);
  const row = result.rows[0];
  if (!row) return null;
  const transaction = toView(row);
  return { ok: true, transaction, entries: await readEntries(db, transaction.id), replayed: true };
}

export async function findBatch(db: DbOrTx, initiator: string, batch_key: string): Promise<BatchResult | null> {
  const result = await db.execute(sql`
    select ${sql.raw(TRANSACTION_COLUMNS)} from ledger_transactions
     where initiator = ${initiator} and batch_key = ${batch_key}
     order by id limit ${BATCH_TRANSACTIONS_MAX}`);
  if (result.rows.length === 0) return null;
  const transactions: LedgerResult[] = [];
  for (const row of result.rows) {
    const transaction = toView(row);
    transactions.push({ ok: true, transaction, entries: await readEntries(db, transaction.id), replayed: true });
  }
  return { ok: true, transactions, replayed: true };
}

/** A row selected with TRANSACTION_COLUMNS, from either driver. */
export function toView(row: Record<string, unknown>): TransactionView {
  const date = (ms: unknown) => (ms === null || ms === undefined ? null : new Date(Number(ms)));
  return {
    id: toId(row.id),
    kind: row.kind as TransactionKind,
    status: row.status as TransactionStatus,
    initiator: String(row.initiator),
    idempotency_key: String(row.idempotency_key),
    batch_key: (row.batch_key as string | null) ?? null,
    reverses_id: row.reverses_id === null || row.reverses_id === undefined ? null : toId(row.reverses_id),
    effective_date: String(row.effective_date),
    created_at: date(row.created_at_ms)!,
    created_by: String(row.created_by),
    memo: (row.memo as string | null) ?? null,
    reference: (row.reference as string | null) ?? null,
    category: (row.category as string | null) ?? null,
    resolved_at: date(row.resolved_at_ms),
    resolved_by: (row.resolved_by as string | null) ?? null,
  };
}
