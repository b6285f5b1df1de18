import { useEffect, useRef } from "react";
import { data, Link, redirect, useNavigation } from "react-router";
import { Building2, CheckCircle2, Clock, Lock, Mail, MapPin, MessageCircle, Phone, ShieldCheck, Users } from "lucide-react";
import type { Route } from "./+types/contact";
import { institution } from "~/config/institution.server";
import { FEATURES } from "~/config/features";
import { requestInfoContext } from "~/context";
import { getSessionUser } from "~/server/auth/session.server";
import {
  CONTACT_EMAIL_MAX_CHARS,
  CONTACT_HONEYPOT_FIELD,
  CONTACT_MESSAGE_MAX_CHARS,
  CONTACT_NAME_MAX_CHARS,
  CONTACT_PHONE_MAX_CHARS,
  CONTACT_RATE_LIMITED,
  CONTACT_SUBJECTS,
  ContactMessageSchema,
  MEETING_MESSAGE_START,
  PREFERRED_CONTACTS,
  subjectFromQuery,
  telephoneHref,
} from "~/domain/contact";
import { parseSubmission, readForm, refusalHeaders, refusalStatus, replyTo, type FormReply } from "~/server/http/form.server";
import { contactReference, sendContactMessage } from "~/server/contact/contact.server";
import { logger } from "~/server/logger.server";
import { PageHero } from "~/components/site/page-hero";
import { pageTitle } from "~/components/site/page-title";
import { Button, FormMessage, RadioGroup, SchemaForm, Select, TextArea, TextField, fieldErrorCount, useSchemaForm } from "~/components/ui";

export function meta({ matches, loaderData }: Route.MetaArgs) {
  const reply = loaderData ? ` We reply ${loaderData.support.email_reply_time}.` : "";
  return [...pageTitle("Contact Us", matches), { name: "description", content: `Email or call our member service team, or send us a message.${reply}` }];
}

/** A refused post's Retry-After reaches the browser on the full-page (no JavaScript) answer too. */
export function headers({ actionHeaders }: Route.HeadersArgs) {
  const retryAfter = actionHeaders.get("Retry-After");
  return retryAfter ? { "Retry-After": retryAfter } : new Headers();
}

export async function loader({ request }: Route.LoaderArgs) {
  // A signed-in member writes to us securely in the app instead (docs/product.md#secure-messages);
  // visitors, applicants and staff keep the form.
  const user = await getSessionUser(request, { touch: false });
  if (user?.role === "user") throw redirect("/dashboard/messages/new");
  const url = new URL(request.url);
  const profile = institution();
  return {
    support: {
      email: profile.support_email,
      phone: profile.support_phone,
      hours: profile.support_hours,
      // Only once live chat exists (app/config/features.ts): until then no card or hours promise it.
      live_chat_hours: FEATURES.live_chat ? (profile.live_chat_hours ?? null) : null,
      email_reply_time: profile.email_reply_time,
    },
    address: profile.address,
    subject: subjectFromQuery(url.searchParams.get("subject")) ?? "",
    meeting: url.searchParams.get("meeting") === "1",
  };
}

type ActionResult =
  | { status: "sent"; reference: string; name: string; preferred_contact: "email" | "phone" }
  | { status: "invalid"; reply: FormReply }
  | { status: "rate_limited"; retry_after_s: number; reply: FormReply };

export async function action({ request, context }: Route.ActionArgs) {
  const { request_id, ip } = context.get(requestInfoContext);
  const form = await readForm(request);

  // A bot filled the field people cannot see: thank it as if it worked, keep nothing.
  const honeypot = form.get(CONTACT_HONEYPOT_FIELD);
  if (typeof honeypot === "string" && honeypot.trim() !== "") {
    logger.info({ request_id, ip }, "contact form honeypot filled; message discarded");
    const name = form.get("name");
    return { status: "sent", reference: contactReference(request_id), name: typeof name === "string" ? name.slice(0, CONTACT_NAME_MAX_CHARS) : "", preferred_contact: "email" } satisfies ActionResult;
  }

  const submission = parseSubmission(ContactMessageSchema, form);
  const hideFields = [CONTACT_HONEYPOT_FIELD];
  if (submission.status !== "success") return data({ status: "invalid", reply: replyTo(submission, { hideFields }) } satisfies ActionResult, { status: 400 });

  const result = await sendContactMessage(submission.value, { source_ip: ip, request_id });
  if (!result.ok) {
    logger.warn({ request_id, ip }, "contact form rate limit reached; message refused");
    return data({ status: "rate_limited", retry_after_s: result.retry_after_s, reply: replyTo(submission, { hideFields }) } satisfies ActionResult, {
      status: refusalStatus(result.kind),
      headers: refusalHeaders(result),
    });
  }
  return { status: "sent", reference: contactReference(request_id), name: submission.value.name, preferred_contact: submission.value.preferred_contact } satisfies ActionResult;
}

