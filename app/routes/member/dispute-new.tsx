import crypto from "node:crypto";
import { data, Link, redirect, useNavigation } from "react-router";
import { ArrowLeft, Info } from "lucide-react";
import type { Route } from "./+types/dispute-new";
import { requestInfoContext } from "~/context";
import { requireMember } from "~/server/auth/session.server";
import { fileReport, loadReportForm } from "./disputes.server";
import { parseSubmission, readForm, refusalStatus, replyTo, type FormReply } from "~/server/http/form.server";
import { logger } from "~/server/logger.server";
import {
  DISPUTE_ATTACHMENT_FIELDS,
  DISPUTE_ATTACHMENT_MAX_BYTES,
  DISPUTE_DETAILS_MAX_CHARS,
  DISPUTE_KIND_LABELS,
  DISPUTE_KINDS,
  DisputeReportSchema,
} from "~/domain/disputes";
import { FileField } from "~/components/auth/file-field";
import { pageTitle } from "~/components/site/page-title";
import { Button, FormMessage, RadioGroup, SchemaForm, TextArea, formMessages, useSchemaForm } from "~/components/ui";
import { Amount, formatDate } from "~/components/member/amount";

/**
 * /dashboard/disputes/new?transaction=ID (docs/product.md#disputes): "Report a problem" with one
 * electronic transaction of the member's own history (Regulation E, 12 CFR 1005.11): what is
 * wrong and what happened. Sent, it becomes a case with a number (the next page confirms it and an
 * email follows). Another member's transaction reads as not found.
 */
export function meta({ matches }: Route.MetaArgs) {
  return pageTitle("Report a problem", matches);
}

function transactionId(value: string | null): number {
  return value && /^[1-9]\d{0,15}$/.test(value) ? Number(value) : 0;
}

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const id = transactionId(new URL(request.url).searchParams.get("transaction"));
  const found = id ? await loadReportForm(user, id) : null;
  if (!found) throw data({ message: "We could not find that transaction in your accounts." }, { status: 404 });
  return { ...found, idempotency_key: crypto.randomUUID() };
}

export type ReportActionData = { ok: false; reply: FormReply };

/** Files are never echoed back in a reply. */
const HIDDEN = [...DISPUTE_ATTACHMENT_FIELDS];
/** Two full files and the form's other fields with their multipart framing. */
const FORM_OVERHEAD_BYTES = 64 * 1024;

export async function action({ request, context }: Route.ActionArgs) {
  const user = await requireMember(request);
  const info = context.get(requestInfoContext);
  // A body that states it is larger than two full attachments is refused before it is read.
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > DISPUTE_ATTACHMENT_FIELDS.length * DISPUTE_ATTACHMENT_MAX_BYTES + FORM_OVERHEAD_BYTES)
    return data(
      {
        ok: false,
        reply: {
          status: "error",
          error: { "": ["The files are larger than 10 MB each. Please attach smaller files."] },
        },
      } satisfies ReportActionData,
      { status: 413 },
    );
  const form = await readForm(request);
  const submission = parseSubmission(DisputeReportSchema, form);
  if (submission.status !== "success")
    return data({ ok: false, reply: replyTo(submission, { hideFields: HIDDEN }) } satisfies ReportActionData, {
      status: 400,
    });
  const key = String(form.get("idempotency_key") ?? "");
  if (!/^[0-9a-f-]{36}$/.test(key))
    return data(
      {
        ok: false,
        reply: replyTo(submission, {
          formErrors: ["Please reload the page and send the report again."],
          hideFields: HIDDEN,
        }),
      },
      { status: 400 },
    );
  try {
    // Optional files (a receipt, a screenshot): checked by content and stored encrypted by the service.
    const attachments = Object.fromEntries(
      DISPUTE_ATTACHMENT_FIELDS.map((field) => {
        const value = form.get(field);
        return [field, value instanceof File ? value : null];
      }),
    );
    const result = await fileReport(
      { id: user.id, email: user.email },
      { ...submission.value, idempotency_key: key },
      { request_id: info.request_id, ip: info.ip },
      new Date(),
      { attachments },
    );
    if (!result.ok)
      return data(
        {
          ok: false,
          reply: replyTo(
            submission,
            result.field && (DISPUTE_ATTACHMENT_FIELDS as readonly string[]).includes(result.field)
              ? { fieldErrors: { [result.field]: [result.message] }, hideFields: HIDDEN }
              : { formErrors: [result.message], hideFields: HIDDEN },
          ),
        } satisfies ReportActionData,
        { status: refusalStatus(result.kind) },
      );
    return redirect(`/dashboard/disputes/${result.case_id}?reported=1`);
  } catch (error) {
    logger.error({ err: error }, "dispute report failed");
    return data(
      {
        ok: false,
        reply: replyTo(submission, {
          formErrors: [`We could not send your report. Please try again. Reference: ${info.request_id}`],
          hideFields: HIDDEN,
        }),
      } satisfies ReportActionData,
      { status: 500 },
    );
  }
}

