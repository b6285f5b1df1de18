import { Link } from "react-router";
import { Building2, Check, Clock, CreditCard, MapPin, Phone } from "lucide-react";
import type { Route } from "./+types/locations";
import type { Location } from "~/config/institution";
import { institution } from "~/config/institution.server";
import { telephoneHref } from "~/domain/telephone";
import { PageHero } from "~/components/site/page-hero";
import { pageTitle } from "~/components/site/page-title";

const DESCRIPTION = "Addresses, opening hours, phone numbers and services of our branches and ATMs.";

export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Branches and ATMs", matches), { name: "description", content: DESCRIPTION }];
}

const KINDS = ["branch", "atm"] as const;
type Kind = (typeof KINDS)[number];

/** `?kind=branch` or `?kind=atm` narrows the list; anything else shows every location. */
function kindFromQuery(value: string | null): Kind | undefined {
  return KINDS.find((k) => k === value);
}

export function loader({ request }: Route.LoaderArgs) {
  const kind = kindFromQuery(new URL(request.url).searchParams.get("kind"));
  const profile = institution();
  const all = profile.locations;
  return {
    kind: kind ?? null,
    counts: { all: all.length, branch: all.filter((l) => l.kind === "branch").length, atm: all.filter((l) => l.kind === "atm").length },
    locations: kind ? all.filter((l) => l.kind === kind) : all,
    support: { phone: profile.support_phone, hours: profile.support_hours },
  };
}

const FILTERS: { kind: Kind | null; label: string; countKey: "all" | Kind }[] = [
  { kind: null, label: "All", countKey: "all" },
  { kind: "branch", label: "Branches", countKey: "branch" },
  { kind: "atm", label: "ATMs", countKey: "atm" },
];

export default function LocationsRoute({ loaderData }: Route.ComponentProps) {
  const { kind, counts, locations, support } = loaderData;
  const branches = locations.filter((l) => l.kind === "branch");
  const atms = locations.filter((l) => l.kind === "atm");
  return (
    <>
      <PageHero title="Branches and ATMs" lead="Visit us in person for everything from opening an account to a mortgage conversation, or use one of our ATMs." />
      <div className="mx-auto max-w-7xl px-4 py-12 sm:px-6 lg:px-8 lg:py-16">
        <nav aria-label="Show locations" className="flex flex-col gap-2 sm:flex-row sm:items-center sm:gap-3">
          <span className="text-sm font-medium text-slate-700" aria-hidden="true">
            Show
          </span>
          <ul className="grid grid-cols-3 gap-1 rounded-xl bg-slate-200/70 p-1 sm:inline-flex">
            {FILTERS.map((f) => {
              const current = f.kind === kind;
              return (
                <li key={f.countKey}>
                  <Link
                    to={f.kind ? `/locations?kind=${f.kind}` : "/locations"}
                    preventScrollReset
                    aria-current={current ? "page" : undefined}
                    className={`flex items-center justify-center gap-2 rounded-lg px-3 py-2 text-sm font-semibold transition-colors sm:px-4 ${
                      current ? "bg-white text-brand-800 shadow-sm" : "text-slate-700 hover:bg-white/60 hover:text-brand-800"
                    }`}
                  >
                    {f.label}
                    <span className={`tabular rounded-full px-2 py-0.5 text-xs ${current ? "bg-brand-50 text-brand-800" : "bg-white/70 text-slate-700"}`}>
                      {counts[f.countKey]}
                    </span>
                  </Link>
                </li>
              );
            })}
          </ul>
        </nav>
        <p className="mt-4 text-sm text-slate-700" role="status">
          Showing {describeCount(branches.length, atms.length)}.
        </p>

        <div className="mt-8 grid gap-10 lg:grid-cols-3">
          <div className="space-y-12 lg:col-span-2">
            {branches.length > 0 ? <LocationSection id="branches" title="Branches" icon={Building2} locations={branches} /> : null}
            {atms.length > 0 ? <LocationSection id="atms" title="ATMs" icon={CreditCard} locations={atms} /> : null}
          </div>
          <aside aria-labelledby="help-heading" className="h-fit rounded-2xl border border-slate-200 bg-white p-6 shadow-sm lg:sticky lg:top-24">
            <h2 id="help-heading" className="text-lg font-semibold text-brand-800">
              Can&rsquo;t make it in?
            </h2>
            <p className="mt-2 text-sm text-slate-700">Most things can be done by phone or online banking. Call member service:</p>
            <p className="mt-3">
              <a href={telephoneHref(support.phone)} className="inline-flex items-center gap-2 font-semibold text-accent-700 underline-offset-2 hover:underline">
                <Phone className="size-4" aria-hidden="true" />
                {support.phone}
              </a>
            </p>
            <p className="mt-1 text-sm text-slate-600">{support.hours}</p>
            <div className="mt-6 flex flex-col gap-2">
              <Link to="/contact?subject=general&meeting=1" className="inline-flex items-center justify-center rounded-lg bg-brand-700 px-4 py-2.5 text-sm font-semibold text-white shadow-sm hover:bg-brand-800">
                Schedule a meeting
              </Link>
              <Link to="/login" className="inline-flex items-center justify-center rounded-lg border border-slate-300 px-4 py-2.5 text-sm font-semibold text-brand-800 hover:bg-slate-50">
                Sign in to online banking
              </Link>
            </div>
          </aside>
        </div>
      </div>
    </>
  );
}

