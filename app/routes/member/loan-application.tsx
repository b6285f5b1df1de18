import { data, Form, Link, redirect, useNavigation } from "react-router";
import { ArrowLeft } from "lucide-react";
import type { Route } from "./+types/loan-application";
import { requestInfoContext } from "~/context";
import { requireMember } from "~/server/auth/session.server";
import { institution } from "~/config/institution.server";
import { loanApplicationsOpen } from "~/server/loans/products.server";
import { acceptLoanOffer, loadMemberApplication } from "./loans.server";
import { refusalStatus } from "~/server/http/form.server";
import { ECOA_NOTICE, formatAprBp, formatRatePpm } from "~/domain/loans/products";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { pageTitle } from "~/components/site/page-title";
import { Button, FormMessage } from "~/components/ui";
import { AcceptLineForm, LineDisclosure } from "~/components/member/line-of-credit";

/**
 * /dashboard/loans/applications/:applicationId (docs/product.md#loans): one of the member's loan
 * applications. Under review; an offer with its Truth in Lending disclosure (Regulation Z, 12 CFR
 * 1026.17-18) and Accept; a decline's notice with its reasons and the ECOA notice (Regulation B,
 * 12 CFR 1002.9); an accepted loan's disclosure as a PDF. Another member's reads as not found.
 */
export function meta({ matches }: Route.MetaArgs) {
  return pageTitle("Loan application", matches);
}

function idOf(value: string): number {
  return /^[1-9]\d{0,15}$/.test(value) ? Number(value) : 0;
}

const NOT_FOUND = "We could not find that loan application.";

export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const id = idOf(params.applicationId);
  const found = loanApplicationsOpen() && id ? await loadMemberApplication(user, id) : null;
  if (!found) throw data({ message: NOT_FOUND }, { status: 404 });
  const profile = institution();
  const sent = new URL(request.url).searchParams.get("sent") === "1";
  return {
    application: found,
    sent,
    creditor: `${profile.name}, ${profile.address.street}, ${profile.address.city}, ${profile.address.state} ${profile.address.postal_code}`,
  };
}

export type AcceptActionData = { ok: false; message: string };

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = await requireMember(request);
  const id = idOf(params.applicationId);
  if (!loanApplicationsOpen() || !id)
    return data({ ok: false, message: NOT_FOUND } satisfies AcceptActionData, { status: 404 });
  const form = await request.formData();
  if (form.get("intent") !== "accept")
    return data({ ok: false, message: "That request could not be understood." } satisfies AcceptActionData, {
      status: 400,
    });
  const info = context.get(requestInfoContext);
  const answer = await acceptLoanOffer({ id: user.id, email: user.email }, id, {
    request_id: info.request_id,
    ip: info.ip,
  });
  if (!answer.ok)
    return data({ ok: false, message: answer.message } satisfies AcceptActionData, {
      status: refusalStatus(answer.kind),
    });
  return redirect(`/dashboard/loans/applications/${id}`);
}