const KIND_OPTIONS = DISPUTE_KINDS.map((value) => ({ value, label: DISPUTE_KIND_LABELS[value] }));

export default function ReportProblem({ loaderData, actionData }: Route.ComponentProps) {
  const { transaction, disputable, open_case, idempotency_key } = loaderData;
  const navigation = useNavigation();
  const sending = navigation.state === "submitting";
  const reply = actionData && !actionData.ok ? actionData.reply : null;
  const form = useSchemaForm(DisputeReportSchema, { id: `dispute-${idempotency_key}`, lastResult: reply });
  const problems = formMessages(reply);
  return (
    <div className="mx-auto max-w-3xl px-4 py-6 sm:px-6 lg:px-8 lg:py-10">
      <Link
        to="/dashboard/transactions"
        className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
      >
        <ArrowLeft className="size-4" aria-hidden="true" /> Transactions
      </Link>
      <h1 className="mt-3 text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">Report a problem</h1>
      <section
        aria-label="The transaction"
        className="mt-5 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6"
      >
        <dl className="grid gap-3 text-sm sm:grid-cols-2">
          <div>
            <dt className="text-slate-600">Transaction</dt>
            <dd className="font-semibold text-slate-900">{transaction.description}</dd>
          </div>
          <div>
            <dt className="text-slate-600">Amount</dt>
            <dd>
              <Amount cents={transaction.amount_cents} />
            </dd>
          </div>
          <div>
            <dt className="text-slate-600">Date</dt>
            <dd className="text-slate-900">{formatDate(transaction.effective_date)}</dd>
          </div>
          <div>
            <dt className="text-slate-600">Account · reference</dt>
            <dd className="text-slate-900">
              {transaction.account_label} · <span className="font-mono text-xs">{transaction.reference_number}</span>
            </dd>
          </div>
        </dl>
      </section>
      {open_case ? (
        <FormMessage className="mt-5" tone="info">
          You already reported this transaction.{" "}
          <Link className="font-semibold underline" to={`/dashboard/disputes/${open_case.id}`}>
            See case {open_case.number}
          </Link>
          .
        </FormMessage>
      ) : !disputable ? (
        <FormMessage className="mt-5" tone="info">
          This transaction cannot be reported online: only completed electronic transactions can. Please{" "}
          <Link className="font-semibold underline" to="/contact">
            contact us
          </Link>{" "}
          about it.
        </FormMessage>
      ) : (
        <section
          aria-labelledby="report-heading"
          className="mt-5 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6"
        >
          <h2 id="report-heading" className="text-lg font-semibold text-brand-900">
            What is wrong?
          </h2>
          <p className="mt-2 flex items-start gap-2 rounded-xl bg-accent-50 px-4 py-3 text-sm text-slate-800">
            <Info className="mt-0.5 size-4 shrink-0 text-accent-700" aria-hidden="true" />
            <span>
              We tell you what we find within 10 business days (20 for an account opened in the last 30 days). If we
              need longer, we credit the amount to your account while we finish.
            </span>
          </p>
          {problems.length > 0 ? (
            <FormMessage className="mt-4" tone="error">
              {problems[0]}
            </FormMessage>
          ) : null}
          <SchemaForm
            form={form}
            method="post"
            action={`/dashboard/disputes/new?transaction=${transaction.transaction_id}`}
            encType="multipart/form-data"
            className="mt-5 grid gap-5"
            aria-labelledby="report-heading"
          >
            <input type="hidden" name="idempotency_key" value={idempotency_key} />
            <input type="hidden" name="transaction_id" value={transaction.transaction_id} />
            <RadioGroup name="kind" label="The problem" options={KIND_OPTIONS} orientation="vertical" />
            <TextArea
              name="details"
              label="What happened"
              rows={5}
              description="The more you tell us (dates, what you expected), the faster we can help."
              maxLength={DISPUTE_DETAILS_MAX_CHARS}
              isRequired
            />
            <fieldset className="grid gap-4 sm:grid-cols-2">
              <legend className="mb-2 text-sm font-semibold text-slate-900">
                Attachments (optional): a receipt, a screenshot or a letter
              </legend>
              <FileField
                name="attachment_1"
                label="First file"
                accept="application/pdf,image/jpeg,image/png"
                description="PDF, JPEG or PNG, at most 10 MB"
              />
              <FileField
                name="attachment_2"
                label="Second file"
                accept="application/pdf,image/jpeg,image/png"
                description="PDF, JPEG or PNG, at most 10 MB"
              />
            </fieldset>
            <div className="flex justify-end">
              <Button type="submit" size="lg" isPending={sending} pendingLabel="Sending…" className="w-full sm:w-auto">
                Send report
              </Button>
            </div>
          </SchemaForm>
        </section>
      )}
    </div>
  );
}
