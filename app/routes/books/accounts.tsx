import { Link } from "react-router";
import type { Route } from "./+types/accounts";
import { requestInfoContext } from "~/context";
import { requireBooksReader } from "~/server/admin/context.server";
import { pageTitle } from "~/components/site/page-title";
import { BooksDateForm, dayLabel } from "~/components/books/books-parts";
import { formatCents } from "~/domain/money";
import { booksToday, accountsAsOf, dateFromUrl } from "./books.server";

/**
 * /admin/books (docs/product.md#books): every institution account with its balance at the end of
 * a day. Staff and accountants.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Books", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  await requireBooksReader(request, context.get(requestInfoContext));
  const asked = dateFromUrl(request);
  const as_of = asked.ok ? asked.date : booksToday();
  return {
    as_of,
    typed: new URL(request.url).searchParams.get("date") ?? as_of,
    error: asked.ok ? null : asked.message,
    accounts: await accountsAsOf(as_of),
  };
}

export default function BooksAccounts({ loaderData }: Route.ComponentProps) {
  const { as_of, accounts } = loaderData;
  return (
    <div className="space-y-5">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">Institution accounts</h1>
        <p className="mt-1 max-w-2xl text-sm text-slate-700">
          The credit union&apos;s own accounts in the ledger: settlement for each payment rail, fees, dividends and
          adjustments. A negative balance is a debit balance. Open one for its entries by day.
        </p>
      </div>
      <BooksDateForm value={loaderData.typed} error={loaderData.error} />
      <section aria-labelledby="accounts-heading" className="rounded-xl border border-slate-200 bg-white shadow-sm">
        <h2 id="accounts-heading" className="border-b border-slate-200 px-4 py-3 text-sm font-semibold text-slate-900">
          Balances at the end of {dayLabel(as_of)}
        </h2>
        <ul className="divide-y divide-slate-100">
          {accounts.map((a) => (
            <li
              key={a.type}
              className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1 px-4 py-3 text-sm"
            >
              <div>
                <Link
                  to={`/admin/books/accounts/${a.type}?date=${as_of}`}
                  className="font-semibold text-brand-800 underline-offset-2 hover:underline"
                >
                  {a.name}
                </Link>
                <div className="text-xs text-slate-600">
                  {a.account_number ? `Account ${a.account_number}` : "Not used yet: opened at its first posting"}
                </div>
              </div>
              <div className="text-right font-medium tabular-nums text-slate-900">{formatCents(a.balance_cents)}</div>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
