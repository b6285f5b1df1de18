import { useEffect, useRef } from "react";
import { data, Form, redirect, useNavigation } from "react-router";
import { KeyRound } from "lucide-react";
import type { Route } from "./+types/change-password";
import { institution } from "~/config/institution.server";
import { requestInfoContext } from "~/context";
import { PASSWORD_MIN_CHARS, SAME_AS_TEMPORARY_PASSWORD } from "~/domain/password";
import { safeRedirectTo } from "~/domain/redirect-to";
import { changePasswordSchema } from "~/domain/settings";
import { requestMeta, setCookieHeaders } from "~/server/auth/request-meta.server";
import { destinationAfterSignIn, requireUser } from "~/server/auth/session.server";
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
import { SessionTimeout } from "~/components/session/session-timeout";
import {
  Button,
  CurrentPasswordField,
  FormMessage,
  SchemaForm,
  TextField,
  formMessages,
  useSchemaForm,
} from "~/components/ui";
import { mustChangePassword, replaceTemporaryPassword } from "./change-password.server";

/**
 * "Choose a new password" (docs/product.md#passwords): a member (or staff account) opened by staff
 * signs in with a temporary password and lands here; every other signed-in page and action sends
 * them here until the temporary password is replaced (requireUser). The new password follows the
 * password rules (docs/product.md#passwords); the change ends every other session, is audited, and
 * leads on to the dashboard (or the page they were going to). Works without JavaScript.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Choose a new password", matches), { name: "robots", content: "noindex" }];
}

const SIGNED_IN = ["user", "admin", "reviewer", "accountant"] as const;

/** The password rules, and a new password that differs from the temporary one. */
const replaceTemporarySchema = changePasswordSchema.refine((value) => value.current_password !== value.new_password, {
  message: SAME_AS_TEMPORARY_PASSWORD,
  path: ["new_password"],
});

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireUser(request, { roles: SIGNED_IN, allowTemporaryPassword: true });
  const redirect_to = safeRedirectTo(new URL(request.url).searchParams.get("redirectTo"));
  // Nothing to change (already done, or never temporary): on to their home.
  if (!(await mustChangePassword(user.id))) throw redirect(destinationAfterSignIn(user, redirect_to));
  const profile = institution();
  return {
    email: user.email,
    redirect_to,
    support: { email: profile.support_email, phone: profile.support_phone },
    session: { expires_in_ms: user.expires_in_ms, ends_absolutely: user.ends_absolutely },
  };
}

type ActionResult = { reply: FormReply };

export async function action({ request, context }: Route.ActionArgs) {
  const user = await requireUser(request, { roles: SIGNED_IN, allowTemporaryPassword: true });
  const { request_id, ip } = context.get(requestInfoContext);
  const form = await readForm(request);
  const redirect_to = safeRedirectTo(form.get("redirectTo"));
  const submission = parseSubmission(replaceTemporarySchema, form);
  if (submission.status !== "success")
    return data({ reply: replyTo(submission) } satisfies ActionResult, { status: 400 });
  const result = await replaceTemporaryPassword(requestMeta(request, ip), user, submission.value, { request_id });
  if (result.ok) {
    if (result.status === "not_required") throw redirect(destinationAfterSignIn(user, redirect_to));
    throw redirect(destinationAfterSignIn(user, redirect_to), { headers: setCookieHeaders(result.set_cookies) });
  }
  // Next to its field when the refusal names one (the temporary or the new password), else about the form.
  const messages = result.field
    ? { fieldErrors: { [result.field]: [result.message] } }
    : { formErrors: [result.message] };
  return data({ reply: replyTo(submission, messages) } satisfies ActionResult, {
    status: refusalStatus(result.kind),
    headers: refusalHeaders(result),
  });
}

export default function ChangePassword({ loaderData, actionData }: Route.ComponentProps) {
  const result = actionData as ActionResult | undefined;
  const navigation = useNavigation();
  const messageRef = useRef<HTMLDivElement>(null);
  const form = useSchemaForm(replaceTemporarySchema, { lastResult: result?.reply });
  const [formMessage] = formMessages(result?.reply);
  useEffect(() => {
    if (formMessage) messageRef.current?.focus();
  }, [result, formMessage]);

  const submitting = navigation.state === "submitting" && navigation.formAction?.startsWith("/change-password");
  return (
    <AuthShell support={loaderData.support}>
      <SessionTimeout
        expiresInMs={loaderData.session.expires_in_ms}
        endsAbsolutely={loaderData.session.ends_absolutely}
      />
      <AuthCard>
        <span className="flex size-12 items-center justify-center rounded-xl bg-brand-50 text-brand-700">
          <KeyRound className="size-6" aria-hidden="true" />
        </span>
        <h1 className="mt-4 text-3xl font-semibold tracking-tight text-brand-800">Choose a new password</h1>
        <p className="mt-2 text-slate-700">
          Your account <span className="font-medium break-words text-slate-900">{loaderData.email}</span> was opened
          with a temporary password. Before you continue, replace it with a password only you know.
        </p>
        {formMessage ? (
          <FormMessage ref={messageRef} tone="error" className="mt-6">
            {formMessage}
          </FormMessage>
        ) : null}
        <SchemaForm form={form} method="post" className="mt-6 space-y-5" aria-label="Choose a new password">
          {loaderData.redirect_to ? <input type="hidden" name="redirectTo" value={loaderData.redirect_to} /> : null}
          <CurrentPasswordField label="Temporary password" autoFocus />
          <TextField
            name="new_password"
            label="New password"
            type="password"
            autoComplete="new-password"
            isRequired
            description={`At least ${PASSWORD_MIN_CHARS} characters, not a common password. A few unrelated words are long and easy to remember.`}
          />
          <TextField
            name="confirm_password"
            label="Confirm new password"
            type="password"
            autoComplete="new-password"
            isRequired
          />
          <Button type="submit" size="lg" isPending={submitting} pendingLabel="Saving…" className="w-full">
            Save new password
          </Button>
        </SchemaForm>
        <p className="mt-6 border-t border-slate-200 pt-5 text-sm text-slate-700">
          Saving signs you out on every other device.
        </p>
        <Form method="post" action="/logout" className="mt-3">
          <Button type="submit" variant="secondary" className="w-full">
            Sign out instead
          </Button>
        </Form>
      </AuthCard>
    </AuthShell>
  );
}
