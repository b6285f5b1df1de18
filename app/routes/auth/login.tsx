import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import { data, Form, Link, redirect, useFetcher, useNavigation, useSubmit } from "react-router";
import { ArrowLeft, Fingerprint, Inbox, KeyRound, Mail, Smartphone } from "lucide-react";
import type { Route } from "./+types/login";
import { institution } from "~/config/institution.server";
import { requestInfoContext } from "~/context";
import { safeRedirectTo } from "~/domain/redirect-to";
import { UNKNOWN_INTENT_MESSAGE, formIntent } from "~/domain/form-intent";
import {
  OTP_TOO_MANY,
  PASSKEY_CANCELLED,
  SIGN_IN_EXPIRED,
  STAFF_PASSKEY_REQUIRED,
  keepCodeDigits,
  lockedMessage,
} from "~/domain/sign-in-messages";
import type { Refusal } from "~/domain/refusals";
import { codeSchema, signInSchema } from "~/domain/sign-in";
import { demoSignInsForLogin } from "~/server/auth/demo-info.server";
import { rememberEmailHeader, rememberedEmail } from "~/server/auth/remember-email.server";
import { requestMeta, setCookieHeaders } from "~/server/auth/request-meta.server";
import { destinationAfterSignIn, redirectIfSignedIn } from "~/server/auth/session.server";
import {
  formReply,
  parseSubmission,
  readForm,
  refusalHeaders,
  refusalStatus,
  replyTo,
  type FormReply,
} from "~/server/http/form.server";
import type { SignedIn } from "~/server/auth/sign-in.server";
import { pageTitle } from "~/components/site/page-title";
import { AuthCard, AuthShell } from "~/components/auth/auth-shell";
import { Button, Checkbox, FormMessage, SchemaForm, TextField, formMessages, useSchemaForm } from "~/components/ui";
import {
  codesAreEmailed,
  endSignInStep,
  getSignInStep,
  passkeySignInOptions,
  signInWithPasskey,
  startSignIn,
  verifySignInCode,
} from "./login.server";

/**
 * Two-step sign-in (docs/product.md#two-steps): "Welcome Back" (email and password), then "Verify
 * OTP" (a 6-digit code). Which step shows is decided by the server: an open challenge (the signed
 * two_factor cookie) means step 2. Works without JavaScript.
 */
export function meta({ matches, loaderData }: Route.MetaArgs) {
  // The sign-in page is indexed: a member who searches for the credit union's sign-in should find
  // this address, not a lookalike's. The code step belongs to one sign-in in progress: not indexed.
  if (loaderData?.step) return [...pageTitle("Verify OTP", matches), { name: "robots", content: "noindex" }];
  return [
    ...pageTitle("Sign in", matches),
    { name: "description", content: "Sign in to online banking with your email, your password and a one-time code." },
  ];
}

/**
 * The browser loads the two steps' schemas once the page is up (the action above uses the same
 * ones), so that the page draws without waiting for Zod.
 */
const signInChecks = () => import("~/domain/sign-in").then((module) => module.signInSchema);
const codeChecks = () => import("~/domain/sign-in").then((module) => module.codeSchema);

/** Notices another page can ask for: fixed keys only, never text from the address bar. */
const NOTICES = {
  idle: { tone: "info", text: "You were signed out after 15 minutes without activity. Please sign in again." },
  absolute: { tone: "info", text: "For your security, sessions end after 12 hours. Please sign in again." },
  codes: { tone: "error", text: OTP_TOO_MANY },
  expired: { tone: "error", text: SIGN_IN_EXPIRED },
  // Too many wrong codes for the account (across sign-ins): locked as for wrong passwords.
  locked: { tone: "error", text: lockedMessage(15 * 60) },
  reset: { tone: "success", text: "Your password has been changed. Please sign in with your new password." },
  signed_out: { tone: "success", text: "You have signed out. See you soon." },
} as const;
type NoticeKey = keyof typeof NOTICES;

function withRedirect(path: string, redirect_to: string | null, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams(extra);
  if (redirect_to) params.set("redirectTo", redirect_to);
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const url = new URL(request.url);
  const redirect_to = safeRedirectTo(url.searchParams.get("redirectTo"));
  await redirectIfSignedIn(request, redirect_to);
  const { ip } = context.get(requestInfoContext);
  const step = await getSignInStep(requestMeta(request, ip));
  const reason = url.searchParams.get("reason") ?? url.searchParams.get("notice");
  const notice = reason && reason in NOTICES ? (reason as NoticeKey) : null;
  const profile = institution();
  return {
    step: step ? { method: step.method, email_masked: step.email_masked, emailed: codesAreEmailed() } : null,
    remembered_email: await rememberedEmail(request),
    redirect_to,
    notice,
    demo: demoSignInsForLogin(),
    support: { email: profile.support_email, phone: profile.support_phone },
  };
}

