/**
 * A refusal is the ledger saying no for a reason a member or staff member can act on: a
 * transfer "fails for a real reason that is shown" (docs/product.md#members-see-the-truth). It
 * is not a crash: callers show `message` and branch on `code`, which is stable. Programming
 * errors (a bad kind, a malformed date) are plain Errors.
 */
import { refusalMessage, type RefusalCode } from "~/domain/refusals";

export { REFUSAL_MESSAGES, type RefusalCode } from "~/domain/refusals";

export class LedgerRefusal extends Error {
  readonly code: RefusalCode;
  /** The account or transaction the refusal is about, when there is one. */
  readonly subject_id: number | undefined;
  /** In a bulk post: the position of the transaction that was refused (nothing was posted). */
  batch_index: number | undefined;

  constructor(code: RefusalCode, details: { limit?: number; subject_id?: number } = {}) {
    super(refusalMessage(code, details.limit));
    this.name = "LedgerRefusal";
    this.code = code;
    this.subject_id = details.subject_id;
  }
}

export function isLedgerRefusal(error: unknown): error is LedgerRefusal {
  return error instanceof LedgerRefusal;
}
