import crypto from "node:crypto";
import { data, Link, redirect, useNavigation } from "react-router";
import { ArrowLeft } from "lucide-react";
import type { Route } from "./+types/line-of-credit";
import { requestInfoContext } from "~/context";
import { requireMember } from "~/server/auth/session.server";
import { loanApplicationsOpen } from "~/server/loans/products.server";
import { loadPayingAccounts } from "./loans.server";
import {
  closeMemberLine,
  drawOnMemberLine,
  loadLineDetail,
  payMemberLine,
  setMemberLineAutopay,
} from "./lines-of-credit.server";
import { statementLineCycles } from "./statements.server";
import { LineStatementList } from "~/components/member/loan-statements";
import { AutopaySection, PaymentSection } from "~/components/member/loan-payment-forms";
import { parseSubmission, readForm, refusalStatus, replyTo, type FormReply } from "~/server/http/form.server";
import { logger } from "~/server/logger.server";
import { LineDrawSchema, LoanAutopaySchema, LoanPaymentSchema } from "~/domain/loans/forms";
import { formatRatePpm } from "~/domain/loans/products";
import { LINE_STATE_LABELS, LineCloseSchema } from "~/domain/loans/line-changes";
import { lineActivityDetail } from "~/domain/loans/line-of-credit";
import { maskAccountNumber } from "~/domain/account-display";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { pageTitle } from "~/components/site/page-title";
import { FigureTable, LINE_CYCLE_COLUMNS } from "~/components/member/figure-table";
import {
  Button,
  Checkbox,
  FormMessage,
  SchemaForm,
  Select,
  TextField,
  formMessages,
  useSchemaForm,
} from "~/components/ui";

/**
 * /dashboard/loans/lines/:lineId (docs/product.md#lines-of-credit): one of the member's lines of
 * credit: the limit, what is drawn, what is available, the minimum payment due and its date; a
 * draw into their checking or savings; a payment (the minimum due, the whole balance, or an
 * amount); autopay of each minimum; the draws and payments, and the monthly cycles. Another
 * member's line reads as not found.
 */
export function meta({ matches }: Route.MetaArgs) {
  return pageTitle("Your line of credit", matches);
}

const NOT_FOUND = "We could not find that line of credit.";

function idOf(value: string): number {
  return /^[1-9]\d{0,15}$/.test(value) ? Number(value) : 0;
}

export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const id = idOf(params.lineId);
  const line = loanApplicationsOpen() && id ? await loadLineDetail(user, id) : null;
  if (!line) throw data({ message: NOT_FOUND }, { status: 404 });
  const url = new URL(request.url);
  const accounts = await loadPayingAccounts(user);
  // Its periodic statements, one per closed cycle (docs/product.md#line-statements).
  const statements = (await statementLineCycles(user.id)).find((l) => l.id === line.id)!;
  return {
    line,
    statements,
    accounts: accounts.map((a) => ({
      value: String(a.id),
      label: `${a.name} ${maskAccountNumber(a.account_number)} · ${formatCents(a.available_cents)} available`,
    })),
    done: url.searchParams.get("done"),
    idempotency_key: crypto.randomUUID(),
  };
}

type Intent = "draw" | "pay" | "autopay" | "close";
export type LineActionData = { ok: false; intent: Intent; reply: FormReply };

