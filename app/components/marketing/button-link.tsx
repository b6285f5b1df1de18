import type { ComponentProps } from "react";
import { SiteLink } from "~/components/site/site-link";

/**
 * A link that looks like a button: one look per role, so every page's calls to action match.
 * "onDark" variants keep a white focus ring, visible against the navy bands.
 */
const VARIANTS = {
  primary: "bg-brand-700 text-white shadow-sm hover:bg-brand-800",
  accent: "bg-accent-600 text-white shadow-sm hover:bg-accent-700",
  secondary: "border border-slate-300 bg-white text-brand-800 shadow-sm hover:border-brand-300 hover:bg-brand-50",
  onDark: "bg-white text-brand-800 shadow-sm hover:bg-brand-50 focus-on-dark",
  outlineOnDark: "border border-white/50 text-white hover:border-white hover:bg-white/10 focus-on-dark",
} as const;

export type ButtonVariant = keyof typeof VARIANTS;

export function ButtonLink({
  variant = "primary",
  className = "",
  children,
  ...props
}: ComponentProps<typeof SiteLink> & { variant?: ButtonVariant }) {
  return (
    <SiteLink
      {...props}
      className={`inline-flex h-12 items-center justify-center gap-2 rounded-xl px-6 text-base font-semibold transition-colors ${VARIANTS[variant]} ${className}`}
    >
      {children}
    </SiteLink>
  );
}
