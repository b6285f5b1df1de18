import crypto from "node:crypto";
import { sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import type { LedgerTransaction, NotificationKind } from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { countLedgerPosting, countLedgerRefusal } from "~/server/metrics/metrics.server";
import { NOTIFICATION_BODY_MAX, NOTIFICATION_TITLE_MAX } from "~/server/notifications/notifications.server";
import { ledgerRefusal, type LedgerRefusal } from "~/domain/refusals";
import { inLedgerTransaction, type LedgerSession } from "./session.server";
import {
  BATCH_TRANSACTIONS_MAX,
  HISTORY_PAGE_LIMIT_MAX,
  KEY_LENGTH_MAX,
  TRANSACTION_KINDS,
  applyChanges,
  assert,
  assertAccountState,
  assertEffectiveDate,
  assertText,
  checkEntries,
  checkReversible,
  planNewTransaction,
  planRelease,
  planSettle,
  reversedEntries,
  toCents,
  toId,
  businessDate,
  type AccountChange,
  type AccountState,
  type EntryInput,
  type PostingKind,
  type TransactionKind,
} from "~/domain/ledger-rules";

/**
 * The only code that moves money (docs/architecture.md#ledger). Every operation runs in one
 * database transaction that:
 *   1. locks the accounts it touches with SELECT ... FOR UPDATE, in id order (so two postings
 *      over the same accounts queue instead of deadlocking, and neither loses an update);
 *   2. plans the change with the pure rules in app/domain/ledger-rules.ts (refusing for a stated reason);
 *   3. writes the transaction, its entries and the accounts' cached figures in one statement.
 * Every operation answers with its result (`ok: true`) or a refusal as a value (`ok: false` and
 * a code from app/domain/refusals.ts, with nothing written), as TigerBeetle answers with result
 * codes: callers branch on `ok` and the code. A broken invariant (a bug) still throws.
 * The database checks the result again at commit (entries sum to zero, no member account below
 * its limit), so a bug here cannot leave money created or lost.
 *
 * Idempotency: new transactions (post, hold, reverse, batch) carry a key unique per initiator.
 * A repeat with a key that already succeeded returns the first result and moves nothing
 * (`replayed: true`). A refusal is not stored: a retry with the same key after the cause is
 * fixed (money deposited, account unfrozen) may succeed. Settling and releasing a hold record
 * their key on the hold, so their repeat returns the first result too.
 */

export type { EntryInput, PostingKind, TransactionKind } from "~/domain/ledger-rules";
export type { LedgerRefusal } from "~/domain/refusals";

export interface TransactionInput {
  idempotency_key: string;
  /** The idempotency key's scope: "member:<user id>", "staff:<user id>", "system:<job>". */
  initiator: string;
  kind: PostingKind;
  entries: EntryInput[];
  /** Who did it, for the record (user id or job name). */
  created_by: string;
  memo?: string | null;
  reference?: string | null;
  category?: string | null;
  /** YYYY-MM-DD; default today (the institution's business date). Also decides the month of the savings transfer count. */
  effective_date?: string;
}

export type TransactionStatus = LedgerTransaction["status"];

export interface TransactionView {
  id: number;
  kind: TransactionKind;
  status: TransactionStatus;
  initiator: string;
  idempotency_key: string;
  batch_key: string | null;
  reverses_id: number | null;
  effective_date: string;
  created_at: Date;
  created_by: string;
  memo: string | null;
  reference: string | null;
  category: string | null;
  resolved_at: Date | null;
  resolved_by: string | null;
}

export interface LedgerResult {
  ok: true;
  transaction: TransactionView;
  entries: EntryInput[];
  /** True when this call repeated an earlier one and moved nothing. */
  replayed: boolean;
}

/** What an operation answers: its result, or why it was refused (nothing written). */
export type LedgerAnswer = LedgerResult | LedgerRefusal;

/** Post at once: current and available balances change now. */
export function postTransfer(db: DbOrTx, input: TransactionInput): Promise<LedgerAnswer> {
  return counted(newTransaction(db, input, "posted") as Promise<LedgerAnswer>);
}

/** A member account as a posting locked it: the figures the rules read, and whose it is. */
export interface LockedAccount extends AccountState {
  member_id: string | null;
  account_number: string;
}

/**
 * A notification written by the posting's own write statement, only when the posting is written
 * (a repeat of the key writes none). `body` is given the new transaction's reference number
 * (`referenceNumber`), which exists only once the row is inserted.
 */
export interface PostingNotification {
  member_id: string;
  kind: NotificationKind;
  title: string;
  body: (reference_number: string) => string;
}

/** What a caller's check under the locks lets the posting write with it. */
export interface PostingExtras {
  ok: true;
  /** The transaction's memo, when it names the locked accounts (instead of the input's). */
  memo?: string;
  notifications?: PostingNotification[];
}

/** A refusal the caller's check gave: its own value, passed back as it was. */
export interface CheckRefused<R> {
  ok: false;
  refused_by_check: R;
}

/**
 * The caller's check of a posting, run in the posting's database transaction once the accounts
 * are locked and before the ledger's own rules: the locked accounts (whose they are, their
 * status and figures), and `query` for the caller's own statements under the same locks (an
 * advisory lock, a total to check a limit against). Answers a refusal of the caller's (nothing
 * is written) or what to write with the posting.
 */
export type PostingCheck<R> = (
  accounts: ReadonlyMap<number, LockedAccount>,
  query: (text: string, params?: readonly unknown[]) => Promise<Record<string, unknown>[]>,
) => Promise<{ ok: false; refusal: R } | PostingExtras>;

/**
 * `postTransfer` with a caller's check under the accounts' locks and the caller's notifications
 * written in the posting's own statement: a member's transfer in one database transaction of
 * three round trips on PostgreSQL (BEGIN with the locks, the write, COMMIT), the same as the
 * ledger alone, instead of a savepoint inside the caller's transaction and one statement per
 * notification. Idempotency is the ledger's: a refusal (the check's too) while the key already
 * succeeded answers with the first result (`replayed`), so a repeat is recognised before any
 * rule of the caller's or the ledger's.
 */
export async function postTransferChecked<R>(
  db: DbOrTx,
  input: TransactionInput,
  check: PostingCheck<R>,
): Promise<LedgerAnswer | CheckRefused<R>> {
  const result = await newTransaction(db, input, "posted", check);
  if (!result.ok && "refused_by_check" in result) return result; // the caller counts its own refusals
  return counted(Promise.resolve(result));
}

/** `referenceNumber` in SQL, of the transaction id `id` (at least 8 digits, never cut). */
const REFERENCE_NUMBER_SQL = (id: string) => `'MU' || lpad(${id}::text, greatest(8, length(${id}::text)), '0')`;

/** Hold (pending): the debits reduce available balance, not current; credits wait. */
export function placeHold(db: DbOrTx, input: TransactionInput): Promise<LedgerAnswer> {
  return counted(newTransaction(db, input, "pending") as Promise<LedgerAnswer>);
}

export interface ResolveInput {
  transaction_id: number;
  idempotency_key: string;
  resolved_by: string;
}

/** Posts a pending transaction (the ACH file went out, the bill was paid). */
export function settleHold(db: DbOrTx, input: ResolveInput): Promise<LedgerAnswer> {
  return counted(resolveHold(db, input, "posted"));
}

export interface SettleHoldsInput {
  holds: ReadonlyArray<{ transaction_id: number }>;
  /** Recorded on every hold as its resolution key: a repeat of the call settles nothing again. */
  idempotency_key: string;
  resolved_by: string;
}

/**
 * Settles many holds at once, all or nothing (an ACH file going out settles every transfer in
 * it). The accounts of every hold are locked once, in id order, then the holds; every settle is
 * planned in turn before anything is written, and a refused hold refuses the call with nothing
 * written (`batch_index` says which). Then one statement marks every hold posted and ONE update
 * per account writes its summed change: settling 10,000 holds against one settlement account
 * one at a time in one database transaction rewrote that row (and its daily totals) 10,000 times.
 * A hold already settled with this call's key is a repeat (`replayed`), any other non-pending
 * hold refuses the call.
 */
export function settleHolds(db: DbOrTx, input: SettleHoldsInput): Promise<BatchResult | LedgerRefusal> {
  return counted(settleHoldsOnce(db, input));
}

/** Marks a pending transaction failed and gives the held money back (cancelled, returned). */
export function releaseHold(db: DbOrTx, input: ResolveInput): Promise<LedgerAnswer> {
  return counted(resolveHold(db, input, "failed"));
}

export interface ReverseInput {
  transaction_id: number;
  idempotency_key: string;
  initiator: string;
  created_by: string;
  memo?: string | null;
  effective_date?: string;
}

/**
 * Corrects a posted transaction with a new one carrying the opposite entries (nothing is
 * deleted, docs/product.md#nothing-deleted). The original shows "reversed"; a transaction is
 * reversed at most once, and a reversal is not itself reversible (post a new transaction
 * instead).
 */
export async function reverseTransaction(db: DbOrTx, input: ReverseInput): Promise<LedgerAnswer> {
  assertKey(input);
  assertText(input.created_by, "created_by", true);
  assertText(input.memo, "memo", false);
  const effective_date = input.effective_date ?? today();
  assertEffectiveDate(effective_date);

  return counted(
    idempotent<never>(db, input.initiator, input.idempotency_key, async () => {
      // Entries never change, so they are read before the transaction to know what to lock.
      const original_entries = await readEntries(db, input.transaction_id);
      if (original_entries.length === 0)
        return ledgerRefusal("transaction_not_found", { subject_id: input.transaction_id });
      return withRetry(() =>
        inLedgerTransaction(db, async (session) => {
          const accounts = await lockAccounts(
            session,
            original_entries.map((e) => e.account_id),
          );
          if (!(accounts instanceof Map)) return accounts;
          const original = await lockTransaction(session, input.transaction_id);
          if (!original.ok) return original;
          const irreversible = checkReversible(original);
          if (irreversible) return irreversible;

          const entries = reversedEntries(original_entries);
          const row: NewTransactionRow = {
            kind: "reversal",
            status: "posted",
            initiator: input.initiator,
            idempotency_key: input.idempotency_key,
            batch_key: null,
            reverses_id: original.id,
            effective_date,
            created_by: input.created_by,
            memo: input.memo ?? `Reversal of transaction ${original.id}`,
            reference: original.reference,
            category: original.category,
          };
          const plan = planNewTransaction(
            { kind: "reversal", status: "posted", entries, effective_date },
            accounts,
            savingsTransfersPerMonth(),
          );
          if (!plan.ok) return plan;
          return writeNewTransaction(session, row, entries, plan.changes);
        }),
      );
    }),
  );
}

export interface BatchInput {
  idempotency_key: string;
  initiator: string;
  created_by: string;
  transactions: Array<Omit<TransactionInput, "idempotency_key" | "initiator" | "created_by">>;
}

export interface BatchResult {
  ok: true;
  transactions: LedgerResult[];
  replayed: boolean;
}

/**
 * Posts an import batch all or nothing: every transaction or none. The accounts of the whole
 * batch are locked once, in id order, before any is written. A refused transaction refuses the
 * batch; `batch_index` on the refusal says which one. Each transaction's own key is the batch's
 * key with "#<index>".
 */
export function postBatch(db: DbOrTx, input: BatchInput): Promise<BatchResult | LedgerRefusal> {
  return counted(postBatchOnce(db, input));
}

async function postBatchOnce(db: DbOrTx, input: BatchInput): Promise<BatchResult | LedgerRefusal> {
  assertKey(input);
  assertText(input.created_by, "created_by", true);
  if (input.transactions.length === 0) return ledgerRefusal("batch_empty");
  if (input.transactions.length > BATCH_TRANSACTIONS_MAX)
    return ledgerRefusal("batch_too_large", { limit: BATCH_TRANSACTIONS_MAX });
  const items = input.transactions.map((item, index) => {
    const row = newRow(
      {
        ...item,
        initiator: input.initiator,
        created_by: input.created_by,
        idempotency_key: `${input.idempotency_key}#${index}`,
      },
      "posted",
    );
    row.batch_key = input.idempotency_key;
    return { row, entries: item.entries };
  });
  for (const [index, { entries }] of items.entries()) {
    const malformed = checkEntries(entries);
    if (malformed) return { ...malformed, batch_index: index };
  }

  const attempt = () =>
    withRetry(() =>
      inLedgerTransaction(db, async (session): Promise<BatchResult | LedgerRefusal | "replay"> => {
        const accounts = await lockAccounts(
          session,
          items.flatMap((item) => item.entries.map((e) => e.account_id)),
        );
        if (!(accounts instanceof Map)) return accounts;
        const existing = await session.query(
          `SELECT 1 FROM ledger_transactions WHERE initiator = $1 AND batch_key = $2 LIMIT 1`,
          [input.initiator, input.idempotency_key],
        );
        if (existing.length > 0) return "replay";
        // Every item is planned, each on the last one's result, before any is written: a refused
        // item refuses the batch with nothing written.
        const before = new Map([...accounts].map(([id, account]) => [id, { ...account }]));
        const limit = savingsTransfersPerMonth();
        const touched = new Set<number>();
        for (const [index, { row, entries }] of items.entries()) {
          const plan = planNewTransaction(
            { kind: row.kind, status: "posted", entries, effective_date: row.effective_date },
            accounts,
            limit,
          );
          if (!plan.ok) return { ...plan, batch_index: index };
          applyChanges(accounts, plan.changes);
          for (const change of plan.changes) touched.add(change.account_id);
        }
        const results = await writeBatch(session, input, items);
        await writeAccountFigures(
          session,
          [...touched].sort((a, b) => a - b).map((id) => figuresChange(before.get(id)!, accounts.get(id)!)),
        );
        return { ok: true, transactions: results, replayed: false };
      }),
    );

  // A refusal while the batch's key already succeeded (a repeat) answers with the first result.
  const result = await attempt();
  if (result !== "replay" && result.ok) return result;
  const first = await findBatch(db, input.initiator, input.idempotency_key);
  if (first) return first;
  assert(result !== "replay", `batch ${input.idempotency_key} reported as existing but not found`);
  return result;
}

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

// ---------------------------------------------------------------------------------------------
// The control flow shared by the operations above.

interface NewTransactionRow {
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

/** Today's business date in the institution's time zone. */
export function today(now: Date = new Date()): string {
  return businessDate(institution().time_zone, now);
}

/**
 * Counts what a ledger operation did for /metrics (app/server/metrics): each transaction it
 * wrote, or the reason it was refused. A repeat of a key moves nothing and is not counted. When
 * the caller's own database transaction holds the posting (a member's transfer), a rollback of
 * that transaction after this point is rare (it answers 5xx) and is not taken back.
 */
async function counted<T extends LedgerResult | BatchResult | LedgerRefusal>(operation: Promise<T>): Promise<T> {
  const result = await operation;
  if (!result.ok) countLedgerRefusal(result.code);
  else if (!result.replayed) {
    const written = "transactions" in result ? result.transactions : [result as LedgerResult];
    for (const { transaction, replayed } of written)
      if (!replayed) countLedgerPosting(transaction.kind, transaction.status);
  }
  return result;
}

function savingsTransfersPerMonth(): number {
  return institution().limits.savings_transfers_per_month;
}

function assertKey(input: { idempotency_key: string; initiator: string }): void {
  assertText(input.idempotency_key, "idempotency_key", true, KEY_LENGTH_MAX);
  assertText(input.initiator, "initiator", true, KEY_LENGTH_MAX);
}

function newRow(input: TransactionInput, status: "posted" | "pending"): NewTransactionRow {
  assertKey(input);
  assert(
    (TRANSACTION_KINDS as readonly string[]).includes(input.kind) && (input.kind as string) !== "reversal",
    `bad kind ${input.kind}`,
  );
  assertText(input.created_by, "created_by", true);
  assertText(input.memo, "memo", false);
  assertText(input.reference, "reference", false);
  assertText(input.category, "category", false);
  const effective_date = input.effective_date ?? today();
  assertEffectiveDate(effective_date);
  return {
    kind: input.kind,
    status,
    initiator: input.initiator,
    idempotency_key: input.idempotency_key,
    batch_key: null,
    reverses_id: null,
    effective_date,
    created_by: input.created_by,
    memo: input.memo ?? null,
    reference: input.reference ?? null,
    category: input.category ?? null,
  };
}

async function newTransaction<R = never>(
  db: DbOrTx,
  input: TransactionInput,
  status: "posted" | "pending",
  check?: PostingCheck<R>,
): Promise<LedgerAnswer | CheckRefused<R>> {
  const row = newRow(input, status);
  return idempotent(db, row.initiator, row.idempotency_key, async () => {
    const malformed = checkEntries(input.entries); // before any round trip: a malformed request locks nothing
    if (malformed) return malformed;
    return withRetry(() =>
      inLedgerTransaction(db, async (session): Promise<LedgerAnswer | CheckRefused<R> | "replay"> => {
        const accounts = await lockAccounts(
          session,
          input.entries.map((e) => e.account_id),
        );
        if (!(accounts instanceof Map)) return accounts;
        let extras: PostingExtras = { ok: true };
        if (check) {
          const checked = await check(accounts, (text, params) => session.query(text, params));
          if (!checked.ok) return { ok: false, refused_by_check: checked.refusal };
          extras = checked;
          assertText(extras.memo, "memo", false);
        }
        const plan = planNewTransaction(
          { kind: row.kind, status, entries: input.entries, effective_date: row.effective_date },
          accounts,
          savingsTransfersPerMonth(),
        );
        if (!plan.ok) return plan;
        const written = extras.memo === undefined ? row : { ...row, memo: extras.memo };
        return writeNewTransaction(session, written, input.entries, plan.changes, extras.notifications ?? []);
      }),
    );
  });
}

/**
 * Runs one attempt; "replay" (the insert met an existing key) or a refusal while the key already
 * succeeded both return the first result instead. The refusal case matters: a retry of a
 * transfer that emptied the account would otherwise be refused for insufficient funds.
 */
async function idempotent<Refused extends { ok: false } = never>(
  db: DbOrTx,
  initiator: string,
  idempotency_key: string,
  attempt: () => Promise<LedgerAnswer | Refused | "replay">,
): Promise<LedgerAnswer | Refused> {
  const result = await attempt();
  if (result !== "replay" && result.ok) return result;
  const first = await findByKey(db, initiator, idempotency_key);
  if (first) return first;
  assert(result !== "replay", `key ${idempotency_key} conflicted but no transaction has it`);
  return result;
}

async function resolveHold(db: DbOrTx, input: ResolveInput, outcome: "posted" | "failed"): Promise<LedgerAnswer> {
  assertText(input.idempotency_key, "idempotency_key", true, KEY_LENGTH_MAX);
  assertText(input.resolved_by, "resolved_by", true);
  const entries = await readEntries(db, input.transaction_id);
  if (entries.length === 0) return ledgerRefusal("transaction_not_found", { subject_id: input.transaction_id });
  return withRetry(() =>
    inLedgerTransaction(db, async (session): Promise<LedgerAnswer> => {
      const accounts = await lockAccounts(
        session,
        entries.map((e) => e.account_id),
      );
      if (!(accounts instanceof Map)) return accounts;
      const locked = await lockTransaction(session, input.transaction_id);
      if (!locked.ok) return locked;
      const { resolution_key, ok: _ok, ...hold } = locked;
      if (hold.status !== "pending") {
        if (hold.status === outcome && resolution_key === input.idempotency_key)
          return { ok: true, transaction: hold, entries, replayed: true };
        return ledgerRefusal("not_pending", { subject_id: hold.id });
      }
      const plan =
        outcome === "posted"
          ? planSettle(entries, accounts, hold.kind)
          : { ok: true as const, changes: planRelease(entries) };
      if (!plan.ok) return plan;
      const changes = plan.changes;
      applyChanges(accounts, changes); // asserts the accounts stay valid before anything is written
      const params: unknown[] = [outcome, input.resolved_by, input.idempotency_key, hold.id];
      const rows = await session.query(
        `WITH t AS (
           UPDATE ledger_transactions
              SET status = $1, resolved_at = now(), resolved_by = $2, resolution_key = $3
            WHERE id = $4 AND status = 'pending'
        RETURNING (extract(epoch from resolved_at) * 1000)::float8 AS resolved_at_ms
         )${accountUpdateSql(changes, params)}
         SELECT resolved_at_ms FROM t`,
        params,
        { prepare: true },
      );
      assert(rows.length === 1, `hold ${hold.id} was not pending under its lock`);
      const resolved_at = new Date(Number(rows[0]!.resolved_at_ms));
      return {
        ok: true,
        transaction: { ...hold, status: outcome, resolved_at, resolved_by: input.resolved_by },
        entries,
        replayed: false,
      };
    }),
  );
}

/** Every hold's entries in one query, by transaction id (entries never change, so read before locking). */
async function readEntriesOf(db: DbOrTx, transaction_ids: readonly number[]): Promise<Map<number, EntryInput[]>> {
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

async function settleHoldsOnce(db: DbOrTx, input: SettleHoldsInput): Promise<BatchResult | LedgerRefusal> {
  assertText(input.idempotency_key, "idempotency_key", true, KEY_LENGTH_MAX);
  assertText(input.resolved_by, "resolved_by", true);
  if (input.holds.length === 0) return ledgerRefusal("batch_empty");
  if (input.holds.length > BATCH_TRANSACTIONS_MAX)
    return ledgerRefusal("batch_too_large", { limit: BATCH_TRANSACTIONS_MAX });
  const ids = input.holds.map((h) => h.transaction_id);
  for (const id of ids) assert(Number.isSafeInteger(id) && id > 0, `bad transaction id ${id}`);
  assert(new Set(ids).size === ids.length, "a hold is listed twice");
  const entries = await readEntriesOf(db, ids);
  for (const [index, id] of ids.entries()) {
    if (!entries.has(id)) return { ...ledgerRefusal("transaction_not_found", { subject_id: id }), batch_index: index };
  }

  return withRetry(() =>
    inLedgerTransaction(db, async (session): Promise<BatchResult | LedgerRefusal> => {
      const accounts = await lockAccounts(
        session,
        [...entries.values()].flatMap((list) => list.map((e) => e.account_id)),
      );
      if (!(accounts instanceof Map)) return accounts;
      // The holds after their accounts, in id order: the single-hold path's lock order.
      const rows = await session.query(
        `SELECT ${TRANSACTION_COLUMNS} FROM ledger_transactions
          WHERE id IN (SELECT value::bigint FROM jsonb_array_elements_text($1::jsonb)) ORDER BY id FOR UPDATE`,
        [JSON.stringify(ids)],
        { prepare: true },
      );
      const holds = new Map(
        rows.map((row) => [
          toId(row.id),
          { view: toView(row), resolution_key: (row.resolution_key as string | null) ?? null },
        ]),
      );
      const before = new Map([...accounts].map(([id, account]) => [id, { ...account }]));
      const touched = new Set<number>();
      const to_settle: number[] = [];
      for (const [index, id] of ids.entries()) {
        const hold = holds.get(id);
        if (!hold) return { ...ledgerRefusal("transaction_not_found", { subject_id: id }), batch_index: index };
        if (hold.view.status !== "pending") {
          if (hold.view.status === "posted" && hold.resolution_key === input.idempotency_key) continue;
          return { ...ledgerRefusal("not_pending", { subject_id: id }), batch_index: index };
        }
        const plan = planSettle(entries.get(id)!, accounts);
        if (!plan.ok) return { ...plan, batch_index: index };
        applyChanges(accounts, plan.changes); // asserts the accounts stay valid before anything is written
        for (const change of plan.changes) touched.add(change.account_id);
        to_settle.push(id);
      }
      const resolved = new Map<number, Date>();
      if (to_settle.length > 0) {
        // One statement: the daily totals' statement trigger adds every settled hold at once.
        const updated = await session.query(
          `UPDATE ledger_transactions
              SET status = 'posted', resolved_at = now(), resolved_by = $2, resolution_key = $3
            WHERE id IN (SELECT value::bigint FROM jsonb_array_elements_text($1::jsonb)) AND status = 'pending'
        RETURNING id, (extract(epoch from resolved_at) * 1000)::float8 AS resolved_at_ms`,
          [JSON.stringify(to_settle), input.resolved_by, input.idempotency_key],
          { prepare: true },
        );
        assert(
          updated.length === to_settle.length,
          `settled ${updated.length} of ${to_settle.length} holds under their locks`,
        );
        for (const r of updated) resolved.set(toId(r.id), new Date(Number(r.resolved_at_ms)));
        await writeAccountFigures(
          session,
          [...touched].sort((a, b) => a - b).map((id) => figuresChange(before.get(id)!, accounts.get(id)!)),
        );
      }
      const transactions: LedgerResult[] = ids.map((id) => {
        const { view } = holds.get(id)!;
        const at = resolved.get(id);
        return at
          ? {
              ok: true,
              transaction: { ...view, status: "posted", resolved_at: at, resolved_by: input.resolved_by },
              entries: entries.get(id)!,
              replayed: false,
            }
          : { ok: true, transaction: view, entries: entries.get(id)!, replayed: true };
      });
      return { ok: true, transactions, replayed: to_settle.length === 0 };
    }),
  );
}

const ACCOUNT_COLUMNS =
  "id, owner, type, status, posted_cents, held_cents, overdraft_limit_cents, transfer_count, transfer_count_month, member_id, account_number";

/**
 * Opens the database transaction and locks the accounts in id order, reading their figures.
 * ORDER BY id puts the row locks in that order (PostgreSQL locks rows as they leave the sort),
 * the same for every posting, so no two postings wait on each other in a cycle. The ids are
 * checked safe integers, inlined so that BEGIN and this statement travel in one round trip.
 */
async function lockAccounts(
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
    };
    assertAccountState(account); // the database's invariant, asserted again after reading
    accounts.set(account.id, account);
  }
  const missing = ids.find((id) => !accounts.has(id));
  if (missing !== undefined) return ledgerRefusal("account_not_found", { subject_id: missing });
  return accounts;
}

const TRANSACTION_COLUMNS = `id, kind, status, initiator, idempotency_key, batch_key, reverses_id,
  effective_date::text AS effective_date, (extract(epoch from created_at) * 1000)::float8 AS created_at_ms, created_by,
  memo, reference, category, (extract(epoch from resolved_at) * 1000)::float8 AS resolved_at_ms, resolved_by, resolution_key`;

/** Locks a transaction row; always after its accounts, so the lock order stays one order. */
async function lockTransaction(
  session: LedgerSession,
  transaction_id: number,
): Promise<(TransactionView & { ok: true; resolution_key: string | null }) | LedgerRefusal> {
  const [row] = await session.query(`SELECT ${TRANSACTION_COLUMNS} FROM ledger_transactions WHERE id = $1 FOR UPDATE`, [
    transaction_id,
  ]);
  if (!row) return ledgerRefusal("transaction_not_found", { subject_id: transaction_id });
  return { ...toView(row), ok: true, resolution_key: (row.resolution_key as string | null) ?? null };
}

async function readEntries(db: DbOrTx, transaction_id: number): Promise<EntryInput[]> {
  const result = await db.execute(sql`
    select account_id, amount_cents from ledger_entries where transaction_id = ${transaction_id} order by id`);
  return result.rows.map((r) => ({ account_id: toId(r.account_id), amount_cents: toCents(r.amount_cents) }));
}

/** `, a AS (UPDATE ledger_accounts ...)` applying the changes, only if the CTE `t` wrote a row. */
function accountUpdateSql(changes: readonly AccountChange[], params: unknown[]): string {
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
function notificationsSql(notifications: readonly PostingNotification[], params: unknown[]): string {
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
async function writeNewTransaction(
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
async function writeBatch(
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
function figuresChange(before: AccountState, after: AccountState): AccountChange {
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
async function writeAccountFigures(session: LedgerSession, changes: readonly AccountChange[]): Promise<void> {
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

async function findByKey(db: DbOrTx, initiator: string, idempotency_key: string): Promise<LedgerResult | null> {
  const result = await db.execute(sql`
    select ${sql.raw(TRANSACTION_COLUMNS)} from ledger_transactions
     where initiator = ${initiator} and idempotency_key = ${idempotency_key}`);
  const row = result.rows[0];
  if (!row) return null;
  const transaction = toView(row);
  return { ok: true, transaction, entries: await readEntries(db, transaction.id), replayed: true };
}

async function findBatch(db: DbOrTx, initiator: string, batch_key: string): Promise<BatchResult | null> {
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
function toView(row: Record<string, unknown>): TransactionView {
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

// ---------------------------------------------------------------------------------------------
// A bounded retry.

const ATTEMPTS_MAX = 5;
/** Deadlock and serialization failure: the database rolled back; the whole attempt is safe to redo. */
const RETRYABLE_SQLSTATES = new Set(["40P01", "40001"]);

function sqlState(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/**
 * Locks in id order rule out deadlocks between postings, and READ COMMITTED with row locks
 * needs no serialization retries; the retry guards against whatever else shares the tables.
 */
export async function withRetry<T>(attempt: () => Promise<T>): Promise<T> {
  for (let attempt_number = 1; ; attempt_number++) {
    try {
      return await attempt();
    } catch (error) {
      const state = sqlState(error);
      if (attempt_number >= ATTEMPTS_MAX || state === undefined || !RETRYABLE_SQLSTATES.has(state)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt_number));
    }
  }
}
