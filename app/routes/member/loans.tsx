import { data, Link } from "react-router";
import type { Route } from "./+types/loans";
import { requireMember } from "~/server/auth/session.server";
import { loanApplicationsOpen, loanProducts } from "~/server/loans/products.server";
import { loadMemberApplications, loadMemberLoans } from "./loans.server";
import { loadMemberLines } from "./lines-of-credit.server";
import { minimumPaymentShort } from "~/domain/loans/line-of-credit";
import { LOAN_KIND_LABELS, formatAprBp, formatRatePpm, withArticle } from "~/domain/loans/products";
import { formatCents } from "~/domain/money";
import { LINE_STATE_LABELS } from "~/domain/loans/line-changes";
import { formatBusinessDate } from "~/domain/calendar-date";
import { pageTitle } from "~/components/site/page-title";

/**
 * /dashboard/loans (docs/product.md#loans): the loans the credit union offers, each with its rates
 * and terms and a way to apply, and the member's applications with where each stands.
 */
export function meta({ matches }: Route.MetaArgs) {
  return pageTitle("Loans", matches);
}

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireMember(request);
  if (!loanApplicationsOpen()) throw data({ message: "Page not found." }, { status: 404 });
  return {
    products: loanProducts(),
    loans: await loadMemberLoans(user),
    lines: await loadMemberLines(user),
    applications: await loadMemberApplications(user),
  };
}

