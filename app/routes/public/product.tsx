import { data, Link } from "react-router";
import { Marked } from "marked";
import { ArrowLeft, ArrowRight, Check, ChevronRight, MessageCircle, Phone } from "lucide-react";
import type { Route } from "./+types/product";
import { institution } from "~/config/institution.server";
import { loanApplicationsOpen, loanProductForPage } from "~/server/loans/products.server";
import { pageTitle } from "~/components/site/page-title";
import { HeroBackdrop } from "~/components/site/page-hero";
import { ButtonLink } from "~/components/marketing/button-link";
import { ProductCard, RateBadge } from "~/components/marketing/product-card";
import { productIcon } from "~/components/marketing/product-icon";
import { IconTile, Section, SectionHeading, cardClass } from "~/components/marketing/section";

/** The product page shows its details under an h2, so Markdown headings start at h3. */
const markdown = new Marked({
  walkTokens(token) {
    if (token.type === "heading") token.depth = Math.min(6, Math.max(3, token.depth + 1));
  },
});

export function loader({ params }: Route.LoaderArgs) {
  const profile = institution();
  const product = profile.products.find((p) => p.slug === params.slug);
  if (!product) throw data(null, { status: 404 });
  // The Markdown comes from the institution's configuration; raw HTML in it is escaped anyway.
  const details_html = markdown.parse(product.details.replace(/</g, "&lt;"), { async: false });
  const others = profile.products
    .filter((p) => p.segment === product.segment && p.slug !== product.slug)
    .slice(0, 3)
    .map(({ slug, name, description, rate_label, features, most_popular, icon }) => ({ slug, name, description, rate_label, features, most_popular, icon }));
  return {
    product: {
      slug: product.slug,
      segment: product.segment,
      name: product.name,
      description: product.description,
      rate_label: product.rate_label,
      features: product.features,
      most_popular: product.most_popular,
      icon: product.icon,
    },
    details_html,
    // A loan members may apply for online (docs/product.md#loans): the page leads to its application.
    apply: loanApplicationsOpen() ? applyLink(product.slug) : null,
    others,
    support_phone: profile.support_phone,
    support_hours: profile.support_hours,
  };
}

function applyLink(page_slug: string): `/${string}` | null {
  const loan = loanProductForPage(page_slug);
  return loan ? `/dashboard/loans/apply/${loan.slug}` : null;
}

export function meta({ loaderData, matches }: Route.MetaArgs) {
  if (!loaderData) return pageTitle("Page not found", matches);
  return [...pageTitle(loaderData.product.name, matches), { name: "description", content: loaderData.product.description }];
}

/** An unknown slug renders the site's helpful 404 page, with status 404. */
export { ErrorBoundary } from "./not-found";

const SEGMENT = {
  personal: { label: "Personal Banking", to: "/products" },
  business: { label: "Business Banking", to: "/products?segment=business" },
} as const;

