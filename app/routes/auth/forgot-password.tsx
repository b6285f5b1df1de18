import { useEffect, useRef, useState } from "react";
import { data, Form, Link, useNavigation } from "react-router";
import { ArrowLeft, MailCheck } from "lucide-react";
import type { Route } from "./+types/forgot-password";
import { institution } from "~/config/institution.server";
import { requestInfoContext } from "~/context";
import { FORGOT_PASSWORD_SENT, forgotPasswordSchema, rateLimitedMessage } from "~/domain/sign-in";
import { getAuth } from "~/server/auth/auth.server";
import { requestPasswordReset } from "~/server/auth/password.server";
import { requestMeta } from "~/server/auth/request-meta.server";
import { parseForm, readForm, type FieldErrors } from "~/server/http/form.server";
import { pageTitle } from "~/components/site/page-title";
import { AuthCard, AuthShell } from "~/components/auth/auth-shell";
import { Button, FormErrors, FormMessage, TextField, useFocusFirstInvalid, issuesToFieldErrors } from "~/components/ui";

/**
 * "Forgot password?" (docs/product.md#passwords): sends a single-use link valid 30 minutes. The
 * answer is the same whether or not the address has an account.
 */
export function meta({ matches }: Route.MetaArgs) {
  return pageTitle("Reset your password", matches);
}

export function loader() {
  const profile = institution();
  return { demo: profile.demo, support: { email: profile.support_email, phone: profile.support_phone } };
}

type ActionResult = { status: "sent" } | { status: "invalid"; errors: FieldErrors; email: string } | { status: "rate_limited"; message: string; email: string };

export async function action({ request, context }: Route.ActionArgs) {
  const { ip, request_id } = context.get(requestInfoContext);
  const form = await readForm(request);
  const parsed = parseForm(forgotPasswordSchema, form);
  if (!parsed.ok) return data({ status: "invalid", errors: parsed.errors, email: parsed.values.email ?? "" } satisfies ActionResult, { status: 400 });
  const { db } = await getAuth();
  const result = await requestPasswordReset(db, requestMeta(request, ip), parsed.value.email, { request_id });
  if (result.status === "rate_limited") {
    return data({ status: "rate_limited", message: rateLimitedMessage(result.retry_after_s), email: parsed.value.email } satisfies ActionResult, {
      status: 429,
      headers: { "Retry-After": String(result.retry_after_s) },
    });
  }
  return { status: "sent" } satisfies ActionResult;
}

export default function ForgotPassword({ loaderData, actionData }: Route.ComponentProps) {
  const result = actionData as ActionResult | undefined;
  const navigation = useNavigation();
  const sending = navigation.state === "submitting";
  const formRef = useRef<HTMLFormElement>(null);
  const messageRef = useRef<HTMLDivElement>(null);
  const [clientErrors, setClientErrors] = useState<FieldErrors | null>(null);
  const errors = clientErrors ?? (result?.status === "invalid" ? result.errors : null);
  useFocusFirstInvalid(formRef, errors);
  useEffect(() => {
    if (result && result.status !== "invalid") messageRef.current?.focus();
  }, [result]);

  const onSubmit = (event: React.FormEvent<HTMLFormElement>) => {
    const check = forgotPasswordSchema.safeParse({ email: new FormData(event.currentTarget).get("email") });
    if (check.success) return setClientErrors(null);
    event.preventDefault();
    setClientErrors(issuesToFieldErrors(check.error.issues));
  };

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
              <span>Nothing after a few minutes? Check your spam folder, or ask again. For your security, we send at most three links an hour.</span>
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
            <p className="mt-2 text-slate-700">Enter the email address you use for online banking. If it belongs to an account, we will send a link to choose a new password.</p>
            {result?.status === "rate_limited" ? (
              <FormMessage ref={messageRef} tone="error" className="mt-6">
                {result.message}
              </FormMessage>
            ) : null}
            <FormErrors errors={errors}>
              <Form ref={formRef} method="post" noValidate onSubmit={onSubmit} className="mt-6 space-y-5" aria-label="Reset your password">
                <TextField name="email" label="Email address" type="email" autoComplete="email" defaultValue={result && "email" in result ? result.email : ""} isRequired autoFocus />
                <Button type="submit" size="lg" isPending={sending} pendingLabel="Sending…" className="w-full">
                  Send reset link
                </Button>
              </Form>
            </FormErrors>
          </>
        )}
        <p className="mt-6 border-t border-slate-100 pt-6 text-sm">
          <Link to="/login" className="inline-flex items-center gap-1 font-semibold text-accent-700 underline-offset-2 hover:underline">
            <ArrowLeft className="size-4" aria-hidden="true" /> Back to sign in
          </Link>
        </p>
      </AuthCard>
    </AuthShell>
  );
}
