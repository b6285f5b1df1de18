import type { Db, DbOrTx } from "./client.server";

/**
 * Runs `work` in one database transaction and answers with what it answered. An answer with
 * `ok: false` (a refusal: a check repeated under the transaction's locks, or the ledger's) rolls
 * back everything `work` wrote: Drizzle rolls back when the callback throws, so the refusal leaves
 * the callback inside `Rollback` and is handed back as the answer. Any other error is thrown.
 */
export async function inRefusableTransaction<R extends { ok: boolean }>(
  db: Db,
  work: (tx: DbOrTx) => Promise<R>,
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

/** Carries a refusal out of the transaction's callback; never leaves this module. */
class Rollback extends Error {
  constructor(readonly refusal: unknown) {
    super("refused");
  }
}
