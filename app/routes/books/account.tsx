import { data, Link } from "react-router";
import type { Route } from "./+types/account";
import { requestInfoContext } from "~/context";
import { requireBooksReader } from "~/server/admin/context.server";
import { pageTitle } from "~/components/site/page-title";
import { BooksDateForm, dayLabel } from "~/components/books/books-parts";
import { useInstitutionDates } from "~/components/institution-dates";
import { formatCents } from "~/domain/money";
import { booksDate } from "~/domain/books";
import { isInstitutionAccountType } from "~/server/books/books.server";
import { booksToday, accountBookFor, dateFromUrl } from "./books.server";

/**
 * /admin/books/accounts/:type (docs/product.md#books): one institution account, day by day for
 * the 31 days ending on the chosen date, and the entries of one day. Transactions are named by
 * number and kind, never by member.
 */
export function meta({ matches, loaderData }: Route.MetaArgs) {
  return [...pageTitle(loaderData?.book.name ?? "Books", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request, params, context }: Route.LoaderArgs) {
  await requireBooksReader(request, context.get(requestInfoContext));
  if (!isInstitutionAccountType(params.type)) throw data("Not found", { status: 404 });
  const asked = dateFromUrl(request);
  const to = asked.ok ? asked.date : booksToday();
  // The day whose entries are listed: the one chosen in the list, else the period's last day.
  const chosen = booksDate(new URL(request.url).searchParams.get("day"), to);
  const book = await accountBookFor(params.type, to, chosen.ok ? chosen.date : to);
  return {
    book,
    typed: new URL(request.url).searchParams.get("date") ?? to,
    error: asked.ok ? null : asked.message,
  };
}

const KIND_WORDS = (kind: string) => kind.replace(/_/g, " ");

export default function BooksAccount({ loaderData }: Route.ComponentProps) {
  const { book } = loaderData;
  const { formatDateTime } = useInstitutionDates();
  const days = [...book.days].reverse();
  return (
    <div className="space-y-5">
      <div>
        <p className="text-sm">
          <Link to={`/admin/books?date=${book.to}`} className="font-medium text-brand-800 underline">
            All institution accounts
          </Link>
        </p>
        <h1 className="mt-1 text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">{book.name}</h1>
        <p className="mt-1 text-sm text-slate-700">
          {book.account_number ? `Account ${book.account_number}` : "Not used yet: opened at its first posting."}
        </p>
      </div>
      <BooksDateForm value={loaderData.typed} error={loaderData.error} label="Days ending on" />
      <section aria-labelledby="days-heading" className="rounded-xl border border-slate-200 bg-white shadow-sm">
        <h2 id="days-heading" className="border-b border-slate-200 px-4 py-3 text-sm font-semibold text-slate-900">
          {dayLabel(book.from)} to {dayLabel(book.to)}
        </h2>
        <p className="px-4 pt-3 text-sm text-slate-700">
          Balance before {dayLabel(book.from)}:{" "}
          <span className="font-medium tabular-nums">{formatCents(book.opening_cents)}</span>
        </p>
        {days.length === 0 ? (
          <p className="px-4 py-4 text-sm text-slate-700">No entries in these days.</p>
        ) : (
          <div className="overflow-x-auto">
            <table className="mt-2 w-full text-left text-sm">
              <thead className="bg-slate-50 text-xs tracking-wide text-slate-600 uppercase">
                <tr>
                  <th scope="col" className="px-4 py-2 font-semibold">
                    Day
                  </th>
                  <th scope="col" className="px-4 py-2 text-right font-semibold">
                    Credits
                  </th>
                  <th scope="col" className="px-4 py-2 text-right font-semibold">
                    Debits
                  </th>
                  <th scope="col" className="px-4 py-2 text-right font-semibold">
                    Closing balance
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {days.map((d) => (
                  <tr key={d.date} className={d.date === book.day ? "bg-brand-50" : undefined}>
                    <th scope="row" className="px-4 py-2 font-medium">
                      <Link
                        to={`/admin/books/accounts/${book.type}?date=${book.to}&day=${d.date}`}
                        className="text-brand-800 underline-offset-2 hover:underline"
                        aria-current={d.date === book.day ? "true" : undefined}
                      >
                        {dayLabel(d.date)}
                      </Link>
                    </th>
                    <td className="px-4 py-2 text-right tabular-nums">{formatCents(d.credits_cents)}</td>
                    <td className="px-4 py-2 text-right tabular-nums">{formatCents(d.debits_cents)}</td>
                    <td className="px-4 py-2 text-right tabular-nums">{formatCents(d.closing_cents)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section aria-labelledby="entries-heading" className="rounded-xl border border-slate-200 bg-white shadow-sm">
        <h2 id="entries-heading" className="border-b border-slate-200 px-4 py-3 text-sm font-semibold text-slate-900">
          Entries on {dayLabel(book.day)}
        </h2>
        {book.entries.length === 0 ? (
          <p className="px-4 py-4 text-sm text-slate-700">No entries on this day.</p>
        ) : (
          <ul className="divide-y divide-slate-100">
            {book.entries.map((e) => (
              <li key={e.transaction_id} className="flex flex-wrap justify-between gap-x-4 px-4 py-2 text-sm">
                <span>
                  <span className="font-medium text-slate-900">Transaction {e.transaction_id}</span>{" "}
                  <span className="text-slate-700">
                    {KIND_WORDS(e.kind)}
                    {e.status === "reversed" ? " (reversed later)" : ""}
                  </span>
                  <span className="block text-xs text-slate-600">{formatDateTime(e.created_at)}</span>
                </span>
                <span className="font-medium tabular-nums">
                  {e.amount_cents < 0 ? "Debit" : "Credit"} {formatCents(Math.abs(e.amount_cents))}
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
