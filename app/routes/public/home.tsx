import { ArrowRight, Briefcase, Calculator, CalendarDays, ChartLine, Check, House, Laptop, ShieldCheck, Users, Wallet, type StaticIcon } from "~/components/site/icons";
import type { Route } from "./+types/home";
import { institution } from "~/config/institution.server";
import { pageTitle } from "~/components/site/page-title";
import { HeroBackdrop } from "~/components/site/page-hero";
import { SiteLink, type SitePath } from "~/components/site/site-link";
import { ButtonLink } from "~/components/marketing/button-link";
import { CtaBand } from "~/components/marketing/cta-band";
import { formatMillions, formatNumber } from "~/components/marketing/format";
import { MarketOverview } from "~/components/marketing/market-overview";
import { RatesPanel } from "~/components/marketing/rates-panel";
import { ScrollToTop } from "~/components/marketing/scroll-to-top";
import { IconTile, Section, SectionHeading, cardClass, linkCardClass } from "~/components/marketing/section";
import { Testimonials } from "~/components/marketing/testimonials";

/** Everything on the home page that is a fact or a figure comes from the institution profile. */
export function loader() {
  const profile = institution();
  const personal = profile.products.filter((p) => p.segment === "personal");
  const business = profile.products.filter((p) => p.segment === "business");
  const wealth = profile.products.find((p) => p.icon === "investment");
  // The hero's rates: the personal products whose badge is a figure (an APY, an APR, cash back).
  const rated = personal.filter((p) => /\d/.test(p.rate_label));
  return {
    name: profile.name,
    short_name: profile.short_name,
    founded_year: profile.founded_year,
    members: profile.marketing.members,
    insurance: profile.insurance,
    market_widget: profile.market_widget,
    rates: (rated.length > 0 ? rated : personal).slice(0, 4).map((p) => ({ slug: p.slug, name: p.name, description: p.description, rate_label: p.rate_label })),
    innovation_stats: profile.marketing.innovation_stats,
    testimonials: profile.testimonials.slice(0, 3),
    community: {
      impact_millions: profile.marketing.community_impact_millions,
      volunteer_hours: profile.marketing.volunteer_hours,
      scholarships: profile.marketing.scholarships,
    },
    services: {
      personal: personal.slice(0, 4).map((p) => p.name),
      business: business.slice(0, 4).map((p) => p.name),
      wealth: wealth ? { to: `/products/${wealth.slug}` as const, features: wealth.features.slice(0, 4) } : { to: "/products" as const, features: [] },
    },
  };
}

export function meta({ loaderData, matches }: Route.MetaArgs) {
  return [
    ...pageTitle("Community Banking that Empowers You", matches),
    {
      name: "description",
      content: loaderData
        ? `${loaderData.name} is a member-owned credit union serving its community since ${loaderData.founded_year}: checking, savings, cards, loans and online banking.`
        : "A member-owned credit union.",
    },
  ];
}

export default function Home({ loaderData }: Route.ComponentProps) {
  const d = loaderData;
  return (
    <>
      <Hero data={d} />
      <QuickCards />
      <Services services={d.services} />
      <Innovation stats={d.innovation_stats} />
      {d.testimonials.length > 0 ? (
        <Section labelledBy="testimonials-heading">
          <SectionHeading id="testimonials-heading" eyebrow="Member stories" title="Members say it best" align="center" />
          <Testimonials items={d.testimonials} />
        </Section>
      ) : null}
      <Community community={d.community} />
      <CtaBand
        id="home-cta-heading"
        title="Ready to bank with people who know you?"
        lead="Apply online in about ten minutes. Membership is open to everyone who lives or works in our community."
        primary={{ to: "/signup", label: "Open an Account" }}
        secondary={{ to: "/contact", label: "Talk to an Advisor" }}
      />
      <ScrollToTop />
    </>
  );
}

type HomeData = Route.ComponentProps["loaderData"];

