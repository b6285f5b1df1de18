import crypto from "node:crypto";
import { data, Form, Link, redirect, useNavigation } from "react-router";
import { ArrowLeft } from "lucide-react";
import type { Route } from "./+types/loan";
import { requestInfoContext } from "~/context";
import { requireMember } from "~/server/auth/session.server";
import { loanApplicationsOpen } from "~/server/loans/products.server";
import {
  loadLoanDetail,
  loadLoanPledge,
  loadLoanStatements,
  loadPayingAccounts,
  payMemberLoan,
  setLoanAutopay,
} from "./loans.server";
import { LoanStatementList } from "~/components/member/loan-statements";
import { FigureTable, LOAN_SCHEDULE_COLUMNS } from "~/components/member/figure-table";
import { AutopaySection, PaymentSection } from "~/components/member/loan-payment-forms";
import { parseSubmission, readForm, refusalStatus, replyTo, type FormReply } from "~/server/http/form.server";
import { servicingDay } from "~/server/loans/loan-views.server";
import { logger } from "~/server/logger.server";
import { LoanAutopaySchema, LoanPaymentSchema } from "~/domain/loans/forms";
import { formatAprBp, formatRatePpm } from "~/domain/loans/products";
import { maskAccountNumber } from "~/domain/account-display";
import { formatCents } from "~/domain/money";
import { formatBusinessDate, isCalendarDate } from "~/domain/calendar-date";
import { addCalendarDays } from "~/domain/payment-dates";
import { pageTitle } from "~/components/site/page-title";
import { Button, FormMessage, TextField, formMessages, useSchemaForm } from "~/components/ui";

/**
 * /dashboard/loans/:loanId (docs/product.md#loan-servicing): one of the member's booked loans:
 * what is owed (principal, interest, fees), the next payment, the rate; a one-time payment (the
 * next payment due, the payoff, or an amount: extra goes to principal) from their checking or
 * savings; the payoff quote good through a date they choose; autopay; the schedule and the
 * history. Another member's loan reads as not found.
 */
export function meta({ matches }: Route.MetaArgs) {
  return pageTitle("Your loan", matches);
}

const NOT_FOUND = "We could not find that loan.";
/** How far ahead a payoff quote may be asked for. */
export const PAYOFF_QUOTE_DAYS_MAX = 30;

function idOf(value: string): number {
  return /^[1-9]\d{0,15}$/.test(value) ? Number(value) : 0;
}

export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const id = idOf(params.loanId);
  const url = new URL(request.url);
  const day = servicingDay();
  const asked = url.searchParams.get("payoff_on")?.trim() ?? "";
  const last = addCalendarDays(day, PAYOFF_QUOTE_DAYS_MAX);
  const payoff_problem =
    asked === ""
      ? null
      : !isCalendarDate(asked)
        ? "Enter a date as YYYY-MM-DD."
        : asked < day || asked > last
          ? `Choose a day from today to ${formatBusinessDate(last)}.`
          : null;
  const loan =
    loanApplicationsOpen() && id ? await loadLoanDetail(user, id, asked && !payoff_problem ? asked : undefined) : null;
  if (!loan) throw data({ message: NOT_FOUND }, { status: 404 });
  const accounts = await loadPayingAccounts(user);
  const statements = (await loadLoanStatements(user)).find((l) => l.id === loan.id)!;
  return {
    loan,
    statements,
    pledge: await loadLoanPledge(user, loan.id),
    accounts: accounts.map((a) => ({
      value: String(a.id),
      label: `${a.name} ${maskAccountNumber(a.account_number)} · ${formatCents(a.available_cents)} available`,
    })),
    payoff_on: asked,
    payoff_problem,
    paid: url.searchParams.get("paid") === "1",
    autopay_saved: url.searchParams.get("autopay") === "1",
    idempotency_key: crypto.randomUUID(),
  };
}

