import { data } from "react-router";
import { marked } from "marked";
import type { Route } from "./+types/policy";
import { institution } from "~/config/institution.server";
import { policyPages, type PolicyPage } from "~/config/redirects";
import { pageUrl } from "~/server/http/page-url.server";
import { PageHero } from "~/components/site/page-hero";
import { pageTitle } from "~/components/site/page-title";

const TITLES: Record<PolicyPage, { title: string; lead: string }> = {
  security: { title: "Security", lead: "How we keep your money and information safe, and how you can help." },
  privacy: { title: "Privacy Policy", lead: "What we collect, why, and the choices you have." },
  terms: { title: "Terms of Service", lead: "The terms for using our website and online banking." },
  accessibility: { title: "Accessibility", lead: "Our commitment to banking that works for everyone." },
  careers: { title: "Careers", lead: "Build a career serving your neighbours." },
  community: { title: "Community", lead: "How we invest in the places our members live and work." },
};

export function loader({ request }: Route.LoaderArgs) {
  const page = pageUrl(request).pathname.slice(1) as PolicyPage;
  if (!policyPages.includes(page)) throw data("Not found", { status: 404 });
  // The Markdown comes from the institution's own configuration, not from visitors; raw HTML in
  // it is escaped anyway so a profile cannot inject script.
  const html = marked.parse(institution().pages[page].replace(/</g, "&lt;"), { async: false });
  return { page, ...TITLES[page], html };
}

export function meta({ loaderData, matches }: Route.MetaArgs) {
  return [...pageTitle(loaderData?.title ?? "Page", matches), ...(loaderData ? [{ name: "description", content: loaderData.lead }] : [])];
}

export default function PolicyRoute({ loaderData }: Route.ComponentProps) {
  return (
    <>
      <PageHero title={loaderData.title} lead={loaderData.lead} />
      <section className="mx-auto max-w-3xl px-4 py-12 sm:px-6">
        <article
          className="prose-policy rounded-2xl border border-slate-200 bg-white p-6 shadow-sm sm:p-10"
          dangerouslySetInnerHTML={{ __html: loaderData.html }}
        />
      </section>
    </>
  );
}