const KEY_PATTERN = /^[0-9a-f-]{36}$/;

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = await requireMember(request);
  const id = idOf(params.lineId);
  if (!loanApplicationsOpen() || !id) throw data({ message: NOT_FOUND }, { status: 404 });
  const info = context.get(requestInfoContext);
  const origin = { request_id: info.request_id, ip: info.ip };
  const form = await readForm(request);
  const member = { id: user.id, email: user.email };
  const intent = form.get("intent");
  const refused = (
    intent: Intent,
    submission: Parameters<typeof replyTo>[0],
    answer: { message: string; field?: string; kind: Parameters<typeof refusalStatus>[0] },
    field?: string,
  ) =>
    data(
      {
        ok: false,
        intent,
        reply: replyTo(
          submission,
          answer.field
            ? { fieldErrors: { [field ?? answer.field]: [answer.message] } }
            : { formErrors: [answer.message] },
        ),
      } satisfies LineActionData,
      { status: refusalStatus(answer.kind) },
    );
  if (intent === "autopay") {
    const submission = parseSubmission(LoanAutopaySchema, form);
    if (submission.status !== "success")
      return data({ ok: false, intent, reply: replyTo(submission) } satisfies LineActionData, { status: 400 });
    const answer = await setMemberLineAutopay(member, id, submission.value.autopay_from, origin);
    if (!answer.ok) return refused(intent, submission, answer, "autopay_from");
    return redirect(`/dashboard/loans/lines/${id}?done=autopay`);
  }
  if (intent === "close") {
    const submission = parseSubmission(LineCloseSchema, form);
    if (submission.status !== "success")
      return data({ ok: false, intent, reply: replyTo(submission) } satisfies LineActionData, { status: 400 });
    const answer = await closeMemberLine(member, id, origin);
    if (!answer.ok) return refused(intent, submission, answer);
    return redirect(`/dashboard/loans/lines/${id}?done=close`);
  }
  if (intent !== "draw" && intent !== "pay")
    throw data({ message: "That request could not be understood." }, { status: 400 });
  const submission =
    intent === "draw" ? parseSubmission(LineDrawSchema, form) : parseSubmission(LoanPaymentSchema, form);
  if (submission.status !== "success")
    return data({ ok: false, intent, reply: replyTo(submission) } satisfies LineActionData, { status: 400 });
  const key = String(form.get("idempotency_key") ?? "");
  if (!KEY_PATTERN.test(key))
    return data(
      {
        ok: false,
        intent,
        reply: replyTo(submission, { formErrors: ["Please reload the page and try again."] }),
      } satisfies LineActionData,
      { status: 400 },
    );
  try {
    const v = submission.value;
    const answer =
      "to" in v
        ? await drawOnMemberLine(
            member,
            { line_id: id, to_account_id: v.to, amount_cents: v.amount, idempotency_key: key },
            origin,
          )
        : await payMemberLine(
            member,
            { line_id: id, from_account_id: v.from, amount: v.amount, idempotency_key: key },
            origin,
          );
    if (!answer.ok) return refused(intent, submission, answer);
    return redirect(`/dashboard/loans/lines/${id}?done=${intent}`);
  } catch (error) {
    logger.error({ err: error }, `line of credit ${intent} failed`);
    return data(
      {
        ok: false,
        intent,
        reply: replyTo(submission, {
          formErrors: [`We could not do that. Please try again. Reference: ${info.request_id}`],
        }),
      } satisfies LineActionData,
      { status: 500 },
    );
  }
}

const DONE: Record<string, string> = {
  draw: "The money is in your account. The draw is at the top of the history below.",
  pay: "Your payment was made. It is at the top of the history below.",
  close: "Your line is closed to new draws. We sent you a notice.",
};

const ACTIVITY_LABELS = { draw: "Draw", payment: "Payment", autopay: "Autopay" } as const;

