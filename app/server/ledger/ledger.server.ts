import type { DbOrTx } from "~/server/db/client.server";
import type { LedgerTransaction, NotificationKind } from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { countLedgerPosting, countLedgerRefusal } from "~/server/metrics/metrics.server";
import { ledgerRefusal, type LedgerRefusal } from "~/domain/refusals";
import { inLedgerTransaction, withRetry } from "./session.server";
import { writePostingAlerts } from "./alerts.server";
import {
  TRANSACTION_COLUMNS,
  accountUpdateSql,
  figuresChange,
  findBatch,
  findByKey,
  lockAccounts,
  lockTransaction,
  readEntries,
  readEntriesOf,
  toView,
  writeAccountFigures,
  writeBatch,
  writeNewTransaction,
  type NewTransactionRow,
} from "./rows.server";
import {
  BATCH_TRANSACTIONS_MAX,
  KEY_LENGTH_MAX,
  TRANSACTION_KINDS,
  applyChanges,
  assert,
  assertEffectiveDate,
  assertText,
  checkEntries,
  checkReversible,
  planNewTransaction,
  planRelease,
  planSettle,
  reversedEntries,
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
  /** Whether the member set alerts on it (docs/product.md#alerts): only then does a posting read them. */
  alerts_on: boolean;
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
          const written = await writeNewTransaction(session, row, entries, plan.changes);
          if (written !== "replay")
            await writePostingAlerts(session, accounts, [
              { event: "reversal", kind: original.kind, status: "posted", entries, changes: plan.changes },
            ]);
          return written;
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
        const planned: AccountChange[][] = [];
        for (const [index, { row, entries }] of items.entries()) {
          const plan = planNewTransaction(
            { kind: row.kind, status: "posted", entries, effective_date: row.effective_date },
            accounts,
            limit,
          );
          if (!plan.ok) return { ...plan, batch_index: index };
          applyChanges(accounts, plan.changes);
          planned.push(plan.changes);
          for (const change of plan.changes) touched.add(change.account_id);
        }
        const results = await writeBatch(session, input, items);
        await writeAccountFigures(
          session,
          [...touched].sort((a, b) => a - b).map((id) => figuresChange(before.get(id)!, accounts.get(id)!)),
        );
        await writePostingAlerts(
          session,
          before,
          items.map(({ row, entries }, i) => ({
            event: "new",
            kind: row.kind,
            status: "posted",
            entries,
            changes: planned[i]!,
          })),
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

// ---------------------------------------------------------------------------------------------
// The control flow shared by the operations above.

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
        const result = await writeNewTransaction(
          session,
          written,
          input.entries,
          plan.changes,
          extras.notifications ?? [],
        );
        if (result !== "replay")
          await writePostingAlerts(session, accounts, [
            { event: "new", kind: row.kind, status, entries: input.entries, changes: plan.changes },
          ]);
        return result;
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
      // `accounts` already holds the figures after the settle (applyChanges above): no changes to add.
      if (outcome === "posted")
        await writePostingAlerts(session, accounts, [
          { event: "settled", kind: hold.kind, status: "posted", entries, changes: [] },
        ]);
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
