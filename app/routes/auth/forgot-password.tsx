import { useEffect, useRef } from "react";
import { data, Link, useNavigation } from "react-router";
import { ArrowLeft, MailCheck } from "lucide-react";
import type { Route } from "./+types/forgot-password";
import { institution } from "~/config/institution.server";
import { requestInfoContext } from "~/context";
import { FORGOT_PASSWORD_SENT } from "~/domain/sign-in-messages";
import { forgotPasswordSchema } from "~/domain/sign-in";
import { requestMeta } from "~/server/auth/request-meta.server";
import {
  parseSubmission,
  readForm,
  refusalHeaders,
  refusalStatus,
  replyTo,
  type FormReply,
} from "~/server/http/form.server";
import { pageTitle } from "~/components/site/page-title";
import { AuthCard, AuthShell } from "~/components/auth/auth-shell";
import { Button, FormMessage, SchemaForm, TextField, formMessages, useSchemaForm } from "~/components/ui";
import { requestPasswordReset } from "./forgot-password.server";

/**
 * "Forgot password?" (docs/product.md#passwords): sends a single-use link valid 30 minutes. The
 * answer is the same whether or not the address has an account.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [
    ...pageTitle("Reset your password", matches),
    {
      name: "description",
      content: "Forgot your online banking password? Enter your email and we will send you a link to choose a new one.",
    },
  ];
}

export function loader() {
  const profile = institution();
  return { demo: profile.demo, support: { email: profile.support_email, phone: profile.support_phone } };
}

type ActionResult = { status: "sent"; reply: FormReply } | { status: "invalid" | "rate_limited"; reply: FormReply };

export async function action({ request, context }: Route.ActionArgs) {
  const { ip, request_id } = context.get(requestInfoContext);
  const form = await readForm(request);
  const submission = parseSubmission(forgotPasswordSchema, form);
  if (submission.status !== "success")
    return data({ status: "invalid", reply: replyTo(submission) } satisfies ActionResult, { status: 400 });
  const result = await requestPasswordReset(requestMeta(request, ip), submission.value.email, { request_id });
  if (!result.ok) {
    return data(
      { status: "rate_limited", reply: replyTo(submission, { formErrors: [result.message] }) } satisfies ActionResult,
      { status: refusalStatus(result.kind), headers: refusalHeaders(result) },
    );
  }
  return { status: "sent", reply: replyTo(submission) } satisfies ActionResult;
}

/** The browser loads the schema once the page is up (the action uses the same one), so that the page draws without waiting for Zod. */
const forgotPasswordChecks = () => import("~/domain/sign-in").then((module) => module.forgotPasswordSchema);

export default function ForgotPassword({ loaderData, actionData }: Route.ComponentProps) {
  const result = actionData as ActionResult | undefined;
  const navigation = useNavigation();
  const sending = navigation.state === "submitting";
  const messageRef = useRef<HTMLDivElement>(null);
  const form = useSchemaForm(forgotPasswordChecks, { lastResult: result?.reply });
  const [formMessage] = formMessages(result?.reply);
  useEffect(() => {
    if (result && result.status !== "invalid") messageRef.current?.focus();
  }, [result]);

  return (
    <AuthShell support={loaderData.support}>
      <AuthCard>
        <h1 className="text-3xl font-semibold tracking-tight text-brand-800">Reset your password</h1>
        {result?.status === "sent" ? (
          <>
            <FormMessage ref={messageRef} tone="success" title="Check your email" className="mt-6">
              {FORGOT_PASSWORD_SENT}
            </FormMessage>
            <p className="mt-4 flex gap-2 text-sm text-slate-700">
              <MailCheck className="mt-0.5 size-4 shrink-0 text-slate-600" aria-hidden="true" />
              <span>
                Nothing after a few minutes? Check your spam folder, or ask again. For your security, we send at most
                three links an hour.
              </span>
            </p>
            {loaderData.demo ? (
              <p className="mt-3 text-sm text-slate-700">
                Demo: mail to fictional addresses appears in the{" "}
                <Link to="/demo/inbox" className="font-semibold text-accent-700 underline underline-offset-2">
                  demo inbox
                </Link>
                . The published demo sign-ins cannot be reset.
              </p>
            ) : null}
          </>
        ) : (
          <>
            <p className="mt-2 text-slate-700">
              Enter the email address you use for online banking. If it belongs to an account, we will send a link to
              choose a new password.
            </p>
            {formMessage ? (
              <FormMessage ref={messageRef} tone="error" className="mt-6">
                {formMessage}
              </FormMessage>
            ) : null}
            <SchemaForm form={form} method="post" className="mt-6 space-y-5" aria-label="Reset your password">
              <TextField name="email" label="Email address" type="email" autoComplete="email" isRequired autoFocus />
              <Button type="submit" size="lg" isPending={sending} pendingLabel="Sending…" className="w-full">
                Send reset link
              </Button>
            </SchemaForm>
          </>
        )}
        <p className="mt-6 border-t border-slate-100 pt-6 text-sm">
          <Link
            to="/login"
            className="inline-flex items-center gap-1 font-semibold text-accent-700 underline-offset-2 hover:underline"
          >
            <ArrowLeft className="size-4" aria-hidden="true" /> Back to sign in
          </Link>
        </p>
      </AuthCard>
    </AuthShell>
  );
}
