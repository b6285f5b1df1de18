import { useEffect, useRef, useState } from "react";
import { data, Link, redirect, useNavigation } from "react-router";
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
} from "~/domain/membership-application-fields";
import { applicationFormSchema } from "~/domain/membership-application";
import { TIN_TYPE_OPTIONS } from "~/domain/taxpayer-id-kinds";
import { COUNTRIES } from "~/domain/countries";
import { PASSWORD_MIN_CHARS } from "~/domain/password";
import { rateLimitedMessage } from "~/domain/sign-in-messages";
import { requestMeta, setCookieHeaders } from "~/server/auth/request-meta.server";
import { redirectIfSignedIn } from "~/server/auth/session.server";
import { parseSubmission, readForm, replyTo, type FormReply } from "~/server/http/form.server";
import { PageHero } from "~/components/site/page-hero";
import { pageTitle } from "~/components/site/page-title";
import { ErrorSummary } from "~/components/auth/error-summary";
import { FileField } from "~/components/auth/file-field";
import {
  Button,
  Checkbox,
  FormMessage,
  SchemaForm,
  Select,
  TextField,
  fieldMessages,
  focusFirstInvalid,
  formMessages,
  useSchemaForm,
} from "~/components/ui";
import { submitApplication } from "./signup.server";

/**
 * The membership application, "Create your account" (docs/product.md#application-form). One
 * multipart form that works without JavaScript: the server checks everything and answers with
 * messages next to the fields; with JavaScript the same schema answers at once. What was typed is
 * kept on error, except the passwords and the file.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [
    ...pageTitle("Create your account", matches),
    {
      name: "description",
      content:
        "Apply for membership online: your details, an ID document, and an optional joint owner. We review applications within 1–2 business days.",
    },
  ];
}

export async function loader({ request }: Route.LoaderArgs) {
  await redirectIfSignedIn(request);
  return null;
}

/** Every answer: the messages, and the values to show again (never the passwords or the file). */
type ActionResult = { reply: FormReply };

/** The browser loads the schema once the page is up (the action uses the same one), so that the form draws without waiting for Zod. */
const applicationChecks = () =>
  import("~/domain/membership-application").then((module) => module.applicationFormSchema());

export async function action({ request, context }: Route.ActionArgs) {
  const { ip } = context.get(requestInfoContext);
  const form = await readForm(request);
  const submission = parseSubmission(applicationFormSchema(), form);
  if (submission.status !== "success")
    return data({ reply: replyTo(submission) } satisfies ActionResult, { status: 400 });
  const document = submission.value.id_document as File;
  const refuse = (messages: { fieldErrors?: Record<string, string[]>; formErrors?: string[] }): ActionResult => ({
    reply: replyTo(submission, messages),
  });

  const { id_document: _document, ...application } = submission.value;
  const result = await submitApplication(requestMeta(request, ip), application, document);
  switch (result.status) {
    case "created":
      throw redirect("/registration-success", { headers: setCookieHeaders(result.set_cookies) });
    case "email_taken":
      return data(refuse({ fieldErrors: { email: [SIGNUP_EMAIL_TAKEN] }, formErrors: [SIGNUP_EMAIL_TAKEN] }), {
        status: 409,
      });
    case "email_invalid":
      return data(refuse({ fieldErrors: { email: [SIGNUP_EMAIL_REFUSED] }, formErrors: [SIGNUP_EMAIL_REFUSED] }), {
        status: 400,
      });
    case "document_rejected":
      return data(refuse({ fieldErrors: { id_document: [result.message] } }), { status: 400 });
    case "rate_limited":
      return data(refuse({ formErrors: [rateLimitedMessage(result.retry_after_s)] }), {
        status: 429,
        headers: { "Retry-After": String(result.retry_after_s) },
      });
    case "failed":
      return data(refuse({ formErrors: [SIGNUP_FAILED] }), { status: 500 });
  }
}

/** Made once, so that the (memoized) file field is not drawn again each time the page re-renders. */
const ID_DOCUMENT_DESCRIPTION = (
  <span className="inline-flex items-start gap-1.5">
    <IdCard className="mt-0.5 size-4 shrink-0" aria-hidden="true" /> JPEG, PNG, WebP or PDF, up to 10 MB. All four
    corners visible, no glare. Stored privately; seen only by our staff.
  </span>
);

/** Stable ids, so the error summary can link to each field. */
const fieldId = (name: string) => `field-${name.replace(/_/g, "-")}`;

/** The issuing country of a non-US person's document, by name. */
const COUNTRY_OPTIONS = COUNTRIES.map((c) => ({ value: c.code, label: c.name }));

