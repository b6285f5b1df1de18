import { data, Form, Link, useNavigation } from "react-router";
import { FileText, Info } from "lucide-react";
import type { Route } from "./+types/electronic-delivery";
import { requestInfoContext } from "~/context";
import { requireMember } from "~/server/auth/session.server";
import { parseSubmission, readForm, refusalStatus, replyTo, type FormReply } from "~/server/http/form.server";
import { UNKNOWN_INTENT_MESSAGE, formIntent } from "~/domain/form-intent";
import { consentSchema } from "~/domain/electronic-delivery";
import { pageTitle } from "~/components/site/page-title";
import { Button, Checkbox, FormMessage, SchemaForm, TextField, formMessages, useSchemaForm } from "~/components/ui";
import { useInstitutionDates } from "~/components/institution-dates";
import { consent, electronicDeliveryPage, withdrawConsent } from "./electronic-delivery.server";

/**
 * /dashboard/electronic-delivery (docs/product.md#electronic-delivery): the member's consent to get
 * statements, notices and disclosures electronically (E-SIGN, 15 U.S.C. 7001(c)). The page states
 * what is covered, what is needed, how to get paper and how to withdraw; the member opens a sample
 * PDF and types its code, which shows they can read what we send. Also the disclosures with the
 * versions the member agreed to, and the change-in-terms notices they were sent.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Electronic delivery", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireMember(request);
  return electronicDeliveryPage(user.id);
}

const INTENTS = ["consent", "paper"] as const;

export type ElectronicDeliveryActionData =
  { ok: false; intent: "consent"; reply: FormReply } | { ok: true; intent: "consent" | "paper"; message: string };

export async function action({ request, context }: Route.ActionArgs) {
  const user = await requireMember(request);
  const { request_id, ip } = context.get(requestInfoContext);
  const form = await readForm(request);
  const intent = formIntent(form, INTENTS);
  if (!intent) throw data(UNKNOWN_INTENT_MESSAGE, { status: 400 });
  const actor = { id: user.id, email: user.email };
  if (intent === "paper") {
    await withdrawConsent(actor, { request_id, ip });
    return {
      ok: true,
      intent,
      message: "We will mail your statements, notices and disclosures to your address on file.",
    } satisfies ElectronicDeliveryActionData;
  }
  const submission = parseSubmission(consentSchema, form);
  if (submission.status !== "success")
    return data({ ok: false, intent, reply: replyTo(submission) } satisfies ElectronicDeliveryActionData, {
      status: 400,
    });
  const result = await consent(actor, submission.value.code, { request_id, ip });
  if (!result.ok)
    return data(
      {
        ok: false,
        intent,
        reply: replyTo(submission, { fieldErrors: { [result.field ?? "code"]: [result.message] } }),
      } satisfies ElectronicDeliveryActionData,
      { status: refusalStatus(result.kind) },
    );
  return {
    ok: true,
    intent,
    message: "Thank you. From now on your statements, notices and disclosures come electronically.",
  } satisfies ElectronicDeliveryActionData;
}

/** A calendar date (YYYY-MM-DD) at noon UTC, so it reads as the same day in any US time zone. */
const noon = (date: string) => `${date}T12:00:00Z`;

const CHOICE_LABELS = {
  consented: "Agreed to electronic delivery",
  withdrawn: "Withdrew consent: paper by mail",
  declined: "Chose paper by mail",
} as const;

