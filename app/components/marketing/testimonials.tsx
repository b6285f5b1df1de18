import { Quote } from "~/components/site/icons";
import type { Institution } from "~/config/institution";
import { cardClass } from "./section";

type Testimonial = Institution["testimonials"][number];

/** Members' words, from the institution profile. */
export function Testimonials({ items }: { items: Testimonial[] }) {
  return (
    <ul className="mt-12 grid gap-6 md:grid-cols-3">
      {items.map((t) => (
        <li key={t.name} className={`flex ${cardClass}`}>
          <figure className="flex flex-col p-6 sm:p-8">
            <Quote className="size-8 text-accent-600" aria-hidden="true" />
            <blockquote className="mt-4 flex-1 text-base leading-relaxed text-slate-700">
              <p>“{t.quote}”</p>
            </blockquote>
            <figcaption className="mt-6 flex items-center gap-3 border-t border-slate-100 pt-6">
              <span
                aria-hidden="true"
                className="inline-flex size-10 items-center justify-center rounded-full bg-brand-50 text-sm font-semibold text-brand-700 ring-1 ring-inset ring-brand-100"
              >
                {initials(t.name)}
              </span>
              <span>
                <span className="block font-semibold text-slate-900">{t.name}</span>
                <span className="block text-sm text-slate-600">{t.detail}</span>
              </span>
            </figcaption>
          </figure>
        </li>
      ))}
    </ul>
  );
}

function initials(name: string): string {
  return name
    .split(/\s+/)
    .filter((part) => /^[A-Za-z]/.test(part) && part.toLowerCase() !== "and")
    .slice(0, 2)
    .map((part) => part[0]!.toUpperCase())
    .join("");
}
