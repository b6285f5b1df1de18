import { data, Link } from "react-router";
import { ArrowLeft } from "lucide-react";
import type { Route } from "./+types/sanctions-screening";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { readForm, refusalStatus } from "~/server/http/form.server";
import { pageTitle } from "~/components/site/page-title";
import { StatusLine } from "~/components/admin/admin-shell";
import { useInstitutionDates } from "~/components/institution-dates";
import type { SanctionsActionResult } from "~/components/admin/sanctions";
import {
  AGREEMENT,
  KIND_LABEL,
  ScreeningDecisions,
  ScreeningSummary,
  SUBJECT_LABEL,
} from "~/components/admin/screening-queue";
import { SANCTIONS_SOURCE_NAMES, type SanctionsSource } from "~/domain/sanctions/entries";
import { formIntent, UNKNOWN_INTENT_MESSAGE } from "~/domain/form-intent";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { PAYMENT_STATUS_LABELS } from "~/domain/payment-status";
import type { ScreeningDecision } from "~/server/sanctions/screening.server";
import { decideScreeningCase, screeningCase } from "./sanctions.server";

/**
 * /admin/sanctions/screenings/:screeningId (docs/product.md#screening-queue): one possible
 * sanctions match: what was screened, every list entry it may be with its score, its decisions
 * and their history, and the same decisions as the queue. Staff ("admin") only, as /admin/sanctions.
 */
export function meta({ matches, params }: Route.MetaArgs) {
  return [...pageTitle(`Screening item ${params.screeningId}`, matches), { name: "robots", content: "noindex" }];
}

function screeningId(value: string): number {
  return /^[1-9]\d{0,14}$/.test(value) ? Number(value) : 0;
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const { staff } = await requireStaff(request, context.get(requestInfoContext));
  const id = screeningId(params.screeningId);
  const item = id ? await screeningCase(id) : null;
  if (!item) throw data({ message: "This screening was not found." }, { status: 404 });
  return { item, staff_id: staff.id };
}

const DECISIONS = ["clear", "request_confirm", "approve_confirm", "decline_confirm"] as const;

export async function action({ request, context, params }: Route.ActionArgs) {
  const { staff, origin } = await requireStaff(request, context.get(requestInfoContext));
  const form = await readForm(request);
  const intent = formIntent(form, DECISIONS);
  const id = screeningId(params.screeningId);
  if (!intent)
    return data({ intent: null, tone: "error", message: UNKNOWN_INTENT_MESSAGE } satisfies SanctionsActionResult, {
      status: 400,
    });
  // The page's own item: the form's hidden id is not trusted to name another one.
  const result = await decideScreeningCase({
    screening_id: id,
    decision: intent as ScreeningDecision,
    reason: String(form.get("reason") ?? ""),
    staff,
    origin,
  });
  if (!result.ok)
    return data(
      {
        intent,
        tone: "error",
        message: result.message,
        screening_id: id,
        ...(result.field === "reason" ? { field: "reason" as const } : {}),
      } satisfies SanctionsActionResult,
      { status: refusalStatus(result.kind) },
    );
  return { intent, tone: "success", message: result.message, screening_id: id } satisfies SanctionsActionResult;
}

const STATUS_LABEL = {
  open: "Waiting for a decision",
  confirm_requested: "Waiting for a second staff member",
  cleared: "Cleared",
  confirmed: "Confirmed",
} as const;

