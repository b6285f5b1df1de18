import { Link } from "react-router";

export function Logo({ name, shortName }: { name: string; shortName: string }) {
  return (
    <Link to="/" className="flex items-center gap-2.5 rounded-md" aria-label={`${name} home`}>
      <svg viewBox="0 0 32 32" className="size-9 shrink-0" aria-hidden="true">
        <rect width="32" height="32" rx="8" className="fill-brand-700" />
        <path d="M8 23V10l8 7 8-7v13" fill="none" stroke="currentColor" strokeWidth="3" strokeLinecap="round" strokeLinejoin="round" className="text-accent-100" />
      </svg>
      <span className="leading-tight">
        <span className="block text-base font-semibold text-brand-800 sm:hidden">{shortName}</span>
        <span className="hidden text-base font-semibold text-brand-800 sm:block">{name}</span>
      </span>
    </Link>
  );
}
