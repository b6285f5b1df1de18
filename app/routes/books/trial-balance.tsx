import { Download } from "lucide-react";
import type { Route } from "./+types/trial-balance";
import { requestInfoContext } from "~/context";
import { requireBooksReader } from "~/server/admin/context.server";
import { pageTitle } from "~/components/site/page-title";
import { StatusLine } from "~/components/admin/admin-shell";
import { BooksDateForm, dayLabel } from "~/components/books/books-parts";
import { formatCents } from "~/domain/money";
import { BOOKS_MESSAGES } from "~/domain/books";
import { booksToday, dateFromUrl, glExportProblem, trialBalanceFor } from "./books.server";

/**
 * /admin/books/trial-balance (docs/product.md#books): every account's balance at the end of a day
 * in debit and credit columns, their totals and whether they agree; as CSV and PDF.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Trial balance", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  await requireBooksReader(request, context.get(requestInfoContext));
  const asked = dateFromUrl(request);
  const as_of = asked.ok ? asked.date : booksToday();
  return {
    tb: await trialBalanceFor(as_of),
    gl_export_problem: glExportProblem(),
    typed: new URL(request.url).searchParams.get("date") ?? as_of,
    error: asked.ok ? null : asked.message,
  };
}

const money = (cents: number) => (cents === 0 ? "" : formatCents(cents));

export default function TrialBalancePage({ loaderData }: Route.ComponentProps) {
  const { tb } = loaderData;
  const download =
    "inline-flex items-center justify-center gap-2 rounded-lg border border-slate-300 bg-white px-4 py-2 text-sm font-semibold text-brand-800 shadow-xs hover:bg-slate-50";
  return (
    <div className="space-y-5">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">Trial balance</h1>
          <p className="mt-1 max-w-2xl text-sm text-slate-700">
            Every account at the end of the day: the institution&apos;s own, and what members hold as one line per kind
            of account. A debit balance in the debit column, a credit balance in the credit column.
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          <a href={`/admin/books/trial-balance.csv?date=${tb.as_of}`} className={download}>
            <Download className="size-4" aria-hidden="true" /> Download CSV
          </a>
          <a href={`/admin/books/trial-balance.pdf?date=${tb.as_of}`} className={download}>
            <Download className="size-4" aria-hidden="true" /> Download PDF
          </a>
          {loaderData.gl_export_problem ? null : (
            <a href={`/admin/books/gl-export.csv?date=${tb.as_of}`} className={download}>
              <Download className="size-4" aria-hidden="true" /> Day&apos;s GL export (CSV)
            </a>
          )}
        </div>
      </div>
      <BooksDateForm value={loaderData.typed} error={loaderData.error} />
      {loaderData.gl_export_problem ? <StatusLine tone="notice" message={loaderData.gl_export_problem} /> : null}
      <StatusLine
        message={tb.balanced ? BOOKS_MESSAGES.balanced : BOOKS_MESSAGES.out_of_balance}
        tone={tb.balanced ? "success" : "error"}
      />
      <section aria-labelledby="tb-heading" className="rounded-xl border border-slate-200 bg-white shadow-sm">
        <h2 id="tb-heading" className="border-b border-slate-200 px-4 py-3 text-sm font-semibold text-slate-900">
          At the end of {dayLabel(tb.as_of)}
        </h2>
        <table className="w-full text-left text-sm">
          <thead className="bg-slate-50 text-xs tracking-wide text-slate-600 uppercase">
            <tr>
              <th scope="col" className="px-3 py-2 font-semibold sm:px-4">
                Account
              </th>
              <th scope="col" className="px-3 py-2 text-right font-semibold sm:px-4">
                Debit
              </th>
              <th scope="col" className="px-3 py-2 text-right font-semibold sm:px-4">
                Credit
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {tb.lines.map((line) => (
              <tr key={line.code}>
                <th scope="row" className="px-3 py-2 font-medium text-slate-900 sm:px-4">
                  {line.name}
                </th>
                <td className="px-3 py-2 text-right tabular-nums sm:px-4">{money(line.debit_cents)}</td>
                <td className="px-3 py-2 text-right tabular-nums sm:px-4">{money(line.credit_cents)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot className="border-t-2 border-slate-300 font-semibold">
            <tr>
              <th scope="row" className="px-3 py-2 sm:px-4">
                Total
              </th>
              <td className="px-3 py-2 text-right tabular-nums sm:px-4">{formatCents(tb.total_debit_cents)}</td>
              <td className="px-3 py-2 text-right tabular-nums sm:px-4">{formatCents(tb.total_credit_cents)}</td>
            </tr>
          </tfoot>
        </table>
      </section>
    </div>
  );
}