/** The password is never sent back (replyTo leaves it out): after a refusal the field starts empty. */
type ActionResult =
  | { intent: "password" | "code" | "passkey"; reply: FormReply }
  /** The challenge for the browser's passkey prompt (JSON as @simplewebauthn/browser takes it). */
  | { intent: "passkey-options"; options: unknown };
/**
 * Step 1 (email and password), step 2 (the code), "Back" from step 2 to step 1, and a passkey
 * sign-in (its challenge, then its answer: one step, docs/product.md#passkeys).
 */
const LOGIN_INTENTS = ["password", "code", "back", "passkey-options", "passkey"] as const;

export async function action({ request, context }: Route.ActionArgs) {
  const { ip } = context.get(requestInfoContext);
  const meta = requestMeta(request, ip);
  const form = await readForm(request);
  const intent = formIntent(form, LOGIN_INTENTS);
  if (!intent) throw data(UNKNOWN_INTENT_MESSAGE, { status: 400 });
  const redirect_to = safeRedirectTo(form.get("redirectTo"));

  if (intent === "back") {
    const { set_cookies } = await endSignInStep(meta);
    throw redirect(withRedirect("/login", redirect_to), { headers: setCookieHeaders(set_cookies) });
  }

  if (intent === "passkey-options" || intent === "passkey") {
    const refuse = (refusal: Refusal): ReturnType<typeof data<ActionResult>> =>
      data(
        { intent: "passkey", reply: formReply(form, { formErrors: [refusal.message] }) },
        { status: refusalStatus(refusal.kind), headers: refusalHeaders(refusal) },
      );
    if (intent === "passkey-options") {
      const options = await passkeySignInOptions(meta);
      if (!options.ok) return refuse(options);
      return { intent: "passkey-options", options: options.options } satisfies ActionResult;
    }
    const result = await signInWithPasskey(meta, { response_json: String(form.get("response") ?? "") });
    if (!result.ok) return refuse(result);
    throw signedInRedirect(result, redirect_to);
  }

  if (intent === "code") {
    const submission = parseSubmission(codeSchema, form);
    if (submission.status !== "success")
      return data({ intent: "code", reply: replyTo(submission) } satisfies ActionResult, { status: 400 });
    const result = await verifySignInCode(meta, { code: submission.value.code });
    if (result.ok) throw signedInRedirect(result, redirect_to);
    // The challenge is over: back to step 1, which says why.
    if ("set_cookies" in result)
      throw redirect(withRedirect("/login", redirect_to, { notice: CHALLENGE_OVER_NOTICE[result.code] }), {
        headers: setCookieHeaders(result.set_cookies),
      });
    return data(
      { intent: "code", reply: replyTo(submission, { formErrors: [result.message] }) } satisfies ActionResult,
      {
        status: refusalStatus(result.kind),
        headers: refusalHeaders(result),
      },
    );
  }

  const submission = parseSubmission(signInSchema, form);
  if (submission.status !== "success")
    return data({ intent: "password", reply: replyTo(submission) } satisfies ActionResult, { status: 400 });
  const { email, password, remember } = submission.value;
  const result = await startSignIn(meta, { email, password });
  const refuse = (message: string): ActionResult => ({
    intent: "password",
    reply: replyTo(submission, { formErrors: [message] }),
  });
  if (!result.ok)
    return data(refuse(result.message), { status: refusalStatus(result.kind), headers: refusalHeaders(result) });
  if (result.status === "passkey_required")
    return data(refuse(STAFF_PASSKEY_REQUIRED), { status: 403, headers: setCookieHeaders(result.set_cookies) });
  const headers = setCookieHeaders(result.set_cookies);
  headers.append("Set-Cookie", await rememberEmailHeader(remember ? email : null));
  throw redirect(withRedirect("/login", redirect_to), { headers });
}

/** Why step 1 shows again when a code's challenge is over (the notices above). */
const CHALLENGE_OVER_NOTICE = { ended: "codes", expired: "expired", locked: "locked" } as const satisfies Record<
  string,
  NoticeKey
>;

/**
 * Where a finished sign-in goes: a temporary password set by staff is replaced first
 * (docs/product.md#passwords); then on to where they were going.
 */
