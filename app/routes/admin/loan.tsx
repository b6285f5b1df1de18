import { useState } from "react";
import { data, Form, Link, useNavigation } from "react-router";
import { ArrowLeft } from "lucide-react";
import type { Route } from "./+types/loan";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { loanApplicationsOpen } from "~/server/loans/products.server";
import { decideLoan, loadStaffApplication } from "./loans.server";
import { readForm, refusalStatus } from "~/server/http/form.server";
import { mayMoveMoney, NOT_ALLOWED_MESSAGE } from "~/domain/staff-roles";
import { LineOfCreditDecisionSchema, LoanDecisionSchema } from "~/domain/loans/forms";
import { minimumPaymentShort } from "~/domain/loans/line-of-credit";
import {
  ADVERSE_ACTION_REASONS,
  ADVERSE_ACTION_REASON_KEYS,
  formatRatePpm,
  type AdverseActionReason,
} from "~/domain/loans/products";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { pageTitle } from "~/components/site/page-title";
import { StatusLine } from "~/components/admin/admin-shell";
import { controlClass, labelClass } from "~/components/ui/field-styles";
import { NativeFieldError } from "~/components/ui/field-parts";

/**
 * /admin/loans/:applicationId (docs/product.md#loans): one loan application with the member's
 * income and employer, and the decision: approve (rate within the product's range, term), counter
 * (another amount or term), or decline with Regulation B's principal reasons (12 CFR 1002.9(b)(2)).
 * Reviewers read it; deciding is for staff who may move money.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Loan application", matches), { name: "robots", content: "noindex" }];
}

function idOf(value: string): number {
  return /^[1-9]\d{0,15}$/.test(value) ? Number(value) : 0;
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const { role } = await requireStaff(request, context.get(requestInfoContext), { reviewer: true });
  const id = idOf(params.applicationId);
  const found = loanApplicationsOpen() && id ? await loadStaffApplication(id) : null;
  if (!found) throw data({ message: "Application not found." }, { status: 404 });
  return { application: found, may_decide: mayMoveMoney(role) };
}

type ActionData = { ok: boolean; message: string; field?: string };

export async function action({ request, context, params }: Route.ActionArgs) {
  const { staff, origin, role } = await requireStaff(request, context.get(requestInfoContext), { reviewer: true });
  const refuse = (status: number, message: string, field?: string) =>
    data({ ok: false, message, field } satisfies ActionData, { status });
  if (!mayMoveMoney(role)) return refuse(403, NOT_ALLOWED_MESSAGE);
  const id = idOf(params.applicationId);
  if (!loanApplicationsOpen() || !id) return refuse(404, "Application not found.");
  const form = await readForm(request);
  // A line of credit (open-end) is offered by its limit and rate: no term (docs/product.md#lines-of-credit).
  const open_end = form.get("open_end") === "1";
  const parsed = (open_end ? LineOfCreditDecisionSchema : LoanDecisionSchema).safeParse({
    outcome: form.get("outcome") ?? undefined,
    amount: form.get("amount") ?? undefined,
    rate: form.get("rate") ?? undefined,
    term_months: form.get("term_months") ?? undefined,
    reasons: form.getAll("reasons").map(String),
    other_text: form.get("other_text") ?? undefined,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return refuse(
      400,
      issue.path.length === 0 ? "Choose a decision." : issue.message,
      String(issue.path[0] ?? "outcome"),
    );
  }
  const v = parsed.data;
  const term_months = "term_months" in v ? (v.term_months as number) : null;
  const answer = await decideLoan({
    staff,
    origin,
    application_id: id,
    decision:
      v.outcome === "approve"
        ? { outcome: "approve", rate_ppm: v.rate, term_months }
        : v.outcome === "counter"
          ? {
              outcome: "counter",
              amount_cents: v.amount,
              rate_ppm: v.rate,
              term_months,
            }
          : { outcome: "decline", reasons: v.reasons as AdverseActionReason[], other_text: v.other_text ?? null },
  });
  if (!answer.ok)
    return refuse(refusalStatus(answer.kind), answer.message, answer.field === "rate_ppm" ? "rate" : answer.field);
  return { ok: true, message: answer.message } satisfies ActionData;
}

export default function StaffLoanApplication({ loaderData, actionData }: Route.ComponentProps) {
  const { application: a, may_decide } = loaderData;
  const navigation = useNavigation();
  const [outcome, setOutcome] = useState<"approve" | "counter" | "decline">("approve");
  const problem = actionData && !actionData.ok ? actionData : null;
  const fieldError = (name: string) => (problem?.field === name ? problem.message : undefined);
  return (
    <div className="space-y-5">
      <Link to="/admin/loans" className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700">
        <ArrowLeft className="size-4" aria-hidden="true" /> Loan applications
      </Link>
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">
          {a.product_name}: {a.member_name}
        </h1>
        <span className="rounded-full bg-slate-100 px-3 py-1 text-sm font-semibold text-slate-800">
          {a.status_label}
        </span>
      </div>
      {actionData && (actionData.ok || !actionData.field) ? (
        <StatusLine message={actionData.message} tone={actionData.ok ? "success" : "error"} />
      ) : null}
      <section className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
        <h2 className="text-lg font-semibold text-brand-900">The application</h2>
        <dl className="mt-3 grid gap-3 text-sm sm:grid-cols-3">
          <Fact label="Member" value={`${a.member_name} · ${a.member_email}`} />
          <Fact
            label="Asked for"
            value={
              a.term_months === null
                ? `A line of credit of ${formatCents(a.amount_cents)}`
                : `${formatCents(a.amount_cents)} over ${a.term_months} months`
            }
          />
          <Fact label="Applied" value={formatBusinessDate(a.applied_on)} />
          <Fact label="Yearly income" value={formatCents(a.annual_income_cents)} />
          <Fact label="Employer" value={a.employer} />
          <Fact label="Purpose" value={a.purpose} />
          {a.product ? (
            <Fact
              label="Product limits"
              value={
                a.product.minimum_payment
                  ? `${formatRatePpm(a.product.rate_min_ppm)} to ${formatRatePpm(a.product.rate_max_ppm)}; limits ${formatCents(a.product.amount_min_cents)} to ${formatCents(a.product.amount_max_cents)}; minimum payment ${minimumPaymentShort(a.product.minimum_payment)}`
                  : `${formatRatePpm(a.product.rate_min_ppm)} to ${formatRatePpm(a.product.rate_max_ppm)}; ${a.product.term_months_min} to ${a.product.term_months_max} months; ${formatCents(a.product.amount_min_cents)} to ${formatCents(a.product.amount_max_cents)}`
              }
            />
          ) : null}
          {a.offer ? (
            <Fact
              label="Offered"
              value={
                a.offer.term_months === null
                  ? `A credit limit of ${formatCents(a.offer.amount_cents)} at ${formatRatePpm(a.offer.rate_ppm)}`
                  : `${formatCents(a.offer.amount_cents)} over ${a.offer.term_months} months at ${formatRatePpm(a.offer.rate_ppm)}`
              }
            />
          ) : null}
          {a.pledge ? (
            <Fact
              label="Savings pledged"
              value={`${a.pledge.account_name} ending ${a.pledge.account_number.slice(-4)}${a.pledge.status === "pledged" ? "" : ` (${a.pledge.status === "held" ? `${formatCents(a.pledge.held_cents)} held` : "released"})`}`}
            />
          ) : null}
          {a.adverse_reasons.length > 0 ? <Fact label="Reasons given" value={a.adverse_reasons.join("; ")} /> : null}
          {a.decided_by_email ? <Fact label="Decided by" value={a.decided_by_email} /> : null}
        </dl>
      </section>
      {a.status === "submitted" && may_decide ? (
        <section
          aria-labelledby="decide-heading"
          className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm"
        >
          <h2 id="decide-heading" className="text-lg font-semibold text-brand-900">
            Decide
          </h2>
          <Form method="post" className="mt-3 grid gap-4" aria-labelledby="decide-heading">
            {a.open_end ? <input type="hidden" name="open_end" value="1" /> : null}
            <fieldset>
              <legend className={labelClass}>Decision</legend>
              <div className="mt-2 flex flex-wrap gap-4 text-sm">
                {(
                  [
                    ["approve", "Approve as asked"],
                    ["counter", a.open_end ? "Offer another credit limit" : "Offer other terms"],
                    ["decline", "Decline"],
                  ] as const
                ).map(([value, label]) => (
                  <label key={value} className="inline-flex items-center gap-2">
                    <input
                      type="radio"
                      name="outcome"
                      value={value}
                      checked={outcome === value}
                      onChange={() => setOutcome(value)}
                    />
                    {label}
                  </label>
                ))}
              </div>
            </fieldset>
            {outcome !== "decline" ? (
              <div className="grid gap-4 sm:grid-cols-3">
                {outcome === "counter" ? (
                  <div>
                    <label htmlFor="amount" className={labelClass}>
                      {a.open_end ? "Credit limit offered ($)" : "Amount offered ($)"}
                    </label>
                    <input
                      id="amount"
                      name="amount"
                      inputMode="decimal"
                      className={controlClass}
                      aria-describedby="amount-error"
                    />
                    <NativeFieldError id="amount-error" message={fieldError("amount")} />
                  </div>
                ) : null}
                <div>
                  <label htmlFor="rate" className={labelClass}>
                    Interest rate (%)
                  </label>
                  <input
                    id="rate"
                    name="rate"
                    inputMode="decimal"
                    className={controlClass}
                    aria-describedby="rate-error"
                  />
                  <NativeFieldError id="rate-error" message={fieldError("rate")} />
                </div>
                {a.open_end ? null : (
                  <div>
                    <label htmlFor="term_months" className={labelClass}>
                      Term (months)
                    </label>
                    <input
                      id="term_months"
                      name="term_months"
                      inputMode="numeric"
                      defaultValue={a.term_months ?? undefined}
                      className={controlClass}
                      aria-describedby="term-error"
                    />
                    <NativeFieldError id="term-error" message={fieldError("term_months")} />
                  </div>
                )}
              </div>
            ) : (
              <fieldset aria-describedby="reasons-error">
                <legend className={labelClass}>Principal reasons (at most 4; the member is told each)</legend>
                <div className="mt-2 grid gap-2 text-sm sm:grid-cols-2">
                  {ADVERSE_ACTION_REASON_KEYS.map((key) => (
                    <label key={key} className="inline-flex items-start gap-2">
                      <input type="checkbox" name="reasons" value={key} className="mt-1" />
                      {ADVERSE_ACTION_REASONS[key]}
                    </label>
                  ))}
                </div>
                <NativeFieldError id="reasons-error" message={fieldError("reasons")} />
                <label htmlFor="other_text" className={`${labelClass} mt-3`}>
                  The other reason, as the member will read it
                </label>
                <input id="other_text" name="other_text" className={controlClass} aria-describedby="other-error" />
                <NativeFieldError id="other-error" message={fieldError("other_text")} />
              </fieldset>
            )}
            <div className="flex justify-end">
              <button
                type="submit"
                disabled={navigation.state === "submitting"}
                className="rounded-lg bg-brand-700 px-4 py-2 text-sm font-semibold text-white hover:bg-brand-800"
              >
                {outcome === "approve"
                  ? "Approve"
                  : outcome === "counter"
                    ? "Send the offer"
                    : "Decline and send the notice"}
              </button>
            </div>
          </Form>
        </section>
      ) : null}
    </div>
  );
}

function Fact({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <dt className="text-slate-600">{label}</dt>
      <dd className="text-slate-900">{value}</dd>
    </div>
  );
}