export default function Loans({ loaderData }: Route.ComponentProps) {
  const { products, loans, lines, applications } = loaderData;
  return (
    <div className="mx-auto max-w-5xl px-4 py-6 sm:px-6 lg:px-8 lg:py-10">
      <h1 className="text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">Loans</h1>
      <p className="mt-2 text-sm text-slate-700">
        Apply online; we review every application and tell you our decision here and by email.
      </p>
      {loans.length > 0 ? (
        <section aria-labelledby="loans-heading" className="mt-6">
          <h2 id="loans-heading" className="text-lg font-semibold text-brand-900">
            Your loans
          </h2>
          <ul className="mt-3 grid gap-4 sm:grid-cols-2">
            {loans.map((l) => (
              <li key={l.id} className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
                <Link to={`/dashboard/loans/${l.id}`} className="font-semibold text-accent-700 underline">
                  {l.product_name} {l.number}
                </Link>
                {l.status === "paid_off" ? <span className="ml-2 text-sm text-slate-700">Paid off</span> : null}
                <dl className="mt-3 grid grid-cols-2 gap-2 text-sm">
                  <dt className="text-slate-600">Balance</dt>
                  <dd className="font-semibold text-slate-900">{formatCents(l.balance_cents)}</dd>
                  <dt className="text-slate-600">Next payment</dt>
                  <dd className="text-slate-900">
                    {l.next_payment
                      ? `${formatCents(l.next_payment.payment_cents)} due ${formatBusinessDate(l.next_payment.due_on)}`
                      : "None due"}
                  </dd>
                  <dt className="text-slate-600">Rate</dt>
                  <dd className="text-slate-900">
                    {formatRatePpm(l.rate_ppm)} (APR {formatAprBp(l.apr_bp)})
                  </dd>
                </dl>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {lines.length > 0 ? (
        <section aria-labelledby="lines-heading" className="mt-6">
          <h2 id="lines-heading" className="text-lg font-semibold text-brand-900">
            Your lines of credit
          </h2>
          <ul className="mt-3 grid gap-4 sm:grid-cols-2">
            {lines.map((l) => (
              <li key={l.id} className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
                <Link to={`/dashboard/loans/lines/${l.id}`} className="font-semibold text-accent-700 underline">
                  {l.product_name} {l.number}
                </Link>
                {l.state !== "open" ? (
                  <span className="ml-2 text-sm text-slate-700">({LINE_STATE_LABELS[l.state]})</span>
                ) : null}
                <dl className="mt-3 grid grid-cols-2 gap-2 text-sm">
                  <dt className="text-slate-600">Available</dt>
                  <dd className="font-semibold text-slate-900">{formatCents(l.available_cents)}</dd>
                  <dt className="text-slate-600">Drawn of limit</dt>
                  <dd className="text-slate-900">
                    {formatCents(l.drawn_cents)} of {formatCents(l.credit_limit_cents)}
                  </dd>
                  <dt className="text-slate-600">Minimum payment</dt>
                  <dd className="text-slate-900">
                    {l.minimum_due
                      ? `${formatCents(l.minimum_due.amount_cents)} due ${formatBusinessDate(l.minimum_due.due_on)}`
                      : "None due"}
                  </dd>
                  <dt className="text-slate-600">Rate (APR)</dt>
                  <dd className="text-slate-900">{formatRatePpm(l.rate_ppm)}</dd>
                </dl>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {applications.length > 0 ? (
        <section
          aria-labelledby="applications-heading"
          className="mt-6 rounded-2xl border border-slate-200 bg-white shadow-sm"
        >
          <h2
            id="applications-heading"
            className="border-b border-slate-100 px-5 py-3 text-lg font-semibold text-brand-900"
          >
            Your applications
          </h2>
          <ul className="divide-y divide-slate-100">
            {applications.map((a) => (
              <li key={a.id} className="flex flex-wrap items-center justify-between gap-2 px-5 py-3 text-sm">
                <div>
                  <Link
                    to={`/dashboard/loans/applications/${a.id}`}
                    className="font-semibold text-accent-700 underline"
                  >
                    {a.product_name}
                  </Link>
                  <span className="block text-slate-700">
                    {a.term_months === null
                      ? `Credit limit ${formatCents(a.amount_cents)}`
                      : `${formatCents(a.amount_cents)} over ${a.term_months} months`}{" "}
                    · applied {formatBusinessDate(a.applied_on)}
                  </span>
                </div>
                <span className="rounded-full bg-slate-100 px-3 py-1 font-semibold text-slate-800">
                  {a.status_label}
                </span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <section aria-labelledby="products-heading" className="mt-6">
        <h2 id="products-heading" className="text-lg font-semibold text-brand-900">
          Apply for a loan
        </h2>
        <ul className="mt-3 grid gap-4 sm:grid-cols-2">
          {products.map((p) => (
            <li key={p.slug} className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
              <h3 className="text-base font-semibold text-slate-900">{p.name}</h3>
              {LOAN_KIND_LABELS[p.kind].toLowerCase() !== p.name.toLowerCase() ? (
                <p className="text-xs text-slate-600">{LOAN_KIND_LABELS[p.kind]}</p>
              ) : null}
              <dl className="mt-3 grid grid-cols-2 gap-2 text-sm">
                <dt className="text-slate-600">Rates</dt>
                <dd className="text-slate-900">
                  {formatRatePpm(p.rate_min_ppm)} to {formatRatePpm(p.rate_max_ppm)}
                </dd>
                <dt className="text-slate-600">{p.minimum_payment ? "Credit limits" : "Amounts"}</dt>
                <dd className="text-slate-900">
                  {formatCents(p.amount_min_cents)} to {formatCents(p.amount_max_cents)}
                </dd>
                {p.minimum_payment ? (
                  <>
                    <dt className="text-slate-600">Minimum payment</dt>
                    <dd className="text-slate-900">{minimumPaymentShort(p.minimum_payment)}</dd>
                  </>
                ) : (
                  <>
                    <dt className="text-slate-600">Terms</dt>
                    <dd className="text-slate-900">
                      {p.term_months_min} to {p.term_months_max} months, paid monthly
                    </dd>
                  </>
                )}
                <dt className="text-slate-600">Late payments</dt>
                <dd className="text-slate-900">
                  {formatCents(p.late_fee_cents)} fee after {p.grace_days} days
                </dd>
              </dl>
              <Link
                to={`/dashboard/loans/apply/${p.slug}`}
                className="mt-4 inline-flex items-center rounded-lg bg-brand-700 px-4 py-2 text-sm font-semibold text-white hover:bg-brand-800"
              >
                Apply for {withArticle(p.name)}
              </Link>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
