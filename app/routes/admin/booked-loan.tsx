import { data, Form, Link, useNavigation } from "react-router";
import { ArrowLeft } from "lucide-react";
import type { Route } from "./+types/booked-loan";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { loanApplicationsOpen } from "~/server/loans/products.server";
import { decideCorrection, loadStaffLoan, requestCorrection } from "./booked-loan.server";
import { readForm, refusalStatus } from "~/server/http/form.server";
import { mayMoveMoney, NOT_ALLOWED_MESSAGE } from "~/domain/staff-roles";
import { formatAprBp, formatRatePpm } from "~/domain/loans/products";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { pageTitle } from "~/components/site/page-title";
import { FigureTable, LOAN_SCHEDULE_COLUMNS } from "~/components/member/figure-table";
import { StatusLine } from "~/components/admin/admin-shell";
import { Fact } from "~/components/admin/fact";
import { controlClass, labelClass } from "~/components/ui/field-styles";
import { NativeFieldError } from "~/components/ui/field-parts";

/**
 * /admin/loans/booked/:loanId (docs/product.md#booked-loans-staff): a booked loan for staff: what
 * is owed by part, the rate, the pledged savings of a share-secured loan, the history and the
 * schedule; and the two corrections, **waive a late fee** and **correct a servicing entry** (an
 * interest accrual or a payment reversed by a new ledger entry), with a reason, under dual
 * control. Reviewers read it; correcting and deciding are for staff who may move money.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Booked loan", matches), { name: "robots", content: "noindex" }];
}

const NOT_FOUND = "Loan not found.";

function idOf(value: string | undefined): number {
  return value && /^[1-9]\d{0,15}$/.test(value) ? Number(value) : 0;
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const { role, staff } = await requireStaff(request, context.get(requestInfoContext), { reviewer: true });
  const id = idOf(params.loanId);
  const view = loanApplicationsOpen() && id ? await loadStaffLoan(id) : null;
  if (!view) throw data({ message: NOT_FOUND }, { status: 404 });
  return { view, may_correct: mayMoveMoney(role), staff_id: staff.id };
}

type ActionData = { ok: boolean; message: string; field?: string; intent?: string };

export async function action({ request, context, params }: Route.ActionArgs) {
  const { staff, origin, role } = await requireStaff(request, context.get(requestInfoContext), { reviewer: true });
  const refuse = (status: number, message: string, field?: string, intent?: string) =>
    data({ ok: false, message, field, intent } satisfies ActionData, { status });
  if (!mayMoveMoney(role)) return refuse(403, NOT_ALLOWED_MESSAGE);
  const loan_id = idOf(params.loanId);
  if (!loanApplicationsOpen() || !loan_id) return refuse(404, NOT_FOUND);
  const form = await readForm(request);
  const intent = String(form.get("intent") ?? "");
  if (intent === "correct") {
    const entry = /^(waive_fee|correct_entry):([1-9]\d{0,15})$/.exec(String(form.get("entry") ?? ""));
    if (!entry) return refuse(400, "Choose the entry to correct.", "entry", intent);
    const answer = await requestCorrection({
      staff,
      origin,
      loan_id,
      kind: entry[1] as "waive_fee" | "correct_entry",
      transaction_id: Number(entry[2]),
      reason: String(form.get("reason") ?? ""),
    });
    if (!answer.ok)
      return refuse(
        refusalStatus(answer.kind),
        answer.message,
        answer.field === "transaction_id" ? "entry" : answer.field,
        intent,
      );
    return { ok: true, message: answer.message, intent } satisfies ActionData;
  }
  if (intent === "approve" || intent === "decline") {
    const action_id = idOf(String(form.get("action_id") ?? ""));
    if (!action_id) return refuse(400, "Choose the correction to decide.", undefined, intent);
    const answer = await decideCorrection({
      staff,
      origin,
      loan_id,
      action_id,
      decision:
        intent === "approve" ? { approve: true } : { approve: false, reason: String(form.get("decline_reason") ?? "") },
    });
    if (!answer.ok) return refuse(refusalStatus(answer.kind), answer.message, answer.field, intent);
    return { ok: true, message: answer.message, intent } satisfies ActionData;
  }
  return refuse(400, "Choose what to do.");
}

const ENTRY_VERBS = {
  late_fee: "Waive the late fee",
  interest: "Reverse the interest",
  payment: "Reverse the payment",
};

export default function StaffBookedLoan({ loaderData, actionData }: Route.ComponentProps) {
  const { view, may_correct, staff_id } = loaderData;
  const { loan, member, pledge } = view;
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  const problem = actionData && !actionData.ok ? actionData : null;
  const fieldError = (name: string) => (problem?.field === name ? problem.message : undefined);
  const correctable = view.entries.filter((e) => e.correction === null);
  const waiting = view.actions.filter((a) => a.status === "awaiting_approval");
  return (
    <div className="space-y-5">
      <Link to="/admin/loans" className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700">
        <ArrowLeft className="size-4" aria-hidden="true" /> Loans
      </Link>
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">
          {loan.product_name} {loan.number}: {member.name}
        </h1>
        <span className="rounded-full bg-slate-100 px-3 py-1 text-sm font-semibold text-slate-800">
          {loan.status === "active" ? "Active" : `Paid off ${loan.closed_on ? formatBusinessDate(loan.closed_on) : ""}`}
        </span>
      </div>
      {actionData && (actionData.ok || !actionData.field) ? (
        <StatusLine message={actionData.message} tone={actionData.ok ? "success" : "error"} />
      ) : null}

      <section aria-labelledby="figures-heading" className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
        <h2 id="figures-heading" className="text-lg font-semibold text-brand-900">
          What is owed
        </h2>
        <dl className="mt-3 grid gap-3 text-sm sm:grid-cols-4">
          <Fact label="Balance" value={formatCents(loan.balance_cents)} testId="staff-loan-balance" />
          <Fact label="Principal" value={formatCents(loan.owed.principal_cents)} />
          <Fact label="Interest accrued" value={formatCents(loan.owed.interest_cents)} />
          <Fact label="Fees" value={formatCents(loan.owed.fees_cents)} testId="staff-loan-fees" />
          <Fact label="Member" value={`${member.name} · ${member.email}`} />
          <Fact label="Rate" value={`${formatRatePpm(loan.rate_ppm)} (APR ${formatAprBp(loan.apr_bp)})`} />
          <Fact
            label="Paid out"
            value={`${formatCents(loan.principal_cents)} on ${formatBusinessDate(loan.disbursed_on)}`}
          />
          <Fact
            label="Next payment"
            value={
              loan.next_payment
                ? `${formatCents(loan.next_payment.amount_cents)} due ${formatBusinessDate(loan.next_payment.due_on)}`
                : "None due"
            }
          />
          <Fact label="Autopay" value={loan.autopay_account_id ? "On" : "Off"} />
          {pledge ? (
            <Fact
              label="Savings pledged"
              value={`${pledge.account_name} ending ${pledge.account_number.slice(-4)}: ${pledge.status === "released" ? "released" : `${formatCents(pledge.held_cents)} held`}`}
            />
          ) : null}
          <Fact
            label="Application"
            value={`Application ${view.application_id}`}
            href={`/admin/loans/${view.application_id}`}
          />
        </dl>
      </section>

      {waiting.length > 0 ? (
        <section
          aria-labelledby="waiting-heading"
          className="rounded-2xl border border-amber-300 bg-white p-5 shadow-sm"
        >
          <h2 id="waiting-heading" className="text-lg font-semibold text-brand-900">
            Waiting for a second staff member
          </h2>
          <ul className="mt-3 space-y-4">
            {waiting.map((a) => (
              <li key={a.id} className="rounded-xl border border-slate-200 p-4 text-sm">
                <p className="font-semibold text-slate-900">
                  {a.label}: {formatCents(a.amount_cents)}
                </p>
                <p className="text-slate-700">
                  Asked by {a.requested_by_email} · {a.reason}
                </p>
                {a.requested_by === staff_id ? (
                  <p className="mt-2 text-slate-700">You asked for this: another staff member decides it.</p>
                ) : may_correct ? (
                  <div className="mt-3 flex flex-col gap-3 sm:flex-row sm:items-end">
                    <Form method="post">
                      <input type="hidden" name="intent" value="approve" />
                      <input type="hidden" name="action_id" value={a.id} />
                      <button
                        type="submit"
                        disabled={busy}
                        className="rounded-lg bg-brand-700 px-4 py-2 text-sm font-semibold text-white hover:bg-brand-800"
                      >
                        Approve and post
                      </button>
                    </Form>
                    <Form method="post" className="flex flex-1 flex-col gap-2 sm:flex-row sm:items-end">
                      <input type="hidden" name="intent" value="decline" />
                      <input type="hidden" name="action_id" value={a.id} />
                      <div className="flex-1">
                        <label htmlFor={`decline-${a.id}`} className={labelClass}>
                          Why it is declined
                        </label>
                        <input
                          id={`decline-${a.id}`}
                          name="decline_reason"
                          className={controlClass}
                          aria-describedby={`decline-${a.id}-error`}
                        />
                        <NativeFieldError id={`decline-${a.id}-error`} message={fieldError("decline_reason")} />
                      </div>
                      <button
                        type="submit"
                        disabled={busy}
                        className="rounded-lg border border-slate-300 px-4 py-2 text-sm font-semibold text-slate-800 hover:bg-slate-50"
                      >
                        Decline
                      </button>
                    </Form>
                  </div>
                ) : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      {may_correct && loan.status === "active" ? (
        <section
          aria-labelledby="correct-heading"
          className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm"
        >
          <h2 id="correct-heading" className="text-lg font-semibold text-brand-900">
            Waive a fee or correct an entry
          </h2>
          <p className="mt-1 text-sm text-slate-700">
            A correction is a new ledger entry with the opposite amounts; the entry itself stays. The member is told and
            sees it in the loan&apos;s history. A second staff member approves it above{" "}
            {formatCents(view.second_approval_above_cents)}, or when it would bring what you credited to this member in
            24 hours, or to all members today, above the limits of staff credits.
          </p>
          {correctable.length === 0 ? (
            <p className="mt-3 text-sm text-slate-700">No late fee, interest or payment left to correct.</p>
          ) : (
            <Form method="post" className="mt-4 grid gap-4" aria-labelledby="correct-heading">
              <input type="hidden" name="intent" value="correct" />
              <div>
                <label htmlFor="entry" className={labelClass}>
                  Entry
                </label>
                <select id="entry" name="entry" className={controlClass} aria-describedby="entry-error" defaultValue="">
                  <option value="">Choose an entry</option>
                  {correctable.map((e) => (
                    <option
                      key={e.transaction_id}
                      value={`${e.target_kind === "late_fee" ? "waive_fee" : "correct_entry"}:${e.transaction_id}`}
                    >
                      {ENTRY_VERBS[e.target_kind]}: {formatCents(e.amount_cents)}, {formatBusinessDate(e.on)} (
                      {e.detail})
                    </option>
                  ))}
                </select>
                <NativeFieldError id="entry-error" message={fieldError("entry")} />
              </div>
              <div>
                <label htmlFor="reason" className={labelClass}>
                  Reason (kept with the correction and in the audit log)
                </label>
                <textarea
                  id="reason"
                  name="reason"
                  rows={2}
                  maxLength={500}
                  className={controlClass}
                  aria-describedby="reason-error"
                />
                <NativeFieldError id="reason-error" message={fieldError("reason")} />
              </div>
              <div className="flex justify-end">
                <button
                  type="submit"
                  disabled={busy}
                  className="rounded-lg bg-brand-700 px-4 py-2 text-sm font-semibold text-white hover:bg-brand-800"
                >
                  Post the correction
                </button>
              </div>
            </Form>
          )}
        </section>
      ) : null}

      {view.actions.length > 0 ? (
        <section
          aria-labelledby="corrections-heading"
          className="rounded-2xl border border-slate-200 bg-white shadow-sm"
        >
          <h2
            id="corrections-heading"
            className="border-b border-slate-100 px-5 py-3 text-lg font-semibold text-brand-900"
          >
            Corrections
          </h2>
          <ul className="divide-y divide-slate-100 text-sm">
            {view.actions.map((a) => (
              <li key={a.id} className="px-5 py-3">
                <p className="font-semibold text-slate-900">
                  {a.label}: {formatCents(a.amount_cents)} ·{" "}
                  {a.status === "posted" ? "Posted" : a.status === "declined" ? "Declined" : "Waiting"}
                </p>
                <p className="text-slate-700">
                  {a.reason} · asked by {a.requested_by_email}
                  {a.decided_by_email ? `, decided by ${a.decided_by_email}` : ""}
                  {a.decline_reason ? ` (${a.decline_reason})` : ""}
                </p>
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      <section aria-labelledby="history-heading" className="rounded-2xl border border-slate-200 bg-white shadow-sm">
        <h2 id="history-heading" className="border-b border-slate-100 px-5 py-3 text-lg font-semibold text-brand-900">
          History
        </h2>
        <ul className="divide-y divide-slate-100 text-sm" data-testid="staff-loan-history">
          {loan.history.map((h, i) => (
            <li key={i} className="flex flex-wrap items-baseline justify-between gap-2 px-5 py-3">
              <div>
                <p className="font-semibold text-slate-900">{h.label}</p>
                <p className="text-slate-700">
                  {formatBusinessDate(h.on)} · {h.detail}
                </p>
              </div>
              <p className="tabular-nums text-slate-900">{formatCents(h.amount_cents)}</p>
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="schedule-heading" className="rounded-2xl border border-slate-200 bg-white shadow-sm">
        <h2 id="schedule-heading" className="border-b border-slate-100 px-5 py-3 text-lg font-semibold text-brand-900">
          Schedule
        </h2>
        <FigureTable
          labelledBy="schedule-heading"
          look="staff"
          columns={LOAN_SCHEDULE_COLUMNS}
          rows={loan.schedule}
          rowKey={(p) => p.number}
        />
      </section>
    </div>
  );
}
