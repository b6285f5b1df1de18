import { Link } from "react-router";
import { Briefcase, User } from "lucide-react";

export type Segment = "personal" | "business";

const OPTIONS = [
  { segment: "personal", label: "Personal Banking", to: "/products", icon: User },
  { segment: "business", label: "Business Banking", to: "/products?segment=business", icon: Briefcase },
] as const;

/**
 * Personal / Business switch (docs/product.md#products). Two plain links, so it works without
 * JavaScript, with the keyboard (Tab, Enter) and with the back button; the current one carries
 * aria-current.
 */
export function SegmentToggle({ current }: { current: Segment }) {
  return (
    <nav aria-label="Banking type">
      <ul className="inline-flex w-full rounded-2xl bg-white p-1 shadow-sm ring-1 ring-slate-200 sm:w-auto">
        {OPTIONS.map(({ segment, label, to, icon: Icon }) => {
          const active = segment === current;
          return (
            <li key={segment} className="flex-1 sm:flex-none">
              <Link
                to={to}
                preventScrollReset
                aria-current={active ? "page" : undefined}
                className={`flex h-12 items-center justify-center gap-2 whitespace-nowrap rounded-xl px-3 text-sm font-semibold transition-colors sm:px-6 sm:text-base ${
                  active
                    ? "bg-brand-700 text-white shadow-sm"
                    : "text-slate-700 hover:bg-slate-100 hover:text-brand-800"
                }`}
              >
                <Icon className="hidden size-4 shrink-0 sm:block" aria-hidden="true" />
                {label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
