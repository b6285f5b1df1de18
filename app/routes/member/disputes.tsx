import { Link } from "react-router";
import { ArrowLeft } from "lucide-react";
import type { Route } from "./+types/disputes";
import { requireMember } from "~/server/auth/session.server";
import { loadMemberCases } from "./disputes.server";
import { DISPUTE_KIND_SHORT } from "~/domain/disputes";
import { pageTitle } from "~/components/site/page-title";
import { Amount, formatDate } from "~/components/member/amount";
import { DisputeStatusBadge } from "~/components/member/dispute-status";

/**
 * /dashboard/disputes (docs/product.md#disputes): the problems the member reported, newest
 * first, each with its case number and where it stands. Reports start from a transaction in the
 * history ("Report a problem").
 */
export function meta({ matches }: Route.MetaArgs) {
  return pageTitle("Reported problems", matches);
}

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireMember(request);
  return { cases: await loadMemberCases(user) };
}

export default function Disputes({ loaderData }: Route.ComponentProps) {
  const { cases } = loaderData;
  return (
    <div className="mx-auto max-w-5xl px-4 py-6 sm:px-6 lg:px-8 lg:py-10">
      <Link
        to="/dashboard/transactions"
        className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
      >
        <ArrowLeft className="size-4" aria-hidden="true" /> Transactions
      </Link>
      <h1 className="mt-3 text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">Reported problems</h1>
      <p className="mt-1 text-sm text-slate-700">
        To report a problem with a transaction, choose “Report a problem” beside it in your transactions.
      </p>
      <section className="mt-6 overflow-hidden rounded-2xl border border-slate-200 bg-white shadow-sm">
        {cases.length === 0 ? (
          <p className="px-6 py-12 text-center text-sm text-slate-700">You have not reported any problem.</p>
        ) : (
          <ul className="divide-y divide-slate-100">
            {cases.map((c) => (
              <li key={c.id}>
                <Link
                  to={`/dashboard/disputes/${c.id}`}
                  className="flex flex-wrap items-center justify-between gap-3 px-5 py-4 hover:bg-slate-50"
                >
                  <span>
                    <span className="block font-semibold text-slate-900">
                      {c.description} <span className="font-normal text-slate-600">· {DISPUTE_KIND_SHORT[c.kind]}</span>
                    </span>
                    <span className="block text-xs text-slate-600">
                      Case {c.number} · reported {formatDate(c.received_on)}
                    </span>
                  </span>
                  <span className="flex items-center gap-3">
                    <Amount cents={-c.amount_cents} />
                    <DisputeStatusBadge status={c.status} label={c.status_label} />
                  </span>
                </Link>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