const SECTIONS = [
  { id: "account", title: "Account Information" },
  { id: "personal", title: "Personal Information" },
  { id: "address", title: "Address Information" },
  { id: "contact", title: "Contact Information" },
  { id: "emergency", title: "Emergency Contact" },
  { id: "identification", title: "Identification Document" },
  { id: "taxpayer", title: "Taxpayer Identification" },
  { id: "joint", title: "Joint owner (optional)" },
] as const;

export default function Signup({ actionData }: Route.ComponentProps) {
  const result = actionData as ActionResult | undefined;
  const navigation = useNavigation();
  const sending = navigation.state === "submitting";
  const formRef = useRef<HTMLFormElement>(null);
  const messageRef = useRef<HTMLDivElement>(null);
  const form = useSchemaForm(applicationChecks, {
    lastResult: result?.reply,
    defaultValue: { country: "United States" },
  });
  const values = (form.initialValue ?? {}) as Record<string, unknown>;
  const [joint, setJoint] = useState(values.joint_account === "on");
  const [tinType, setTinType] = useState(String(values.tin_type ?? ""));
  const [jointTinType, setJointTinType] = useState(String(values.joint_tin_type ?? ""));
  const errors = fieldMessages(form);
  const errorCount = Object.keys(errors).length;
  const [formError] = formMessages(result?.reply);

  // The password fields start again empty after each answer: the server never sends passwords back. They are cleared through React (new
  // fields for each answer), not by writing to the inputs: a field keeps its text in React state,
  // which would put the old password back at the next render and save old and new together.
  const [seenResult, setSeenResult] = useState(result);
  const [answers, setAnswers] = useState(0);
  if (result !== seenResult) {
    setSeenResult(result);
    setAnswers((n) => n + 1);
  }
  useEffect(() => {
    if (!result) return;
    // The file is not sent back either; a native file input is emptied by its value.
    const form = formRef.current;
    const file = form?.elements.namedItem("id_document");
    if (file instanceof HTMLInputElement) file.value = "";
    if (!Object.keys(result.reply.error ?? {}).some((name) => name !== "")) messageRef.current?.focus();
  }, [result]);
  // The error summary takes focus as it appears (autoFocus, for pages rendered without
  // JavaScript); with JavaScript focus then moves on to the first invalid field.
  const allErrors = form.allErrors;
  useEffect(() => {
    if (Object.keys(allErrors).some((name) => name !== "")) focusFirstInvalid(formRef.current);
  }, [allErrors]);

  return (
    <>
      <PageHero
        title="Create your account"
        lead="Become a member in about ten minutes. Have an ID document ready: a passport, national ID or driver's license."
      />
      <div className="mx-auto grid max-w-7xl gap-8 px-4 py-10 sm:px-6 lg:grid-cols-[16rem_minmax(0,1fr)] lg:gap-12 lg:px-8 lg:py-14">
        <aside className="hidden lg:block">
          <div className="sticky top-24 space-y-6">
            <nav
              aria-label="Application sections"
              className="rounded-2xl border border-slate-200 bg-white p-4 shadow-sm"
            >
              <ol className="space-y-1 text-sm">
                {SECTIONS.map((section, index) => (
                  <li key={section.id}>
                    <a
                      href={`#section-${section.id}`}
                      className="flex items-center gap-3 rounded-lg px-3 py-2 text-slate-700 hover:bg-slate-50 hover:text-brand-800"
                    >
                      <span className="flex size-6 items-center justify-center rounded-full bg-brand-50 text-xs font-semibold text-brand-800">
                        {index + 1}
                      </span>
                      {section.title}
                    </a>
                  </li>
                ))}
              </ol>
            </nav>
            <ul className="space-y-4 text-sm text-slate-700">
              <li className="flex gap-3">
                <Clock className="mt-0.5 size-5 shrink-0 text-accent-700" aria-hidden="true" /> Reviewed within 1–2
                business days.
              </li>
              <li className="flex gap-3">
                <Lock className="mt-0.5 size-5 shrink-0 text-accent-700" aria-hidden="true" /> Your date of birth, ID
                number and taxpayer number are stored encrypted.
              </li>
              <li className="flex gap-3">
                <ShieldCheck className="mt-0.5 size-5 shrink-0 text-accent-700" aria-hidden="true" /> Your document is
                seen only by our staff.
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
          {errorCount > 0 ? (
            <ErrorSummary errors={errors} order={APPLICATION_FIELDS} idFor={fieldId} />
          ) : formError ? (
            <FormMessage ref={messageRef} tone="error" className="mt-6">
              {formError}
            </FormMessage>
          ) : null}

          <SchemaForm
            ref={formRef}
            form={form}
            method="post"
            encType="multipart/form-data"
            aria-label="Create your account"
            className="mt-6 space-y-6"
          >
            <Section
              id="account"
              number={1}
              title="Account Information"
              lead="You will sign in with this email address and password. A few unrelated words make a password that is long and easy to remember."
            >
              <TextField
                id={fieldId("email")}
                name="email"
                label="Email address"
                type="email"
                autoComplete="email"
                isRequired
                className="sm:col-span-2"
              />
              <TextField
                key={`password-${answers}`}
                name="password"
                label="Password"
                type="password"
                autoComplete="new-password"
                description={`At least ${PASSWORD_MIN_CHARS} characters, not a common password.`}
                isRequired
              />
              <TextField
                key={`confirm-password-${answers}`}
                id={fieldId("confirm_password")}
                name="confirm_password"
                label="Confirm password"
                type="password"
                autoComplete="new-password"
                description="Type the same password again."
                isRequired
              />
            </Section>

            <Section id="personal" number={2} title="Personal Information" lead="As shown on your ID document.">
              <TextField
                id={fieldId("first_name")}
                name="first_name"
                label="First name"
                autoComplete="given-name"
                maxLength={100}
                isRequired
              />
              <TextField
                id={fieldId("last_name")}
                name="last_name"
                label="Last name"
                autoComplete="family-name"
                maxLength={100}
                isRequired
              />
              <TextField
                id={fieldId("date_of_birth")}
                name="date_of_birth"
                label="Date of birth"
                type="date"
                autoComplete="bday"
                description="You must be at least 18."
                isRequired
              />
              <TextField
                id={fieldId("nationality")}
                name="nationality"
                label="Nationality"
                description="For example: American."
                maxLength={100}
                isRequired
              />
              <Select
                id={fieldId("marital_status")}
                name="marital_status"
                label="Marital status"
                placeholder="Select your marital status"
                options={MARITAL_STATUS_OPTIONS}
                isRequired
              />
            </Section>

            <Section id="address" number={3} title="Address Information" lead="Where you live now.">
              <TextField
                id={fieldId("street")}
                name="street"
                label="Street address"
                autoComplete="street-address"
                maxLength={200}
                isRequired
                className="sm:col-span-2"
              />
              <TextField
                id={fieldId("city")}
                name="city"
                label="City"
                autoComplete="address-level2"
                maxLength={100}
                isRequired
              />
              <TextField
                id={fieldId("state")}
                name="state"
                label="State or region"
                autoComplete="address-level1"
                maxLength={100}
                isRequired
              />
              <TextField
                id={fieldId("postal_code")}
                name="postal_code"
                label="Postal code"
                autoComplete="postal-code"
                maxLength={20}
                isRequired
              />
              <TextField
                id={fieldId("country")}
                name="country"
                label="Country"
                autoComplete="country-name"
                maxLength={100}
                isRequired
              />
            </Section>

            <Section id="contact" number={4} title="Contact Information">
              <TextField
                id={fieldId("phone")}
                name="phone"
                label="Phone number"
                type="tel"
                autoComplete="tel"
                maxLength={25}
                isRequired
              />
              <TextField
                id={fieldId("alt_email")}
                name="alt_email"
                label="Alternative email"
                type="email"
                autoComplete="off"
                optional
              />
            </Section>

            <Section
              id="emergency"
              number={5}
              title="Emergency Contact"
              lead="Someone we can reach if we cannot reach you, such as a spouse, a parent or a friend."
            >
              <TextField
                id={fieldId("emergency_name")}
                name="emergency_name"
                label="Full name"
                maxLength={100}
                isRequired
              />
              <TextField
                id={fieldId("emergency_relationship")}
                name="emergency_relationship"
                label="Relationship"
                maxLength={50}
                isRequired
              />
              <TextField
                id={fieldId("emergency_phone")}
                name="emergency_phone"
                label="Phone number"
                type="tel"
                maxLength={25}
                isRequired
              />
            </Section>

            <Section
              id="identification"
              number={6}
              title="Identification Document"
              lead="We need to verify who you are, as the law requires of every bank."
            >
              <Select
                id={fieldId("id_type")}
                name="id_type"
                label="ID type"
                placeholder="Select an ID type"
                options={ID_TYPE_OPTIONS}
                isRequired
              />
              <TextField
                id={fieldId("id_number")}
                name="id_number"
                label="ID number"
                autoComplete="off"
                maxLength={40}
                isRequired
              />
              <FileField
                id={fieldId("id_document")}
                name="id_document"
                label="Photo or scan of the document"
                accept={ID_DOCUMENT_ACCEPT}
                isRequired
                className="sm:col-span-2"
                description={ID_DOCUMENT_DESCRIPTION}
              />
            </Section>

            <Section
              id="taxpayer"
              number={7}
              title="Taxpayer Identification"
              lead="Federal law requires us to obtain a taxpayer number from everyone who opens an account. It is stored encrypted; you and our staff see only its last four digits."
            >
              <TaxpayerIdFields prefix="" whose="Your" type={tinType} onType={setTinType} />
            </Section>

            <Section
              id="joint"
              number={8}
              title="Joint owner (optional)"
              lead="Open your accounts together with another person, who will own them with you."
            >
              <div className="group sm:col-span-2">
                <Checkbox
                  id={fieldId("joint_account")}
                  name="joint_account"
                  value="on"
                  defaultSelected={values.joint_account === "on"}
                  onChange={setJoint}
                  description="The joint owner's name, email, phone and taxpayer number are then required."
                >
                  Joint account
                </Checkbox>
                {/* Shown when ticked: by state with JavaScript, by CSS (:has(:checked)) without it. */}
                <div
                  className={`mt-5 gap-5 sm:grid-cols-2 ${joint ? "grid" : "hidden group-has-[input[name=joint_account]:checked]:grid"}`}
                >
                  <TextField
                    id={fieldId("joint_name")}
                    name="joint_name"
                    label="Joint owner's full name"
                    maxLength={100}
                    isRequired
                  />
                  <TextField
                    id={fieldId("joint_email")}
                    name="joint_email"
                    label="Joint owner's email"
                    type="email"
                    isRequired
                  />
                  <TextField
                    id={fieldId("joint_phone")}
                    name="joint_phone"
                    label="Joint owner's phone number"
                    type="tel"
                    maxLength={25}
                    isRequired
                  />
                  <TaxpayerIdFields
                    prefix="joint_"
                    whose="Joint owner's"
                    type={jointTinType}
                    onType={setJointTinType}
                  />
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
              <Button
                type="submit"
                size="lg"
                isPending={sending}
                pendingLabel="Sending your application…"
                className="w-full shrink-0 sm:w-auto"
              >
                Create account
              </Button>
            </div>
          </SchemaForm>
        </div>
      </div>
    </>
  );
}