function signedInRedirect(signed: SignedIn, redirect_to: string | null): Response {
  const headers = setCookieHeaders(signed.set_cookies);
  if (signed.user.must_change_password) return redirect(withRedirect("/change-password", redirect_to), { headers });
  return redirect(destinationAfterSignIn(signed.user, redirect_to), { headers });
}

export default function LoginRoute({ loaderData, actionData }: Route.ComponentProps) {
  const result = actionData as ActionResult | undefined;
  return (
    <AuthShell support={loaderData.support}>
      {loaderData.step ? (
        <CodeStep
          step={loaderData.step}
          redirectTo={loaderData.redirect_to}
          result={result?.intent === "code" ? result : undefined}
          demo={Boolean(loaderData.demo)}
        />
      ) : (
        <PasswordStep
          loaderData={loaderData}
          result={result?.intent === "password" || result?.intent === "passkey" ? result : undefined}
        />
      )}
      {loaderData.demo ? <DemoSignIns signIns={loaderData.demo} /> : null}
    </AuthShell>
  );
}

function PasswordStep({
  loaderData,
  result,
}: {
  loaderData: Route.ComponentProps["loaderData"];
  result: Extract<ActionResult, { reply: FormReply }> | undefined;
}) {
  const navigation = useNavigation();
  const sending = navigation.state === "submitting" && navigation.formData?.get("intent") === "password";
  const messageRef = useRef<HTMLDivElement>(null);
  const [formError] = formMessages(result?.reply);
  const form = useSchemaForm(signInChecks, {
    lastResult: result?.reply,
    defaultValue: {
      email: loaderData.remembered_email ?? "",
      remember: loaderData.remembered_email ? "on" : undefined,
    },
  });
  const notice = loaderData.notice ? NOTICES[loaderData.notice] : null;

  // The password is never sent back: after a refusal the field starts again empty. It is cleared
  // through React (a new field for each answer), not by writing to the input: the field keeps
  // its text in React state, which would put the old password back at the next render (a click)
  // and send old and new together.
  const [attempt, setAttempt] = useState(0);
  const [seenResult, setSeenResult] = useState(result);
  if (result !== seenResult) {
    setSeenResult(result);
    if (formMessages(result?.reply).length) setAttempt((n) => n + 1);
  }

  useEffect(() => {
    if (formMessages(result?.reply).length) messageRef.current?.focus();
  }, [result]);

  const values = (form.initialValue ?? {}) as Record<string, unknown>;
  const email = typeof values.email === "string" ? values.email : "";
  const remember = values.remember === "on";
  return (
    <AuthCard>
      <h1 className="text-3xl font-semibold tracking-tight text-brand-800">Welcome Back</h1>
      <p className="mt-2 text-slate-700">Sign in to your online banking.</p>
      {notice && !result ? (
        <FormMessage tone={notice.tone} className="mt-6" announce={false}>
          {notice.text}
        </FormMessage>
      ) : null}
      {formError ? (
        <FormMessage ref={messageRef} tone="error" className="mt-6">
          {formError}
        </FormMessage>
      ) : null}
      <SchemaForm form={form} method="post" className="mt-6 space-y-5" aria-label="Sign in">
        <input type="hidden" name="intent" value="password" />
        {loaderData.redirect_to ? <input type="hidden" name="redirectTo" value={loaderData.redirect_to} /> : null}
        <TextField
          name="email"
          label="Email address"
          type="email"
          autoComplete="username"
          isRequired
          autoFocus={!email}
        />
        <TextField
          key={attempt}
          name="password"
          label="Password"
          type="password"
          autoComplete="current-password"
          isRequired
          autoFocus={Boolean(email) && attempt === 0}
        />
        <div className="flex flex-wrap items-center justify-between gap-3">
          <Checkbox name="remember" defaultSelected={remember}>
            Remember me
          </Checkbox>
          <Link
            to="/forgot-password"
            className="text-sm font-semibold text-accent-700 underline-offset-2 hover:underline"
          >
            Forgot password?
          </Link>
        </div>
        <Button type="submit" size="lg" isPending={sending} pendingLabel="Checking…" className="w-full">
          Continue
        </Button>
      </SchemaForm>
      <PasskeySignIn redirectTo={loaderData.redirect_to} />
      <p className="mt-6 border-t border-slate-100 pt-6 text-center text-sm text-slate-700">
        Not a member yet?{" "}
        <Link to="/signup" className="font-semibold text-accent-700 underline-offset-2 hover:underline">
          Create your account
        </Link>
      </p>
    </AuthCard>
  );
}

