import { ArrowRight, CalendarDays, Clock, Gift, HeartHandshake, MapPin, Phone, ShieldCheck } from "lucide-react";
import { Link } from "react-router";
import type { Route } from "./+types/products";
import { institution } from "~/config/institution.server";
import { pageTitle } from "~/components/site/page-title";
import { PageHero } from "~/components/site/page-hero";
import { CtaBand } from "~/components/marketing/cta-band";
import { ProductCard } from "~/components/marketing/product-card";
import { IconTile, Section, SectionHeading, cardClass, linkCardClass } from "~/components/marketing/section";
import { SegmentToggle, type Segment } from "~/components/marketing/segment-toggle";

/** `?segment=business` opens the business catalogue; anything else (or nothing) is personal. */
function segmentOf(url: URL): Segment {
  return url.searchParams.get("segment") === "business" ? "business" : "personal";
}

export function loader({ request }: Route.LoaderArgs) {
  const profile = institution();
  const segment = segmentOf(new URL(request.url));
  return {
    segment,
    products: profile.products
      .filter((p) => p.segment === segment)
      .map(({ slug, name, description, rate_label, features, most_popular, icon }) => ({ slug, name, description, rate_label, features, most_popular, icon })),
    insurance: profile.insurance,
    support_phone: profile.support_phone,
    support_hours: profile.support_hours,
  };
}

export function meta({ loaderData, matches }: Route.MetaArgs) {
  const business = loaderData?.segment === "business";
  return [
    ...pageTitle(business ? "Business Banking Products" : "Products and Services", matches),
    {
      name: "description",
      content: business
        ? "Business checking, savings, credit cards, loans, merchant services and treasury management for local businesses."
        : "Checking, savings, credit cards, mortgages, personal loans and investment services for members.",
    },
  ];
}

const COPY: Record<Segment, { title: string; lead: string }> = {
  personal: {
    title: "Personal banking products",
    lead: "Accounts, cards and loans with member-friendly rates and no surprises.",
  },
  business: {
    title: "Business banking products",
    lead: "Everything a small business or nonprofit needs to take payments, manage cash and grow.",
  },
};

export default function Products({ loaderData: d }: Route.ComponentProps) {
  const copy = COPY[d.segment];
  const highlights = [
    {
      icon: ShieldCheck,
      title: "Secure and insured",
      text: d.insurance.ncua_insured ? `${d.insurance.ncua_statement}, with two-step sign-in on every account.` : "Two-step sign-in and encrypted data protect every account.",
    },
    { icon: Clock, title: "24/7 access", text: "Online and mobile banking whenever you need it, day or night." },
    { icon: Gift, title: "Member rewards", text: "Our earnings come back to you as better rates and lower fees." },
    { icon: HeartHandshake, title: "Personal service", text: "Real people at our branches and on the phone, who know the area." },
  ];
  return (
    <>
      <PageHero
        eyebrow="Products and services"
        title="Banking that works as hard as you do"
        lead="Compare our accounts, cards and loans. Every product comes with the service of a local, member-owned credit union."
      />

      <section aria-labelledby="highlights-heading" className="border-b border-slate-200/70 bg-white">
        <div className="mx-auto max-w-7xl px-4 py-12 sm:px-6 lg:px-8">
          <h2 id="highlights-heading" className="sr-only">
            Why members choose us
          </h2>
          <ul className="grid grid-cols-2 gap-x-4 gap-y-8 sm:gap-8 lg:grid-cols-4">
            {highlights.map((h) => (
              <li key={h.title} className="flex flex-col gap-4 sm:flex-row">
                <IconTile icon={h.icon} />
                <div>
                  <h3 className="font-semibold text-brand-800">{h.title}</h3>
                  <p className="mt-1 text-sm leading-relaxed text-slate-600">{h.text}</p>
                </div>
              </li>
            ))}
          </ul>
        </div>
      </section>

      <Section labelledBy="catalogue-heading" id="catalogue">
        <div className="flex flex-col gap-8 lg:flex-row lg:items-end lg:justify-between">
          <SectionHeading id="catalogue-heading" title={copy.title} lead={copy.lead} />
          <SegmentToggle current={d.segment} />
        </div>
        {d.products.length > 0 ? (
          <ul className="mt-12 grid gap-8 md:grid-cols-2 lg:grid-cols-3">
            {d.products.map((product) => (
              <li key={product.slug}>
                <ProductCard product={product} />
              </li>
            ))}
          </ul>
        ) : (
          <p className={`mt-12 p-8 text-slate-700 ${cardClass}`}>
            We do not list any {d.segment} products online yet. Please <Link to="/contact" className="font-semibold text-brand-700 underline underline-offset-2">contact us</Link> and we will
            help you find the right account.
          </p>
        )}
      </Section>

      <Section labelledBy="help-heading" tone="white">
        <SectionHeading
          id="help-heading"
          eyebrow="Need help choosing?"
          title="Talk it through with us"
          lead="Not sure which account or loan is right for you? Our team will walk you through the options, with no pressure."
          align="center"
        />
        <ul className="mt-12 grid gap-6 md:grid-cols-3">
          <HelpCard to="/contact" icon={Phone} title="Call Us" text={`${d.support_phone}, ${d.support_hours}.`} />
          <HelpCard to="/locations" icon={MapPin} title="Visit a Branch" text="Find a branch or ATM near you, with opening hours." />
          <HelpCard to="/contact" icon={CalendarDays} title="Schedule Meeting" text="Book time with a member of our team, in person or by phone." />
        </ul>
      </Section>

      <CtaBand
        id="products-cta-heading"
        title="Ready to get started?"
        lead="Open an account online in minutes, or talk to us first. Either way, we are glad you are here."
        primary={{ to: "/signup", label: "Open an Account" }}
        secondary={{ to: "/contact", label: "Talk to Us" }}
      />
    </>
  );
}

function HelpCard({ to, icon, title, text }: { to: string; icon: typeof Phone; title: string; text: string }) {
  return (
    <li>
      <Link to={to} className={`group flex h-full flex-col items-center p-8 text-center ${linkCardClass}`}>
        <IconTile icon={icon} size="lg" />
        <span className="mt-6 flex items-center gap-2 text-lg font-semibold text-brand-800">
          {title}
          <ArrowRight className="size-4 transition-transform group-hover:translate-x-0.5" aria-hidden="true" />
        </span>
        <span className="tabular mt-2 text-sm leading-relaxed text-slate-600">{text}</span>
      </Link>
    </li>
  );
}
