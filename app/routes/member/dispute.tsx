import { data, Link } from "react-router";
import { ArrowLeft } from "lucide-react";
import type { Route } from "./+types/dispute";
import { requireMember } from "~/server/auth/session.server";
import { loadMemberCase } from "./disputes.server";
import { DISPUTE_CHANNEL_LABELS, DISPUTE_KIND_LABELS } from "~/domain/disputes";
import { formatCents } from "~/domain/money";
import { pageTitle } from "~/components/site/page-title";
import { FormMessage } from "~/components/ui";
import { formatDate } from "~/components/member/amount";
import { DisputeStatusBadge } from "~/components/member/dispute-status";
import { useInstitutionDates } from "~/components/institution-dates";

/**
 * /dashboard/disputes/:caseId (docs/product.md#disputes): one of the member's cases: its number,
 * the transaction, what they told us, where it stands with its dates (Regulation E's clocks), a
 * provisional credit and what was found. Staff notes are not shown. Another member's case reads
 * as not found.
 */
export function meta({ matches }: Route.MetaArgs) {
  return pageTitle("Reported problem", matches);
}

export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const id = /^[1-9]\d{0,15}$/.test(params.caseId) ? Number(params.caseId) : 0;
  const found = id ? await loadMemberCase(user, id) : null;
  if (!found) throw data({ message: "We could not find that case." }, { status: 404 });
  return { case: found, reported: new URL(request.url).searchParams.get("reported") === "1" };
}

export default function Dispute({ loaderData }: Route.ComponentProps) {
  const { case: c, reported } = loaderData;
  const { formatDateTime } = useInstitutionDates();
  return (
    <div className="mx-auto max-w-3xl px-4 py-6 sm:px-6 lg:px-8 lg:py-10">
      <Link
        to="/dashboard/disputes"
        className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
      >
        <ArrowLeft className="size-4" aria-hidden="true" /> Reported problems
      </Link>
      <div className="mt-3 flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">Case {c.number}</h1>
        <DisputeStatusBadge status={c.status} label={c.status_label} />
      </div>
      {reported ? (
        <FormMessage className="mt-4" tone="success" title={`We received your report: case ${c.number}`}>
          We emailed you a confirmation. We will tell you what we find by {formatDate(c.investigate_by)}.
        </FormMessage>
      ) : null}
      <section className="mt-5 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6">
        <dl className="grid gap-4 text-sm sm:grid-cols-2">
          <div>
            <dt className="text-slate-600">Transaction</dt>
            <dd className="font-semibold text-slate-900">
              {c.description} · {formatCents(c.amount_cents)} · {formatDate(c.effective_date)}
            </dd>
          </div>
          <div>
            <dt className="text-slate-600">The problem</dt>
            <dd className="text-slate-900">{DISPUTE_KIND_LABELS[c.kind]}</dd>
          </div>
          <div className="sm:col-span-2">
            <dt className="text-slate-600">What you told us</dt>
            <dd className="whitespace-pre-line text-slate-900">{c.details}</dd>
          </div>
          <div>
            <dt className="text-slate-600">Reported</dt>
            <dd className="text-slate-900">
              {formatDate(c.received_on)}
              {c.reported_via !== "online" ? ` · ${DISPUTE_CHANNEL_LABELS[c.reported_via].toLowerCase()}` : ""}
            </dd>
          </div>
          {c.attachments.length > 0 ? (
            <div className="sm:col-span-2">
              <dt className="text-slate-600">What you sent</dt>
              <dd>
                <ul className="mt-1 flex flex-wrap gap-3">
                  {c.attachments.map((a) => (
                    <li key={a.id}>
                      <a
                        href={`/dashboard/disputes/${c.id}/attachments/${a.id}`}
                        target="_blank"
                        rel="noreferrer"
                        className="font-semibold text-accent-700 underline"
                      >
                        {a.label}
                      </a>
                    </li>
                  ))}
                </ul>
              </dd>
            </div>
          ) : null}
          {c.status === "open" ? (
            <div>
              <dt className="text-slate-600">We tell you what we find by</dt>
              <dd className="font-semibold text-slate-900">{formatDate(c.investigate_by)}</dd>
            </div>
          ) : null}
          {c.provisional_amount_cents !== null ? (
            <div>
              <dt className="text-slate-600">Provisional credit</dt>
              <dd className="font-semibold text-emerald-800">
                {formatCents(c.provisional_amount_cents)} on {formatDate(c.provisional_credited_on!)}
              </dd>
            </div>
          ) : null}
          {c.status === "provisionally_credited" ? (
            <div>
              <dt className="text-slate-600">We finish by</dt>
              <dd className="font-semibold text-slate-900">{formatDate(c.complete_by)}</dd>
            </div>
          ) : null}
          {c.status === "reversal_scheduled" && c.reversal_on ? (
            <div className="sm:col-span-2">
              <dt className="text-slate-600">Provisional credit to be debited on</dt>
              <dd className="font-semibold text-slate-900">
                {formatDate(c.reversal_on)}. Until then we pay your checks and preauthorized payments up to{" "}
                {formatCents(c.provisional_amount_cents ?? 0)}.
              </dd>
            </div>
          ) : null}
          {c.resolution ? (
            <div className="sm:col-span-2">
              <dt className="text-slate-600">What we found</dt>
              <dd className="whitespace-pre-line text-slate-900">{c.resolution}</dd>
            </div>
          ) : null}
        </dl>
      </section>
      <section aria-labelledby="history-heading" className="mt-6">
        <h2 id="history-heading" className="text-lg font-semibold text-brand-900">
          History
        </h2>
        <ol className="mt-3 space-y-3">
          {c.events.map((e) => (
            <li key={e.id} className="rounded-xl border border-slate-200 bg-white px-4 py-3 text-sm">
              <span className="block text-xs text-slate-600">{formatDateTime(e.at)}</span>
              <span className="text-slate-900">{e.text}</span>
            </li>
          ))}
        </ol>
      </section>
    </div>
  );
}