export default function LineOfCredit({ loaderData, actionData }: Route.ComponentProps) {
  const { line, statements, accounts, done, idempotency_key } = loaderData;
  const navigation = useNavigation();
  const replyFor = (intent: Intent) => (actionData && actionData.intent === intent ? actionData.reply : null);
  const drawForm = useSchemaForm(LineDrawSchema, { id: `line-draw-${idempotency_key}`, lastResult: replyFor("draw") });
  const payForm = useSchemaForm(LoanPaymentSchema, { id: `line-pay-${idempotency_key}`, lastResult: replyFor("pay") });
  const autopayForm = useSchemaForm(LoanAutopaySchema, { id: "line-autopay", lastResult: replyFor("autopay") });
  const closeForm = useSchemaForm(LineCloseSchema, { id: "line-close", lastResult: replyFor("close") });
  const busy = navigation.state !== "idle";
  const active = line.status === "active";
  const problem = (intent: Intent) => formMessages(replyFor(intent))[0];
  // The minimum is offered only while one is due.
  const payOptions = [
    ...(line.minimum_due
      ? [{ value: "next_due", label: `Minimum due: ${formatCents(line.minimum_due.amount_cents)}` }]
      : []),
    { value: "payoff", label: `The whole balance: ${formatCents(line.balance_cents)}` },
    { value: "amount", label: "Another amount", description: "What you pay back can be drawn again." },
  ];
  const section = "rounded-2xl border border-slate-200 bg-white p-5 shadow-sm";
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
          {line.product_name} {line.number}
        </h1>
        <span className="rounded-full bg-slate-100 px-3 py-1 text-sm font-semibold text-slate-800">
          {LINE_STATE_LABELS[line.state]}
        </span>
      </div>
      {line.draws_stopped && active ? (
        <FormMessage className="mt-4" tone="warning" title="Draws are stopped">
          {line.draws_stopped}
        </FormMessage>
      ) : null}
      {line.state === "closed" && line.closed_on ? (
        <FormMessage className="mt-4" tone="info">
          This line was paid and closed on {formatBusinessDate(line.closed_on)}.
        </FormMessage>
      ) : null}
      {done === "draw" || done === "pay" || done === "close" ? (
        <FormMessage className="mt-4" tone="success">
          {DONE[done]}
        </FormMessage>
      ) : null}
      {done === "autopay" ? (
        <FormMessage className="mt-4" tone="success">
          {line.autopay_account_id ? "Autopay is on." : "Autopay is off."}
        </FormMessage>
      ) : null}

      <section aria-labelledby="line-heading" className={`mt-5 ${section}`}>
        <h2 id="line-heading" className="text-lg font-semibold text-brand-900">
          Your line
        </h2>
        <dl className="mt-3 grid grid-cols-2 gap-3 text-sm sm:grid-cols-3">
          <div>
            <dt className="text-slate-600">Available to draw</dt>
            <dd className="text-xl font-semibold text-slate-900" data-testid="line-available">
              {formatCents(line.available_cents)}
            </dd>
          </div>
          <div>
            <dt className="text-slate-600">Credit limit</dt>
            <dd className="text-slate-900">{formatCents(line.credit_limit_cents)}</dd>
          </div>
          <div>
            <dt className="text-slate-600">Drawn</dt>
            <dd className="text-slate-900" data-testid="line-drawn">
              {formatCents(line.drawn_cents)}
            </dd>
          </div>
          <div>
            <dt className="text-slate-600">Balance owed</dt>
            <dd className="text-slate-900">
              {formatCents(line.balance_cents)}
              <span className="block text-xs text-slate-600">
                interest {formatCents(line.interest_cents)}, fees {formatCents(line.fees_cents)}
              </span>
            </dd>
          </div>
          <div>
            <dt className="text-slate-600">Minimum payment</dt>
            <dd className="text-slate-900" data-testid="line-minimum">
              {line.minimum_due
                ? `${formatCents(line.minimum_due.amount_cents)} due ${formatBusinessDate(line.minimum_due.due_on)}`
                : "None due"}
            </dd>
          </div>
          <div>
            <dt className="text-slate-600">Rate (APR)</dt>
            <dd className="text-slate-900" data-testid="line-rate">
              {formatRatePpm(line.rate_ppm)}
              {line.scheduled_rate ? (
                <span className="block text-xs text-slate-600">
                  {formatRatePpm(line.scheduled_rate.rate_ppm)} from{" "}
                  {formatBusinessDate(line.scheduled_rate.effective_on)}
                </span>
              ) : null}
            </dd>
          </div>
        </dl>
        <p className="mt-3 text-xs text-slate-600">
          This month&apos;s cycle closes {formatBusinessDate(line.next_cycle_close_on)}; the minimum it sets is due 25
          days later. Interest runs from the day of each draw.{" "}
          <Link to={`/dashboard/loans/applications/${line.application_id}`} className="font-semibold underline">
            Your account-opening disclosure
          </Link>
        </p>
      </section>

      {active ? (
        <div className="mt-5 grid gap-5 lg:grid-cols-2">
          {line.state === "open" ? (
            <section aria-labelledby="draw-heading" className={section}>
              <h2 id="draw-heading" className="text-lg font-semibold text-brand-900">
                Draw money
              </h2>
              <p className="mt-1 text-sm text-slate-700">
                Up to {formatCents(line.available_cents)}, into your checking or savings at once.
              </p>
              {problem("draw") ? (
                <FormMessage className="mt-3" tone="error">
                  {problem("draw")}
                </FormMessage>
              ) : null}
              <SchemaForm form={drawForm} method="post" className="mt-4 grid gap-4" aria-labelledby="draw-heading">
                <input type="hidden" name="intent" value="draw" />
                <input type="hidden" name="idempotency_key" value={idempotency_key} />
                <Select name="to" label="Put it in" options={accounts} placeholder="Choose an account" isRequired />
                <TextField name="amount" label="Amount to draw ($)" inputMode="decimal" prefix="$" isRequired />
                <Button type="submit" isDisabled={busy}>
                  Draw
                </Button>
              </SchemaForm>
            </section>
          ) : null}

          <PaymentSection
            form={payForm}
            idempotency_key={idempotency_key}
            accounts={accounts}
            options={payOptions}
            defaultOption={line.minimum_due ? "next_due" : "amount"}
            problem={problem("pay")}
            isDisabled={busy || line.balance_cents === 0}
            className={line.state === "open" ? section : `${section} lg:col-span-2`}
          />

          <AutopaySection
            form={autopayForm}
            accounts={accounts}
            autopay_account_id={line.autopay_account_id}
            what="minimum payment"
            problem={problem("autopay")}
            isDisabled={busy}
            inline
            className={`${section} lg:col-span-2`}
          />

          {line.state === "open" || line.state === "frozen" ? (
            <section aria-labelledby="close-heading" className={`${section} lg:col-span-2`}>
              <h2 id="close-heading" className="text-lg font-semibold text-brand-900">
                Close this line
              </h2>
              <p className="mt-1 text-sm text-slate-700">
                {line.balance_cents === 0
                  ? "Nothing is owed, so the line closes at once."
                  : `No more draws can be made. You repay the ${formatCents(line.balance_cents)} owed under the line's terms, and the line closes when it is paid.`}
              </p>
              {problem("close") ? (
                <FormMessage className="mt-3" tone="error">
                  {problem("close")}
                </FormMessage>
              ) : null}
              <SchemaForm form={closeForm} method="post" className="mt-3 grid gap-3" aria-labelledby="close-heading">
                <input type="hidden" name="intent" value="close" />
                <Checkbox name="confirm" value="yes" isRequired>
                  I understand that a closed line cannot be drawn on again.
                </Checkbox>
                <div>
                  <Button type="submit" variant="secondary" isDisabled={busy}>
                    Close the line
                  </Button>
                </div>
              </SchemaForm>
            </section>
          ) : null}
        </div>
      ) : null}

      {line.changes.length > 0 ? (
        <section aria-labelledby="changes-heading" className={`mt-5 ${section}`}>
          <h2 id="changes-heading" className="text-lg font-semibold text-brand-900">
            Changes to your line
          </h2>
          <ul className="mt-2 divide-y divide-slate-100 text-sm" data-testid="line-changes">
            {line.changes.map((c) => (
              <li key={c.id} className="py-2">
                <span className="font-semibold text-slate-900">{c.summary}</span>
                <span className="block text-slate-700">
                  Told {formatBusinessDate(c.on)}
                  {c.note ? ` · Reason: ${c.note}` : ""}
                </span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      <section
        aria-labelledby="history-heading"
        className="mt-5 rounded-2xl border border-slate-200 bg-white shadow-sm"
      >
        <h2 id="history-heading" className="border-b border-slate-100 px-5 py-3 text-lg font-semibold text-brand-900">
          Draws and payments
        </h2>
        {line.activity.length === 0 ? (
          <p className="px-5 py-3 text-sm text-slate-700">Nothing yet.</p>
        ) : (
          <ul className="divide-y divide-slate-100" data-testid="line-history">
            {line.activity.map((a) => (
              <li key={a.id} className="flex flex-wrap items-center justify-between gap-2 px-5 py-3 text-sm">
                <div>
                  <span className="font-semibold text-slate-900">{ACTIVITY_LABELS[a.kind]}</span>
                  <span className="block text-slate-700">
                    {formatBusinessDate(a.on)} · {lineActivityDetail(a)}
                  </span>
                </div>
                <span className="font-semibold text-slate-900">{formatCents(a.amount_cents)}</span>
              </li>
            ))}
          </ul>
        )}
      </section>

      {line.cycles.length > 0 ? (
        <section
          aria-labelledby="cycles-heading"
          className="mt-5 rounded-2xl border border-slate-200 bg-white shadow-sm"
        >
          <h2 id="cycles-heading" className="border-b border-slate-100 px-5 py-3 text-lg font-semibold text-brand-900">
            Monthly cycles
          </h2>
          <FigureTable
            labelledBy="cycles-heading"
            look="member"
            columns={LINE_CYCLE_COLUMNS}
            rows={line.cycles}
            rowKey={(c) => c.closed_on}
          />
        </section>
      ) : null}

      <section
        aria-labelledby="line-statements-heading"
        className="mt-5 rounded-2xl border border-slate-200 bg-white shadow-sm"
      >
        <h2
          id="line-statements-heading"
          className="border-b border-slate-100 px-5 py-3 text-lg font-semibold text-brand-900"
        >
          Statements
        </h2>
        <LineStatementList line={statements} />
      </section>
    </div>
  );
}
