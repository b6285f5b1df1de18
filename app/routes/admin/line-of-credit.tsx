import { data, Form, Link, useNavigation } from "react-router";
import { ArrowLeft } from "lucide-react";
import type { Route } from "./+types/line-of-credit";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { loanApplicationsOpen } from "~/server/loans/products.server";
import {
  changeStaffLineRate,
  closeStaffLine,
  freezeStaffLine,
  loadStaffLine,
  lowerStaffLineLimit,
  unfreezeStaffLine,
} from "./line-of-credit.server";
import { readForm, refusalStatus } from "~/server/http/form.server";
import { mayMoveMoney, NOT_ALLOWED_MESSAGE } from "~/domain/staff-roles";
import { formatRatePpm, parseLoanRatePercent } from "~/domain/loans/products";
import {
  LINE_STATE_LABELS,
  LINE_STOP_REASONS,
  LINE_STOP_REASON_LABELS,
  RATE_INCREASE_NOTICE_DAYS,
} from "~/domain/loans/line-changes";
import { lineActivityDetail } from "~/domain/loans/line-of-credit";
import { formatCents, parseDollarsToCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { pageTitle } from "~/components/site/page-title";
import { FigureTable, LINE_CYCLE_COLUMNS } from "~/components/member/figure-table";
import { StatusLine } from "~/components/admin/admin-shell";
import { Fact } from "~/components/admin/fact";
import { controlClass, labelClass } from "~/components/ui/field-styles";
import { NativeFieldError } from "~/components/ui/field-parts";

/**
 * /admin/loans/lines/:lineId (docs/product.md#line-of-credit-servicing): an open line of credit for
 * staff: the limit, drawn, available, APR, the cycle and minimum due, what is past due, autopay,
 * the draws, payments and cycles, and who changed what when. Staff who may move money freeze or
 * unfreeze its draws, close it, change its APR or lower its limit, each with a reason; reviewers
 * read it.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Line of credit", matches), { name: "robots", content: "noindex" }];
}

const NOT_FOUND = "Line of credit not found.";
const INTENTS = ["freeze", "unfreeze", "close", "rate", "limit"] as const;
type Intent = (typeof INTENTS)[number];

function idOf(value: string | undefined): number {
  return value && /^[1-9]\d{0,15}$/.test(value) ? Number(value) : 0;
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const { role } = await requireStaff(request, context.get(requestInfoContext), { reviewer: true });
  const id = idOf(params.lineId);
  const view = loanApplicationsOpen() && id ? await loadStaffLine(id) : null;
  if (!view) throw data({ message: NOT_FOUND }, { status: 404 });
  return { view, may_service: mayMoveMoney(role) };
}

type ActionData = { ok: boolean; message: string; field?: string; intent?: Intent };

export async function action({ request, context, params }: Route.ActionArgs) {
  const { staff, origin, role } = await requireStaff(request, context.get(requestInfoContext), { reviewer: true });
  const refuse = (status: number, message: string, field?: string, intent?: Intent) =>
    data({ ok: false, message, field, intent } satisfies ActionData, { status });
  if (!mayMoveMoney(role)) return refuse(403, NOT_ALLOWED_MESSAGE);
  const line_id = idOf(params.lineId);
  if (!loanApplicationsOpen() || !line_id) return refuse(404, NOT_FOUND);
  const form = await readForm(request);
  const intent = String(form.get("intent") ?? "") as Intent;
  if (!INTENTS.includes(intent)) return refuse(400, "Choose what to do.");
  const base = { staff, origin, line_id, note: String(form.get("note") ?? "") };
  const reason = String(form.get("reason") ?? "");
  const answer =
    intent === "freeze"
      ? await freezeStaffLine({ ...base, reason })
      : intent === "unfreeze"
        ? await unfreezeStaffLine(base)
        : intent === "close"
          ? await closeStaffLine({ ...base, reason })
          : intent === "rate"
            ? await changeStaffLineRate({ ...base, rate_ppm: parseLoanRatePercent(String(form.get("rate") ?? "")) })
            : await lowerStaffLineLimit({
                ...base,
                limit_cents: parseDollarsToCents(String(form.get("limit") ?? "")),
              });
  if (!answer.ok) return refuse(refusalStatus(answer.kind), answer.message, answer.field, intent);
  return { ok: true, message: answer.message, intent } satisfies ActionData;
}

const ACTIVITY_LABELS = { draw: "Draw", payment: "Payment", autopay: "Autopay" } as const;
const section = "rounded-2xl border border-slate-200 bg-white p-5 shadow-sm";
const primary = "rounded-lg bg-brand-700 px-4 py-2 text-sm font-semibold text-white hover:bg-brand-800";

export default function StaffLineOfCredit({ loaderData, actionData }: Route.ComponentProps) {
  const { view, may_service } = loaderData;
  const { line, member } = view;
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  const problem = actionData && !actionData.ok ? actionData : null;
  const fieldError = (intent: Intent, name: string) =>
    problem?.intent === intent && problem.field === name ? problem.message : undefined;
  const open = line.state === "open" || line.state === "frozen";
  return (
    <div className="space-y-5">
      <Link to="/admin/loans" className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700">
        <ArrowLeft className="size-4" aria-hidden="true" /> Loans
      </Link>
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">
          {line.product_name} {line.number}: {member.name}
        </h1>
        <span
          className="rounded-full bg-slate-100 px-3 py-1 text-sm font-semibold text-slate-800"
          data-testid="staff-line-state"
        >
          {LINE_STATE_LABELS[line.state]}
          {line.state === "closed" && line.closed_on ? ` ${formatBusinessDate(line.closed_on)}` : ""}
        </span>
      </div>
      {actionData && (actionData.ok || !actionData.field) ? (
        <StatusLine message={actionData.message} tone={actionData.ok ? "success" : "error"} />
      ) : null}
      {line.draws_stopped && line.state !== "closed" ? <StatusLine message={line.draws_stopped} tone="notice" /> : null}

      <section aria-labelledby="figures-heading" className={section}>
        <h2 id="figures-heading" className="text-lg font-semibold text-brand-900">
          The line
        </h2>
        <dl className="mt-3 grid gap-3 text-sm sm:grid-cols-4">
          <Fact label="Credit limit" value={formatCents(line.credit_limit_cents)} testId="staff-line-limit" />
          <Fact label="Drawn" value={formatCents(line.drawn_cents)} />
          <Fact label="Available" value={formatCents(line.available_cents)} testId="staff-line-available" />
          <Fact
            label="Balance owed"
            value={`${formatCents(line.balance_cents)} (interest ${formatCents(line.interest_cents)}, fees ${formatCents(line.fees_cents)})`}
          />
          <Fact
            label="APR"
            value={
              formatRatePpm(line.rate_ppm) +
              (line.scheduled_rate
                ? `, ${formatRatePpm(line.scheduled_rate.rate_ppm)} from ${formatBusinessDate(line.scheduled_rate.effective_on)}`
                : "")
            }
            testId="staff-line-rate"
          />
          <Fact label="Current cycle closes" value={formatBusinessDate(line.next_cycle_close_on)} />
          <Fact
            label="Minimum due"
            value={
              line.minimum_due
                ? `${formatCents(line.minimum_due.amount_cents)} due ${formatBusinessDate(line.minimum_due.due_on)}`
                : "None due"
            }
          />
          <Fact
            label="Past due"
            value={
              view.past_due
                ? `${formatCents(view.past_due.amount_cents)}, due ${formatBusinessDate(view.past_due.due_on)}`
                : "Nothing"
            }
          />
          <Fact label="Autopay" value={view.autopay_account_name ? `On, from ${view.autopay_account_name}` : "Off"} />
          <Fact label="Member" value={`${member.name} · ${member.email}`} />
          <Fact label="Opened" value={formatBusinessDate(line.opened_on)} />
          <Fact
            label="Application"
            value={`Application ${line.application_id}`}
            href={`/admin/loans/${line.application_id}`}
          />
        </dl>
      </section>

      {may_service && open ? (
        // Keyed by the changes so the forms start empty again after one is made.
        <div key={view.history.length} className="grid gap-5 lg:grid-cols-2">
          {line.state === "open" ? (
            <ActionForm intent="freeze" title="Freeze draws" button="Freeze draws" busy={busy}>
              <p className="text-sm text-slate-700">
                The member cannot draw until you unfreeze; payments, interest and autopay go on. The member is told the
                reason.
              </p>
              <ReasonSelect intent="freeze" error={fieldError("freeze", "reason")} />
              <Note intent="freeze" label="Note (kept with the change)" error={fieldError("freeze", "note")} />
            </ActionForm>
          ) : (
            <ActionForm intent="unfreeze" title="Unfreeze draws" button="Unfreeze draws" busy={busy}>
              <p className="text-sm text-slate-700">The member can draw again up to the available credit.</p>
              <Note intent="unfreeze" label="Note (kept with the change)" error={fieldError("unfreeze", "note")} />
            </ActionForm>
          )}
          <ActionForm intent="close" title="Close the line" button="Close the line" busy={busy}>
            <p className="text-sm text-slate-700">
              No more draws, ever. The member repays what is owed under the line&apos;s terms; the line shows
              &ldquo;Closed, paid&rdquo; when nothing is owed.
            </p>
            <ReasonSelect intent="close" error={fieldError("close", "reason")} />
            <Note intent="close" label="Note (kept with the change)" error={fieldError("close", "note")} />
          </ActionForm>
          <ActionForm intent="rate" title="Change the APR" button="Change the APR" busy={busy}>
            <p className="text-sm text-slate-700">
              {view.product
                ? `Within the product's ${formatRatePpm(view.product.rate_min_ppm)} to ${formatRatePpm(view.product.rate_max_ppm)}. `
                : ""}
              An increase takes effect {RATE_INCREASE_NOTICE_DAYS} days after today&apos;s notice (Regulation Z
              1026.9(c)(2)); a decrease today.
            </p>
            <div>
              <label htmlFor="rate-rate" className={labelClass}>
                New APR (%)
              </label>
              <input
                id="rate-rate"
                name="rate"
                inputMode="decimal"
                className={controlClass}
                aria-invalid={fieldError("rate", "rate") ? true : undefined}
                aria-describedby="rate-rate-error"
              />
              <NativeFieldError id="rate-rate-error" message={fieldError("rate", "rate")} />
            </div>
            <Note intent="rate" label="Reason (told to the member)" error={fieldError("rate", "note")} />
          </ActionForm>
          <ActionForm intent="limit" title="Lower the credit limit" button="Lower the limit" busy={busy}>
            <p className="text-sm text-slate-700">
              At once, never below what is owed ({formatCents(line.balance_cents)} now). No fee or higher rate follows
              from it.
            </p>
            <div>
              <label htmlFor="limit-limit" className={labelClass}>
                New credit limit ($)
              </label>
              <input
                id="limit-limit"
                name="limit"
                inputMode="decimal"
                className={controlClass}
                aria-invalid={fieldError("limit", "limit") ? true : undefined}
                aria-describedby="limit-limit-error"
              />
              <NativeFieldError id="limit-limit-error" message={fieldError("limit", "limit")} />
            </div>
            <Note intent="limit" label="Reason (told to the member)" error={fieldError("limit", "note")} />
          </ActionForm>
        </div>
      ) : null}

      <section aria-labelledby="changes-heading" className="rounded-2xl border border-slate-200 bg-white shadow-sm">
        <h2 id="changes-heading" className="border-b border-slate-100 px-5 py-3 text-lg font-semibold text-brand-900">
          Changes
        </h2>
        {view.history.length === 0 ? (
          <p className="px-5 py-3 text-sm text-slate-700">None since the line opened.</p>
        ) : (
          <ul className="divide-y divide-slate-100 text-sm" data-testid="staff-line-changes">
            {view.history.map((c) => (
              <li key={c.id} className="px-5 py-3">
                <p className="font-semibold text-slate-900">{c.summary}</p>
                <p className="text-slate-700">
                  {formatBusinessDate(c.on)} by {c.actor_email ?? c.actor_id} · {c.note} · member told by{" "}
                  {c.notice_channel === "mail" ? "paper mail" : "email"}
                </p>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="history-heading" className="rounded-2xl border border-slate-200 bg-white shadow-sm">
        <h2 id="history-heading" className="border-b border-slate-100 px-5 py-3 text-lg font-semibold text-brand-900">
          Draws and payments
        </h2>
        {line.activity.length === 0 ? (
          <p className="px-5 py-3 text-sm text-slate-700">Nothing yet.</p>
        ) : (
          <ul className="divide-y divide-slate-100 text-sm">
            {line.activity.map((a) => (
              <li key={a.id} className="flex flex-wrap items-baseline justify-between gap-2 px-5 py-3">
                <div>
                  <p className="font-semibold text-slate-900">{ACTIVITY_LABELS[a.kind]}</p>
                  <p className="text-slate-700">
                    {formatBusinessDate(a.on)} · {lineActivityDetail(a)}
                  </p>
                </div>
                <p className="tabular-nums text-slate-900">{formatCents(a.amount_cents)}</p>
              </li>
            ))}
          </ul>
        )}
      </section>

      {line.cycles.length > 0 ? (
        <section aria-labelledby="cycles-heading" className="rounded-2xl border border-slate-200 bg-white shadow-sm">
          <h2 id="cycles-heading" className="border-b border-slate-100 px-5 py-3 text-lg font-semibold text-brand-900">
            Monthly cycles: interest and fees
          </h2>
          <FigureTable
            labelledBy="cycles-heading"
            look="staff"
            columns={LINE_CYCLE_COLUMNS}
            rows={line.cycles}
            rowKey={(c) => c.closed_on}
          />
        </section>
      ) : null}
    </div>
  );
}

function ActionForm({
  intent,
  title,
  button,
  busy,
  children,
}: {
  intent: Intent;
  title: string;
  button: string;
  busy: boolean;
  children: React.ReactNode;
}) {
  return (
    <section aria-labelledby={`${intent}-heading`} className={section}>
      <h2 id={`${intent}-heading`} className="text-lg font-semibold text-brand-900">
        {title}
      </h2>
      <Form method="post" className="mt-3 grid gap-4" aria-labelledby={`${intent}-heading`}>
        <input type="hidden" name="intent" value={intent} />
        {children}
        <div className="flex justify-end">
          <button type="submit" disabled={busy} className={primary}>
            {button}
          </button>
        </div>
      </Form>
    </section>
  );
}

function ReasonSelect({ intent, error }: { intent: Intent; error: string | undefined }) {
  return (
    <div>
      <label htmlFor={`${intent}-reason`} className={labelClass}>
        Reason (told to the member)
      </label>
      <select
        id={`${intent}-reason`}
        name="reason"
        className={controlClass}
        defaultValue=""
        aria-invalid={error ? true : undefined}
        aria-describedby={`${intent}-reason-error`}
      >
        <option value="">Choose a reason</option>
        {LINE_STOP_REASONS.map((r) => (
          <option key={r} value={r}>
            {LINE_STOP_REASON_LABELS[r]}
          </option>
        ))}
      </select>
      <NativeFieldError id={`${intent}-reason-error`} message={error} />
    </div>
  );
}

function Note({ intent, label, error }: { intent: Intent; label: string; error: string | undefined }) {
  return (
    <div>
      <label htmlFor={`${intent}-note`} className={labelClass}>
        {label}
      </label>
      <textarea
        id={`${intent}-note`}
        name="note"
        rows={2}
        maxLength={500}
        className={controlClass}
        aria-invalid={error ? true : undefined}
        aria-describedby={`${intent}-note-error`}
      />
      <NativeFieldError id={`${intent}-note-error`} message={error} />
    </div>
  );
}