export type LoanActionData = { ok: false; intent: "pay" | "autopay"; reply: FormReply };

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = await requireMember(request);
  const id = idOf(params.loanId);
  if (!loanApplicationsOpen() || !id) throw data({ message: NOT_FOUND }, { status: 404 });
  const info = context.get(requestInfoContext);
  const origin = { request_id: info.request_id, ip: info.ip };
  const form = await readForm(request);
  const member = { id: user.id, email: user.email };
  if (form.get("intent") === "autopay") {
    const submission = parseSubmission(LoanAutopaySchema, form);
    if (submission.status !== "success")
      return data({ ok: false, intent: "autopay", reply: replyTo(submission) } satisfies LoanActionData, {
        status: 400,
      });
    const answer = await setLoanAutopay(member, id, submission.value.autopay_from, origin);
    if (!answer.ok)
      return data(
        {
          ok: false,
          intent: "autopay",
          reply: replyTo(
            submission,
            answer.field ? { fieldErrors: { autopay_from: [answer.message] } } : { formErrors: [answer.message] },
          ),
        } satisfies LoanActionData,
        { status: refusalStatus(answer.kind) },
      );
    return redirect(`/dashboard/loans/${id}?autopay=1`);
  }
  if (form.get("intent") !== "pay") throw data({ message: "That request could not be understood." }, { status: 400 });
  const submission = parseSubmission(LoanPaymentSchema, form);
  if (submission.status !== "success")
    return data({ ok: false, intent: "pay", reply: replyTo(submission) } satisfies LoanActionData, { status: 400 });
  const key = String(form.get("idempotency_key") ?? "");
  if (!/^[0-9a-f-]{36}$/.test(key))
    return data(
      {
        ok: false,
        intent: "pay",
        reply: replyTo(submission, { formErrors: ["Please reload the page and pay again."] }),
      } satisfies LoanActionData,
      { status: 400 },
    );
  try {
    const answer = await payMemberLoan(
      member,
      { loan_id: id, from_account_id: submission.value.from, amount: submission.value.amount, idempotency_key: key },
      origin,
    );
    if (!answer.ok)
      return data(
        {
          ok: false,
          intent: "pay",
          reply: replyTo(
            submission,
            answer.field ? { fieldErrors: { [answer.field]: [answer.message] } } : { formErrors: [answer.message] },
          ),
        } satisfies LoanActionData,
        { status: refusalStatus(answer.kind) },
      );
    return redirect(`/dashboard/loans/${id}?paid=1`);
  } catch (error) {
    logger.error({ err: error }, "loan payment failed");
    return data(
      {
        ok: false,
        intent: "pay",
        reply: replyTo(submission, {
          formErrors: [`We could not make your payment. Please try again. Reference: ${info.request_id}`],
        }),
      } satisfies LoanActionData,
      { status: 500 },
    );
  }
}

const PAY_OPTIONS = [
  { value: "next_due", label: "Next payment due" },
  { value: "payoff", label: "Pay off the loan" },
  { value: "amount", label: "Another amount", description: "Anything above what is due goes to principal." },
] as const;

