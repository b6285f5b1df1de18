import { Form } from "react-router";
import { LogOut, Mail, XCircle } from "lucide-react";
import type { Route } from "./+types/not-approved";
import { institution } from "~/config/institution.server";
import { requireApplicant } from "~/server/auth/session.server";
import { pageTitle } from "~/components/site/page-title";
import { SessionTimeout } from "~/components/session/session-timeout";
import { Button } from "~/components/ui";
import { useInstitutionDates } from "~/components/institution-dates";
import { getApplicantOverview } from "./not-approved.server";

/**
 * A rejected applicant cannot use the banking app (docs/product.md#after-applying); signing in
 * leads here, to the reason and whom to contact.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Application not approved", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireApplicant(request, "rejected");
  const overview = await getApplicantOverview(user.id);
  const profile = institution();
  return {
    first_name: overview?.first_name ?? null,
    reason: overview?.rejection_reason ?? null,
    decided_at: overview?.decided_at?.toISOString() ?? null,
    support: { email: profile.support_email, phone: profile.support_phone, hours: profile.support_hours },
    session: { expires_in_ms: user.expires_in_ms, ends_absolutely: user.ends_absolutely },
  };
}

export default function NotApproved({ loaderData }: Route.ComponentProps) {
  const { support } = loaderData;
  const dates = useInstitutionDates();
  return (
    <div className="bg-gradient-to-b from-slate-100 via-slate-50 to-slate-50">
      <SessionTimeout
        expiresInMs={loaderData.session.expires_in_ms}
        endsAbsolutely={loaderData.session.ends_absolutely}
      />
      <section className="mx-auto max-w-3xl px-4 py-10 sm:px-6 sm:py-16">
        <div className="rounded-2xl border border-slate-200 bg-white p-6 shadow-lg shadow-brand-900/5 sm:p-10">
          <span className="flex size-14 items-center justify-center rounded-2xl bg-red-50 text-red-700">
            <XCircle className="size-7" aria-hidden="true" />
          </span>
          <h1 className="mt-5 text-3xl font-semibold tracking-tight text-brand-800">
            Your application was not approved
          </h1>
          <p className="mt-3 text-lg text-slate-700">
            {loaderData.first_name ? `We are sorry, ${loaderData.first_name}. ` : "We are sorry. "}
            After reviewing your membership application
            {loaderData.decided_at ? ` on ${dates.formatProseDate(loaderData.decided_at)}` : ""}, we were not able to
            approve it, so online banking is not available to you.
          </p>
          {loaderData.reason ? (
            <div className="mt-6 rounded-xl bg-slate-50 p-5">
              <h2 className="text-sm font-semibold text-slate-900">The reason we gave</h2>
              <p className="mt-2 whitespace-pre-wrap text-slate-800">{loaderData.reason}</p>
            </div>
          ) : null}
          <h2 className="mt-8 text-lg font-semibold text-brand-800">Questions, or something has changed?</h2>
          <p className="mt-2 text-slate-700">
            Our member service team can explain the decision and what you can do next. {support.hours}.
          </p>
          <div className="mt-6 flex flex-col gap-3 sm:flex-row">
            <a
              href={`mailto:${support.email}`}
              className="inline-flex items-center justify-center gap-2 rounded-lg bg-brand-700 px-5 py-3 font-semibold text-white shadow-sm hover:bg-brand-800"
            >
              <Mail className="size-4" aria-hidden="true" /> {support.email}
            </a>
            <Form method="post" action="/logout">
              <Button type="submit" variant="secondary" size="lg" className="w-full">
                <LogOut className="size-4" aria-hidden="true" /> Sign out
              </Button>
            </Form>
          </div>
          <p className="mt-4 text-sm text-slate-600">Or call us at {support.phone}.</p>
        </div>
      </section>
    </div>
  );
}