const noSubscription = () => () => undefined;

/**
 * "Sign in with a passkey" (docs/product.md#passkeys): asks the server for a challenge, lets the
 * device's prompt sign it (fingerprint, face or PIN), and posts the answer as a form, so the
 * server's redirect takes the person in. Only with JavaScript (WebAuthn is a browser API).
 */
function PasskeySignIn({ redirectTo }: { redirectTo: string | null }) {
  const options = useFetcher<ActionResult>({ key: "login-passkey-options" });
  const submit = useSubmit();
  const navigation = useNavigation();
  const hydrated = useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
  const [problem, setProblem] = useState<string | null>(null);
  const [waiting, setWaiting] = useState(false);
  const handled = useRef<unknown>(null);
  useEffect(() => {
    const data = options.data;
    if (!data || data.intent !== "passkey-options" || handled.current === data) return;
    handled.current = data;
    setWaiting(true);
    void (async () => {
      try {
        const { startAuthentication } = await import("@simplewebauthn/browser");
        const response = await startAuthentication({ optionsJSON: data.options as never });
        const form: Record<string, string> = { intent: "passkey", response: JSON.stringify(response) };
        if (redirectTo) form.redirectTo = redirectTo;
        void submit(form, { method: "post" });
      } catch {
        setProblem(PASSKEY_CANCELLED);
      } finally {
        setWaiting(false);
      }
    })();
  }, [options.data, redirectTo, submit]);
  if (!hydrated) return null;
  const refused = options.data && options.data.intent === "passkey" ? formMessages(options.data.reply)[0] : undefined;
  const signingIn = navigation.state !== "idle" && navigation.formData?.get("intent") === "passkey";
  return (
    <div className="mt-5 space-y-3">
      <div className="flex items-center gap-3 text-xs uppercase tracking-wide text-slate-600" aria-hidden="true">
        <span className="h-px flex-1 bg-slate-200" /> or <span className="h-px flex-1 bg-slate-200" />
      </div>
      {problem || refused ? <FormMessage tone="error">{problem ?? refused}</FormMessage> : null}
      <Button
        variant="secondary"
        size="lg"
        className="w-full"
        isPending={options.state !== "idle" || waiting || signingIn}
        pendingLabel="Waiting for your passkey…"
        onPress={() => {
          setProblem(null);
          options.submit({ intent: "passkey-options" }, { method: "post" });
        }}
      >
        <Fingerprint className="size-5" aria-hidden="true" /> Sign in with a passkey
      </Button>
    </div>
  );
}

