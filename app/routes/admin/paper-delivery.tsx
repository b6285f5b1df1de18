import type { Route } from "./+types/paper-delivery";
import { Download } from "lucide-react";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { pageTitle } from "~/components/site/page-title";
import { useInstitutionDates } from "~/components/institution-dates";
import { paperDeliveryList } from "./paper-delivery.server";

/**
 * /admin/paper-delivery (docs/product.md#paper-delivery): the members whose statements, notices
 * and disclosures are mailed, because they withdrew or declined consent to electronic delivery or
 * have not answered yet (E-SIGN, 15 U.S.C. 7001(c)). Staff only: the list holds addresses.
 * Printing and mailing are done outside Mutual.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Paper mail", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  await requireStaff(request, context.get(requestInfoContext));
  return { members: await paperDeliveryList() };
}

export default function PaperDelivery({ loaderData }: Route.ComponentProps) {
  const { formatDate } = useInstitutionDates();
  const members = loaderData.members;
  return (
    <div className="space-y-5">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">Paper mail</h1>
          <p className="mt-1 max-w-2xl text-sm text-slate-700">
            Members who get statements, notices and disclosures by mail: they withdrew or declined consent to electronic
            delivery, or have not answered yet. Statements made for them are marked for mailing.
          </p>
        </div>
        <a
          href="/admin/paper-delivery.csv"
          className="inline-flex items-center justify-center gap-2 rounded-lg border border-slate-300 bg-white px-4 py-2 text-sm font-semibold text-brand-800 shadow-xs hover:bg-slate-50"
        >
          <Download className="size-4" aria-hidden="true" /> Download CSV
        </a>
      </div>
      <section aria-labelledby="paper-list-heading" className="rounded-xl border border-slate-200 bg-white shadow-sm">
        <h2
          id="paper-list-heading"
          className="border-b border-slate-200 px-4 py-3 text-sm font-semibold text-slate-900"
        >
          {members.length === 1 ? "1 member to mail" : `${members.length} members to mail`}
        </h2>
        {members.length === 0 ? (
          <p className="px-4 py-6 text-sm text-slate-700">Every member has agreed to electronic delivery.</p>
        ) : (
          <>
            <table className="hidden w-full text-left text-sm md:table">
              <thead className="bg-slate-50 text-xs tracking-wide text-slate-600 uppercase">
                <tr>
                  <th scope="col" className="px-4 py-2 font-semibold">
                    Member
                  </th>
                  <th scope="col" className="px-4 py-2 font-semibold">
                    Mailing address
                  </th>
                  <th scope="col" className="px-4 py-2 font-semibold">
                    Why paper
                  </th>
                  <th scope="col" className="px-4 py-2 text-right font-semibold">
                    Statements to mail
                  </th>
                  <th scope="col" className="px-4 py-2 text-right font-semibold">
                    Notices to mail
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {members.map((m) => (
                  <tr key={m.member_id}>
                    <td className="px-4 py-3 align-top">
                      <div className="font-medium text-slate-900">{m.name}</div>
                      <div className="text-xs text-slate-600">{m.email}</div>
                    </td>
                    <td className="px-4 py-3 align-top text-slate-800">{m.address || "No address on file"}</td>
                    <td className="px-4 py-3 align-top text-slate-800">
                      {m.reason}
                      {m.since ? <div className="text-xs text-slate-600">since {formatDate(m.since)}</div> : null}
                    </td>
                    <td className="px-4 py-3 text-right align-top tabular-nums">{m.statements_to_mail}</td>
                    <td className="px-4 py-3 text-right align-top tabular-nums">{m.notices_to_mail}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <ul className="divide-y divide-slate-100 md:hidden">
              {members.map((m) => (
                <li key={m.member_id} className="px-4 py-3 text-sm">
                  <div className="font-medium text-slate-900">{m.name}</div>
                  <div className="text-xs break-all text-slate-600">{m.email}</div>
                  <div className="mt-1 text-slate-800">{m.address || "No address on file"}</div>
                  <div className="mt-1 text-slate-700">
                    {m.reason}
                    {m.since ? ` since ${formatDate(m.since)}` : ""} · {m.statements_to_mail} statements and{" "}
                    {m.notices_to_mail} notices to mail
                  </div>
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
    </div>
  );
}
