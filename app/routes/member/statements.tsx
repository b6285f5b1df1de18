import { data, Form, Link, useNavigation } from "react-router";
import { ArrowLeft, Download, FileText, Mail } from "lucide-react";
import type { Route } from "./+types/statements";
import { requireMember } from "~/server/auth/session.server";
import {
  exportFormats,
  lineStatementEmail,
  loanStatementEmail,
  statementAccounts,
  statementEmail,
  statementLineCycles,
  statementLines,
  statementLoanMonths,
  statementLoans,
  taxForms,
} from "./statements.server";
import { loanApplicationsOpen } from "~/server/loans/products.server";
import { LineStatementList, LoanStatementList } from "~/components/member/loan-statements";
import { formatCents } from "~/domain/money";
import { readForm, refusalHeaders, refusalStatus } from "~/server/http/form.server";
import { UNKNOWN_INTENT_MESSAGE, formIntent } from "~/domain/form-intent";
import { EXPORT_DAYS_MAX, STATEMENT_MONTHS } from "~/domain/statements";
import { businessDate } from "~/domain/ledger-rules";
import { institution } from "~/config/institution.server";
import { pageTitle } from "~/components/site/page-title";
import { Button, FormMessage, Select } from "~/components/ui";
import { controlClass, cx, labelClass } from "~/components/ui/field-styles";

/**
 * /dashboard/statements (docs/product.md#statements): for each of the member's accounts, the
 * monthly statements they can download or have emailed to them ("Email it to me": the PDF as an
 * attachment to their registered address, at most five an hour): the last 13 months that have
 * ended, none before the account's history began.
 */
export function meta({ matches }: Route.MetaArgs) {
  return pageTitle("Statements", matches);
}

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const now = new Date();
  return {
    accounts: await statementAccounts(user.id, now),
    // The export offers loans and lines of credit as credit lines.
    loans: [...(await statementLoans(user.id)), ...(await statementLines(user.id))],
    loan_statements: loanApplicationsOpen() ? await statementLoanMonths(user.id, now) : [],
    line_statements: loanApplicationsOpen() ? await statementLineCycles(user.id) : [],
    today: businessDate(institution().time_zone, now),
    formats: exportFormats(),
    tax_forms: (await taxForms(user.id)).map((f) => ({
      tax_year: f.tax_year,
      form: f.form,
      interest: formatCents(f.interest_cents),
    })),
  };
}

export async function action({ request }: Route.ActionArgs) {
  const user = await requireMember(request);
  const form = await readForm(request);
  const intent = formIntent(form, ["email", "email_loan", "email_line"] as const);
  const loan = String(form.get("loan") ?? "").slice(0, 20);
  const line = String(form.get("line") ?? "").slice(0, 20);
  // A loan's row is told apart from an account's by its key ("loan-<id>"), a line's by "line-<id>".
  const account =
    intent === "email_loan"
      ? `loan-${loan}`
      : intent === "email_line"
        ? `line-${line}`
        : String(form.get("account") ?? "").slice(0, 20);
  // A month (YYYY-MM), or a line's cycle by its closing date (YYYY-MM-DD).
  const month = String(form.get("month") ?? "").slice(0, intent === "email_line" ? 10 : 7);
  if (!intent) return data({ ok: false, message: UNKNOWN_INTENT_MESSAGE, account, month }, { status: 400 });
  const result =
    intent === "email_loan"
      ? await loanStatementEmail(user.id, loan, month, new Date())
      : intent === "email_line"
        ? await lineStatementEmail(user.id, line, month, new Date())
        : await statementEmail(user.id, String(form.get("account") ?? "").slice(0, 20), month, new Date());
  if (!result.ok) {
    return data(
      { ok: false, message: result.message, account, month },
      { status: refusalStatus(result.kind), headers: refusalHeaders(result) },
    );
  }
  return { ok: true, message: result.message, account, month };
}

const FORMAT_LABELS = { csv: "CSV (spreadsheet)", ofx: "OFX", qfx: "QFX (Quicken)", qbo: "QBO (QuickBooks)" } as const;