export default function ElectronicDelivery({ loaderData, actionData }: Route.ComponentProps) {
  const { formatDate, formatDateTime } = useInstitutionDates();
  const navigation = useNavigation();
  const sending = navigation.state === "submitting";
  const reply = actionData && !actionData.ok ? actionData.reply : null;
  const form = useSchemaForm(consentSchema, { id: "electronic-delivery-consent", lastResult: reply });
  const problems = formMessages(reply);
  const d = loaderData;
  const electronic = d.delivery === "electronic";
  return (
    <div className="mx-auto max-w-3xl px-4 py-6 sm:px-6 lg:px-8 lg:py-10">
      <h1 className="text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">Electronic delivery</h1>
      <p className="mt-2 text-sm text-slate-700">
        {electronic
          ? "You get your statements, notices and disclosures electronically."
          : d.answered
            ? "We mail your statements, notices and disclosures to your address on file."
            : "Choose how you get your statements, notices and disclosures. Until you agree to electronic delivery, we mail them."}
      </p>
      {actionData?.ok ? (
        <FormMessage className="mt-4" tone="success">
          {actionData.message}
        </FormMessage>
      ) : null}
      {d.new_disclosure ? (
        <FormMessage className="mt-4" tone="info">
          We have updated this disclosure (version {d.esign.version}). Please read it and confirm below.
        </FormMessage>
      ) : null}

      <section
        aria-labelledby="esign-heading"
        className="mt-5 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6"
      >
        <h2 id="esign-heading" className="text-lg font-semibold text-brand-900">
          {d.esign.title}
        </h2>
        <p className="mt-1 text-xs text-slate-600">Version {d.esign.version}</p>
        <article className="prose-policy mt-3 text-sm" dangerouslySetInnerHTML={{ __html: d.esign.html }} />
        <p className="mt-3 text-sm text-slate-800">
          {d.withdrawal_fee
            ? `Withdrawing your consent costs ${d.withdrawal_fee}.`
            : "Withdrawing your consent is free."}{" "}
          {d.paper_copy_fee
            ? `A paper copy of a statement or notice costs ${d.paper_copy_fee}.`
            : "Paper copies are free."}{" "}
          Call {d.support.phone} or write to {d.support.email} for a paper copy.
        </p>
      </section>

      {!electronic || d.new_disclosure ? (
        <section
          aria-labelledby="consent-heading"
          className="mt-5 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6"
        >
          <h2 id="consent-heading" className="text-lg font-semibold text-brand-900">
            Agree to electronic delivery
          </h2>
          <ol className="mt-3 list-decimal space-y-2 pl-5 text-sm text-slate-800">
            <li>
              Open the sample PDF. It shows a short code; it proves you can open the files we send.
              <div className="mt-2">
                <a
                  href="/dashboard/electronic-delivery/sample.pdf"
                  target="_blank"
                  rel="noopener"
                  className="inline-flex items-center gap-2 rounded-lg border border-accent-600 px-3 py-2 font-semibold text-accent-700 hover:bg-accent-50"
                >
                  <FileText className="size-4" aria-hidden="true" /> Open the sample PDF
                </a>
              </div>
            </li>
            <li>Type the code from the PDF below and agree.</li>
          </ol>
          {problems.length > 0 ? (
            <FormMessage className="mt-4" tone="error">
              {problems[0]}
            </FormMessage>
          ) : null}
          <SchemaForm
            form={form}
            method="post"
            action="/dashboard/electronic-delivery"
            className="mt-4 grid gap-4"
            aria-labelledby="consent-heading"
          >
            <input type="hidden" name="intent" value="consent" />
            <TextField
              name="code"
              label="Code from the sample PDF"
              autoComplete="off"
              maxLength={12}
              className="sm:max-w-xs"
              isRequired
            />
            <Checkbox name="agree" value="yes" isRequired>
              I have read the disclosure above and agree to get my statements, notices and disclosures electronically.
            </Checkbox>
            <div className="flex flex-col gap-3 sm:flex-row sm:justify-end">
              <Button type="submit" size="lg" isPending={sending} pendingLabel="Saving…" className="w-full sm:w-auto">
                Agree to electronic delivery
              </Button>
            </div>
          </SchemaForm>
          {!d.answered ? (
            <Form method="post" action="/dashboard/electronic-delivery" className="mt-3 flex sm:justify-end">
              <input type="hidden" name="intent" value="paper" />
              <Button type="submit" variant="secondary" className="w-full sm:w-auto">
                I prefer paper by mail
              </Button>
            </Form>
          ) : null}
        </section>
      ) : (
        <p className="mt-5 flex items-start gap-2 rounded-xl bg-accent-50 px-4 py-3 text-sm text-slate-800">
          <Info className="mt-0.5 size-4 shrink-0 text-accent-700" aria-hidden="true" />
          <span>
            To get paper by mail instead, withdraw your consent in{" "}
            <Link className="font-semibold underline" to="/settings/account">
              Account Settings
            </Link>
            .
          </span>
        </p>
      )}

      <section
        aria-labelledby="disclosures-heading"
        className="mt-5 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6"
      >
        <h2 id="disclosures-heading" className="text-lg font-semibold text-brand-900">
          Your disclosures
        </h2>
        <ul className="mt-3 divide-y divide-slate-100">
          {d.disclosures.map((x) => (
            <li key={x.kind} className="py-3">
              <details>
                <summary className="cursor-pointer text-sm font-semibold text-slate-900">{x.title}</summary>
                <div className="prose-policy mt-2 text-sm" dangerouslySetInnerHTML={{ __html: x.html }} />
              </details>
              <p className="mt-1 text-xs text-slate-600">
                Current version {x.version}, in effect from {formatDate(noon(x.effective_on))}.{" "}
                {x.agreed_version ? `You agreed to version ${x.agreed_version}.` : "Not yet agreed electronically."}
              </p>
            </li>
          ))}
        </ul>
        {d.notices.length > 0 ? (
          <>
            <h3 className="mt-4 text-sm font-semibold text-slate-900">Change-in-terms notices sent to you</h3>
            <ul className="mt-2 space-y-1 text-sm text-slate-700">
              {d.notices.map((n) => (
                <li key={n.id}>
                  {d.disclosures.find((x) => x.kind === n.kind)?.title ?? n.kind}, version {n.version}, in effect{" "}
                  {formatDate(noon(n.effective_on))}: sent by {n.channel} on {formatDateTime(n.sent_at)}
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </section>

      {d.history.length > 0 ? (
        <section
          aria-labelledby="history-heading"
          className="mt-5 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6"
        >
          <h2 id="history-heading" className="text-lg font-semibold text-brand-900">
            Your choices
          </h2>
          <ul className="mt-2 space-y-1 text-sm text-slate-700">
            {d.history.map((h) => (
              <li key={h.id}>
                {formatDateTime(h.at)}: {CHOICE_LABELS[h.choice]} (disclosure version {h.disclosure_version})
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </div>
  );
}