function Hero({ data }: { data: HomeData }) {
  const trust = [
    data.insurance.ncua_insured ? { icon: ShieldCheck, text: data.insurance.ncua_statement } : null,
    { icon: Users, text: `${formatNumber(data.members)}+ members` },
    data.insurance.equal_housing_lender ? { icon: House, text: data.insurance.equal_housing_statement } : null,
  ].filter((t) => t !== null);
  return (
    <section aria-labelledby="hero-heading" className="relative isolate overflow-hidden bg-brand-800 text-white">
      <HeroBackdrop />
      <div className="mx-auto grid max-w-7xl items-center gap-12 px-4 pt-16 pb-32 sm:px-6 sm:pt-24 lg:grid-cols-12 lg:gap-16 lg:px-8 lg:pb-40">
        <div className="lg:col-span-7">
          <p className="inline-flex items-center gap-2 rounded-full bg-white/10 px-4 py-1 text-sm font-medium text-brand-50 ring-1 ring-inset ring-white/20">
            <span className="size-2 rounded-full bg-accent-500" aria-hidden="true" />
            Member-owned since {data.founded_year}
          </p>
          <h1 id="hero-heading" className="mt-6 text-4xl font-semibold tracking-tight text-balance sm:text-6xl">
            Community Banking that Empowers You
          </h1>
          <p className="mt-6 max-w-xl text-lg leading-relaxed text-brand-100">
            Better rates, fewer fees and people who know your name. {data.short_name} is a not-for-profit credit union, owned by the members it
            serves.
          </p>
          <div className="mt-8 flex flex-col gap-4 sm:flex-row">
            <ButtonLink to="/signup" variant="onDark">
              Get Started <ArrowRight className="size-4" aria-hidden="true" />
            </ButtonLink>
            <ButtonLink to="/about" variant="outlineOnDark">
              Learn More<span className="sr-only"> about {data.short_name}</span>
            </ButtonLink>
          </div>
          <ul className="mt-12 flex flex-col gap-4 text-sm text-brand-100 sm:flex-row sm:flex-wrap sm:gap-x-8">
            {trust.map(({ icon: Icon, text }) => (
              <li key={text} className="flex items-center gap-2">
                <Icon className="size-5 text-accent-100" aria-hidden="true" />
                <span className="tabular">{text}</span>
              </li>
            ))}
          </ul>
        </div>
        <div className="text-slate-900 lg:col-span-5">
          {/* The market overview only when the institution turned it on; otherwise its rates. */}
          {data.market_widget.enabled && data.market_widget.url ? <MarketOverview widget={data.market_widget} /> : <RatesPanel rates={data.rates} />}
        </div>
      </div>
    </section>
  );
}

const QUICK: { to: SitePath; title: string; text: string; icon: StaticIcon }[] = [
  { to: "/login", title: "Online Banking", text: "Sign in to check balances, see your history and move money.", icon: Laptop },
  { to: "/calculators", title: "Loan Calculator", text: "See a monthly payment and total interest before you borrow.", icon: Calculator },
  { to: "/contact", title: "Schedule Meeting", text: "Meet with our team at a branch or by phone, at a time that suits you.", icon: CalendarDays },
];