export default function LoanApplication({ loaderData, actionData }: Route.ComponentProps) {
  const { application: a, sent, creditor } = loaderData;
  const navigation = useNavigation();
  const d = a.disclosure;
  return (
    <div className="mx-auto max-w-3xl px-4 py-6 sm:px-6 lg:px-8 lg:py-10">
      <Link
        to="/dashboard/loans"
        className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
      >
        <ArrowLeft className="size-4" aria-hidden="true" /> Loans
      </Link>
      <div className="mt-3 flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">{a.product_name}</h1>
        <span className="rounded-full bg-slate-100 px-3 py-1 text-sm font-semibold text-slate-800">
          {a.status_label}
        </span>
      </div>
      {sent && a.status === "submitted" ? (
        <FormMessage className="mt-4" tone="success">
          Your application was sent. We will tell you our decision here and by email.
        </FormMessage>
      ) : null}
      {actionData && !actionData.ok ? (
        <FormMessage className="mt-4" tone="error">
          {actionData.message}
        </FormMessage>
      ) : null}
      <section
        aria-labelledby="request-heading"
        className="mt-5 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm"
      >
        <h2 id="request-heading" className="text-lg font-semibold text-brand-900">
          What you asked for
        </h2>
        <dl className="mt-3 grid gap-3 text-sm sm:grid-cols-3">
          <div>
            <dt className="text-slate-600">{a.open_end ? "Credit limit" : "Amount"}</dt>
            <dd className="font-semibold text-slate-900">{formatCents(a.amount_cents)}</dd>
          </div>
          {a.term_months !== null ? (
            <div>
              <dt className="text-slate-600">Term</dt>
              <dd className="text-slate-900">{a.term_months} months</dd>
            </div>
          ) : null}
          <div>
            <dt className="text-slate-600">Applied</dt>
            <dd className="text-slate-900">{formatBusinessDate(a.applied_on)}</dd>
          </div>
          <div className="sm:col-span-3">
            <dt className="text-slate-600">Purpose</dt>
            <dd className="text-slate-900">{a.purpose}</dd>
          </div>
        </dl>
      </section>
      {a.offer && d ? (
        <section
          aria-labelledby="offer-heading"
          className="mt-5 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm"
        >
          <h2 id="offer-heading" className="text-lg font-semibold text-brand-900">
            {a.status === "accepted" ? "Your loan" : a.offer.counter ? "Our offer, on different terms" : "Your offer"}
          </h2>
          {a.loan ? (
            <FormMessage className="mt-3" tone="success">
              Loan {a.loan.number}: we deposited {formatCents(a.loan.principal_cents)} into your checking account on{" "}
              {formatBusinessDate(a.loan.disbursed_on)}. Balance {formatCents(a.loan.balance_cents)}
              {a.loan.next_payment
                ? `; next payment ${formatCents(a.loan.next_payment.payment_cents)} due ${formatBusinessDate(a.loan.next_payment.due_on)}`
                : ""}
              .{" "}
              <Link to={`/dashboard/loans/${a.loan.id}`} className="font-semibold underline">
                See and pay this loan
              </Link>
            </FormMessage>
          ) : null}
          <p className="mt-1 text-sm text-slate-700">
            {formatCents(a.offer.amount_cents)} over {a.offer.term_months} months at an interest rate of{" "}
            {formatRatePpm(a.offer.rate_ppm)}.{" "}
            {a.may_accept && a.offer_expires_on
              ? `You may accept it until ${formatBusinessDate(a.offer_expires_on)}.`
              : null}
          </p>
          <h3 className="mt-4 text-base font-semibold text-slate-900">Truth in Lending disclosure</h3>
          <dl className="mt-2 grid gap-px overflow-hidden rounded-xl border border-slate-300 bg-slate-300 sm:grid-cols-4">
            <TilFigure
              label="Annual percentage rate"
              meaning="The cost of your credit as a yearly rate."
              value={formatAprBp(d.apr_bp)}
            />
            <TilFigure
              label="Finance charge"
              meaning="The dollar amount the credit will cost you."
              value={formatCents(d.finance_charge_cents)}
            />
            <TilFigure
              label="Amount financed"
              meaning="The amount of credit provided to you or on your behalf."
              value={formatCents(d.amount_financed_cents)}
            />
            <TilFigure
              label="Total of payments"
              meaning="The amount you will have paid after you have made all payments as scheduled."
              value={formatCents(d.total_of_payments_cents)}
            />
          </dl>
          <h4 className="mt-4 text-sm font-semibold text-slate-900">Your payment schedule</h4>
          <ul className="mt-1 text-sm text-slate-800">
            {d.payment_schedule.map((g) => (
              <li key={g.first_due_on}>
                {g.count} {g.count === 1 ? "payment" : "payments"} of {formatCents(g.amount_cents)}, monthly from{" "}
                {formatBusinessDate(g.first_due_on)}
              </li>
            ))}
          </ul>
          {d.security_interest ? (
            <p className="mt-2 text-sm text-slate-800">
              <span className="font-semibold">Security:</span> {d.security_interest}
            </p>
          ) : null}
          <p className="mt-3 text-xs text-slate-600">
            Figures as if the money is paid out on {formatBusinessDate(d.disbursed_on)}. No fees. If you pay off early,
            you will not have to pay a penalty.
          </p>
          {a.may_accept ? (
            <Form method="post" className="mt-4 flex justify-end">
              <input type="hidden" name="intent" value="accept" />
              <Button type="submit" size="lg" isPending={navigation.state === "submitting"} pendingLabel="Accepting…">
                Accept this loan
              </Button>
            </Form>
          ) : null}
          {a.loan ? (
            <details className="mt-4 text-sm">
              <summary className="cursor-pointer font-semibold text-accent-700">
                Every payment ({d.payments.length})
              </summary>
              {/* Focusable so a keyboard can scroll it on a phone. */}
              <div className="mt-2 overflow-x-auto" tabIndex={0} role="region" aria-label="Every payment, scrollable">
                <table className="w-full text-sm">
                  <caption className="sr-only">Payment schedule</caption>
                  <thead className="bg-slate-50 text-left text-xs font-semibold text-slate-600 uppercase">
                    <tr>
                      <th scope="col" className="px-3 py-2">
                        #
                      </th>
                      <th scope="col" className="px-3 py-2">
                        Due
                      </th>
                      <th scope="col" className="px-3 py-2 text-right">
                        Payment
                      </th>
                      <th scope="col" className="px-3 py-2 text-right">
                        Interest
                      </th>
                      <th scope="col" className="px-3 py-2 text-right">
                        Principal
                      </th>
                      <th scope="col" className="px-3 py-2 text-right">
                        Balance after
                      </th>
                    </tr>
                  </thead>
                  <tbody className="divide-y divide-slate-100 tabular-nums">
                    {d.payments.map((p) => (
                      <tr key={p.number}>
                        <td className="px-3 py-1.5">{p.number}</td>
                        <td className="px-3 py-1.5">{formatBusinessDate(p.due_on)}</td>
                        <td className="px-3 py-1.5 text-right">{formatCents(p.payment_cents)}</td>
                        <td className="px-3 py-1.5 text-right">{formatCents(p.interest_cents)}</td>
                        <td className="px-3 py-1.5 text-right">{formatCents(p.principal_cents)}</td>
                        <td className="px-3 py-1.5 text-right">{formatCents(p.balance_after_cents)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </details>
          ) : null}
          {a.has_pdf ? (
            <a
              href={`/dashboard/loans/applications/${a.id}/disclosure.pdf`}
              className="mt-4 inline-block font-semibold text-accent-700 underline"
            >
              Download the disclosure you accepted (PDF)
            </a>
          ) : null}
        </section>
      ) : null}
      {a.offer && a.line_disclosure ? (
        <section
          aria-labelledby="line-offer-heading"
          className="mt-5 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm"
        >
          <h2 id="line-offer-heading" className="text-lg font-semibold text-brand-900">
            {a.status === "accepted"
              ? "Your line of credit"
              : a.offer.counter
                ? "Our offer, with a different credit limit"
                : "Your offer"}
          </h2>
          {a.line_id ? (
            <FormMessage className="mt-3" tone="success">
              Your line is open: draw on it whenever you like.{" "}
              <Link to={`/dashboard/loans/lines/${a.line_id}`} className="font-semibold underline">
                See, draw on and pay this line
              </Link>
            </FormMessage>
          ) : null}
          <p className="mt-1 text-sm text-slate-700">
            A credit limit of {formatCents(a.offer.amount_cents)} at an annual percentage rate of{" "}
            {formatRatePpm(a.offer.rate_ppm)}. Nothing is paid out until you draw.{" "}
            {a.may_accept && a.offer_expires_on
              ? `You may accept it until ${formatBusinessDate(a.offer_expires_on)}.`
              : null}
          </p>
          <h3 className="mt-4 text-base font-semibold text-slate-900">Account-opening disclosure</h3>
          <LineDisclosure disclosure={a.line_disclosure} />
          {a.may_accept ? <AcceptLineForm /> : null}
          {a.has_pdf ? (
            <a
              href={`/dashboard/loans/applications/${a.id}/disclosure.pdf`}
              className="mt-4 inline-block font-semibold text-accent-700 underline"
            >
              Download the disclosure you accepted (PDF)
            </a>
          ) : null}
        </section>
      ) : null}
      {a.status === "lapsed" ? (
        <FormMessage className="mt-5" tone="info">
          This offer expired. You are welcome to apply again.
        </FormMessage>
      ) : null}
      {a.adverse_action ? (
        <section
          aria-labelledby="notice-heading"
          className="mt-5 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm"
        >
          <h2 id="notice-heading" className="text-lg font-semibold text-brand-900">
            Statement of credit denial
          </h2>
          <p className="mt-2 text-sm text-slate-800">
            On {formatBusinessDate(a.adverse_action.decided_on)} we decided we cannot approve your application. The
            principal reasons:
          </p>
          <ul className="mt-2 list-disc pl-5 text-sm text-slate-900">
            {a.adverse_action.reasons.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
          <p className="mt-3 text-sm text-slate-800">Creditor: {creditor}</p>
          <p className="mt-3 text-xs text-slate-700">{ECOA_NOTICE}</p>
        </section>
      ) : null}
    </div>
  );
}

function TilFigure({ label, meaning, value }: { label: string; meaning: string; value: string }) {
  return (
    <div className="bg-white p-3">
      <dt className="text-sm font-semibold text-slate-900">
        {label}
        <span className="block text-xs font-normal text-slate-600">{meaning}</span>
      </dt>
      <dd className="mt-2 text-lg font-semibold text-brand-900">{value}</dd>
    </div>
  );
}
