import { useEffect, useRef, useState } from "react";
import { data, Form, redirect, useNavigation } from "react-router";
import { KeyRound } from "lucide-react";
import type { Route } from "./+types/change-password";
import { institution } from "~/config/institution.server";
import { requestInfoContext } from "~/context";
import { PASSWORD_MIN_CHARS } from "~/domain/password";
import { safeRedirectTo } from "~/domain/redirect-to";
import { changePasswordSchema } from "~/domain/settings";
import { getAuth } from "~/server/auth/auth.server";
import { currentPasswordLockedMessage } from "~/server/auth/current-password.server";
import { mustChangePassword, replaceTemporaryPassword } from "~/server/auth/password-change.server";
import { requestMeta, setCookieHeaders } from "~/server/auth/request-meta.server";
import { destinationAfterSignIn, requireUser } from "~/server/auth/session.server";
import { parseForm, readForm, type FieldErrors } from "~/server/http/form.server";
import { pageTitle } from "~/components/site/page-title";
import { AuthCard, AuthShell } from "~/components/auth/auth-shell";
import { SessionTimeout } from "~/components/session/session-timeout";
import { Button, FormErrors, FormMessage, TextField, useFocusFirstInvalid, issuesToFieldErrors } from "~/components/ui";

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

const SIGNED_IN = ["user", "admin", "reviewer"] as const;
const WRONG_TEMPORARY = "The temporary password is not correct.";
const SAME_PASSWORD = "Your new password must be different from the temporary password.";

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireUser(request, { roles: SIGNED_IN, allowTemporaryPassword: true });
  const redirect_to = safeRedirectTo(new URL(request.url).searchParams.get("redirectTo"));
  const { db } = await getAuth();
  // Nothing to change (already done, or never temporary): on to their home.
  if (!(await mustChangePassword(db, user.id))) throw redirect(destinationAfterSignIn(user, redirect_to));
  const profile = institution();
  return {
    email: user.email,
    redirect_to,
    support: { email: profile.support_email, phone: profile.support_phone },
    session: { expires_in_ms: user.expires_in_ms, ends_absolutely: user.ends_absolutely },
  };
}

type ActionResult = { errors?: FieldErrors; form_error?: string };

export async function action({ request, context }: Route.ActionArgs) {
  const user = await requireUser(request, { roles: SIGNED_IN, allowTemporaryPassword: true });
  const { request_id, ip } = context.get(requestInfoContext);
  const form = await readForm(request);
  const redirect_to = safeRedirectTo(form.get("redirectTo"));
  const parsed = parseForm(changePasswordSchema, form);
  if (!parsed.ok) return data({ errors: parsed.errors } satisfies ActionResult, { status: 400 });
  const { db } = await getAuth();
  const result = await replaceTemporaryPassword(db, requestMeta(request, ip), user, parsed.value, { request_id });
  switch (result.status) {
    case "changed":
      throw redirect(destinationAfterSignIn(user, redirect_to), { headers: setCookieHeaders(result.set_cookies) });
    case "not_required":
      throw redirect(destinationAfterSignIn(user, redirect_to));
    case "wrong_password":
      return data({ errors: { current_password: WRONG_TEMPORARY } } satisfies ActionResult, { status: 400 });
    case "locked":
      return data({ errors: { current_password: currentPasswordLockedMessage(result.retry_after_s) } } satisfies ActionResult, {
        status: 429,
        headers: { "Retry-After": String(result.retry_after_s) },
      });
    case "same_password":
      return data({ errors: { new_password: SAME_PASSWORD } } satisfies ActionResult, { status: 400 });
    case "not_allowed":
      return data({ form_error: "This sign-in cannot change its password. Please contact us." } satisfies ActionResult, { status: 403 });
    case "failed":
      return data({ form_error: "We could not change your password. Please try again." } satisfies ActionResult, { status: 500 });
  }
}

export default function ChangePassword({ loaderData, actionData }: Route.ComponentProps) {
  const result = actionData as ActionResult | undefined;
  const navigation = useNavigation();
  const formRef = useRef<HTMLFormElement>(null);
  const messageRef = useRef<HTMLDivElement>(null);
  const [clientErrors, setClientErrors] = useState<FieldErrors | null>(null);
  const errors = clientErrors ?? result?.errors ?? null;
  useFocusFirstInvalid(formRef, errors);
  useEffect(() => {
    if (result?.form_error) messageRef.current?.focus();
  }, [result]);

  const onSubmit = (event: React.FormEvent<HTMLFormElement>) => {
    const entries = Object.fromEntries([...new FormData(event.currentTarget).entries()].filter(([, v]) => typeof v === "string"));
    const check = changePasswordSchema.safeParse(entries);
    if (check.success) {
      if (check.data.current_password !== check.data.new_password) return setClientErrors(null);
      event.preventDefault();
      return setClientErrors({ new_password: SAME_PASSWORD });
    }
    event.preventDefault();
    setClientErrors(issuesToFieldErrors(check.error.issues));
  };

  const submitting = navigation.state === "submitting" && navigation.formAction?.startsWith("/change-password");
  return (
    <AuthShell support={loaderData.support}>
      <SessionTimeout expiresInMs={loaderData.session.expires_in_ms} endsAbsolutely={loaderData.session.ends_absolutely} />
      <AuthCard>
        <span className="flex size-12 items-center justify-center rounded-xl bg-brand-50 text-brand-700">
          <KeyRound className="size-6" aria-hidden="true" />
        </span>
        <h1 className="mt-4 text-3xl font-semibold tracking-tight text-brand-800">Choose a new password</h1>
        <p className="mt-2 text-slate-700">
          Your account <span className="font-medium break-words text-slate-900">{loaderData.email}</span> was opened with a temporary password. Before you continue, replace it with a
          password only you know.
        </p>
        {result?.form_error ? (
          <FormMessage ref={messageRef} tone="error" className="mt-6">
            {result.form_error}
          </FormMessage>
        ) : null}
        <FormErrors errors={errors}>
          <Form ref={formRef} method="post" noValidate onSubmit={onSubmit} className="mt-6 space-y-5" aria-label="Choose a new password">
            {loaderData.redirect_to ? <input type="hidden" name="redirectTo" value={loaderData.redirect_to} /> : null}
            <TextField name="current_password" label="Temporary password" type="password" autoComplete="current-password" isRequired autoFocus />
            <TextField
              name="new_password"
              label="New password"
              type="password"
              autoComplete="new-password"
              isRequired
              description={`At least ${PASSWORD_MIN_CHARS} characters, not a common password. A few unrelated words are long and easy to remember.`}
            />
            <TextField name="confirm_password" label="Confirm new password" type="password" autoComplete="new-password" isRequired />
            <Button type="submit" size="lg" isPending={submitting} pendingLabel="Saving…" className="w-full">
              Save new password
            </Button>
          </Form>
        </FormErrors>
        <p className="mt-6 border-t border-slate-200 pt-5 text-sm text-slate-700">Saving signs you out on every other device.</p>
        <Form method="post" action="/logout" className="mt-3">
          <Button type="submit" variant="secondary" className="w-full">
            Sign out instead
          </Button>
        </Form>
      </AuthCard>
    </AuthShell>
  );
}
