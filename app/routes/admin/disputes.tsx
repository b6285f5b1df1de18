import { Link } from "react-router";
import type { Route } from "./+types/disputes";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { loadDisputeQueue } from "./disputes.server";
import { DISPUTE_KIND_SHORT } from "~/domain/disputes";
import { mayMoveMoney } from "~/domain/staff-roles";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { pageTitle } from "~/components/site/page-title";
import { DisputeClock } from "~/components/admin/dispute-clock";

/**
 * /admin/disputes (docs/product.md#disputes): every open error resolution case (Regulation E,
 * 12 CFR 1005.11), nearest deadline first, each with its clock (overdue in red, due today, due
 * the next business day) and the rule it comes from; then the latest resolved. Staff and
 * reviewers read it; the money actions on a case are for staff who may move money.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Disputes", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const { role } = await requireStaff(request, context.get(requestInfoContext), { reviewer: true });
  return { ...(await loadDisputeQueue()), may_move_money: mayMoveMoney(role) };
}

export default function Disputes({ loaderData }: Route.ComponentProps) {
  const { open, resolved, today, may_move_money } = loaderData;
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">Disputes</h1>
        <p className="mt-1 text-sm text-slate-700">
          Problems members reported with electronic transactions (Regulation E error resolution), nearest deadline
          first. Today is {formatBusinessDate(today)}. Card chargebacks to the network are made outside this app.
        </p>
        {may_move_money ? (
          <Link
            to="/admin/disputes/new"
            className="mt-3 inline-flex items-center rounded-lg bg-brand-700 px-4 py-2 text-sm font-semibold text-white hover:bg-brand-800"
          >
            Enter a problem a member reported by phone, in person or by mail
          </Link>
        ) : null}
      </div>
      <section aria-labelledby="open-heading" className="rounded-2xl border border-slate-200 bg-white shadow-sm">
        <h2 id="open-heading" className="border-b border-slate-100 px-5 py-3 text-lg font-semibold text-brand-900">
          Open cases ({open.length})
        </h2>
        {open.length === 0 ? (
          <p className="px-5 py-8 text-sm text-slate-700">No open cases.</p>
        ) : (
          <CaseTable cases={open} />
        )}
      </section>
      {resolved.length > 0 ? (
        <section aria-labelledby="resolved-heading" className="rounded-2xl border border-slate-200 bg-white shadow-sm">
          <h2
            id="resolved-heading"
            className="border-b border-slate-100 px-5 py-3 text-lg font-semibold text-brand-900"
          >
            Recently resolved
          </h2>
          <CaseTable cases={resolved} />
        </section>
      ) : null}
    </div>
  );
}

type Row = Route.ComponentProps["loaderData"]["open"][number];

function CaseTable({ cases }: { cases: Row[] }) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-sm">
        <thead className="bg-slate-50 text-left text-xs font-semibold tracking-wide text-slate-600 uppercase">
          <tr>
            <th scope="col" className="px-5 py-3">
              Case
            </th>
            <th scope="col" className="px-3 py-3">
              Member · transaction
            </th>
            <th scope="col" className="px-3 py-3 text-right">
              Amount
            </th>
            <th scope="col" className="px-3 py-3">
              Status
            </th>
            <th scope="col" className="px-5 py-3">
              Next deadline
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {cases.map((c) => (
            <tr key={c.id} className={c.deadline?.state === "overdue" ? "bg-red-50/40" : undefined}>
              <td className="px-5 py-3 align-top whitespace-nowrap">
                <Link to={`/admin/disputes/${c.id}`} className="font-semibold text-accent-700 hover:underline">
                  {c.number}
                </Link>
                <span className="block text-xs text-slate-600">Received {formatBusinessDate(c.received_on)}</span>
              </td>
              <td className="px-3 py-3 align-top">
                <span className="block font-medium text-slate-900">{c.member_name}</span>
                <span className="block text-xs text-slate-600">
                  {c.description} · {DISPUTE_KIND_SHORT[c.kind]}
                </span>
              </td>
              <td className="px-3 py-3 text-right align-top whitespace-nowrap">{formatCents(c.amount_cents)}</td>
              <td className="px-3 py-3 align-top">
                {c.status_label}
                {c.reversal_problem ? (
                  <span className="block text-xs font-semibold text-red-800">Debit refused: {c.reversal_problem}</span>
                ) : null}
              </td>
              <td className="px-5 py-3 align-top">
                <DisputeClock deadline={c.deadline} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
