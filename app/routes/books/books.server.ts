import { withDatabase } from "~/server/db/db.server";
import {
  accountBook,
  booksToday,
  GL_LINES,
  glDayTotals,
  institutionBalances,
  recordReconciliation,
  settlementReport,
  trialBalanceAsOf,
} from "~/server/books/books.server";
import { glExportCsv, trialBalanceCsv, trialBalancePdf } from "~/server/books/trial-balance-files.server";
import { institution } from "~/config/institution.server";
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

/** Why the GL export cannot be made with this profile (codes missing), or null when it can. */
export function glExportProblem(): string | null {
  const made = glExportCsv(
    booksToday(),
    GL_LINES.map((line) => ({ ...line, debits_cents: 0, credits_cents: 0 })),
    institution().gl_account_codes,
  );
  return made.ok ? null : made.message;
}

/** The day's GL export, or why it cannot be made (no codes in the profile). */
export const glExportFor = withDatabase(async (db, date: string) =>
  glExportCsv(date, await glDayTotals(db, date), institution().gl_account_codes),
);
