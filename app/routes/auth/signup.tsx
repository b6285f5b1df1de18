import { useEffect, useRef, useState } from "react";
import { data, Form, Link, redirect, useNavigation } from "react-router";
import { Clock, FileText, IdCard, Lock, ShieldCheck } from "lucide-react";
import type { Route } from "./+types/signup";
import { requestInfoContext } from "~/context";
import {
  APPLICATION_FIELDS,
  ID_DOCUMENT_ACCEPT,
  ID_TYPE_OPTIONS,
  MARITAL_STATUS_OPTIONS,
  SIGNUP_EMAIL_REFUSED,
  SIGNUP_EMAIL_TAKEN,
  SIGNUP_FAILED,
  applicationSchema,
  idDocumentProblem,
} from "~/domain/membership-application";
import { PASSWORD_MIN_CHARS } from "~/domain/password";
import { rateLimitedMessage } from "~/domain/sign-in";
import { getAuth } from "~/server/auth/auth.server";
import { requestMeta, setCookieHeaders } from "~/server/auth/request-meta.server";
import { redirectIfSignedIn } from "~/server/auth/session.server";
import { submitApplication } from "~/server/applications/applications.server";
import { parseForm, readForm, type FieldErrors } from "~/server/http/form.server";
import { PageHero } from "~/components/site/page-hero";
import { pageTitle } from "~/components/site/page-title";
import { ErrorSummary } from "~/components/auth/error-summary";
import { FileField } from "~/components/auth/file-field";
import { Button, Checkbox, FormErrors, FormMessage, Select, TextField, focusFirstInvalid, issuesToFieldErrors } from "~/components/ui";

/**
 * The membership application, "Create your account" (docs/product.md#application-form). One
 * multipart form that works without JavaScript: the server checks everything and answers with
 * messages next to the fields; with JavaScript the same schema answers at once. What was typed is
 * kept on error, except the passwords and the file.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [
    ...pageTitle("Create your account", matches),
    { name: "description", content: "Apply for membership online: your details, an ID document, and an optional joint owner. We review applications within 1–2 business days." },
  ];
}

export async function loader({ request }: Route.LoaderArgs) {
  await redirectIfSignedIn(request);
  return null;
}

type Values = Record<string, string>;
type ActionResult = { errors: FieldErrors; values: Values; form_error?: string };

/** What is sent back to refill the form: never the passwords, never the file. */
function keptValues(form: FormData): Values {
  const values: Values = {};
  for (const [key, value] of form.entries()) {
    if (typeof value !== "string" || key === "password" || key === "confirm_password") continue;
    values[key] ??= value.slice(0, 500);
  }
  return values;
}

export async function action({ request, context }: Route.ActionArgs) {
  const { ip } = context.get(requestInfoContext);
  const form = await readForm(request);
  const values = keptValues(form);
  const upload = form.get("id_document");
  const document = upload instanceof File ? upload : null;

  const parsed = parseForm(applicationSchema(), form);
  const documentProblem = idDocumentProblem(document);
  if (!parsed.ok || documentProblem) {
    const errors: FieldErrors = parsed.ok ? {} : { ...parsed.errors };
    if (documentProblem) errors.id_document = documentProblem;
    return data({ errors, values } satisfies ActionResult, { status: 400 });
  }

  const { db } = await getAuth();
  const result = await submitApplication(db, requestMeta(request, ip), parsed.value, document);
  switch (result.status) {
    case "created":
      throw redirect("/registration-success", { headers: setCookieHeaders(result.set_cookies) });
    case "email_taken":
      return data({ errors: { email: SIGNUP_EMAIL_TAKEN }, values, form_error: SIGNUP_EMAIL_TAKEN } satisfies ActionResult, { status: 409 });
    case "email_invalid":
      return data({ errors: { email: SIGNUP_EMAIL_REFUSED }, values, form_error: SIGNUP_EMAIL_REFUSED } satisfies ActionResult, { status: 400 });
    case "document_rejected":
      return data({ errors: { id_document: result.message }, values } satisfies ActionResult, { status: 400 });
    case "rate_limited":
      return data({ errors: {}, values, form_error: rateLimitedMessage(result.retry_after_s) } satisfies ActionResult, {
        status: 429,
        headers: { "Retry-After": String(result.retry_after_s) },
      });
    case "failed":
      return data({ errors: {}, values, form_error: SIGNUP_FAILED } satisfies ActionResult, { status: 500 });
  }
}