/**
 * The kind of taxpayer number, the number, and for a non-US person's document its issuing country
 * (shown once that kind is chosen: by state with JavaScript, by CSS without it).
 */
function TaxpayerIdFields({
  prefix,
  whose,
  type,
  onType,
}: {
  prefix: "" | "joint_";
  whose: string;
  type: string;
  onType: (value: string) => void;
}) {
  const foreign = type === "foreign";
  return (
    <div className="group/tin grid gap-5 sm:col-span-2 sm:grid-cols-2">
      <Select
        id={fieldId(`${prefix}tin_type`)}
        name={`${prefix}tin_type`}
        label={`${whose} taxpayer number`}
        placeholder="Select the kind of number"
        options={TIN_TYPE_OPTIONS}
        onChange={onType}
        isRequired
        className="sm:col-span-2"
      />
      <TextField
        id={fieldId(`${prefix}tin`)}
        name={`${prefix}tin`}
        label={foreign ? "Document number" : "Number"}
        autoComplete="off"
        inputMode={foreign || type === "" ? "text" : "numeric"}
        maxLength={40}
        description={
          foreign
            ? "Your passport, alien identification card or other government photo ID number."
            : "9 digits. Dashes are optional."
        }
        isRequired
      />
      <div
        className={
          foreign
            ? "flex flex-col"
            : type === ""
              ? "hidden group-has-[option[value=foreign]:checked]/tin:flex group-has-[option[value=foreign]:checked]/tin:flex-col"
              : "hidden"
        }
      >
        <Select
          id={fieldId(`${prefix}tin_country`)}
          name={`${prefix}tin_country`}
          label="Issuing country"
          placeholder="Select the country"
          options={COUNTRY_OPTIONS}
          isRequired
        />
      </div>
    </div>
  );
}

function Section({
  id,
  number,
  title,
  lead,
  children,
}: {
  id: string;
  number: number;
  title: string;
  lead?: string;
  children: React.ReactNode;
}) {
  return (
    <fieldset
      id={`section-${id}`}
      aria-labelledby={`section-${id}-heading`}
      className="scroll-mt-24 rounded-2xl border border-slate-200 bg-white p-6 shadow-sm sm:p-8"
    >
      <h2
        id={`section-${id}-heading`}
        className="flex items-center gap-3 text-xl font-semibold tracking-tight text-brand-800"
      >
        <span
          aria-hidden="true"
          className="flex size-8 shrink-0 items-center justify-center rounded-full bg-brand-700 text-sm font-semibold text-white"
        >
          {number}
        </span>
        {title}
      </h2>
      {lead ? <p className="mt-2 text-sm text-slate-600">{lead}</p> : null}
      <div className="mt-6 grid gap-5 sm:grid-cols-2">{children}</div>
    </fieldset>
  );
}
