import { useEffect } from "react";
import { Form, Link, useLocation, useNavigate } from "react-router";
import { ArrowRight, CreditCard, Download, FileText } from "lucide-react";
import { formatCents } from "~/domain/money";
import { cx } from "~/components/ui/field-styles";
import { StatusBadge } from "~/components/member/amount";
import type { CardServicesSummary } from "~/server/cards/page.server";

/**
 * The dashboard's Card Services (views Overview and Statements, the view in the URL so it works
 * without JavaScript) and the Cards quick action opened in place (docs/product.md#dashboard).
 */

export const CARD_SERVICES_TABS = ["overview", "statements"] as const;
export type CardServicesTab = (typeof CARD_SERVICES_TABS)[number];

const STATUS_BADGE: Record<string, string> = { active: "posted", locked: "pending", blocked: "failed" };

/**
 * Quick actions the fragments `#quick-actions-cards` and `#quick-actions-billpay` open. A
 * fragment never reaches the server, so links that must work without JavaScript carry the
 * quick action in the query as well (`/dashboard?action=cards#quick-actions-cards`); a bare
 * fragment is turned into that address here, in the browser.
 */
export const FRAGMENT_QUICK_ACTIONS: Record<string, string> = {
  "#quick-actions-cards": "cards",
  "#quick-actions-billpay": "billpay",
};

export function useQuickActionFragment(current: string | null) {
  const location = useLocation();
  const navigate = useNavigate();
  useEffect(() => {
    const action = FRAGMENT_QUICK_ACTIONS[location.hash];
    if (action && action !== current)
      navigate(`/dashboard?action=${action}${location.hash}`, { replace: true, preventScrollReset: true });
  }, [location.hash, current, navigate]);
}

export function CardsQuickAction({ summary }: { summary: CardServicesSummary }) {
  return (
    <div>
      <CreditCard className="size-8 text-accent-700" aria-hidden="true" />
      <h3 className="mt-3 font-semibold text-slate-900">Cards</h3>
      {summary.cards.length === 0 ? (
        <p className="mt-1 text-sm text-slate-700">
          You have no debit card yet. Each checking account gets one when it opens.
        </p>
      ) : (
        <ul className="mt-2 space-y-2 text-sm">
          {summary.cards.map((c) => (
            <li key={c.id} className="flex flex-wrap items-center justify-between gap-2">
              <span className="font-mono text-slate-900">{c.masked_number}</span>
              <StatusBadge status={STATUS_BADGE[c.status] ?? "reversed"} label={c.status_label} />
            </li>
          ))}
        </ul>
      )}
      <p className="mt-3 text-sm text-slate-700">
        Lock or unlock a card, set its daily limit, see its number, change its PIN or report it lost or stolen.
      </p>
      <Link
        to="/dashboard/cards"
        className="mt-3 inline-flex min-h-11 items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
      >
        Manage cards <ArrowRight className="size-4" aria-hidden="true" />
      </Link>
    </div>
  );
}

