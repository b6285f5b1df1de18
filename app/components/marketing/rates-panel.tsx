import { SiteLink } from "~/components/site/site-link";
import { ArrowRight } from "~/components/site/icons";
import { ButtonLink } from "./button-link";
import { cardClass } from "./section";

export interface RateLine {
  slug: string;
  name: string;
  description: string;
  rate_label: string;
}

/**
 * The home hero's panel when the market overview is off: the profile's own rates, each leading to
 * its product, and the way to apply. What a visitor came for, and every figure is the
 * institution's (nothing is invented here).
 */
export function RatesPanel({ rates }: { rates: RateLine[] }) {
  return (
    <section aria-labelledby="rates-heading" className={`p-6 sm:p-8 ${cardClass}`}>
      <h2 id="rates-heading" className="text-lg font-semibold text-brand-800">
        Rates for members
      </h2>
      <p className="mt-1 text-sm text-slate-600">Earn more on savings and pay less to borrow.</p>
      <ul className="mt-4 divide-y divide-slate-100">
        {rates.map((rate) => (
          <li key={rate.slug}>
            <SiteLink
              to={`/products/${rate.slug}`}
              className="group flex items-center justify-between gap-4 rounded-lg py-3 hover:bg-slate-50"
            >
              <span className="min-w-0">
                <span className="block font-semibold text-slate-900 group-hover:text-brand-800">{rate.name}</span>
                <span className="block text-sm text-slate-600">{rate.description}</span>
              </span>
              <span className="tabular shrink-0 rounded-full bg-brand-50 px-3 py-1 text-sm font-semibold text-brand-800 ring-1 ring-inset ring-brand-100">
                {rate.rate_label}
              </span>
            </SiteLink>
          </li>
        ))}
      </ul>
      <div className="mt-6 flex flex-col gap-3 border-t border-slate-100 pt-6 sm:flex-row sm:items-center sm:justify-between">
        <ButtonLink to="/signup" variant="primary">
          Open an Account <ArrowRight className="size-4" aria-hidden="true" />
        </ButtonLink>
        <SiteLink
          to="/products"
          className="text-center text-sm font-semibold text-brand-700 underline-offset-2 hover:underline"
        >
          Compare all products
        </SiteLink>
      </div>
      <p className="mt-4 text-xs text-slate-600">Rates can change. Each product's page gives its terms.</p>
    </section>
  );
}
