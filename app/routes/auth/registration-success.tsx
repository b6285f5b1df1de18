import { Link } from "react-router";
import { CheckCircle2, FileSearch, MailCheck, ShieldCheck } from "lucide-react";
import type { Route } from "./+types/registration-success";
import { institution } from "~/config/institution.server";
import { pageTitle } from "~/components/site/page-title";

/** Shown after an application is sent (docs/product.md#application-form). */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Registration Successful", matches), { name: "robots", content: "noindex" }];
}

export function loader() {
  const profile = institution();
  return { name: profile.name, support_email: profile.support_email };
}

export default function RegistrationSuccess({ loaderData }: Route.ComponentProps) {
  return (
    <div className="bg-gradient-to-b from-emerald-50/60 via-slate-50 to-slate-50">
      <section className="mx-auto max-w-3xl px-4 py-12 sm:px-6 sm:py-20">
        <div className="rounded-2xl border border-slate-200 bg-white p-6 text-center shadow-lg shadow-brand-900/5 sm:p-10">
          <span className="mx-auto flex size-16 items-center justify-center rounded-full bg-emerald-50 text-emerald-700">
            <CheckCircle2 className="size-9" aria-hidden="true" />
          </span>
          <h1 className="mt-6 text-3xl font-semibold tracking-tight text-brand-800 sm:text-4xl">
            Registration Successful
          </h1>
          <p className="mx-auto mt-4 max-w-xl text-lg text-slate-700">
            Thank you for applying to {loaderData.name}. Your application is now under review, and we will send you an
            email as soon as it is approved.
          </p>

          <h2 className="mt-10 text-left text-lg font-semibold text-brand-800">What happens next</h2>
          <ol className="mt-4 space-y-4 text-left">
            <Step icon={FileSearch} number={1} title="We review your application">
              Our team checks your information and your ID document, usually within 1–2 business days.
            </Step>
            <Step icon={MailCheck} number={2} title="We email you">
              You will hear from us when a decision is made. If we need anything else, we will ask on your application
              status page.
            </Step>
            <Step icon={ShieldCheck} number={3} title="You start banking">
              Once approved, sign in to open your checking and savings accounts and use every online banking feature.
            </Step>
          </ol>

          <p className="mt-8 text-sm text-slate-600">
            We also sent a confirmation to your email address. Questions? Write to{" "}
            <a
              href={`mailto:${loaderData.support_email}`}
              className="font-semibold text-accent-700 underline underline-offset-2"
            >
              {loaderData.support_email}
            </a>
            .
          </p>
          <div className="mt-8 flex flex-col justify-center gap-3 sm:flex-row">
            <Link
              to="/"
              className="inline-flex items-center justify-center rounded-lg bg-brand-700 px-6 py-3 font-semibold text-white shadow-sm hover:bg-brand-800"
            >
              Return to Home
            </Link>
            <Link
              to="/pending-approval"
              className="inline-flex items-center justify-center rounded-lg border border-slate-300 bg-white px-6 py-3 font-semibold text-brand-800 shadow-xs hover:bg-slate-50"
            >
              View application status
            </Link>
          </div>
        </div>
      </section>
    </div>
  );
}

function Step({
  icon: Icon,
  number,
  title,
  children,
}: {
  icon: typeof FileSearch;
  number: number;
  title: string;
  children: React.ReactNode;
}) {
  return (
    <li className="flex gap-4 rounded-xl bg-slate-50 p-4">
      <span className="flex size-10 shrink-0 items-center justify-center rounded-lg bg-white text-accent-700 shadow-xs">
        <Icon className="size-5" aria-hidden="true" />
      </span>
      <span>
        <span className="block font-semibold text-slate-900">
          <span className="sr-only">Step {number}: </span>
          {title}
        </span>
        <span className="mt-1 block text-slate-700">{children}</span>
      </span>
    </li>
  );
}
