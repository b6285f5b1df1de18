import { useEffect, useRef } from "react";
import { data, Form, redirect, useNavigation } from "react-router";
import { CheckCircle2, Circle, Clock, FileText, LogOut, MessageSquareWarning } from "lucide-react";
import { z } from "zod";
import { plainText } from "~/domain/plain-text";
import type { Route } from "./+types/pending-approval";
import { institution } from "~/config/institution.server";
import { requestInfoContext } from "~/context";
import {
  ID_DOCUMENT_ACCEPT,
  ID_TYPE_OPTIONS,
  INFO_ANSWER_MAX_CHARS as ANSWER_MAX_CHARS,
  idDocumentProblem,
} from "~/domain/membership-application";
import { requireApplicant } from "~/server/auth/session.server";
import { hitRateLimit } from "~/server/rate-limit/rate-limit.server";
import { RATE_LIMITS } from "~/server/auth/rate-limits.server";
import { parseSubmission, readForm, replyTo, type FormReply } from "~/server/http/form.server";
import { rateLimitedMessage } from "~/domain/sign-in";
import { pageTitle } from "~/components/site/page-title";
import { FileField } from "~/components/auth/file-field";
import { SessionTimeout } from "~/components/session/session-timeout";
import { Button, FormMessage, SchemaForm, TextArea, formMessages, useSchemaForm } from "~/components/ui";
import { useInstitutionDates } from "~/components/institution-dates";
import { answerInfoRequest, getApplicantOverview } from "./pending-approval.server";

