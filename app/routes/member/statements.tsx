import { Link } from "react-router";
import { ArrowLeft, Download, FileText } from "lucide-react";
import type { Route } from "./+types/statements";
import { requireMember } from "~/server/auth/session.server";
import { statementAccounts } from "./statements.server";
import { EXPORT_DAYS_MAX, STATEMENT_MONTHS } from "~/domain/statements";
import { businessDate } from "~/domain/ledger-rules";
import { institution } from "~/config/institution.server";
import { pageTitle } from "~/components/site/page-title";
import { Button, Select } from "~/components/ui";
import { controlClass, cx, labelClass } from "~/components/ui/field-styles";

/**
 * /dashboard/statements (docs/product.md#statements): for each of the member's accounts, the
 * monthly statements they can download: the last 13 months that have ended, none before the
 * account's history began.
 */
export function meta({ matches }: Route.MetaArgs) {
  return pageTitle("Statements", matches);
}

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const now = new Date();
  return { accounts: await statementAccounts(user.id, now), today: businessDate(institution().time_zone, now) };
}

export default function Statements({ loaderData }: Route.ComponentProps) {
  const { accounts, today } = loaderData;
  return (
    <div className="mx-auto max-w-4xl px-4 py-6 sm:px-6 lg:px-8 lg:py-10">
      <Link to="/dashboard#quick-actions" className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline">
        <ArrowLeft className="size-4" aria-hidden="true" /> Back to Quick Actions
      </Link>
      <h1 className="mt-3 text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">Statements</h1>
      <p className="mt-1 text-sm text-slate-700">
        A statement for each month that has ended, for up to {STATEMENT_MONTHS} months: your opening and closing balance, every transaction with the balance after it, and what was still pending.
      </p>
      {accounts.length === 0 ? <p className="mt-6 text-sm text-slate-700">You have no accounts yet.</p> : null}
      {accounts.map((account) => (
        <section key={account.id} aria-labelledby={`statements-${account.id}`} className="mt-6 rounded-2xl border border-slate-200 bg-white shadow-sm">
          <h2 id={`statements-${account.id}`} className="flex items-center gap-2 border-b border-slate-100 px-5 py-4 text-lg font-semibold text-brand-900">
            <FileText className="size-5 text-accent-700" aria-hidden="true" />
            {account.name} <span className="font-normal text-slate-700">{account.masked_number}</span>
          </h2>
          {account.months.length === 0 ? (
            <p className="px-5 py-6 text-sm text-slate-700">No statement yet: your first one covers the month this account opened, once that month has ended.</p>
          ) : (
            <ul className="divide-y divide-slate-100">
              {account.months.map((m) => (
                <li key={m.month} className="flex flex-wrap items-center justify-between gap-3 px-5 py-3">
                  <span className="text-sm font-medium text-slate-900">{m.label}</span>
                  <a
                    href={`/dashboard/statements/${account.id}/${m.month}`}
                    download
                    aria-label={`Download PDF: ${account.name} ${account.masked_number}, ${m.label}`}
                    className="inline-flex min-h-11 items-center gap-1.5 rounded-lg border border-slate-300 px-3 text-sm font-semibold text-accent-700 hover:border-accent-600 hover:bg-accent-50"
                  >
                    <Download className="size-4" aria-hidden="true" /> Download PDF
                  </a>
                </li>
              ))}
            </ul>
          )}
        </section>
      ))}
      {accounts.length > 0 ? (
        <section aria-labelledby="export-heading" className="mt-6 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
          <h2 id="export-heading" className="text-lg font-semibold text-brand-900">
            Export transactions
          </h2>
          <p className="mt-1 text-sm text-slate-700">
            Posted transactions of one account for any range of up to {EXPORT_DAYS_MAX} days: CSV for a spreadsheet, OFX, QFX for Quicken or QBO for QuickBooks.
          </p>
          {/* A plain form: the browser downloads the file the address answers with. */}
          <form method="get" action="/dashboard/statements/export" className="mt-4 grid gap-4 sm:grid-cols-2">
            <Select name="account" label="Account" options={accounts.map((a) => ({ value: String(a.id), label: `${a.name} ${a.masked_number}` }))} defaultValue={String(accounts[0]!.id)} isRequired />
            <Select
              name="format"
              label="File type"
              options={[
                { value: "csv", label: "CSV (spreadsheet)" },
                { value: "ofx", label: "OFX" },
                { value: "qfx", label: "QFX (Quicken)" },
                { value: "qbo", label: "QBO (QuickBooks)" },
              ]}
              defaultValue="csv"
              isRequired
            />
            {(["from", "to"] as const).map((name) => (
              <div key={name} className="flex flex-col">
                <label htmlFor={`export-${name}`} className={labelClass}>
                  {name === "from" ? "From date" : "To date"}
                </label>
                <input id={`export-${name}`} name={name} type="date" required max={today} defaultValue={name === "to" ? today : `${today.slice(0, 8)}01`} className={cx(controlClass, "mt-1.5")} />
              </div>
            ))}
            <div className="sm:col-span-2 flex justify-end">
              <Button type="submit">
                <Download className="size-4" aria-hidden="true" /> Export
              </Button>
            </div>
          </form>
        </section>
      ) : null}
    </div>
  );
}
