import { MapPin } from "./icons";
import { SiteLink, type SitePath } from "./site-link";
import type { RootData } from "~/root";

type Profile = RootData["institution"];

function FooterColumn({ title, links }: { title: string; links: { to: SitePath; label: string }[] }) {
  return (
    <div>
      <h2 className="text-sm font-semibold tracking-wide text-white">{title}</h2>
      <ul className="mt-4 space-y-3">
        {links.map((l) => (
          <li key={l.to}>
            <SiteLink to={l.to} className="text-sm text-brand-100 hover:text-white hover:underline">
              {l.label}
            </SiteLink>
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * Public footer (docs/product.md#header-and-footer): links, contact, insurance statements, routing
 * number, copyright.
 */
export function SiteFooter({ profile, year }: { profile: Profile; year: number }) {
  return (
    <footer className="mt-auto bg-brand-900 text-brand-100">
      <div className="mx-auto grid max-w-7xl gap-10 px-4 py-12 sm:px-6 md:grid-cols-2 lg:grid-cols-4 lg:px-8">
        <div>
          <p className="text-lg font-semibold text-white">{profile.name}</p>
          <p className="mt-3 text-sm">Serving our members since {profile.founded_year}</p>
          <p className="mt-4 text-sm">
            Email{" "}
            <a href={`mailto:${profile.support_email}`} className="text-white underline-offset-2 hover:underline">
              {profile.support_email}
            </a>
          </p>
          <p className="mt-1 text-sm">
            Phone{" "}
            <a
              href={`tel:${profile.support_phone.replace(/[^\d+]/g, "")}`}
              className="tabular text-white underline-offset-2 hover:underline"
            >
              {profile.support_phone}
            </a>
          </p>
          <SiteLink
            to="/locations"
            className="mt-5 inline-flex items-center gap-2 rounded-lg bg-white/10 px-4 py-2 text-sm font-medium text-white hover:bg-white/20"
          >
            <MapPin className="size-4" aria-hidden="true" /> Find a Branch
          </SiteLink>
        </div>
        <FooterColumn
          title="Quick Links"
          links={[
            { to: "/about", label: "About Us" },
            { to: "/locations", label: "Locations" },
            { to: "/careers", label: "Careers" },
            { to: "/security", label: "Security" },
          ]}
        />
        <FooterColumn
          title="Products"
          links={[
            { to: "/products/premier-checking", label: "Checking" },
            { to: "/products/high-yield-savings", label: "Savings" },
            { to: "/products/rewards-credit-card", label: "Credit Cards" },
            { to: "/products/home-mortgages", label: "Mortgages" },
          ]}
        />
        <FooterColumn
          title="Legal"
          links={[
            { to: "/privacy", label: "Privacy Policy" },
            { to: "/terms", label: "Terms of Service" },
            { to: "/accessibility", label: "Accessibility" },
          ]}
        />
      </div>
      <div className="border-t border-white/10">
        <div className="mx-auto flex max-w-7xl flex-col gap-3 px-4 py-6 text-sm sm:px-6 md:flex-row md:items-center md:justify-between lg:px-8">
          <p>
            © {year} {profile.name}
          </p>
          <p className="tabular">Routing number {profile.routing_number}</p>
          <p className="flex flex-wrap gap-x-4">
            {profile.insurance.ncua_insured ? <span>{profile.insurance.ncua_statement}</span> : null}
            {profile.insurance.equal_housing_lender ? <span>{profile.insurance.equal_housing_statement}</span> : null}
          </p>
        </div>
      </div>
    </footer>
  );
}
