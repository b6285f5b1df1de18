import type { Db, DbOrTx } from "./client.server";

/** The database transaction `work` runs in: its row locks (`for("update")`) last until it ends. */
type Transaction = Parameters<Parameters<Db["transaction"]>[0]>[0];

/**
 * The one way a service refuses inside a database transaction (docs/architecture.md#refusals).
 * `work` runs in one transaction and its answer is handed back. A refusal rolls back everything
 * `work` wrote, whether `work` answers it (`ok: false`) or a function deep inside hands it to
 * `refuse` (a check repeated under the transaction's locks, the ledger's own refusal). Drizzle
 * rolls back when the callback throws, so the refusal leaves the callback inside `Rollback` and
 * comes out as the answer. Any other error is thrown: it is a failure, not a refusal.
 */
export async function inRefusableTransaction<R extends { ok: boolean }>(
  db: DbOrTx,
  work: (tx: Transaction) => Promise<R>,
): Promise<R> {
  try {
    return await db.transaction(async (tx) => {
      const result = await work(tx);
      if (!result.ok) throw new Rollback(result);
      return result;
    });
  } catch (error) {
    if (error instanceof Rollback) return error.refusal as R;
    throw error;
  }
}

/**
 * Ends the enclosing `inRefusableTransaction` with `refusal` as its answer, rolling back what was
 * written. The refusal must be one of the answers the transaction's caller declares.
 */
export function refuse(refusal: { ok: false }): never {
  throw new Rollback(refusal);
}

/** Carries a refusal out of the transaction's callback; never leaves this module. */
class Rollback extends Error {
  constructor(readonly refusal: unknown) {
    super("refused");
  }
}
