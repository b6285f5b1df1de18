import { withDatabase } from "~/server/db/db.server";
import {
  accountBook,
  booksToday,
  institutionBalances,
  recordReconciliation,
  settlementReport,
  trialBalanceAsOf,
} from "~/server/books/books.server";
import { trialBalanceCsv, trialBalancePdf } from "~/server/books/trial-balance-files.server";
import { decideGlEntry, listGlEntries, proposeGlEntry } from "~/server/books/gl-entries.server";
import { booksDate, type BooksDate } from "~/domain/books";

/** The books' pages' view-model (docs/product.md#books): opens the database itself. */

/** The day a page is about, from its `?date=` (today, the institution's business date, when none). */
export function dateFromUrl(request: Request, name = "date"): BooksDate {
  return booksDate(new URL(request.url).searchParams.get(name), booksToday());
}

export const accountsAsOf = withDatabase(institutionBalances);
export const trialBalanceFor = withDatabase(trialBalanceAsOf);
export const accountBookFor = withDatabase(accountBook);

export const trialBalanceCsvFor = withDatabase(async (db, as_of: string) =>
  trialBalanceCsv(await trialBalanceAsOf(db, as_of)),
);
export const trialBalancePdfFor = withDatabase(async (db, as_of: string, prepared_by: string) =>
  trialBalancePdf(await trialBalanceAsOf(db, as_of), prepared_by),
);

export const settlementReportFor = withDatabase(settlementReport);
export const recordReconciliationFor = withDatabase(recordReconciliation);

export { booksToday };

export const proposeGlEntryFor = withDatabase(proposeGlEntry);
export const decideGlEntryFor = withDatabase(decideGlEntry);
export const glEntriesFor = withDatabase(async (db) =>
  (await listGlEntries(db)).map((e) => ({
    ...e,
    requested_at: e.requested_at.toISOString(),
    decided_at: e.decided_at?.toISOString() ?? null,
  })),
);