export default function ContactRoute({ loaderData, actionData }: Route.ComponentProps) {
  const result = actionData as ActionResult | undefined;
  const { support } = loaderData;
  return (
    <>
      <PageHero title="Contact Us" lead="Questions about an account, a loan or online banking? Our member service team is here to help, the way that suits you." />

      <section aria-labelledby="channels-heading" className="relative z-10 mx-auto -mt-8 max-w-7xl px-4 sm:px-6 lg:px-8">
        <h2 id="channels-heading" className="sr-only">
          Ways to reach us
        </h2>
        <ul className="grid gap-4 md:grid-cols-3">
          <ChannelCard icon={Mail} title="Email support" detail={`We reply ${support.email_reply_time}.`}>
            <a href={`mailto:${support.email}`} className="font-semibold break-all text-accent-700 underline-offset-2 hover:underline">
              {support.email}
            </a>
          </ChannelCard>
          <ChannelCard icon={Phone} title="Phone support" detail={`Member service: ${support.hours}.`}>
            <a href={telephoneHref(support.phone)} className="font-semibold text-accent-700 underline-offset-2 hover:underline">
              {support.phone}
            </a>
          </ChannelCard>
          {support.live_chat_hours ? (
            <ChannelCard icon={MessageCircle} title="Live chat" detail="Sign in to online banking to chat with a member service specialist.">
              <span className="font-semibold text-slate-900">{support.live_chat_hours}</span>
            </ChannelCard>
          ) : (
            <ChannelCard icon={Building2} title="Visit a branch" detail="Talk with our staff in person. Addresses and opening hours are on our locations page.">
              <Link to="/locations" className="font-semibold text-accent-700 underline-offset-2 hover:underline">
                Find a branch or ATM
              </Link>
            </ChannelCard>
          )}
        </ul>
      </section>

      <section className="mx-auto grid max-w-7xl gap-8 px-4 py-12 sm:px-6 lg:grid-cols-3 lg:px-8 lg:py-16">
        <div className="lg:col-span-2">
          {result?.status === "sent" ? (
            <Confirmation result={result} replyTime={support.email_reply_time} />
          ) : (
            <ContactForm loaderData={loaderData} result={result} />
          )}
        </div>
        <aside aria-labelledby="visit-heading" className="space-y-6">
          <div className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
            <h2 id="visit-heading" className="flex items-center gap-2 text-lg font-semibold text-brand-800">
              <MapPin className="size-5 text-accent-700" aria-hidden="true" /> Visit us
            </h2>
            <address className="mt-3 text-slate-700 not-italic">
              {loaderData.address.street}
              <br />
              {loaderData.address.city}, {loaderData.address.state} {loaderData.address.postal_code}
            </address>
            <Link to="/locations" className="mt-4 inline-flex items-center gap-1 text-sm font-semibold text-accent-700 underline-offset-2 hover:underline">
              Find a branch or ATM
            </Link>
          </div>
          <div className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
            <h2 className="flex items-center gap-2 text-lg font-semibold text-brand-800">
              <Clock className="size-5 text-accent-700" aria-hidden="true" /> Hours
            </h2>
            <dl className="mt-3 space-y-3 text-sm">
              <div>
                <dt className="font-medium text-slate-900">Member service</dt>
                <dd className="text-slate-700">{support.hours}</dd>
              </div>
              {support.live_chat_hours ? (
                <div>
                  <dt className="font-medium text-slate-900">Live chat</dt>
                  <dd className="text-slate-700">{support.live_chat_hours}</dd>
                </div>
              ) : null}
              <div>
                <dt className="font-medium text-slate-900">Email replies</dt>
                <dd className="text-slate-700">{capitalize(support.email_reply_time)}</dd>
              </div>
            </dl>
          </div>
          <div className="rounded-2xl border border-amber-200 bg-amber-50 p-6 text-sm text-amber-950">
            <h2 className="font-semibold">Lost or stolen card?</h2>
            <p className="mt-1">
              Call us right away at{" "}
              <a href={telephoneHref(support.phone)} className="font-semibold underline underline-offset-2">
                {support.phone}
              </a>
              . Please do not send card numbers or passwords in a message.
            </p>
          </div>
        </aside>
      </section>

      <section aria-labelledby="reassurance-heading" className="border-t border-slate-200 bg-white">
        <div className="mx-auto max-w-7xl px-4 py-12 sm:px-6 lg:px-8 lg:py-16">
          <h2 id="reassurance-heading" className="text-2xl font-semibold tracking-tight text-brand-800">
            Help you can count on
          </h2>
          <ul className="mt-8 grid gap-6 md:grid-cols-3">
            <Reassurance icon={Clock} title="Banking around the clock">
              Online banking is open day and night: check balances, see your history and move money whenever you need to.
            </Reassurance>
            <Reassurance icon={Users} title="Dedicated account team">
              The people who answer are our own staff, who know our products, our community and often you by name.
            </Reassurance>
            <Reassurance icon={ShieldCheck} title="Secure communication">
              Messages travel encrypted and stay with us. We will never ask for your password or a one-time code.
            </Reassurance>
          </ul>
        </div>
      </section>
    </>
  );
}