function QuickCards() {
  return (
    <section aria-labelledby="quick-heading" className="relative z-10 mx-auto -mt-16 max-w-7xl px-4 sm:px-6 lg:px-8">
      <h2 id="quick-heading" className="sr-only">
        Quick links
      </h2>
      <ul className="grid gap-4 md:grid-cols-3 md:gap-6">
        {QUICK.map((card) => (
          <li key={card.title}>
            <SiteLink to={card.to} className={`group flex h-full items-start gap-4 p-6 ${linkCardClass}`}>
              <IconTile icon={card.icon} />
              <span className="flex-1">
                <span className="flex items-center justify-between gap-2 text-lg font-semibold text-brand-800">
                  {card.title}
                  <ArrowRight className="size-5 text-slate-400 transition group-hover:translate-x-0.5 group-hover:text-brand-700" aria-hidden="true" />
                </span>
                <span className="mt-1 block text-sm leading-relaxed text-slate-600">{card.text}</span>
              </span>
            </SiteLink>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Services({ services }: { services: HomeData["services"] }) {
  const cards: { id: string; title: string; text: string; items: string[]; to: SitePath; icon: StaticIcon }[] = [
    {
      id: "personal",
      title: "Personal Banking",
      text: "Everyday accounts, cards and loans for your life's plans, with online banking on your computer or phone.",
      items: services.personal,
      to: "/products",
      icon: Wallet,
    },
    {
      id: "business",
      title: "Business Solutions",
      text: "Accounts, payments and financing for small businesses and nonprofits, decided locally.",
      items: services.business,
      to: "/products?segment=business",
      icon: Briefcase,
    },
    {
      id: "wealth",
      title: "Wealth Management",
      text: "Plan for retirement, education and the goals in between with an advisor who knows you.",
      items: services.wealth.features,
      to: services.wealth.to,
      icon: ChartLine,
    },
  ];
  return (
    <Section labelledBy="services-heading">
      <SectionHeading
        id="services-heading"
        eyebrow="Services"
        title="Banking for every part of your life"
        lead="Whether you are opening your first account, growing a business or planning to retire, we are here for the whole journey."
      />
      <div className="mt-12 grid gap-6 lg:grid-cols-3">
        {cards.map((card) => (
          <article key={card.id} aria-labelledby={`service-${card.id}`} className={`relative flex flex-col p-6 sm:p-8 ${linkCardClass}`}>
            <IconTile icon={card.icon} tone="brand" />
            <h3 id={`service-${card.id}`} className="mt-6 text-xl font-semibold text-brand-800">
              {card.title}
            </h3>
            <p className="mt-2 leading-relaxed text-slate-600">{card.text}</p>
            {card.items.length > 0 ? (
              <ul className="mt-6 space-y-3 text-sm text-slate-700">
                {card.items.map((item) => (
                  <li key={item} className="flex gap-3">
                    <Check className="mt-0.5 size-4 shrink-0 text-accent-700" aria-hidden="true" />
                    {item}
                  </li>
                ))}
              </ul>
            ) : null}
            <div className="mt-auto pt-8">
              {/* The link covers the whole card (after:inset-0), so the card is one target. */}
              <SiteLink
                to={card.to}
                className="inline-flex items-center gap-2 rounded-md font-semibold text-brand-700 after:absolute after:inset-0 after:rounded-2xl hover:text-brand-900"
              >
                Explore {card.title}
                <ArrowRight className="size-4" aria-hidden="true" />
              </SiteLink>
            </div>
          </article>
        ))}
      </div>
    </Section>
  );
}

function Innovation({ stats }: { stats: HomeData["innovation_stats"] }) {
  return (
    <section aria-labelledby="innovation-heading" className="relative isolate overflow-hidden bg-brand-800 text-white">
      <HeroBackdrop />
      <div className="mx-auto max-w-7xl px-4 py-16 sm:px-6 sm:py-24 lg:px-8">
        <div className="max-w-2xl">
          <p className="text-sm font-semibold uppercase tracking-wider text-accent-100">Innovation</p>
          <h2 id="innovation-heading" className="mt-2 text-3xl font-semibold tracking-tight text-balance sm:text-4xl">
            Modern banking, with a neighbor on the line
          </h2>
          <p className="mt-4 text-lg leading-relaxed text-brand-100">
            The tools you expect from the biggest banks, built around security and run by people in your community.
          </p>
        </div>
        <dl className="mt-12 grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
          {stats.map((stat) => (
            <div key={stat.label} className="flex flex-col-reverse rounded-2xl bg-white/5 p-6 ring-1 ring-inset ring-white/15">
              <dt>
                <span className="mt-2 block font-semibold text-white">{stat.label}</span>
                <span className="mt-2 block text-sm leading-relaxed text-brand-100">{stat.text}</span>
              </dt>
              <dd className="tabular text-4xl font-semibold tracking-tight text-white">{stat.value}</dd>
            </div>
          ))}
        </dl>
      </div>
    </section>
  );
}

function Community({ community }: { community: HomeData["community"] }) {
  const figures = [
    { value: formatMillions(community.impact_millions), label: "given back to local causes" },
    { value: formatNumber(community.volunteer_hours), label: "volunteer hours by our staff" },
    { value: formatNumber(community.scholarships), label: "scholarships for local students" },
  ];
  return (
    <Section labelledBy="community-heading" tone="white">
      <div className="grid items-center gap-12 lg:grid-cols-2 lg:gap-16">
        <div>
          <SectionHeading
            id="community-heading"
            eyebrow="Community impact"
            title="Invested in the places we call home"
            lead="As a credit union, we return what we earn to our members and our neighborhoods: grants for local nonprofits, free financial education and staff who volunteer."
          />
          <ButtonLink to="/community" variant="secondary" className="mt-8">
            See our community work <ArrowRight className="size-4" aria-hidden="true" />
          </ButtonLink>
        </div>
        <dl className="grid gap-4 sm:grid-cols-3 lg:grid-cols-1 xl:grid-cols-3">
          {figures.map((f) => (
            <div key={f.label} className={`flex flex-col-reverse p-6 ${cardClass}`}>
              <dt className="mt-2 text-sm text-slate-600">{f.label}</dt>
              <dd className="tabular text-3xl font-semibold tracking-tight text-brand-800">{f.value}</dd>
            </div>
          ))}
        </dl>
      </div>
    </Section>
  );
}