export default function Loan({ loaderData, actionData }: Route.ComponentProps) {
  const { loan, statements, pledge, accounts, payoff_on, payoff_problem, paid, autopay_saved, idempotency_key } =
    loaderData;
  const navigation = useNavigation();
  const payReply = actionData && actionData.intent === "pay" ? actionData.reply : null;
  const autopayReply = actionData && actionData.intent === "autopay" ? actionData.reply : null;
  const payForm = useSchemaForm(LoanPaymentSchema, { id: `loan-pay-${idempotency_key}`, lastResult: payReply });
  const autopayForm = useSchemaForm(LoanAutopaySchema, { id: "loan-autopay", lastResult: autopayReply });
  const payProblems = formMessages(payReply);
  const autopayProblems = formMessages(autopayReply);
  const active = loan.status === "active";
  const busy = navigation.state !== "idle";
  return (
    <div className="mx-auto max-w-4xl px-4 py-6 sm:px-6 lg:px-8 lg:py-10">
      <Link
        to="/dashboard/loans"
        className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
      >
        <ArrowLeft className="size-4" aria-hidden="true" /> Loans
      </Link>
      <div className="mt-3 flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">
          {loan.product_name} {loan.number}
        </h1>
        <span className="rounded-full bg-slate-100 px-3 py-1 text-sm font-semibold text-slate-800">
          {active ? "Active" : `Paid off ${formatBusinessDate(loan.closed_on!)}`}
        </span>
      </div>
      {paid ? (
        <FormMessage className="mt-4" tone="success">
          Your payment was made. It is at the top of the history below.
        </FormMessage>
      ) : null}
      {autopay_saved ? (
        <FormMessage className="mt-4" tone="success">
          {loan.autopay_account_id ? "Autopay is on." : "Autopay is off."}
        </FormMessage>
      ) : null}

      <section
        aria-labelledby="owed-heading"
        className="mt-5 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm"
      >
        <h2 id="owed-heading" className="text-lg font-semibold text-brand-900">
          What you owe
        </h2>
        <dl className="mt-3 grid gap-3 text-sm sm:grid-cols-3">
          <div>
            <dt className="text-slate-600">Balance</dt>
            <dd className="text-xl font-semibold text-slate-900" data-testid="loan-balance">
              {formatCents(loan.balance_cents)}
            </dd>
          </div>
          <div>
            <dt className="text-slate-600">Next payment</dt>
            <dd className="text-slate-900">
              {loan.next_payment
                ? `${formatCents(loan.next_payment.amount_cents)} due ${formatBusinessDate(loan.next_payment.due_on)}`
                : "None due"}
            </dd>
          </div>
          <div>
            <dt className="text-slate-600">Rate</dt>
            <dd className="text-slate-900">
              {formatRatePpm(loan.rate_ppm)} (APR {formatAprBp(loan.apr_bp)})
            </dd>
          </div>
          <div>
            <dt className="text-slate-600">Principal</dt>
            <dd className="text-slate-900">{formatCents(loan.owed.principal_cents)}</dd>
          </div>
          <div>
            <dt className="text-slate-600">Interest to date</dt>
            <dd className="text-slate-900">{formatCents(loan.owed.interest_cents)}</dd>
          </div>
          <div>
            <dt className="text-slate-600">Fees</dt>
            <dd className="text-slate-900">{formatCents(loan.owed.fees_cents)}</dd>
          </div>
        </dl>
        {pledge ? (
          <p className="mt-3 text-sm text-slate-700" data-testid="loan-pledge">
            Secured by your {pledge.account_name} {maskAccountNumber(pledge.account_number)}:{" "}
            {pledge.status === "released"
              ? "the hold was released when the loan was paid off."
              : `${formatCents(pledge.held_cents)} is held there (the principal you owe; it goes down after each payment).`}
          </p>
        ) : null}
      </section>

      {active ? (
        <div className="mt-5 grid gap-5 lg:grid-cols-2">
          <PaymentSection
            form={payForm}
            idempotency_key={idempotency_key}
            accounts={accounts}
            options={PAY_OPTIONS.map((o) =>
              o.value === "next_due" && loan.next_payment
                ? { ...o, label: `Next payment due: ${formatCents(loan.next_payment.amount_cents)}` }
                : o.value === "payoff"
                  ? { ...o, label: `Pay off today: ${formatCents(loan.payoff_today_cents)}` }
                  : o,
            )}
            defaultOption="next_due"
            problem={payProblems[0]}
            isDisabled={busy}
            className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm"
          />

          <div className="grid gap-5">
            <section
              aria-labelledby="payoff-heading"
              className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm"
            >
              <h2 id="payoff-heading" className="text-lg font-semibold text-brand-900">
                Payoff quote
              </h2>
              <p className="mt-2 text-sm text-slate-900" data-testid="payoff-quote">
                <strong>{formatCents(loan.payoff.payoff_cents)}</strong> pays off the loan if paid on{" "}
                {formatBusinessDate(loan.payoff.good_through)}. Interest adds about{" "}
                {formatCents(loan.payoff.per_diem_cents)} a day.
              </p>
              <Form method="get" className="mt-3 flex flex-wrap items-end gap-3">
                <TextField
                  name="payoff_on"
                  label="Quote for the day (YYYY-MM-DD)"
                  defaultValue={payoff_on}
                  error={payoff_problem ?? undefined}
                  className="min-w-48 flex-1"
                />
                <Button type="submit" variant="secondary">
                  Get quote
                </Button>
              </Form>
            </section>

            <AutopaySection
              form={autopayForm}
              accounts={accounts}
              autopay_account_id={loan.autopay_account_id}
              what="payment"
              problem={autopayProblems[0]}
              isDisabled={busy}
              inline={false}
              className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm"
            />
          </div>
        </div>
      ) : null}

      <section
        aria-labelledby="history-heading"
        className="mt-5 rounded-2xl border border-slate-200 bg-white shadow-sm"
      >
        <h2 id="history-heading" className="border-b border-slate-100 px-5 py-3 text-lg font-semibold text-brand-900">
          History
        </h2>
        <ul className="divide-y divide-slate-100" data-testid="loan-history">
          {loan.history.map((h, i) => (
            <li key={i} className="flex flex-wrap items-center justify-between gap-2 px-5 py-3 text-sm">
              <div>
                <span className="font-semibold text-slate-900">{h.label}</span>
                <span className="block text-slate-700">
                  {formatBusinessDate(h.on)} · {h.detail}
                </span>
              </div>
              <span className="font-semibold text-slate-900">{formatCents(h.amount_cents)}</span>
            </li>
          ))}
        </ul>
      </section>

      <section
        aria-labelledby="loan-statements-heading"
        className="mt-5 rounded-2xl border border-slate-200 bg-white shadow-sm"
      >
        <h2
          id="loan-statements-heading"
          className="border-b border-slate-100 px-5 py-3 text-lg font-semibold text-brand-900"
        >
          Monthly statements
        </h2>
        <LoanStatementList loan={statements} />
      </section>

      <section
        aria-labelledby="schedule-heading"
        className="mt-5 rounded-2xl border border-slate-200 bg-white shadow-sm"
      >
        <h2 id="schedule-heading" className="border-b border-slate-100 px-5 py-3 text-lg font-semibold text-brand-900">
          Payment schedule
        </h2>
        <FigureTable
          labelledBy="schedule-heading"
          look="member"
          columns={LOAN_SCHEDULE_COLUMNS}
          rows={loan.schedule}
          rowKey={(p) => p.number}
        />
        <p className="px-5 py-3 text-xs text-slate-600">
          As scheduled when the loan was made; interest is charged on the actual days, so early or extra payments lower
          it.
        </p>
      </section>
    </div>
  );
}