/**
 * The applicant's status page (docs/product.md#after-applying): under review, what happens next,
 * and any request for more information from staff with a form to answer it (text and an optional
 * new document).
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Application status", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireApplicant(request, "pending");
  const overview = await getApplicantOverview(user.id);
  const profile = institution();
  const url = new URL(request.url);
  return {
    email: user.email,
    session: { expires_in_ms: user.expires_in_ms, ends_absolutely: user.ends_absolutely },
    answered: url.searchParams.get("answered") === "1",
    support_email: profile.support_email,
    application: overview
      ? {
          first_name: overview.first_name,
          submitted_at: overview.submitted_at.toISOString(),
          document_status: overview.document_status,
          date_of_birth_masked: overview.date_of_birth_masked,
          id_number_masked: overview.id_number_masked,
          taxpayer_ids_masked: overview.taxpayer_ids_masked,
          id_type: ID_TYPE_OPTIONS.find((o) => o.value === overview.id_type)?.label ?? null,
          info_requests: overview.info_requests.map((r) => ({
            ...r,
            requested_at: r.requested_at.toISOString(),
            answered_at: r.answered_at?.toISOString() ?? null,
          })),
        }
      : null,
  };
}

const AnswerSchema = z.object({
  request_id: z.coerce.number().int().positive(),
  answer: plainText({ missing: "Please write your answer", multiline: true })
    .min(1, "Please write your answer")
    .max(ANSWER_MAX_CHARS, `Please use at most ${ANSWER_MAX_CHARS.toLocaleString("en-US")} characters`),
  // Optional; when chosen, its size and type are checked before it is sent (its content when stored).
  document: z.unknown().superRefine((file, ctx) => {
    const problem = file instanceof File && file.size > 0 ? idDocumentProblem(file) : null;
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  }),
});

type ActionResult = { reply: FormReply };

export async function action({ request, context }: Route.ActionArgs) {
  const user = await requireApplicant(request, "pending");
  const { ip } = context.get(requestInfoContext);
  const form = await readForm(request);
  const submission = parseSubmission(AnswerSchema, form);
  if (submission.status !== "success")
    return data({ reply: replyTo(submission) } satisfies ActionResult, { status: 400 });
  const refuse = (messages: { fieldErrors?: Record<string, string[]>; formErrors?: string[] }): ActionResult => ({
    reply: replyTo(submission, messages),
  });
  const limit = await hitRateLimit({ key: `info-answer:ip:${ip}`, ...RATE_LIMITS.info_answer });
  if (!limit.allowed) return data(refuse({ formErrors: [rateLimitedMessage(limit.retry_after_s)] }), { status: 429 });
  const document = form.get("document");
  const result = await answerInfoRequest({
    user_id: user.id,
    request_id: submission.value.request_id,
    text: submission.value.answer,
    document: document instanceof File && document.size > 0 ? document : null,
  });
  switch (result.status) {
    case "answered":
      throw redirect("/pending-approval?answered=1");
    case "document_rejected":
      return data(refuse({ fieldErrors: { document: [result.message] } }), { status: 400 });
    case "not_found":
      return data(
        {
          reply: replyTo(submission, {
            formErrors: ["This request has already been answered."],
            hideFields: ["answer"],
          }),
        } satisfies ActionResult,
        { status: 409 },
      );
    case "failed":
      return data(refuse({ formErrors: ["We could not send your answer. Please try again."] }), { status: 500 });
  }
}

export default function PendingApproval({ loaderData, actionData }: Route.ComponentProps) {
  const formatDate = useInstitutionDates().formatProseDate;
  const result = actionData as ActionResult | undefined;
  const { application } = loaderData;
  const openRequest = application?.info_requests.find((r) => r.status === "pending") ?? null;
  const answered = application?.info_requests.filter((r) => r.status === "answered") ?? [];
  return (
    <div className="bg-gradient-to-b from-brand-50 via-slate-50 to-slate-50">
      <SessionTimeout
        expiresInMs={loaderData.session.expires_in_ms}
        endsAbsolutely={loaderData.session.ends_absolutely}
      />
      <section className="mx-auto max-w-4xl px-4 py-10 sm:px-6 sm:py-14">
        <div className="flex flex-wrap items-center justify-between gap-4">
          <p className="text-sm text-slate-700">
            Signed in as <span className="font-semibold break-all text-slate-900">{loaderData.email}</span>
          </p>
          <Form method="post" action="/logout">
            <Button type="submit" variant="secondary">
              <LogOut className="size-4" aria-hidden="true" /> Sign out
            </Button>
          </Form>
        </div>

        <div className="mt-6 rounded-2xl border border-slate-200 bg-white p-6 shadow-lg shadow-brand-900/5 sm:p-10">
          <span className="flex size-14 items-center justify-center rounded-2xl bg-amber-100 text-amber-900">
            <Clock className="size-7" aria-hidden="true" />
          </span>
          <h1 className="mt-5 text-3xl font-semibold tracking-tight text-brand-800 sm:text-4xl">
            Your application is under review
          </h1>
          <p className="mt-3 max-w-2xl text-lg text-slate-700">
            {application ? `Thank you, ${application.first_name}. ` : ""}We usually review applications within 1–2
            business days. We will send an email to{" "}
            <span className="font-semibold break-all text-slate-900">{loaderData.email}</span> once your account is
            approved.
          </p>

          {loaderData.answered ? (
            <FormMessage tone="success" title="Answer sent" className="mt-6">
              Thank you. Your answer is back with our review team.
            </FormMessage>
          ) : null}

          {openRequest ? <InfoRequest request={openRequest} result={result} /> : null}

          <h2 className="mt-10 text-lg font-semibold text-brand-800">Where your application stands</h2>
          <ol className="mt-4 grid gap-3 sm:grid-cols-3">
            <Stage
              done
              title="Application received"
              detail={application ? formatDate(application.submitted_at) : undefined}
            />
            <Stage
              current
              title={openRequest ? "Waiting for your answer" : "Under review"}
              detail={openRequest ? "See the request above" : "Identity and documents"}
            />
            <Stage title="Approved" detail="Your accounts open" />
          </ol>

          <h2 className="mt-10 text-lg font-semibold text-brand-800">Next steps</h2>
          <ul className="mt-4 space-y-3 text-slate-700">
            <li className="flex gap-3">
              <CheckCircle2 className="mt-0.5 size-5 shrink-0 text-accent-700" aria-hidden="true" />
              Our team reviews and verifies the information and the ID document you sent.
            </li>
            <li className="flex gap-3">
              <CheckCircle2 className="mt-0.5 size-5 shrink-0 text-accent-700" aria-hidden="true" />
              You receive an email notification as soon as a decision is made.
            </li>
            <li className="flex gap-3">
              <CheckCircle2 className="mt-0.5 size-5 shrink-0 text-accent-700" aria-hidden="true" />
              Once approved, you can sign in and use all banking features.
            </li>
          </ul>

          {application ? (
            <>
              <h2 className="mt-10 text-lg font-semibold text-brand-800">What you sent us</h2>
              <dl className="mt-4 grid gap-4 rounded-xl bg-slate-50 p-5 text-sm sm:grid-cols-3">
                <div>
                  <dt className="text-slate-600">Date of birth</dt>
                  <dd className="tabular mt-1 font-medium text-slate-900">{application.date_of_birth_masked ?? "—"}</dd>
                </div>
                <div>
                  <dt className="text-slate-600">{application.id_type ?? "ID"} number</dt>
                  <dd className="tabular mt-1 font-medium text-slate-900">{application.id_number_masked ?? "—"}</dd>
                </div>
                {application.taxpayer_ids_masked.length ? (
                  <div>
                    <dt className="text-slate-600">Taxpayer number</dt>
                    {application.taxpayer_ids_masked.map((shown) => (
                      <dd key={shown} className="tabular mt-1 font-medium text-slate-900">
                        {shown}
                      </dd>
                    ))}
                  </div>
                ) : null}
                <div>
                  <dt className="text-slate-600">Document check</dt>
                  <dd className="mt-1 font-medium text-slate-900">{DOCUMENT_STATUS[application.document_status]}</dd>
                </div>
              </dl>
              <p className="mt-2 text-xs text-slate-600">
                Personal numbers are stored encrypted and only ever shown partly hidden.
              </p>
            </>
          ) : null}

          {answered.length ? (
            <>
              <h2 className="mt-10 text-lg font-semibold text-brand-800">Your earlier answers</h2>
              <ul className="mt-4 space-y-3">
                {answered.map((r) => (
                  <li key={r.id} className="rounded-xl border border-slate-200 p-4 text-sm">
                    <p className="text-slate-600">We asked on {formatDate(r.requested_at)}:</p>
                    <p className="mt-1 text-slate-900">{r.message}</p>
                    <p className="mt-3 text-slate-600">
                      You answered{r.answered_at ? ` on ${formatDate(r.answered_at)}` : ""}:
                    </p>
                    <p className="mt-1 whitespace-pre-wrap text-slate-900">{r.answer_text}</p>
                  </li>
                ))}
              </ul>
            </>
          ) : null}

          <p className="mt-10 border-t border-slate-100 pt-6 text-sm text-slate-700">
            Questions about your application? Email{" "}
            <a
              href={`mailto:${loaderData.support_email}`}
              className="font-semibold text-accent-700 underline underline-offset-2"
            >
              {loaderData.support_email}
            </a>
            .
          </p>
        </div>
      </section>
    </div>
  );
}

const DOCUMENT_STATUS: Record<string, string> = {
  pending: "Waiting for review",
  info_requested: "More information needed",
  verified: "Verified",
  rejected: "Not accepted",
};

function Stage({
  title,
  detail,
  done,
  current,
}: {
  title: string;
  detail?: string;
  done?: boolean;
  current?: boolean;
}) {
  return (
    <li
      className={`flex gap-3 rounded-xl border p-4 ${current ? "border-accent-600 bg-accent-50" : "border-slate-200 bg-white"}`}
      aria-current={current ? "step" : undefined}
    >
      {done ? (
        <CheckCircle2 className="mt-0.5 size-5 shrink-0 text-accent-700" aria-hidden="true" />
      ) : current ? (
        <Clock className="mt-0.5 size-5 shrink-0 text-accent-700" aria-hidden="true" />
      ) : (
        <Circle className="mt-0.5 size-5 shrink-0 text-slate-400" aria-hidden="true" />
      )}
      <span>
        <span className="block font-semibold text-slate-900">
          {title}
          <span className="sr-only">{done ? " (done)" : current ? " (current step)" : " (to come)"}</span>
        </span>
        {detail ? <span className="mt-0.5 block text-sm text-slate-600">{detail}</span> : null}
      </span>
    </li>
  );
}

function InfoRequest({
  request,
  result,
}: {
  request: { id: number; message: string; requested_at: string };
  result: ActionResult | undefined;
}) {
  const formatDate = useInstitutionDates().formatProseDate;
  const navigation = useNavigation();
  const messageRef = useRef<HTMLDivElement>(null);
  const [formError] = formMessages(result?.reply);
  const form = useSchemaForm(AnswerSchema, { lastResult: result?.reply });
  useEffect(() => {
    if (formError) messageRef.current?.focus();
  }, [result, formError]);

  return (
    <section
      aria-labelledby="info-request-heading"
      className="mt-8 rounded-2xl border border-amber-300 bg-amber-50 p-5 sm:p-6"
    >
      <h2 id="info-request-heading" className="flex items-center gap-2 text-lg font-semibold text-amber-950">
        <MessageSquareWarning className="size-5" aria-hidden="true" /> We need a little more information
      </h2>
      <p className="mt-1 text-sm text-amber-950">Requested on {formatDate(request.requested_at)}:</p>
      <blockquote className="mt-3 rounded-lg border-l-4 border-amber-400 bg-white px-4 py-3 text-slate-900">
        {request.message}
      </blockquote>
      {formError ? (
        <FormMessage ref={messageRef} tone="error" className="mt-4">
          {formError}
        </FormMessage>
      ) : null}
      <SchemaForm
        form={form}
        method="post"
        encType="multipart/form-data"
        className="mt-5 space-y-5"
        aria-labelledby="info-request-heading"
      >
        <input type="hidden" name="request_id" value={request.id} />
        <TextArea name="answer" label="Your answer" rows={4} maxLength={ANSWER_MAX_CHARS} isRequired />
        <FileField
          name="document"
          label="A new document"
          optional
          accept={ID_DOCUMENT_ACCEPT}
          description={
            <span className="inline-flex items-center gap-1">
              <FileText className="size-4" aria-hidden="true" /> JPEG, PNG, WebP or PDF, up to 10 MB. Seen only by our
              staff.
            </span>
          }
        />
        <Button type="submit" isPending={navigation.state === "submitting"} pendingLabel="Sending…">
          Send answer
        </Button>
      </SchemaForm>
    </section>
  );
}