function ContactForm({ loaderData, result }: { loaderData: Route.ComponentProps["loaderData"]; result: Exclude<ActionResult, { status: "sent" }> | undefined }) {
  const navigation = useNavigation();
  const sending = navigation.state === "submitting" && navigation.formMethod?.toUpperCase() === "POST";
  const refusalRef = useRef<HTMLDivElement>(null);
  // The same schema as the server, checked before posting; the server's answer otherwise.
  const form = useSchemaForm(ContactMessageSchema, {
    lastResult: result?.reply,
    defaultValue: { subject: loaderData.subject, message: loaderData.meeting ? MEETING_MESSAGE_START : undefined, preferred_contact: "email" },
  });
  useEffect(() => {
    if (result?.status === "rate_limited") refusalRef.current?.focus();
  }, [result]);

  const errorCount = fieldErrorCount(form);

  return (
    <div className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm sm:p-8">
      <h2 id="message-form-heading" className="text-2xl font-semibold tracking-tight text-brand-800">
        Send us a message
      </h2>
      <p className="mt-2 text-slate-700">All fields are required unless marked optional. Please do not include account or card numbers.</p>

      {loaderData.meeting ? (
        <FormMessage tone="info" title="You are asking to schedule a meeting" announce={false} className="mt-6">
          Tell us what you would like to discuss and which days and times suit you. An advisor will reply to arrange a time, in a branch or by phone.
        </FormMessage>
      ) : null}
      {result?.status === "rate_limited" ? (
        <FormMessage ref={refusalRef} tone="error" title={CONTACT_RATE_LIMITED} className="mt-6">
          To protect our members from spam, we accept a few messages at a time. Please try again in about {minutesText(result.retry_after_s)}, or call us at{" "}
          {loaderData.support.phone}. Your message has not been sent; what you typed is still below.
        </FormMessage>
      ) : null}
      {errorCount > 0 ? (
        <FormMessage tone="error" className="mt-6">
          {errorCount === 1 ? "Please check the highlighted field." : `Please check the ${errorCount} highlighted fields.`}
        </FormMessage>
      ) : null}

      <SchemaForm form={form} method="post" className="mt-6 grid gap-6 sm:grid-cols-2" aria-labelledby="message-form-heading">
        <TextField name="name" label="Full name" autoComplete="name" maxLength={CONTACT_NAME_MAX_CHARS} isRequired />
        <TextField name="email" label="Email address" type="email" autoComplete="email" maxLength={CONTACT_EMAIL_MAX_CHARS} isRequired />
        <TextField name="phone" label="Phone number" type="tel" autoComplete="tel" maxLength={CONTACT_PHONE_MAX_CHARS} optional />
        <Select name="subject" label="Subject" placeholder="Select a subject" options={CONTACT_SUBJECTS} isRequired />
        <TextArea
          name="message"
          label="Message"
          rows={4}
          description="Up to 5,000 characters."
          maxLength={CONTACT_MESSAGE_MAX_CHARS}
          isRequired
          className="sm:col-span-2"
        />
        <RadioGroup
          name="preferred_contact"
          label="How should we reply?"
          options={PREFERRED_CONTACTS}
          className="sm:col-span-2"
        />
        {/* Honeypot: hidden from people and assistive technology; bots that fill every field give themselves away. */}
        <div aria-hidden="true" className="sr-only">
          <label htmlFor="contact-website">Leave this field empty</label>
          <input id="contact-website" type="text" name={CONTACT_HONEYPOT_FIELD} tabIndex={-1} autoComplete="off" defaultValue="" />
        </div>
        <div className="flex flex-col-reverse gap-4 sm:col-span-2 sm:flex-row sm:items-center sm:justify-between">
          <p className="flex items-center gap-2 text-sm text-slate-600">
            <Lock className="size-4 shrink-0" aria-hidden="true" /> Sent securely. We reply {loaderData.support.email_reply_time}.
          </p>
          <Button type="submit" size="lg" isPending={sending} pendingLabel="Sending…" className="w-full sm:w-auto">
            Send message
          </Button>
        </div>
      </SchemaForm>
    </div>
  );
}