function CodeStep({
  step,
  redirectTo,
  result,
  demo,
}: {
  step: NonNullable<Route.ComponentProps["loaderData"]["step"]>;
  redirectTo: string | null;
  result: Extract<ActionResult, { reply: FormReply }> | undefined;
  demo: boolean;
}) {
  const navigation = useNavigation();
  const verifying = navigation.state === "submitting" && navigation.formData?.get("intent") === "code";
  const [code, setCode] = useState("");
  const hydrated = useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
  const messageRef = useRef<HTMLDivElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const [formError] = formMessages(result?.reply);
  const form = useSchemaForm(codeChecks, { lastResult: result?.reply });
  const focusCode = () => {
    const input = formRef.current?.elements.namedItem("code");
    if (input instanceof HTMLInputElement) input.focus();
  };
  // A refused code is cleared (React's "adjust state while rendering" pattern), then focus moves.
  const [seenResult, setSeenResult] = useState(result);
  if (result !== seenResult) {
    setSeenResult(result);
    if (formMessages(result?.reply).length) setCode("");
  }
  useEffect(() => {
    if (formMessages(result?.reply).length) messageRef.current?.focus();
    else if (result) focusCode();
  }, [result]);

  const app = step.method === "totp";
  return (
    <AuthCard>
      <span className="flex size-12 items-center justify-center rounded-xl bg-accent-50 text-accent-700">
        {app ? <Smartphone className="size-6" aria-hidden="true" /> : <Mail className="size-6" aria-hidden="true" />}
      </span>
      <h1 className="mt-4 text-3xl font-semibold tracking-tight text-brand-800">Verify OTP</h1>
      <p className="mt-2 text-slate-700">
        {app ? (
          "Enter the 6-digit code from your authenticator app."
        ) : step.emailed ? (
          <>
            We sent a 6-digit code to <span className="font-semibold text-slate-900">{step.email_masked}</span>. It
            expires in 10 minutes and works once.
          </>
        ) : (
          <CodeNotEmailed emailMasked={step.email_masked} demo={demo} />
        )}
      </p>
      {formError ? (
        <FormMessage ref={messageRef} tone="error" className="mt-6">
          {formError}
        </FormMessage>
      ) : null}
      <SchemaForm ref={formRef} form={form} method="post" className="mt-6 space-y-5" aria-label="Verify OTP">
        <input type="hidden" name="intent" value="code" />
        {redirectTo ? <input type="hidden" name="redirectTo" value={redirectTo} /> : null}
        <TextField
          name="code"
          label="Verification code"
          description="6 digits"
          value={code}
          onChange={(value) => {
            setCode(keepCodeDigits(value));
          }}
          inputMode="numeric"
          autoComplete="one-time-code"
          // Before JavaScript the browser caps the length; after, the filter keeps the first six
          // digits of whatever is typed or pasted ("812 334" included).
          maxLength={hydrated ? undefined : 6}
          pattern="[0-9]{6}"
          isRequired
          autoFocus
          inputClassName="tabular text-center font-mono text-2xl tracking-[0.5em]"
        />
        <div className="flex flex-col-reverse gap-3 sm:flex-row">
          {/* Back belongs to its own form (below), so Enter in the code field always means Verify. */}
          <Button type="submit" form="login-back" variant="secondary" size="lg" className="sm:w-1/3">
            <ArrowLeft className="size-4" aria-hidden="true" /> Back
          </Button>
          <Button
            type="submit"
            size="lg"
            isPending={verifying}
            pendingLabel="Verifying…"
            isDisabled={hydrated && code.length !== 6}
            className="flex-1"
          >
            Verify &amp; Sign in
          </Button>
        </div>
      </SchemaForm>
      <Form id="login-back" method="post" className="hidden">
        <input type="hidden" name="intent" value="back" />
        {redirectTo ? <input type="hidden" name="redirectTo" value={redirectTo} /> : null}
      </Form>
      <div className="mt-6 space-y-3 border-t border-slate-100 pt-6 text-sm text-slate-700">
        <p className="flex gap-2">
          <KeyRound className="mt-0.5 size-4 shrink-0 text-slate-600" aria-hidden="true" />
          <span>
            Cannot get a code? Call us: after checking who you are, our staff can give you a one-time sign-in code to
            enter here.
          </span>
        </p>
        {demo && !app ? (
          <p className="flex gap-2">
            <Inbox className="mt-0.5 size-4 shrink-0 text-slate-600" aria-hidden="true" />
            <span>
              Demo: no email is really sent. Read the code in the{" "}
              <a
                href="/demo/inbox"
                target="_blank"
                rel="noopener"
                className="font-semibold text-accent-700 underline underline-offset-2"
              >
                demo inbox (opens in a new tab)
              </a>
              .
            </span>
          </p>
        ) : null}
      </div>
    </AuthCard>
  );
}

/**
 * No mail relay is set up (development, the demo, a test install) or this is a restore drill's
 * copy: the code is in the outbox, not in the member's mailbox, and the page says so rather than
 * "We sent".
 */
function CodeNotEmailed({ emailMasked, demo }: { emailMasked: string; demo: boolean }) {
  return (
    <>
      A 6-digit code for <span className="font-semibold text-slate-900">{emailMasked}</span> is ready, but no email is
      sent from this {demo ? "demo" : "installation"}:{" "}
      {demo ? "read it in the demo inbox (below)." : "staff can read it in the back office's outbox."} It expires in 10
      minutes and works once.
    </>
  );
}

function DemoSignIns({ signIns }: { signIns: NonNullable<Route.ComponentProps["loaderData"]["demo"]> }) {
  return (
    <section
      aria-labelledby="demo-signins-heading"
      className="mt-6 rounded-2xl border border-amber-200 bg-amber-50 p-5 text-sm text-amber-950"
    >
      <h2 id="demo-signins-heading" className="font-semibold">
        Demo sign-ins
      </h2>
      <p className="mt-1">
        This is a demo with fictional people. Sign-in codes are not emailed: read them in the{" "}
        <Link to="/demo/inbox" className="font-semibold underline underline-offset-2">
          demo inbox
        </Link>
        .
      </p>
      <ul className="mt-3 divide-y divide-amber-200">
        {signIns.map((s) => (
          <li key={s.email} className="py-2">
            <span className="block font-medium">{s.label}</span>
            <span className="block break-all font-mono text-xs">{s.email}</span>
            <span className="block font-mono text-xs">
              <span className="sr-only">Password: </span>
              {s.password}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