export default function Statements({ loaderData, actionData }: Route.ComponentProps) {
  const { accounts, loans, loan_statements, line_statements, today, formats, tax_forms } = loaderData;
  const navigation = useNavigation();
  const intent = navigation.state !== "idle" ? navigation.formData?.get("intent") : null;
  const sending =
    intent === "email"
      ? `${navigation.formData!.get("account")}/${navigation.formData!.get("month")}`
      : intent === "email_loan"
        ? `loan-${navigation.formData!.get("loan")}/${navigation.formData!.get("month")}`
        : intent === "email_line"
          ? `line-${navigation.formData!.get("line")}/${navigation.formData!.get("month")}`
          : null;
  return (
    <div className="mx-auto max-w-4xl px-4 py-6 sm:px-6 lg:px-8 lg:py-10">
      <Link
        to="/dashboard#quick-actions"
        className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
      >
        <ArrowLeft className="size-4" aria-hidden="true" /> Back to Quick Actions
      </Link>
      <h1 className="mt-3 text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">Statements</h1>
      <p className="mt-1 text-sm text-slate-700">
        {/* An account's and a loan's statement is per calendar month; a line of credit's per billing cycle. */}
        An account&apos;s statement covers a month that has ended, for up to {STATEMENT_MONTHS} months: your opening and
        closing balance, every transaction with the balance after it, and what was still pending.
        {loan_statements.length > 0 ? " A loan's statement covers a month too." : null}
        {line_statements.length > 0
          ? ` A line of credit's statement covers a billing cycle instead, to its closing date: one for each cycle that has closed, for up to ${STATEMENT_MONTHS} cycles.`
          : null}
      </p>
      {accounts.length === 0 ? <p className="mt-6 text-sm text-slate-700">You have no accounts yet.</p> : null}
      {accounts.map((account) => (
        <section
          key={account.id}
          aria-labelledby={`statements-${account.id}`}
          className="mt-6 rounded-2xl border border-slate-200 bg-white shadow-sm"
        >
          <h2
            id={`statements-${account.id}`}
            className="flex items-center gap-2 border-b border-slate-100 px-5 py-4 text-lg font-semibold text-brand-900"
          >
            <FileText className="size-5 text-accent-700" aria-hidden="true" />
            {account.name} <span className="font-normal text-slate-700">{account.masked_number}</span>
          </h2>
          {account.months.length === 0 ? (
            <p className="px-5 py-6 text-sm text-slate-700">
              No statement yet: your first one covers the month this account opened, once that month has ended.
            </p>
          ) : (
            <ul className="divide-y divide-slate-100">
              {account.months.map((m) => (
                <li key={m.month} className="flex flex-wrap items-center justify-between gap-3 px-5 py-3">
                  <span className="text-sm font-medium text-slate-900">{m.label}</span>
                  <span className="flex flex-wrap gap-2">
                    <a
                      href={`/dashboard/statements/${account.id}/${m.month}`}
                      download
                      aria-label={`Download PDF: ${account.name} ${account.masked_number}, ${m.label}`}
                      className="inline-flex min-h-11 items-center gap-1.5 rounded-lg border border-slate-300 px-3 text-sm font-semibold text-accent-700 hover:border-accent-600 hover:bg-accent-50"
                    >
                      <Download className="size-4" aria-hidden="true" /> Download PDF
                    </a>
                    <Form method="post" preventScrollReset>
                      <input type="hidden" name="account" value={account.id} />
                      <input type="hidden" name="month" value={m.month} />
                      <Button
                        type="submit"
                        name="intent"
                        value="email"
                        variant="secondary"
                        isPending={sending === `${account.id}/${m.month}`}
                        pendingLabel="Sending…"
                        aria-label={`Email it to me: ${account.name} ${account.masked_number}, ${m.label}`}
                      >
                        <Mail className="size-4" aria-hidden="true" /> Email it to me
                      </Button>
                    </Form>
                  </span>
                  {actionData && actionData.account === String(account.id) && actionData.month === m.month ? (
                    <FormMessage className="w-full" tone={actionData.ok ? "success" : "error"}>
                      {actionData.message}
                    </FormMessage>
                  ) : null}
                </li>
              ))}
            </ul>
          )}
        </section>
      ))}
      {loan_statements.map((loan) => (
        <section
          key={`loan-${loan.id}`}
          aria-labelledby={`loan-statements-${loan.id}`}
          className="mt-6 rounded-2xl border border-slate-200 bg-white shadow-sm"
        >
          <h2
            id={`loan-statements-${loan.id}`}
            className="flex items-center gap-2 border-b border-slate-100 px-5 py-4 text-lg font-semibold text-brand-900"
          >
            <FileText className="size-5 text-accent-700" aria-hidden="true" />
            {loan.product_name} <span className="font-normal text-slate-700">{loan.number}</span>
          </h2>
          <LoanStatementList
            loan={loan}
            email={{
              sending: sending?.startsWith(`loan-${loan.id}/`) ? sending.slice(sending.indexOf("/") + 1) : null,
              reply: actionData && actionData.account === `loan-${loan.id}` ? actionData : null,
            }}
          />
        </section>
      ))}
      {line_statements.map((line) => (
        <section
          key={`line-${line.id}`}
          aria-labelledby={`line-statements-${line.id}`}
          className="mt-6 rounded-2xl border border-slate-200 bg-white shadow-sm"
        >
          <h2
            id={`line-statements-${line.id}`}
            className="flex items-center gap-2 border-b border-slate-100 px-5 py-4 text-lg font-semibold text-brand-900"
          >
            <FileText className="size-5 text-accent-700" aria-hidden="true" />
            {line.product_name} <span className="font-normal text-slate-700">{line.number}</span>
          </h2>
          <LineStatementList
            line={line}
            email={{
              sending: sending?.startsWith(`line-${line.id}/`) ? sending.slice(sending.indexOf("/") + 1) : null,
              reply: actionData && actionData.account === `line-${line.id}` ? actionData : null,
            }}
          />
        </section>
      ))}
      {tax_forms.length > 0 ? (
        <section
          aria-labelledby="tax-forms-heading"
          className="mt-6 rounded-2xl border border-slate-200 bg-white shadow-sm"
        >
          <h2
            id="tax-forms-heading"
            className="flex items-center gap-2 border-b border-slate-100 px-5 py-4 text-lg font-semibold text-brand-900"
          >
            <FileText className="size-5 text-accent-700" aria-hidden="true" />
            Tax forms
          </h2>
          <ul className="divide-y divide-slate-100">
            {tax_forms.map((f) => (
              <li
                key={`${f.form}-${f.tax_year}`}
                className="flex flex-wrap items-center justify-between gap-3 px-5 py-3"
              >
                <span className="text-sm text-slate-900">
                  <span className="font-medium">
                    Form {f.form}, {f.tax_year}
                  </span>{" "}
                  <span className="text-slate-700">dividends {f.interest}</span>
                </span>
                <a
                  href={`/dashboard/statements/tax/${f.tax_year}`}
                  download
                  aria-label={`Download PDF: Form ${f.form}, ${f.tax_year}`}
                  className="inline-flex min-h-11 items-center gap-1.5 rounded-lg border border-slate-300 px-3 text-sm font-semibold text-accent-700 hover:border-accent-600 hover:bg-accent-50"
                >
                  <Download className="size-4" aria-hidden="true" /> Download PDF
                </a>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {accounts.length > 0 ? (
        <section
          aria-labelledby="export-heading"
          className="mt-6 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm"
        >
          <h2 id="export-heading" className="text-lg font-semibold text-brand-900">
            Export transactions
          </h2>
          <p className="mt-1 text-sm text-slate-700">
            Posted transactions of one account for any range of up to {EXPORT_DAYS_MAX} days: CSV for a spreadsheet, OFX
            {formats.includes("qfx") ? ", QFX for Quicken or QBO for QuickBooks" : " for your finance program"}.
          </p>
          {/* A plain form: the browser downloads the file the address answers with. */}
          <form method="get" action="/dashboard/statements/export" className="mt-4 grid gap-4 sm:grid-cols-2">
            <Select
              name="account"
              label="Account"
              options={[
                ...accounts.map((a) => ({ value: String(a.id), label: `${a.name} ${a.masked_number}` })),
                ...loans,
              ]}
              defaultValue={String(accounts[0]!.id)}
              isRequired
            />
            <Select
              name="format"
              label="File type"
              options={formats.map((value) => ({ value, label: FORMAT_LABELS[value] }))}
              defaultValue="csv"
              isRequired
            />
            {(["from", "to"] as const).map((name) => (
              <div key={name} className="flex flex-col">
                <label htmlFor={`export-${name}`} className={labelClass}>
                  {name === "from" ? "From date" : "To date"}
                </label>
                <input
                  id={`export-${name}`}
                  name={name}
                  type="date"
                  required
                  max={today}
                  defaultValue={name === "to" ? today : `${today.slice(0, 8)}01`}
                  className={cx(controlClass, "mt-1.5")}
                />
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