export default function ProductPage({ loaderData: d }: Route.ComponentProps) {
  const { product } = d;
  const segment = SEGMENT[product.segment];
  return (
    <>
      <section aria-labelledby="product-heading" className="relative isolate overflow-hidden bg-brand-800 text-white">
        <HeroBackdrop />
        <div className="mx-auto max-w-7xl px-4 py-16 sm:px-6 sm:py-24 lg:px-8">
          <nav aria-label="Breadcrumb">
            <ol className="flex flex-wrap items-center gap-2 text-sm text-brand-100">
              <li>
                <Link to="/products" className="rounded-sm hover:text-white hover:underline focus-on-dark">
                  Products
                </Link>
              </li>
              <li className="flex items-center gap-2">
                <ChevronRight className="size-4" aria-hidden="true" />
                <Link to={segment.to} className="rounded-sm hover:text-white hover:underline focus-on-dark">
                  {segment.label}
                </Link>
              </li>
              <li className="flex items-center gap-2">
                <ChevronRight className="size-4" aria-hidden="true" />
                <span aria-current="page" className="font-medium text-white">
                  {product.name}
                </span>
              </li>
            </ol>
          </nav>
          <div className="mt-8 flex flex-col gap-6 sm:flex-row sm:items-start">
            <span className="hidden sm:block">
              <IconTile icon={productIcon(product.icon)} tone="onDark" size="lg" />
            </span>
            <div className="max-w-3xl">
              <div className="flex flex-wrap items-center gap-3">
                <RateBadge label={product.rate_label} onDark />
                {product.most_popular ? (
                  <span className="rounded-full bg-white px-3 py-1 text-xs font-semibold tracking-wide text-accent-700">Most Popular</span>
                ) : null}
              </div>
              <h1 id="product-heading" className="mt-4 text-4xl font-semibold tracking-tight text-balance sm:text-5xl">
                {product.name}
              </h1>
              <p className="mt-4 text-lg leading-relaxed text-brand-100">{product.description}</p>
              <div className="mt-8 flex flex-col gap-4 sm:flex-row">
                {d.apply ? (
                  <ButtonLink to={d.apply} variant="onDark">
                    Apply online <ArrowRight className="size-4" aria-hidden="true" />
                  </ButtonLink>
                ) : (
                  <ButtonLink to="/signup" variant="onDark">
                    Open an Account <ArrowRight className="size-4" aria-hidden="true" />
                  </ButtonLink>
                )}
                <ButtonLink to="/contact" variant="outlineOnDark">
                  Ask a question
                </ButtonLink>
              </div>
            </div>
          </div>
        </div>
      </section>

      <div className="mx-auto grid max-w-7xl gap-8 px-4 py-16 sm:px-6 sm:py-24 lg:grid-cols-12 lg:items-start lg:px-8">
        <div className={`lg:col-span-8 ${cardClass}`}>
          <section aria-labelledby="details-heading" className="p-6 sm:p-10">
            <h2 id="details-heading" className="text-2xl font-semibold tracking-tight text-brand-800">
              About {product.name}
            </h2>
            <div className="prose-policy mt-6" dangerouslySetInnerHTML={{ __html: d.details_html }} />
          </section>
          <section aria-labelledby="features-heading" className="border-t border-slate-100 p-6 sm:p-10">
            <h2 id="features-heading" className="text-lg font-semibold text-brand-800">
              What you get
            </h2>
            <ul className="mt-6 grid gap-4 text-slate-700 sm:grid-cols-2">
              {product.features.map((feature) => (
                <li key={feature} className="flex gap-3">
                  <span className="mt-0.5 inline-flex size-5 shrink-0 items-center justify-center rounded-full bg-accent-50 text-accent-700 ring-1 ring-inset ring-accent-100">
                    <Check className="size-3" aria-hidden="true" />
                  </span>
                  <span>{feature}</span>
                </li>
              ))}
            </ul>
          </section>
        </div>
        <aside aria-labelledby="questions-heading" className={`p-6 sm:p-8 lg:sticky lg:top-24 lg:col-span-4 ${cardClass}`}>
          <h2 id="questions-heading" className="text-lg font-semibold text-brand-800">
            Questions?
          </h2>
          <p className="mt-2 text-sm leading-relaxed text-slate-600">Our team can explain the terms, check what you qualify for and help you apply.</p>
          <p className="tabular mt-6 flex items-center gap-3 font-semibold text-slate-900">
            <Phone className="size-5 text-accent-700" aria-hidden="true" />
            {d.support_phone}
          </p>
          <p className="mt-1 pl-8 text-sm text-slate-600">{d.support_hours}</p>
          <ButtonLink to="/contact" variant="secondary" className="mt-6 w-full">
            <MessageCircle className="size-4" aria-hidden="true" /> Contact us
          </ButtonLink>
        </aside>
      </div>

      {d.others.length > 0 ? (
        <Section labelledBy="others-heading" tone="white">
          <div className="flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
            <SectionHeading id="others-heading" eyebrow={segment.label} title="You might also like" />
            <Link to={segment.to} className="inline-flex items-center gap-2 rounded-md font-semibold text-brand-700 hover:text-brand-900">
              <ArrowLeft className="size-4" aria-hidden="true" /> All {segment.label.toLowerCase()} products
            </Link>
          </div>
          <ul className="mt-12 grid gap-8 md:grid-cols-2 lg:grid-cols-3">
            {d.others.map((other) => (
              <li key={other.slug}>
                <ProductCard product={other} />
              </li>
            ))}
          </ul>
        </Section>
      ) : null}
    </>
  );
}
