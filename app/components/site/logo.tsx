import { SiteLink } from "./site-link";

/**
 * The institution's mark and name, linking home. The accessible name starts with the visible
 * text (WCAG 2.5.3), so the phone's short name and the full name both match what is read out.
 */
export function Logo({ name, shortName }: { name: string; shortName: string }) {
  return (
    <SiteLink to="/" className="flex items-center gap-3 rounded-md">
      <svg viewBox="0 0 32 32" className="size-9 shrink-0" aria-hidden="true">
        <rect width="32" height="32" rx="8" className="fill-brand-700" />
        <path
          d="M8 23V10l8 7 8-7v13"
          fill="none"
          stroke="currentColor"
          strokeWidth="3"
          strokeLinecap="round"
          strokeLinejoin="round"
          className="text-accent-100"
        />
      </svg>
      <span className="leading-tight">
        <span className="block text-base font-semibold text-brand-800 sm:hidden">{shortName}</span>
        <span className="hidden text-base font-semibold text-brand-800 sm:block">{name}</span>
        <span className="sr-only">, home page</span>
      </span>
    </SiteLink>
  );
}