/** Stable ids, so the error summary can link to each field. */
const fieldId = (name: string) => `field-${name.replace(/_/g, "-")}`;

const SECTIONS = [
  { id: "account", title: "Account Information" },
  { id: "personal", title: "Personal Information" },
  { id: "address", title: "Address Information" },
  { id: "contact", title: "Contact Information" },
  { id: "emergency", title: "Emergency Contact" },
  { id: "identification", title: "Identification Document" },
  { id: "joint", title: "Joint owner (optional)" },
] as const;

export default function Signup({ actionData }: Route.ComponentProps) {
  const result = actionData as ActionResult | undefined;
  const navigation = useNavigation();
  const sending = navigation.state === "submitting";
  const formRef = useRef<HTMLFormElement>(null);
  const messageRef = useRef<HTMLDivElement>(null);
  const [clientErrors, setClientErrors] = useState<FieldErrors | null>(null);
  const [joint, setJoint] = useState(result?.values.joint_account === "on");
  const errors = clientErrors ?? result?.errors ?? null;
  const values = result?.values ?? {};
  const errorCount = errors ? Object.keys(errors).length : 0;

  // A new answer from the server replaces the browser's own messages, and the password fields
  // start again empty: the server never sends passwords back. They are cleared through React (new
  // fields for each answer), not by writing to the inputs: a field keeps its text in React state,
  // which would put the old password back at the next render and save old and new together.
  const [seenResult, setSeenResult] = useState(result);
  const [answers, setAnswers] = useState(0);
  if (result !== seenResult) {
    setSeenResult(result);
    setClientErrors(null);
    setAnswers((n) => n + 1);
  }
  useEffect(() => {
    if (!result) return;
    // The file is not sent back either; a native file input is emptied by its value.
    const form = formRef.current;
    const file = form?.elements.namedItem("id_document");
    if (file instanceof HTMLInputElement) file.value = "";
    if (Object.keys(result.errors).length) focusFirstInvalid(form);
    else messageRef.current?.focus();
  }, [result]);
  useEffect(() => {
    if (clientErrors && Object.keys(clientErrors).length) focusFirstInvalid(formRef.current);
  }, [clientErrors]);

  const onSubmit = (event: React.FormEvent<HTMLFormElement>) => {
    const form = new FormData(event.currentTarget);
    const entries = Object.fromEntries([...form.entries()].filter(([, v]) => typeof v === "string"));
    const check = applicationSchema().safeParse(entries);
    const file = form.get("id_document");
    const documentProblem = idDocumentProblem(file instanceof File ? file : null);
    if (check.success && !documentProblem) return setClientErrors(null);
    event.preventDefault();
    const found = check.success ? {} : issuesToFieldErrors(check.error.issues);
    if (documentProblem) found.id_document = documentProblem;
    // Keep the form's order, so "the first invalid field" is the first on screen.
    const ordered: FieldErrors = {};
    for (const name of APPLICATION_FIELDS) if (found[name]) ordered[name] = found[name];
    setClientErrors(ordered);
  };

  return (
    <>
      <PageHero title="Create your account" lead="Become a member in about ten minutes. Have an ID document ready: a passport, national ID or driver's license." />
      <div className="mx-auto grid max-w-7xl gap-8 px-4 py-10 sm:px-6 lg:grid-cols-[16rem_minmax(0,1fr)] lg:gap-12 lg:px-8 lg:py-14">
        <aside className="hidden lg:block">
          <div className="sticky top-24 space-y-6">
            <nav aria-label="Application sections" className="rounded-2xl border border-slate-200 bg-white p-4 shadow-sm">
              <ol className="space-y-1 text-sm">
                {SECTIONS.map((section, index) => (
                  <li key={section.id}>
                    <a href={`#section-${section.id}`} className="flex items-center gap-3 rounded-lg px-3 py-2 text-slate-700 hover:bg-slate-50 hover:text-brand-800">
                      <span className="flex size-6 items-center justify-center rounded-full bg-brand-50 text-xs font-semibold text-brand-800">{index + 1}</span>
                      {section.title}
                    </a>
                  </li>
                ))}
              </ol>
            </nav>
            <ul className="space-y-4 text-sm text-slate-700">
              <li className="flex gap-3">
                <Clock className="mt-0.5 size-5 shrink-0 text-accent-700" aria-hidden="true" /> Reviewed within 1–2 business days.
              </li>
              <li className="flex gap-3">
                <Lock className="mt-0.5 size-5 shrink-0 text-accent-700" aria-hidden="true" /> Your date of birth and ID number are stored encrypted.
              </li>
              <li className="flex gap-3">
                <ShieldCheck className="mt-0.5 size-5 shrink-0 text-accent-700" aria-hidden="true" /> Your document is seen only by our staff.
              </li>
            </ul>
          </div>
        </aside>

        <div className="min-w-0">
          <p className="text-slate-700">
            All fields are required unless marked optional. Already applied or a member?{" "}
            <Link to="/login" className="font-semibold text-accent-700 underline-offset-2 hover:underline">
              Sign in
            </Link>
            .
          </p>
          {errors && errorCount > 0 ? (
            <ErrorSummary errors={errors} order={APPLICATION_FIELDS} idFor={fieldId} />
          ) : result?.form_error ? (
            <FormMessage ref={messageRef} tone="error" className="mt-6">
              {result.form_error}
            </FormMessage>
          ) : null}

          <FormErrors errors={errors}>
            <Form ref={formRef} method="post" encType="multipart/form-data" noValidate onSubmit={onSubmit} aria-label="Create your account" className="mt-6 space-y-6">
              <Section id="account" number={1} title="Account Information" lead="You will sign in with this email address and password. A few unrelated words make a password that is long and easy to remember.">
                <TextField id={fieldId("email")} name="email" label="Email address" type="email" autoComplete="email" defaultValue={values.email} isRequired className="sm:col-span-2" />
                <TextField
                  key={`password-${answers}`}
                  name="password"
                  label="Password"
                  type="password"
                  autoComplete="new-password"
                  description={`At least ${PASSWORD_MIN_CHARS} characters, not a common password.`}
                  isRequired
                />
                <TextField key={`confirm-password-${answers}`} id={fieldId("confirm_password")} name="confirm_password" label="Confirm password" type="password" autoComplete="new-password" description="Type the same password again." isRequired />
              </Section>

              <Section id="personal" number={2} title="Personal Information" lead="As shown on your ID document.">
                <TextField id={fieldId("first_name")} name="first_name" label="First name" autoComplete="given-name" defaultValue={values.first_name} maxLength={100} isRequired />
                <TextField id={fieldId("last_name")} name="last_name" label="Last name" autoComplete="family-name" defaultValue={values.last_name} maxLength={100} isRequired />
                <TextField id={fieldId("date_of_birth")} name="date_of_birth" label="Date of birth" type="date" autoComplete="bday" description="You must be at least 18." defaultValue={values.date_of_birth} isRequired />
                <TextField id={fieldId("nationality")} name="nationality" label="Nationality" description="For example: American." defaultValue={values.nationality} maxLength={100} isRequired />
                <Select id={fieldId("marital_status")} name="marital_status" label="Marital status" placeholder="Select your marital status" options={MARITAL_STATUS_OPTIONS} defaultValue={values.marital_status} isRequired />
              </Section>

              <Section id="address" number={3} title="Address Information" lead="Where you live now.">
                <TextField id={fieldId("street")} name="street" label="Street address" autoComplete="street-address" defaultValue={values.street} maxLength={200} isRequired className="sm:col-span-2" />
                <TextField id={fieldId("city")} name="city" label="City" autoComplete="address-level2" defaultValue={values.city} maxLength={100} isRequired />
                <TextField id={fieldId("state")} name="state" label="State or region" autoComplete="address-level1" defaultValue={values.state} maxLength={100} isRequired />
                <TextField id={fieldId("postal_code")} name="postal_code" label="Postal code" autoComplete="postal-code" defaultValue={values.postal_code} maxLength={20} isRequired />
                <TextField id={fieldId("country")} name="country" label="Country" autoComplete="country-name" defaultValue={values.country ?? "United States"} maxLength={100} isRequired />
              </Section>

              <Section id="contact" number={4} title="Contact Information">
                <TextField id={fieldId("phone")} name="phone" label="Phone number" type="tel" autoComplete="tel" defaultValue={values.phone} maxLength={25} isRequired />
                <TextField id={fieldId("alt_email")} name="alt_email" label="Alternative email" type="email" autoComplete="off" defaultValue={values.alt_email} optional />
              </Section>

              <Section id="emergency" number={5} title="Emergency Contact" lead="Someone we can reach if we cannot reach you, such as a spouse, a parent or a friend.">
                <TextField id={fieldId("emergency_name")} name="emergency_name" label="Full name" defaultValue={values.emergency_name} maxLength={100} isRequired />
                <TextField id={fieldId("emergency_relationship")} name="emergency_relationship" label="Relationship" defaultValue={values.emergency_relationship} maxLength={50} isRequired />
                <TextField id={fieldId("emergency_phone")} name="emergency_phone" label="Phone number" type="tel" defaultValue={values.emergency_phone} maxLength={25} isRequired />
              </Section>

              <Section id="identification" number={6} title="Identification Document" lead="We need to verify who you are, as the law requires of every bank.">
                <Select id={fieldId("id_type")} name="id_type" label="ID type" placeholder="Select an ID type" options={ID_TYPE_OPTIONS} defaultValue={values.id_type} isRequired />
                <TextField id={fieldId("id_number")} name="id_number" label="ID number" autoComplete="off" defaultValue={values.id_number} maxLength={40} isRequired />
                <FileField
                  id={fieldId("id_document")}
                  name="id_document"
                  label="Photo or scan of the document"
                  accept={ID_DOCUMENT_ACCEPT}
                  isRequired
                  className="sm:col-span-2"
                  description={
                    <span className="inline-flex items-start gap-1.5">
                      <IdCard className="mt-0.5 size-4 shrink-0" aria-hidden="true" /> JPEG, PNG, WebP or PDF, up to 10 MB. All four corners visible, no glare. Stored privately; seen only by our staff.
                    </span>
                  }
                />
              </Section>

              <Section id="joint" number={7} title="Joint owner (optional)" lead="Open your accounts together with another person, who will own them with you.">
                <div className="group sm:col-span-2">
                  <Checkbox id={fieldId("joint_account")} name="joint_account" value="on" defaultSelected={values.joint_account === "on"} onChange={setJoint} description="The joint owner's name, email and phone are then required.">
                    Joint account
                  </Checkbox>
                  {/* Shown when ticked: by state with JavaScript, by CSS (:has(:checked)) without it. */}
                  <div className={`mt-5 gap-5 sm:grid-cols-2 ${joint ? "grid" : "hidden group-has-[input[name=joint_account]:checked]:grid"}`}>
                    <TextField id={fieldId("joint_name")} name="joint_name" label="Joint owner's full name" defaultValue={values.joint_name} maxLength={100} isRequired />
                    <TextField id={fieldId("joint_email")} name="joint_email" label="Joint owner's email" type="email" defaultValue={values.joint_email} isRequired />
                    <TextField id={fieldId("joint_phone")} name="joint_phone" label="Joint owner's phone number" type="tel" defaultValue={values.joint_phone} maxLength={25} isRequired />
                  </div>
                </div>
              </Section>

              <div className="flex flex-col gap-4 rounded-2xl border border-slate-200 bg-white p-6 shadow-sm sm:flex-row sm:items-center sm:justify-between sm:p-8">
                <p className="flex gap-2 text-sm text-slate-700">
                  <FileText className="mt-0.5 size-4 shrink-0 text-slate-600" aria-hidden="true" />
                  <span>
                    By applying you agree to our{" "}
                    <Link to="/terms" className="font-semibold text-accent-700 underline underline-offset-2">
                      Terms of Service
                    </Link>{" "}
                    and{" "}
                    <Link to="/privacy" className="font-semibold text-accent-700 underline underline-offset-2">
                      Privacy Policy
                    </Link>
                    .
                  </span>
                </p>
                <Button type="submit" size="lg" isPending={sending} pendingLabel="Sending your application…" className="w-full shrink-0 sm:w-auto">
                  Create account
                </Button>
              </div>
            </Form>
          </FormErrors>
        </div>
      </div>
    </>
  );
}

function Section({ id, number, title, lead, children }: { id: string; number: number; title: string; lead?: string; children: React.ReactNode }) {
  return (
    <fieldset id={`section-${id}`} aria-labelledby={`section-${id}-heading`} className="scroll-mt-24 rounded-2xl border border-slate-200 bg-white p-6 shadow-sm sm:p-8">
      <h2 id={`section-${id}-heading`} className="flex items-center gap-3 text-xl font-semibold tracking-tight text-brand-800">
        <span aria-hidden="true" className="flex size-8 shrink-0 items-center justify-center rounded-full bg-brand-700 text-sm font-semibold text-white">
          {number}
        </span>
        {title}
      </h2>
      {lead ? <p className="mt-2 text-sm text-slate-600">{lead}</p> : null}
      <div className="mt-6 grid gap-5 sm:grid-cols-2">{children}</div>
    </fieldset>
  );
}
