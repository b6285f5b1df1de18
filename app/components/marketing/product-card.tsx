import { Link } from "react-router";
import { ArrowRight, Check } from "lucide-react";
import type { Product } from "~/config/institution";
import { productIcon } from "./product-icon";
import { IconTile, cardClass } from "./section";

export type ProductSummary = Pick<
  Product,
  "slug" | "name" | "description" | "rate_label" | "features" | "most_popular" | "icon"
>;

export function RateBadge({ label, onDark = false }: { label: string; onDark?: boolean }) {
  return (
    <span
      className={`tabular inline-flex items-center rounded-full px-3 py-1 text-sm font-semibold ${
        onDark
          ? "bg-white/15 text-white ring-1 ring-inset ring-white/25"
          : "bg-brand-50 text-brand-800 ring-1 ring-inset ring-brand-100"
      }`}
    >
      {label}
    </span>
  );
}

/**
 * A product in the catalogue (docs/product.md#products): name, description, rate, features, Learn
 * More.
 */
export function ProductCard({ product }: { product: ProductSummary }) {
  const popular = product.most_popular;
  return (
    <article
      aria-labelledby={`product-${product.slug}`}
      className={`relative flex h-full flex-col p-6 sm:p-8 ${cardClass} ${popular ? "border-accent-600 ring-1 ring-accent-600" : ""}`}
    >
      {popular ? (
        <p className="absolute -top-3 left-6 rounded-full bg-accent-600 px-3 py-1 text-xs font-semibold tracking-wide text-white shadow-sm sm:left-8">
          Most Popular
        </p>
      ) : null}
      <div className="flex items-start justify-between gap-4">
        <IconTile icon={productIcon(product.icon)} tone={popular ? "accent" : "brand"} />
        <RateBadge label={product.rate_label} />
      </div>
      <h3 id={`product-${product.slug}`} className="mt-6 text-xl font-semibold text-brand-800">
        {product.name}
      </h3>
      <p className="mt-2 text-slate-600">{product.description}</p>
      <ul className="mt-6 space-y-3 border-t border-slate-100 pt-6 text-sm text-slate-700">
        {product.features.map((feature) => (
          <li key={feature} className="flex gap-3">
            <Check className="mt-0.5 size-4 shrink-0 text-accent-700" aria-hidden="true" />
            <span>{feature}</span>
          </li>
        ))}
      </ul>
      <div className="mt-auto pt-8">
        <Link
          to={`/products/${product.slug}`}
          className="group inline-flex items-center gap-2 rounded-md font-semibold text-brand-700 hover:text-brand-900"
        >
          Learn More<span className="sr-only"> about {product.name}</span>
          <ArrowRight className="size-4 transition-transform group-hover:translate-x-0.5" aria-hidden="true" />
        </Link>
      </div>
    </article>
  );
}