function Confirmation({ result, replyTime }: { result: Extract<ActionResult, { status: "sent" }>; replyTime: string }) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);
  return (
    <div className="rounded-2xl border border-emerald-200 bg-white p-6 shadow-sm sm:p-10">
      <CheckCircle2 className="size-12 text-emerald-700" aria-hidden="true" />
      <h2 ref={headingRef} tabIndex={-1} className="mt-4 scroll-mt-40 text-2xl font-semibold tracking-tight text-brand-800 focus:outline-none">
        Thank you{result.name ? `, ${result.name.split(/\s+/)[0]}` : ""}. Your message has been sent.
      </h2>
      <p className="mt-3 text-slate-700">
        A member of our team will {result.preferred_contact === "phone" ? "call you" : "email you"} {replyTime}. If it is urgent, please call us.
      </p>
      <dl className="mt-6 inline-flex flex-col rounded-xl bg-slate-50 px-5 py-4">
        <dt className="text-sm text-slate-600">Your reference</dt>
        <dd className="tabular text-lg font-semibold tracking-widest text-slate-900">{result.reference}</dd>
      </dl>
      <div className="mt-8 flex flex-col gap-3 sm:flex-row">
        <Link to="/contact" className="inline-flex items-center justify-center rounded-lg border border-slate-300 bg-white px-5 py-3 text-sm font-semibold text-brand-800 shadow-xs hover:bg-slate-50">
          Send another message
        </Link>
        <Link to="/" className="inline-flex items-center justify-center rounded-lg px-5 py-3 text-sm font-semibold text-brand-800 hover:bg-brand-50">
          Back to the home page
        </Link>
      </div>
    </div>
  );
}

function ChannelCard({ icon: Icon, title, detail, children }: { icon: typeof Mail; title: string; detail: string; children: React.ReactNode }) {
  return (
    <li className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
      <span className="flex size-11 items-center justify-center rounded-xl bg-accent-50 text-accent-700">
        <Icon className="size-5" aria-hidden="true" />
      </span>
      <h3 className="mt-4 text-lg font-semibold text-brand-800">{title}</h3>
      <p className="mt-1">{children}</p>
      <p className="mt-2 text-sm text-slate-600">{detail}</p>
    </li>
  );
}

function Reassurance({ icon: Icon, title, children }: { icon: typeof Mail; title: string; children: React.ReactNode }) {
  return (
    <li className="flex gap-4">
      <span className="flex size-11 shrink-0 items-center justify-center rounded-full bg-brand-50 text-brand-700">
        <Icon className="size-5" aria-hidden="true" />
      </span>
      <div>
        <h3 className="font-semibold text-slate-900">{title}</h3>
        <p className="mt-1 text-sm text-slate-700">{children}</p>
      </div>
    </li>
  );
}


function minutesText(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return minutes === 1 ? "a minute" : `${minutes} minutes`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