function LocationSection({ id, title, icon: Icon, locations }: { id: string; title: string; icon: typeof MapPin; locations: Location[] }) {
  return (
    <section aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} className="flex items-center gap-2 text-2xl font-semibold tracking-tight text-brand-800">
        <Icon className="size-6 text-accent-700" aria-hidden="true" />
        {title}
        <span className="text-base font-normal text-slate-600">({locations.length})</span>
      </h2>
      <ul className="mt-5 grid gap-5 md:grid-cols-2">
        {locations.map((location) => (
          <LocationCard key={location.id} location={location} />
        ))}
      </ul>
    </section>
  );
}

function LocationCard({ location }: { location: Location }) {
  const headingId = `location-${location.id}`;
  return (
    <li className="flex flex-col rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
      <div className="flex items-start justify-between gap-3">
        <h3 id={headingId} className="text-lg font-semibold text-slate-900">
          {location.name}
        </h3>
        <span className="shrink-0 rounded-full bg-brand-50 px-2.5 py-1 text-xs font-semibold text-brand-800">{location.kind === "branch" ? "Branch" : "ATM"}</span>
      </div>
      <address className="mt-3 flex gap-2 text-slate-700 not-italic">
        <MapPin className="mt-0.5 size-4 shrink-0 text-slate-500" aria-hidden="true" />
        <span>
          {location.street}
          <br />
          {location.city}, {location.state} {location.postal_code}
        </span>
      </address>
      <div className="mt-4 flex gap-2 text-sm">
        <Clock className="mt-0.5 size-4 shrink-0 text-slate-500" aria-hidden="true" />
        <div className="flex-1">
          <h4 className="sr-only">Hours</h4>
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1">
            {location.hours.map((h) => (
              <div key={h.days} className="contents">
                <dt className="text-slate-600">{h.days}</dt>
                <dd className="tabular text-slate-900">{h.hours}</dd>
              </div>
            ))}
          </dl>
        </div>
      </div>
      {location.features.length > 0 ? (
        <div className="mt-4">
          <h4 className="sr-only">Services</h4>
          <ul className="flex flex-wrap gap-2">
            {location.features.map((feature) => (
              <li key={feature} className="inline-flex items-center gap-1 rounded-full bg-accent-50 px-2.5 py-1 text-xs font-medium text-accent-800">
                <Check className="size-3.5" aria-hidden="true" />
                {feature}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {location.phone ? (
        <p className="mt-auto pt-5">
          <a
            href={telephoneHref(location.phone)}
            className="inline-flex items-center gap-2 rounded-lg border border-slate-300 px-3.5 py-2 text-sm font-semibold text-brand-800 hover:bg-slate-50"
          >
            <Phone className="size-4" aria-hidden="true" />
            <span>
              <span className="sr-only">Call {location.name} at </span>
              {location.phone}
            </span>
          </a>
        </p>
      ) : null}
    </li>
  );
}

function describeCount(branches: number, atms: number): string {
  const parts = [branches ? `${branches} ${branches === 1 ? "branch" : "branches"}` : "", atms ? `${atms} ${atms === 1 ? "ATM" : "ATMs"}` : ""].filter(Boolean);
  return parts.length ? parts.join(" and ") : "no locations";
}
