import { data, Link } from "react-router";
import type { Route } from "./+types/not-found";
import { pageTitle } from "~/components/site/page-title";

export function loader() {
  throw data(null, { status: 404 });
}

export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Page not found", matches), { name: "description", content: "We could not find that page. Links to our home page, products, branches and contact details." }];
}

const SUGGESTIONS = [
  { to: "/", label: "Home", text: "Start again from our home page." },
  { to: "/products", label: "Products and services", text: "Checking, savings, cards and loans." },
  { to: "/locations", label: "Find a branch", text: "Branches, ATMs and opening hours." },
  { to: "/contact", label: "Contact us", text: "Ask us anything; we reply within a day." },
];

/** A helpful 404 (docs/product.md#redirects): status 404, with ways back. */
export function ErrorBoundary(_: Route.ErrorBoundaryProps) {
  return (
    <section className="mx-auto max-w-3xl px-4 py-20 sm:px-6">
      <p className="text-sm font-semibold text-accent-700">404 — page not found</p>
      <h1 className="mt-2 text-3xl font-semibold text-brand-800 sm:text-4xl">We could not find that page</h1>
      <p className="mt-4 text-lg text-slate-700">The address may be mistyped, or the page may have moved. These may help:</p>
      <ul className="mt-8 grid gap-4 sm:grid-cols-2">
        {SUGGESTIONS.map((s) => (
          <li key={s.to}>
            <Link to={s.to} className="block h-full rounded-xl border border-slate-200 bg-white p-5 shadow-sm transition hover:border-brand-300 hover:shadow-md">
              <span className="font-semibold text-brand-800">{s.label}</span>
              <span className="mt-1 block text-sm text-slate-600">{s.text}</span>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}

export default function NotFound() {
  return null;
}
