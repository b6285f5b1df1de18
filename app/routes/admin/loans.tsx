import { data, Link } from "react-router";
import type { Route } from "./+types/loans";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { loanApplicationsOpen } from "~/server/loans/products.server";
import { loadLoanQueue } from "./loans.server";
import { loadBookedLoans } from "./booked-loan.server";
import { loadStaffLines } from "./line-of-credit.server";
import { LINE_STATE_LABELS } from "~/domain/loans/line-changes";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { pageTitle } from "~/components/site/page-title";

/**
 * /admin/loans (docs/product.md#loans): loan applications waiting for a decision, oldest first,
 * then the latest decided. Staff and reviewers read it; deciding is for staff who may move money.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Loan applications", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  await requireStaff(request, context.get(requestInfoContext), { reviewer: true });
  if (!loanApplicationsOpen()) throw data({ message: "Page not found." }, { status: 404 });
  return { ...(await loadLoanQueue()), booked: await loadBookedLoans(), lines: await loadStaffLines() };
}

type Row = Route.ComponentProps["loaderData"]["waiting"][number];

export default function LoanQueue({ loaderData }: Route.ComponentProps) {
  const { waiting, decided, booked, lines } = loaderData;
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">Loan applications</h1>
        <p className="mt-1 text-sm text-slate-700">
          Members&apos; applications, oldest first. Approve with a rate and term, offer other terms, or decline with the
          reasons the member is told (Regulation B).
        </p>
      </div>
      <Section
        id="waiting"
        title={`Waiting for a decision (${waiting.length})`}
        rows={waiting}
        empty="No applications waiting."
      />
      {decided.length > 0 ? <Section id="decided" title="Recently decided" rows={decided} empty="" /> : null}
      {booked.length > 0 ? <BookedLoans rows={booked} /> : null}
      {lines.length > 0 ? <LinesOfCredit rows={lines} /> : null}
    </div>
  );
}

/** One row of the booked loans' or the lines' table: a link to its page, its member, amount, date and state. */
type AccountRow = {
  id: number;
  href: string;
  name: string;
  member_name: string;
  cents: number;
  on: string;
  state: string;
};

/** Booked loans, newest first: each leads to its figures, history and corrections. */
function BookedLoans({ rows }: { rows: Route.ComponentProps["loaderData"]["booked"] }) {
  return (
    <LoanAccounts
      id="booked"
      title="Booked loans"
      columns={["Loan", "Amount", "Paid out"]}
      rows={rows.map((r) => ({
        id: r.id,
        href: `/admin/loans/booked/${r.id}`,
        name: `${r.product_name} ${r.number}`,
        member_name: r.member_name,
        cents: r.principal_cents,
        on: r.disbursed_on,
        state: r.status === "active" ? "Active" : "Paid off",
      }))}
    />
  );
}

/** Lines of credit, newest first: each leads to its figures, history, freeze, close and change in terms. */
function LinesOfCredit({ rows }: { rows: Route.ComponentProps["loaderData"]["lines"] }) {
  return (
    <LoanAccounts
      id="lines"
      title="Lines of credit"
      columns={["Line", "Limit", "Opened"]}
      rows={rows.map((r) => ({
        id: r.id,
        href: `/admin/loans/lines/${r.id}`,
        name: `${r.product_name} ${r.number}`,
        member_name: r.member_name,
        cents: r.credit_limit_cents,
        on: r.opened_on,
        state: LINE_STATE_LABELS[r.state],
      }))}
    />
  );
}

/** The table both lists share; `columns` names the account, the amount and the date columns. */
function LoanAccounts(props: { id: string; title: string; columns: [string, string, string]; rows: AccountRow[] }) {
  const [account, amount, date] = props.columns;
  return (
    <section aria-labelledby={`${props.id}-heading`} className="rounded-2xl border border-slate-200 bg-white shadow-sm">
      <h2
        id={`${props.id}-heading`}
        className="border-b border-slate-100 px-5 py-3 text-lg font-semibold text-brand-900"
      >
        {props.title}
      </h2>
      <div className="overflow-x-auto" tabIndex={0} role="region" aria-label={`${props.title}, scrollable`}>
        <table className="w-full text-sm">
          <thead className="bg-slate-50 text-left text-xs font-semibold tracking-wide text-slate-600 uppercase">
            <tr>
              <th scope="col" className="px-5 py-3">
                {account}
              </th>
              <th scope="col" className="px-5 py-3">
                Member
              </th>
              <th scope="col" className="px-5 py-3 text-right">
                {amount}
              </th>
              <th scope="col" className="px-5 py-3">
                {date}
              </th>
              <th scope="col" className="px-5 py-3">
                Status
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {props.rows.map((r) => (
              <tr key={r.id}>
                <td className="px-5 py-3">
                  <Link to={r.href} className="font-semibold text-accent-700 underline">
                    {r.name}
                  </Link>
                </td>
                <td className="px-5 py-3">{r.member_name}</td>
                <td className="px-5 py-3 text-right tabular-nums">{formatCents(r.cents)}</td>
                <td className="px-5 py-3">{formatBusinessDate(r.on)}</td>
                <td className="px-5 py-3">{r.state}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Section({ id, title, rows, empty }: { id: string; title: string; rows: Row[]; empty: string }) {
  return (
    <section aria-labelledby={`${id}-heading`} className="rounded-2xl border border-slate-200 bg-white shadow-sm">
      <h2 id={`${id}-heading`} className="border-b border-slate-100 px-5 py-3 text-lg font-semibold text-brand-900">
        {title}
      </h2>
      {rows.length === 0 ? (
        <p className="px-5 py-8 text-sm text-slate-700">{empty}</p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-sm">
            <thead className="bg-slate-50 text-left text-xs font-semibold tracking-wide text-slate-600 uppercase">
              <tr>
                <th scope="col" className="px-5 py-3">
                  Member
                </th>
                <th scope="col" className="px-5 py-3">
                  Loan
                </th>
                <th scope="col" className="px-5 py-3 text-right">
                  Amount
                </th>
                <th scope="col" className="px-5 py-3">
                  Term
                </th>
                <th scope="col" className="px-5 py-3">
                  Applied
                </th>
                <th scope="col" className="px-5 py-3">
                  Status
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {rows.map((r) => (
                <tr key={r.id}>
                  <td className="px-5 py-3">
                    <Link to={`/admin/loans/${r.id}`} className="font-semibold text-accent-700 underline">
                      {r.member_name}
                    </Link>
                  </td>
                  <td className="px-5 py-3">{r.product_name}</td>
                  <td className="px-5 py-3 text-right tabular-nums">{formatCents(r.amount_cents)}</td>
                  <td className="px-5 py-3">{r.term_months === null ? "Line of credit" : `${r.term_months} months`}</td>
                  <td className="px-5 py-3">{formatBusinessDate(r.applied_on)}</td>
                  <td className="px-5 py-3">{r.status_label}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