export default function ScreeningItemPage({ loaderData, actionData }: Route.ComponentProps) {
  const { item, staff_id } = loaderData;
  const answer = actionData as SanctionsActionResult | undefined;
  const { formatDateTime } = useInstitutionDates();
  return (
    <div className="space-y-5">
      <Link to="/admin/sanctions" className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700">
        <ArrowLeft className="size-4" aria-hidden="true" /> Sanctions
      </Link>
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">Screening item {item.id}</h1>
        <span className="rounded-full bg-slate-100 px-3 py-1 text-sm font-semibold text-slate-800">
          {STATUS_LABEL[item.status]}
        </span>
      </div>
      {answer && (answer.tone === "success" || answer.field !== "reason") ? (
        <StatusLine message={answer.message} tone={answer.tone} />
      ) : null}
      <section
        aria-labelledby="screened-title"
        className="rounded-2xl border border-slate-200 bg-white p-4 text-sm shadow-sm sm:p-5"
      >
        <h2 id="screened-title" className="mb-3 text-lg font-semibold text-brand-900">
          Possible match ({SUBJECT_LABEL[item.subject_type]})
        </h2>
        <ScreeningSummary row={item} />
        <p className="mt-3 break-words text-slate-900">
          {item.payment ? (
            <>
              Payment of {formatCents(item.payment.amount_cents)}
              {item.payment.reference ? `, reference “${item.payment.reference}”` : ""} ·{" "}
              {PAYMENT_STATUS_LABELS[item.payment.status].label} ·{" "}
            </>
          ) : null}
          <Link
            to={`/admin?member=${encodeURIComponent(item.member_id)}`}
            className="font-semibold text-accent-700 underline underline-offset-2"
          >
            {item.subject_type === "application" ? "The applicant's details" : "The member's details"}
          </Link>
        </p>
        <ScreeningDecisions row={item} staffId={staff_id} answer={answer ?? null} />
        {item.status === "cleared" ? (
          <p className="mt-3 break-words text-slate-900">
            Cleared by {item.cleared_by_email ?? "a staff member"}
            {item.cleared_at ? ` on ${formatDateTime(item.cleared_at)}` : ""}: {item.clear_reason}
          </p>
        ) : null}
        {item.status === "confirmed" ? (
          <p className="mt-3 break-words text-slate-900">
            Confirmed: asked by {item.confirm_requested_by_email ?? "a staff member"} ({item.confirm_reason}), approved
            by {item.confirmed_by_email ?? "a staff member"}
            {item.confirmed_at ? ` on ${formatDateTime(item.confirmed_at)}` : ""}.{" "}
            <Link
              to={`/admin/sar?source=screening&id=${item.id}`}
              className="font-semibold text-accent-700 underline underline-offset-2"
            >
              Open a suspicious activity report
            </Link>
          </p>
        ) : null}
      </section>
      {item.report_draft ? (
        <section
          aria-labelledby="report-title"
          className="rounded-2xl border border-amber-300 bg-amber-50 p-4 text-sm shadow-sm sm:p-5"
        >
          <h2 id="report-title" className="text-lg font-semibold text-brand-900">
            Report to OFAC: draft
          </h2>
          <p className="mt-1 text-slate-800">
            Drafted when the match was confirmed. File it through OFAC&apos;s reporting system; the app sends nothing.
          </p>
          <dl className="mt-3 grid gap-x-6 gap-y-2 sm:grid-cols-[max-content_1fr]">
            <dt className="font-semibold text-slate-900">Rule</dt>
            <dd className="break-words text-slate-900">{item.report_draft.rule}</dd>
            <dt className="font-semibold text-slate-900">Confirmed on</dt>
            <dd className="text-slate-900">{formatBusinessDate(item.report_draft.confirmed_on)}</dd>
            {item.report_draft.due_by ? (
              <>
                <dt className="font-semibold text-slate-900">Due by</dt>
                <dd className="text-slate-900">{formatBusinessDate(item.report_draft.due_by)}</dd>
              </>
            ) : null}
            <dt className="font-semibold text-slate-900">Party</dt>
            <dd className="break-words text-slate-900">{item.report_draft.party}</dd>
            <dt className="font-semibold text-slate-900">List entry</dt>
            <dd className="break-words text-slate-900">
              {item.report_draft.listed_name} ({item.report_draft.list_entry})
            </dd>
            <dt className="font-semibold text-slate-900">What was done</dt>
            <dd className="break-words text-slate-900">{item.report_draft.facts.join(" ")}</dd>
          </dl>
        </section>
      ) : null}
      <section
        aria-labelledby="matches-title"
        className="rounded-2xl border border-slate-200 bg-white p-4 text-sm shadow-sm sm:p-5"
      >
        <h2 id="matches-title" className="text-lg font-semibold text-brand-900">
          Every list entry it may be
        </h2>
        <ul className="mt-3 divide-y divide-slate-200">
          {item.matches.map((m) => (
            <li key={m.entry_id} className="py-3 first:pt-0 last:pb-0">
              <p className="font-semibold break-words text-slate-900">
                {m.listed_name} <span className="font-normal text-slate-700">· score {m.score.toFixed(3)}</span>
              </p>
              <p className="break-words text-slate-700">
                {KIND_LABEL[m.name_kind]} &ldquo;{m.matched_name}&rdquo; against &ldquo;{m.screened_name}&rdquo;, name{" "}
                {m.name_score.toFixed(3)} · date of birth {AGREEMENT[m.birth_date]} · country {AGREEMENT[m.country]}
              </p>
              <p className="text-slate-700">
                {SANCTIONS_SOURCE_NAMES[m.source as SanctionsSource] ?? m.source}, entry {m.uid} (list version{" "}
                {m.version_id})
              </p>
            </li>
          ))}
        </ul>
      </section>
      <section
        aria-labelledby="history-title"
        className="rounded-2xl border border-slate-200 bg-white p-4 text-sm shadow-sm sm:p-5"
      >
        <h2 id="history-title" className="text-lg font-semibold text-brand-900">
          History
        </h2>
        <ol className="mt-3 space-y-2">
          {item.history.map((step, i) => (
            <li key={i} className="break-words text-slate-900">
              <span className="text-slate-700">{formatDateTime(step.at)}</span> · {step.action} · {step.actor}
              {step.reason ? <span className="text-slate-700">: {step.reason}</span> : null}
            </li>
          ))}
        </ol>
      </section>
    </div>
  );
}
