import { useEffect, useRef } from "react";
import { data, Link, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/reset-password";
import { institution } from "~/config/institution.server";
import { requestInfoContext } from "~/context";
import { PASSWORD_MIN_CHARS } from "~/domain/password";
import { RESET_LINK_INVALID, resetPasswordSchema } from "~/domain/sign-in";
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
import { completePasswordReset, resetTokenIsLive } from "./reset-password.server";

/**
 * Choosing a new password from an emailed link (docs/product.md#passwords): the link works once and
 * for 30 minutes. A new password ends every session, then the person signs in again.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [
    ...pageTitle("Choose a new password", matches),
    { name: "robots", content: "noindex" },
    { name: "referrer", content: "no-referrer" },
  ];
}

export async function loader({ request }: Route.LoaderArgs) {
  const token = new URL(request.url).searchParams.get("token") ?? "";
  const profile = institution();
  return {
    token,
    live: token ? await resetTokenIsLive(token) : false,
    support: { email: profile.support_email, phone: profile.support_phone },
  };
}

type ActionResult = { status: "invalid" | "error"; reply: FormReply; link_dead?: boolean };

export async function action({ request, context }: Route.ActionArgs) {
  const { ip, request_id } = context.get(requestInfoContext);
  const form = await readForm(request);
  const submission = parseSubmission(resetPasswordSchema, form);
  if (submission.status !== "success")
    return data({ status: "invalid", reply: replyTo(submission) } satisfies ActionResult, { status: 400 });
  const result = await completePasswordReset(
    requestMeta(request, ip),
    { token: submission.value.token, password: submission.value.password },
    { request_id },
  );
  if (result.ok) throw redirect("/login?notice=reset");
  return data(
    {
      status: "error",
      reply: replyTo(submission, { formErrors: [result.message] }),
      ...(result.code === "invalid_link" ? { link_dead: true } : {}),
    } satisfies ActionResult,
    // Too many attempts (429) says when to try again, as every rate-limited answer does.
    { status: refusalStatus(result.kind), headers: refusalHeaders(result) },
  );
}

export default function ResetPassword({ loaderData, actionData }: Route.ComponentProps) {
  const result = actionData as ActionResult | undefined;
  const navigation = useNavigation();
  const messageRef = useRef<HTMLDivElement>(null);
  const form = useSchemaForm(resetPasswordSchema, { lastResult: result?.reply });
  const [formMessage] = formMessages(result?.reply);
  useEffect(() => {
    if (result?.status === "error") messageRef.current?.focus();
  }, [result]);

  const dead = !loaderData.live || (result?.status === "error" && result.link_dead);
  return (
    <AuthShell support={loaderData.support}>
      <AuthCard>
        <h1 className="text-3xl font-semibold tracking-tight text-brand-800">Choose a new password</h1>
        {dead ? (
          <>
            <FormMessage ref={messageRef} tone="error" className="mt-6" announce={Boolean(result)}>
              {RESET_LINK_INVALID}
            </FormMessage>
            <Link
              to="/forgot-password"
              className="mt-6 inline-flex w-full items-center justify-center rounded-lg bg-brand-700 px-6 py-3 font-semibold text-white shadow-sm hover:bg-brand-800"
            >
              Ask for a new link
            </Link>
          </>
        ) : (
          <>
            <p className="mt-2 text-slate-700">
              At least {PASSWORD_MIN_CHARS} characters. A few unrelated words make a password that is long and easy to
              remember. Changing it signs you out everywhere.
            </p>
            {formMessage ? (
              <FormMessage ref={messageRef} tone="error" className="mt-6">
                {formMessage}
              </FormMessage>
            ) : null}
            <SchemaForm form={form} method="post" className="mt-6 space-y-5" aria-label="Choose a new password">
              <input type="hidden" name="token" value={loaderData.token} />
              <TextField
                name="password"
                label="New password"
                type="password"
                autoComplete="new-password"
                isRequired
                autoFocus
              />
              <TextField
                name="confirm_password"
                label="Confirm new password"
                type="password"
                autoComplete="new-password"
                isRequired
              />
              <Button
                type="submit"
                size="lg"
                isPending={navigation.state === "submitting"}
                pendingLabel="Saving…"
                className="w-full"
              >
                Save new password
              </Button>
            </SchemaForm>
          </>
        )}
      </AuthCard>
    </AuthShell>
  );
}
