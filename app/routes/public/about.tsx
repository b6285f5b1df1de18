import { Link } from "react-router";
import { ArrowRight, GraduationCap, HandHeart, Landmark, Lightbulb, Lock, Scale, Sprout, Users } from "lucide-react";
import type { Route } from "./+types/about";
import { institution } from "~/config/institution.server";
import type { valueIcons } from "~/config/institution";
import { pageTitle } from "~/components/site/page-title";
import { PageHero } from "~/components/site/page-hero";
import { CtaBand } from "~/components/marketing/cta-band";
import { formatMillions, formatNumber } from "~/components/marketing/format";
import { IconTile, Section, SectionHeading, cardClass } from "~/components/marketing/section";
import { StatCounter, type Stat } from "~/components/marketing/stat-counter";

export function loader() {
  const profile = institution();
  const m = profile.marketing;
  const stats: Stat[] = [
    { id: "members", label: "Members", value: m.members, suffix: "+" },
    { id: "assets", label: "In member assets", value: m.assets_millions, prefix: "$", suffix: "M" },
    { id: "satisfaction", label: "Member satisfaction", value: m.satisfaction_percent, suffix: "%" },
    { id: "community", label: "Community impact", value: m.community_impact_millions, prefix: "$", suffix: "M" },
  ];
  const timeline = [...profile.timeline].sort((a, b) => a.year - b.year);
  return {
    name: profile.name,
    short_name: profile.short_name,
    founded_year: profile.founded_year,
    stats,
    mission: m.mission,
    core_values: m.core_values,
    timeline,
    community: {
      impact_millions: m.community_impact_millions,
      volunteer_hours: m.volunteer_hours,
      scholarships: m.scholarships,
      branches_label: m.branches_label,
    },
  };
}

export function meta({ loaderData, matches }: Route.MetaArgs) {
  return [
    ...pageTitle("About Us", matches),
    {
      name: "description",
      content: loaderData
        ? `${loaderData.name}: a member-owned credit union since ${loaderData.founded_year}. Our mission, values, history and community work.`
        : "About our credit union.",
    },
  ];
}

const VALUE_ICONS: Record<(typeof valueIcons)[number], typeof Users> = {
  members: Users,
  integrity: Scale,
  community: HandHeart,
  innovation: Lightbulb,
  security: Lock,
  growth: Sprout,
};

export default function About({ loaderData: d }: Route.ComponentProps) {
  const first = d.timeline[0]!.year;
  const last = d.timeline[d.timeline.length - 1]!.year;
  return (
    <>
      <PageHero
        eyebrow="About us"
        title={`Owned by our members since ${d.founded_year}`}
        lead={`${d.name} is a not-for-profit cooperative. There are no outside shareholders: what we earn comes back to our members as better rates, lower fees and a stronger community.`}
      >
        <div className="h-16" />
      </PageHero>

      <section aria-labelledby="stats-heading" className="relative z-10 mx-auto -mt-24 max-w-7xl px-4 sm:px-6 lg:px-8">
        <h2 id="stats-heading" className="sr-only">
          {d.short_name} in numbers
        </h2>
        <StatCounter stats={d.stats} />
      </section>

      <Section labelledBy="mission-heading">
        <div className="grid gap-12 lg:grid-cols-12 lg:gap-16">
          <div className="lg:col-span-5">
            <SectionHeading id="mission-heading" eyebrow="Our mission" title="Why we are here" />
          </div>
          <div className="lg:col-span-7">
            <p className="text-2xl font-medium leading-relaxed tracking-tight text-brand-800">{d.mission}</p>
            <p className="mt-6 text-lg leading-relaxed text-slate-600">
              Every member has an equal vote in electing our volunteer board, whatever the size of their balance. That is what
              member-owned means, and it shapes every decision we make.
            </p>
          </div>
        </div>
      </Section>

      <Section labelledBy="values-heading" tone="white">
        <SectionHeading id="values-heading" eyebrow="Core values" title="What we stand for" align="center" />
        <ul className="mt-12 grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
          {d.core_values.map((value) => (
            <li key={value.title} className={`p-6 sm:p-8 ${cardClass}`}>
              <IconTile icon={VALUE_ICONS[value.icon]} />
              <h3 className="mt-6 text-lg font-semibold text-brand-800">{value.title}</h3>
              <p className="mt-2 text-sm leading-relaxed text-slate-600">{value.text}</p>
            </li>
          ))}
        </ul>
      </Section>

      <Section labelledBy="timeline-heading">
        <SectionHeading
          id="timeline-heading"
          eyebrow="Our story"
          title={first === last ? `Since ${first}` : `${first}–${last}`}
          lead="From a handful of neighbors pooling their savings to a credit union serving the whole community."
        />
        <ol className="relative mt-12 space-y-8 before:absolute before:top-2 before:bottom-2 before:left-[calc(--spacing(6)-1px)] before:w-0.5 before:bg-brand-100 sm:before:left-[calc(--spacing(8)-1px)]">
          {d.timeline.map((event) => (
            <li key={`${event.year}-${event.title}`} className="relative flex gap-6 sm:gap-8">
              <span className="tabular relative z-10 inline-flex size-12 shrink-0 items-center justify-center rounded-full bg-white text-xs font-semibold text-accent-700 shadow-sm ring-2 ring-brand-100 sm:size-16 sm:text-sm">
                {event.year}
              </span>
              <div className={`flex-1 p-6 ${cardClass}`}>
                <h3 className="text-lg font-semibold text-brand-800">{event.title}</h3>
                <p className="mt-2 leading-relaxed text-slate-600">{event.text}</p>
              </div>
            </li>
          ))}
        </ol>
      </Section>

      <Section labelledBy="community-heading" tone="white">
        <div className="grid items-center gap-12 lg:grid-cols-2 lg:gap-16">
          <div>
            <SectionHeading
              id="community-heading"
              eyebrow="Community"
              title="Giving back where we live"
              lead="Our staff volunteer, our grants support local nonprofits and our free classes help neighbors of every age build financial confidence."
            />
            <Link
              to="/community"
              className="mt-8 inline-flex items-center gap-2 rounded-md font-semibold text-brand-700 hover:text-brand-900"
            >
              How we support our community <ArrowRight className="size-4" aria-hidden="true" />
            </Link>
          </div>
          <ul className="grid grid-cols-2 gap-4 sm:gap-6">
            <CommunityFigure icon={HandHeart} value={formatMillions(d.community.impact_millions)} label="invested in local causes" />
            <CommunityFigure icon={Users} value={formatNumber(d.community.volunteer_hours)} label="volunteer hours" />
            <CommunityFigure icon={GraduationCap} value={formatNumber(d.community.scholarships)} label="student scholarships" />
            <CommunityFigure icon={Landmark} value={d.community.branches_label} label="serving our region" />
          </ul>
        </div>
      </Section>

      <CtaBand
        id="about-cta-heading"
        title="Become part of something better"
        lead="Join the members who own their credit union. Applying takes about ten minutes."
        primary={{ to: "/signup", label: "Become a Member" }}
        secondary={{ to: "/contact", label: "Contact Us" }}
      />
    </>
  );
}

function CommunityFigure({ icon, value, label }: { icon: typeof Users; value: string; label: string }) {
  return (
    <li className={`flex flex-col p-6 ${cardClass}`}>
      <IconTile icon={icon} tone="brand" />
      <p className="mt-4">
        <span className="tabular block text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">{value}</span>
        <span className="mt-1 block text-sm text-slate-600">{label}</span>
      </p>
    </li>
  );
}
