import { data, Form, Link, useNavigation } from "react-router";
import { ArrowLeft } from "lucide-react";
import type { Route } from "./+types/dispute";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { chargebackCase, creditCase, loadStaffCase, noteCase, resolveCase } from "./disputes.server";
import { readForm, refusalStatus } from "~/server/http/form.server";
import { mayMoveMoney } from "~/domain/staff-roles";
import {
  DISPUTE_CHANNEL_LABELS,
  DISPUTE_KIND_LABELS,
  DisputeNoteSchema,
  DisputeResolutionSchema,
  EXTENDED_REASON_LABELS,
  type ExtendedReason,
} from "~/domain/disputes";
import { formatCents, parseDollarsToCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { pageTitle } from "~/components/site/page-title";
import { StatusLine } from "~/components/admin/admin-shell";
import { DisputeClock } from "~/components/admin/dispute-clock";
import { useInstitutionDates } from "~/components/institution-dates";
import { controlClass, cx, labelClass } from "~/components/ui/field-styles";
import { NativeFieldError } from "~/components/ui/field-parts";

/**
 * /admin/disputes/:caseId (docs/product.md#disputes): one error resolution case: the transaction,
 * the member's words, the clocks with their rules, the history with staff notes, and the actions:
 * a note (staff and reviewers), a provisional credit and the resolution either way (staff who may
 * move money; a reviewer is refused by the server). Each posts through the ledger where money
 * moves, is audited, and tells the member by notification and email.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Dispute", matches), { name: "robots", content: "noindex" }];
}

function caseId(value: string): number {
  return /^[1-9]\d{0,15}$/.test(value) ? Number(value) : 0;
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const { role } = await requireStaff(request, context.get(requestInfoContext), { reviewer: true });
  const id = caseId(params.caseId);
  const found = id ? await loadStaffCase(id) : null;
  if (!found) throw data({ message: "Case not found." }, { status: 404 });
  return {
    case: found,
    may_move_money: mayMoveMoney(role),
    entered: new URL(request.url).searchParams.get("entered") === "1",
  };
}

type ActionData = { ok: boolean; message: string; field?: string };

export async function action({ request, context, params }: Route.ActionArgs) {
  const { staff, origin, role } = await requireStaff(request, context.get(requestInfoContext), { reviewer: true });
  const form = await readForm(request);
  const intent = form.get("intent");
  const id = caseId(params.caseId);
  const refuse = (status: number, message: string, field?: string) =>
    data({ ok: false, message, field } satisfies ActionData, { status });
  if (intent !== "note" && intent !== "credit" && intent !== "resolve" && intent !== "chargeback")
    return refuse(400, "Failed: that request could not be understood.");
  if (intent !== "note" && !mayMoveMoney(role)) return refuse(403, "You do not have access to this.");
  if (!id) return refuse(404, "Case not found.");
  const step = { staff, origin, case_id: id };
  let answer;
  if (intent === "note") {
    const text = DisputeNoteSchema.safeParse(form.get("text") ?? "");
    if (!text.success) return refuse(400, text.error.issues[0]!.message, "text");
    answer = await noteCase({ ...step, text: text.data });
  } else if (intent === "chargeback") {
    answer = await chargebackCase(step);
  } else if (intent === "credit") {
    const typed = String(form.get("amount") ?? "").trim();
    const amount_cents = typed === "" ? undefined : parseDollarsToCents(typed);
    if (amount_cents === null) return refuse(400, "Enter an amount in dollars and cents, like 42.50.", "amount");
    answer = await creditCase({ ...step, amount_cents });
  } else {
    const parsed = DisputeResolutionSchema.safeParse({
      outcome: form.get("outcome") ?? undefined,
      explanation: form.get("explanation") ?? "",
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return refuse(400, issue.message, String(issue.path[0]));
    }
    answer = await resolveCase({ ...step, ...parsed.data });
  }
  if (!answer.ok) return refuse(refusalStatus(answer.kind), answer.message, answer.field);
  return { ok: true, message: answer.message } satisfies ActionData;
}

export default function DisputeCase({ loaderData, actionData }: Route.ComponentProps) {
  const { case: c, may_move_money, entered } = loaderData;
  const { formatDateTime } = useInstitutionDates();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  const problem = actionData && !actionData.ok ? actionData : null;
  const fieldError = (name: string) => (problem?.field === name ? problem.message : undefined);
  const extended: ExtendedReason[] = [
    ...(c.new_account ? (["new_account"] as const) : []),
    ...(c.point_of_sale ? (["point_of_sale"] as const) : []),
    ...(c.foreign_initiated ? (["foreign"] as const) : []),
  ];
  const decided = c.status !== "open" && c.status !== "provisionally_credited";
  return (
    <div className="space-y-5">
      <Link to="/admin/disputes" className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700">
        <ArrowLeft className="size-4" aria-hidden="true" /> Disputes
      </Link>
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">Case {c.number}</h1>
        <span className="rounded-full bg-slate-100 px-3 py-1 text-sm font-semibold text-slate-800">
          {c.status_label}
        </span>
      </div>
      {entered && !actionData ? (
        <StatusLine
          tone="success"
          message={`Case ${c.number} opened for ${c.member_name}; the member was sent the case number by notification and email.`}
        />
      ) : null}
      {actionData && (actionData.ok || !actionData.field) ? (
        <StatusLine message={actionData.message} tone={actionData.ok ? "success" : "error"} />
      ) : null}
      {c.reversal_problem ? (
        <StatusLine
          tone="error"
          message={`The debit of the provisional credit could not post: ${c.reversal_problem}.`}
        />
      ) : null}
      <div className="grid gap-5 lg:grid-cols-3">
        <section className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm lg:col-span-2">
          <h2 className="text-lg font-semibold text-brand-900">The report</h2>
          <dl className="mt-3 grid gap-3 text-sm sm:grid-cols-2">
            <div>
              <dt className="text-slate-600">Member</dt>
              <dd className="font-medium text-slate-900">
                {c.member_name} <span className="text-slate-600">· {c.member_email}</span>
              </dd>
            </div>
            <div>
              <dt className="text-slate-600">Transaction</dt>
              <dd className="text-slate-900">
                {c.description} · {formatCents(c.amount_cents)} · {formatBusinessDate(c.effective_date)}
                <span className="block text-xs text-slate-600">
                  {c.account_label} · {c.transaction_kind.replace(/_/g, " ")} ·{" "}
                  <span className="font-mono">{c.reference_number}</span>
                </span>
              </dd>
            </div>
            <div>
              <dt className="text-slate-600">The problem</dt>
              <dd className="text-slate-900">{DISPUTE_KIND_LABELS[c.kind]}</dd>
            </div>
            <div>
              <dt className="text-slate-600">Received</dt>
              <dd className="text-slate-900">
                {formatBusinessDate(c.received_on)} · {DISPUTE_CHANNEL_LABELS[c.reported_via]}
                {c.entered_by_email ? (
                  <span className="block text-xs text-slate-600">Entered by {c.entered_by_email}</span>
                ) : null}
              </dd>
            </div>
            {c.attachments.length > 0 ? (
              <div className="sm:col-span-2">
                <dt className="text-slate-600">What the member sent</dt>
                <dd>
                  <ul className="mt-1 flex flex-wrap gap-3">
                    {c.attachments.map((a) => (
                      <li key={a.id}>
                        <a
                          href={`/admin/disputes/${c.id}/attachments/${a.id}`}
                          target="_blank"
                          rel="noreferrer"
                          className="font-semibold text-accent-700 underline"
                        >
                          {a.label}
                        </a>
                      </li>
                    ))}
                  </ul>
                  <span className="text-xs text-slate-600">Each file you open is recorded in the audit log.</span>
                </dd>
              </div>
            ) : null}
            <div className="sm:col-span-2">
              <dt className="text-slate-600">The member&apos;s words</dt>
              <dd className="rounded-lg bg-slate-50 px-3 py-2 whitespace-pre-line text-slate-900">{c.details}</dd>
            </div>
            {c.resolution ? (
              <div className="sm:col-span-2">
                <dt className="text-slate-600">Resolution (as the member was told)</dt>
                <dd className="whitespace-pre-line text-slate-900">{c.resolution}</dd>
              </div>
            ) : null}
          </dl>
        </section>
        <section className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
          <h2 className="text-lg font-semibold text-brand-900">Clocks</h2>
          <div className="mt-3">
            <DisputeClock deadline={c.deadline} />
          </div>
          <dl className="mt-4 space-y-2 text-sm">
            <div>
              <dt className="text-slate-600">Investigate or provisionally credit by</dt>
              <dd className="text-slate-900">
                {formatBusinessDate(c.investigate_by)}{" "}
                <span className="text-xs text-slate-600">
                  ({c.new_account ? "1005.11(c)(3)(i): 20 business days" : "1005.11(c)(1): 10 business days"})
                </span>
              </dd>
            </div>
            <div>
              <dt className="text-slate-600">Finish by (with a provisional credit)</dt>
              <dd className="text-slate-900">
                {formatBusinessDate(c.complete_by)}{" "}
                <span className="text-xs text-slate-600">
                  ({extended.length > 0 ? "1005.11(c)(3)(ii): 90 days" : "1005.11(c)(2): 45 days"})
                </span>
              </dd>
            </div>
            {extended.length > 0 ? (
              <div>
                <dt className="text-slate-600">Longer clocks because</dt>
                <dd className="text-slate-900">{extended.map((r) => EXTENDED_REASON_LABELS[r]).join("; ")}</dd>
              </div>
            ) : null}
            {c.provisional_amount_cents !== null ? (
              <div>
                <dt className="text-slate-600">Provisional credit</dt>
                <dd className="text-slate-900">
                  {formatCents(c.provisional_amount_cents)} on {formatBusinessDate(c.provisional_credited_on!)} (member
                  told the same day; 1005.11(c)(2)(ii): within 2 business days)
                </dd>
              </div>
            ) : null}
            {c.reversal_on ? (
              <div>
                <dt className="text-slate-600">Debit of the provisional credit</dt>
                <dd className="text-slate-900">
                  {formatBusinessDate(c.reversal_on)}, noticed {formatBusinessDate(c.reversal_notice_on!)}{" "}
                  (1005.11(d)(2): 5 business days)
                </dd>
              </div>
            ) : null}
          </dl>
        </section>
      </div>

      {!decided && may_move_money ? (
        <div className="grid gap-5 lg:grid-cols-2">
          {c.status === "open" ? (
            <section
              aria-labelledby="credit-heading"
              className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm"
            >
              <h2 id="credit-heading" className="text-lg font-semibold text-brand-900">
                Provisional credit
              </h2>
              <p className="mt-1 text-sm text-slate-700">
                Credits the member&apos;s account now (up to {formatCents(c.amount_cents)}) and emails them the amount
                and date. The case then has until {formatBusinessDate(c.complete_by)}.
              </p>
              <Form method="post" className="mt-3 flex flex-wrap items-end gap-3">
                <input type="hidden" name="intent" value="credit" />
                <div className="flex flex-col">
                  <label htmlFor="amount" className={labelClass}>
                    Amount
                  </label>
                  <input
                    id="amount"
                    name="amount"
                    inputMode="decimal"
                    defaultValue={(c.amount_cents / 100).toFixed(2)}
                    aria-invalid={fieldError("amount") ? true : undefined}
                    aria-describedby={fieldError("amount") ? "amount-error" : undefined}
                    className={cx(controlClass, "mt-1.5 w-36")}
                  />
                  <NativeFieldError id="amount-error" message={fieldError("amount")} />
                </div>
                <button
                  type="submit"
                  disabled={busy}
                  className="rounded-lg bg-brand-700 px-4 py-2.5 text-sm font-semibold text-white hover:bg-brand-800"
                >
                  Credit provisionally
                </button>
              </Form>
            </section>
          ) : null}
          <section
            aria-labelledby="resolve-heading"
            className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm"
          >
            <h2 id="resolve-heading" className="text-lg font-semibold text-brand-900">
              Resolve
            </h2>
            <p className="mt-1 text-sm text-slate-700">
              {c.status === "provisionally_credited"
                ? "Error found: the provisional credit becomes final. No error: the member is told in writing that it will be debited 5 business days from today, on the date named."
                : `Error found: ${formatCents(c.amount_cents)} is credited now. No error: the case is closed.`}{" "}
              The explanation is sent to the member.
            </p>
            <Form method="post" className="mt-3 space-y-3">
              <input type="hidden" name="intent" value="resolve" />
              <fieldset>
                <legend className={labelClass}>Outcome</legend>
                <div className="mt-1.5 flex flex-wrap gap-4 text-sm">
                  <label className="inline-flex items-center gap-2">
                    <input type="radio" name="outcome" value="error" /> Error found
                  </label>
                  <label className="inline-flex items-center gap-2">
                    <input type="radio" name="outcome" value="no_error" /> No error found
                  </label>
                </div>
                <NativeFieldError id="outcome-error" message={fieldError("outcome")} />
              </fieldset>
              <div className="flex flex-col">
                <label htmlFor="explanation" className={labelClass}>
                  Explanation for the member
                </label>
                <textarea
                  id="explanation"
                  name="explanation"
                  rows={3}
                  aria-invalid={fieldError("explanation") ? true : undefined}
                  aria-describedby={fieldError("explanation") ? "explanation-error" : undefined}
                  className={cx(controlClass, "mt-1.5")}
                />
                <NativeFieldError id="explanation-error" message={fieldError("explanation")} />
              </div>
              <button
                type="submit"
                disabled={busy}
                className="rounded-lg bg-brand-700 px-4 py-2.5 text-sm font-semibold text-white hover:bg-brand-800"
              >
                Resolve case
              </button>
            </Form>
          </section>
        </div>
      ) : null}

      {c.transaction_kind === "card_payment" ? (
        <section
          aria-labelledby="chargeback-heading"
          className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm"
        >
          <h2 id="chargeback-heading" className="text-lg font-semibold text-brand-900">
            Chargeback
          </h2>
          <p className="mt-1 text-sm text-slate-700">
            The chargeback itself is raised, and its outcome received, by staff in the card network&apos;s own system:
            Mutual does not send it. Mark the case here when you raise one, so the case shows it.
          </p>
          {c.chargeback_marked_at ? (
            <p className="mt-3 text-sm font-semibold text-slate-900" data-testid="chargeback-marked">
              Marked for a chargeback on {formatDateTime(c.chargeback_marked_at)} by {c.chargeback_marked_by}.
            </p>
          ) : !decided && may_move_money ? (
            <Form method="post" className="mt-3">
              <input type="hidden" name="intent" value="chargeback" />
              <button
                type="submit"
                disabled={busy}
                className="rounded-lg border border-slate-300 bg-white px-4 py-2 text-sm font-semibold text-brand-800 hover:bg-slate-50"
              >
                Mark for chargeback
              </button>
            </Form>
          ) : (
            <p className="mt-3 text-sm text-slate-700">Not marked for a chargeback.</p>
          )}
        </section>
      ) : null}

      <section aria-labelledby="history-heading" className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
        <h2 id="history-heading" className="text-lg font-semibold text-brand-900">
          History and notes
        </h2>
        <ol className="mt-3 space-y-2">
          {c.events.map((e) => (
            <li key={e.id} className={cx("rounded-lg px-3 py-2 text-sm", e.internal ? "bg-amber-50" : "bg-slate-50")}>
              <span className="block text-xs text-slate-600">
                {formatDateTime(e.at)} · {e.actor_email ?? "system"} · {e.kind.replace(/_/g, " ")}
                {e.internal ? " · staff only" : ""}
              </span>
              <span className="whitespace-pre-line text-slate-900">{e.text}</span>
            </li>
          ))}
        </ol>
        <Form method="post" className="mt-4 space-y-2">
          <input type="hidden" name="intent" value="note" />
          <label htmlFor="text" className={labelClass}>
            Add a note (staff only)
          </label>
          <textarea
            id="text"
            name="text"
            rows={2}
            aria-invalid={fieldError("text") ? true : undefined}
            aria-describedby={fieldError("text") ? "text-error" : undefined}
            className={cx(controlClass, "w-full")}
          />
          <NativeFieldError id="text-error" message={fieldError("text")} />
          <button
            type="submit"
            disabled={busy}
            className="rounded-lg border border-slate-300 bg-white px-4 py-2 text-sm font-semibold text-brand-800 hover:bg-slate-50"
          >
            Add note
          </button>
        </Form>
      </section>
    </div>
  );
}