export function CardServices({ summary, tab }: { summary: CardServicesSummary; tab: CardServicesTab }) {
  return (
    <section
      id="card-services"
      aria-labelledby="card-services-heading"
      className="scroll-mt-24 rounded-2xl border border-slate-200 bg-white shadow-sm"
    >
      <div className="flex flex-wrap items-center justify-between gap-3 px-5 pt-5 sm:px-6">
        <h2 id="card-services-heading" className="text-lg font-semibold text-brand-900">
          Card Services
        </h2>
        <Link
          to="/dashboard/cards"
          className="inline-flex items-center gap-1 text-sm font-semibold text-accent-700 hover:underline"
        >
          Manage cards <ArrowRight className="size-4" aria-hidden="true" />
        </Link>
      </div>
      {/*
        The view is in the URL (a GET form, so it works without JavaScript). Buttons, not tabs: the
        transfer section above is the page's one tab set.
      */}
      <Form
        method="get"
        action="/dashboard#card-services"
        preventScrollReset
        aria-label="Card Services view"
        className="mt-3 flex gap-1 border-b border-slate-200 px-3 sm:px-4"
      >
        {CARD_SERVICES_TABS.map((key) => (
          <button
            key={key}
            type="submit"
            name="services"
            value={key}
            aria-pressed={tab === key}
            className={cx(
              "-mb-px flex min-h-11 cursor-pointer items-center gap-2 border-b-2 px-3 py-2 text-sm font-semibold focus-visible:rounded-t-md",
              tab === key
                ? "border-accent-600 text-brand-900"
                : "border-transparent text-slate-600 hover:text-brand-800",
            )}
          >
            {key === "overview" ? (
              <CreditCard className="size-4" aria-hidden="true" />
            ) : (
              <FileText className="size-4" aria-hidden="true" />
            )}
            {key === "overview" ? "Overview" : "Statements"}
          </button>
        ))}
      </Form>
      {tab === "overview" ? (
        <div className="p-5 sm:p-6">
          {summary.cards.length === 0 ? (
            <p className="text-sm text-slate-700">
              You have no debit card yet. Each checking account gets one when it opens.
            </p>
          ) : (
            <ul className="grid gap-4 md:grid-cols-2">
              {summary.cards.map((c) => (
                <li key={c.id} className="rounded-xl border border-slate-200 p-4">
                  <div className="flex flex-wrap items-center justify-between gap-2">
                    <p className="flex items-center gap-2 font-semibold text-slate-900">
                      <CreditCard className="size-5 text-accent-700" aria-hidden="true" /> Debit card{" "}
                      <span className="font-mono">{c.masked_number}</span>
                    </p>
                    <StatusBadge status={STATUS_BADGE[c.status] ?? "reversed"} label={c.status_label} />
                  </div>
                  <dl className="mt-3 grid grid-cols-2 gap-x-4 gap-y-2 text-sm">
                    <div>
                      <dt className="text-slate-600">Linked account</dt>
                      <dd className="font-medium text-slate-900">
                        {c.account.name} <span className="font-mono">{c.account.masked_number}</span>
                      </dd>
                    </div>
                    <div>
                      <dt className="text-slate-600">Expires</dt>
                      <dd className="font-mono text-slate-900">{c.expiry}</dd>
                    </div>
                    <div>
                      <dt className="text-slate-600">Daily limit</dt>
                      <dd className="font-semibold tabular-nums text-slate-900">{formatCents(c.daily_limit_cents)}</dd>
                    </div>
                    <div>
                      <dt className="text-slate-600">Spent today</dt>
                      <dd className="font-semibold tabular-nums text-slate-900">{formatCents(c.spent_today_cents)}</dd>
                    </div>
                  </dl>
                  {c.last_transaction ? (
                    <p className="mt-3 text-sm text-slate-700">
                      Latest: {c.last_transaction.merchant}, {formatCents(-c.last_transaction.amount_cents)}
                    </p>
                  ) : null}
                </li>
              ))}
            </ul>
          )}
        </div>
      ) : (
        <div className="p-5 sm:p-6">
          {!summary.statements || summary.statements.length === 0 ? (
            <p className="text-sm text-slate-700">You have no accounts yet.</p>
          ) : (
            <ul className="divide-y divide-slate-100">
              {summary.statements.map((a) => (
                <li key={a.id} className="flex flex-wrap items-center justify-between gap-3 py-3">
                  <div className="min-w-0 text-sm">
                    <p className="font-medium text-slate-900">
                      {a.name} <span className="font-mono text-slate-700">{a.masked_number}</span>
                    </p>
                    <p className="text-slate-700">
                      {a.latest
                        ? `Latest statement: ${a.latest.label} (${a.months} available)`
                        : "No statement yet: the first covers the month the account opened, once it has ended."}
                    </p>
                  </div>
                  {a.latest ? (
                    <a
                      href={`/dashboard/statements/${a.id}/${a.latest.month}`}
                      download
                      aria-label={`Download PDF: ${a.name} ${a.masked_number}, ${a.latest.label}`}
                      className="inline-flex min-h-11 items-center gap-1.5 rounded-lg border border-slate-300 px-3 text-sm font-semibold text-accent-700 hover:border-accent-600 hover:bg-accent-50"
                    >
                      <Download className="size-4" aria-hidden="true" /> PDF
                    </a>
                  ) : null}
                </li>
              ))}
            </ul>
          )}
          <Link
            to="/dashboard/statements"
            className="mt-3 inline-flex min-h-11 items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
          >
            All statements and exports <ArrowRight className="size-4" aria-hidden="true" />
          </Link>
        </div>
      )}
    </section>
  );
}
