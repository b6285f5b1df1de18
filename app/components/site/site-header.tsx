import { lazy, Suspense, useEffect, useState } from "react";
import { Menu, X } from "./icons";
import { Logo } from "./logo";
import { SiteLink, SiteNavLink, type SitePath } from "./site-link";
import { Avatar } from "~/components/settings/avatar";
import { StaticMenuItems, UserMenu } from "./user-menu";
import { loadSettingsDialogs } from "./load-settings-dialogs";
import type { SettingsDialog, SignedInUser } from "./user-menu-parts";

// Loaded the first time a signed-in person opens a settings dialog (or the menus leading there).
const SiteSettingsDialogs = lazy(loadSettingsDialogs);

const NAV: { to: SitePath; label: string; end?: boolean }[] = [
  { to: "/", label: "Home", end: true },
  { to: "/about", label: "About" },
  { to: "/products", label: "Services" },
  { to: "/contact", label: "Contact" },
];

/**
 * Public top bar. The mobile menu is a <details> element, so it opens with or without JavaScript
 * and from the keyboard. Signed in, the bar shows the person's avatar and name with their menu
 * (user-menu.tsx) instead of Sign in / Sign up; the settings open as dialogs in place. A signed-in
 * applicant has no settings or dashboard yet: instead of Sign in / Sign up the bar offers their
 * application's status page, where they sign out. Signed out, none of the menu's or the dialogs' code is loaded: both are separate chunks.
 */
/** An applicant signed in while their application is reviewed, and their status page (which has Sign out). */
export interface SignedInApplicant {
  status_path: SitePath;
}

export function SiteHeader({
  name,
  shortName,
  user,
  applicant,
}: {
  name: string;
  shortName: string;
  user?: SignedInUser | null;
  applicant?: SignedInApplicant | null;
}) {
  const [scrolled, setScrolled] = useState(false);
  const [dialog, setDialog] = useState<SettingsDialog | null>(null);
  // The dialogs stay mounted once opened (their data fetchers and focus return work as before).
  const [dialogsMounted, setDialogsMounted] = useState(false);
  const openDialog = (which: SettingsDialog) => {
    // Close the mobile disclosure so focus returns somewhere visible after the dialog.
    document.querySelectorAll<HTMLDetailsElement>("header details[open]").forEach((d) => (d.open = false));
    setDialogsMounted(true);
    setDialog(which);
  };
  useEffect(() => {
    const onScroll = () => setScrolled(window.scrollY > 8);
    onScroll();
    window.addEventListener("scroll", onScroll, { passive: true });
    return () => window.removeEventListener("scroll", onScroll);
  }, []);

  const linkClass = ({ isActive }: { isActive: boolean }) =>
    `rounded-md px-3 py-2 text-sm font-medium transition-colors ${isActive ? "text-brand-800 bg-brand-50" : "text-slate-700 hover:text-brand-800 hover:bg-slate-100"}`;

  return (
    <header
      className={`sticky top-0 z-40 border-b border-slate-200 bg-white/95 backdrop-blur transition-shadow ${scrolled ? "shadow-md" : "shadow-sm"}`}
      data-scrolled={scrolled || undefined}
    >
      <div className="mx-auto flex h-16 max-w-7xl items-center justify-between gap-4 px-4 sm:px-6 lg:px-8">
        <Logo name={name} shortName={shortName} />
        <nav aria-label="Main" className="hidden md:block">
          <ul className="flex items-center gap-1">
            {NAV.map((item) => (
              <li key={item.to}>
                <SiteNavLink to={item.to} end={item.end} className={linkClass}>
                  {item.label}
                </SiteNavLink>
              </li>
            ))}
          </ul>
        </nav>
        {user ? (
          <div className="hidden items-center md:flex">
            <UserMenu user={user} onOpenDialog={openDialog} />
          </div>
        ) : applicant ? (
          <div className="hidden items-center gap-2 md:flex">
            <SiteLink
              to={applicant.status_path}
              className="rounded-lg border border-slate-300 px-4 py-2 text-sm font-semibold text-brand-800 hover:bg-slate-50"
            >
              Your application
            </SiteLink>
          </div>
        ) : (
          <div className="hidden items-center gap-2 md:flex">
            <SiteLink to="/login" className="rounded-lg px-4 py-2 text-sm font-medium text-brand-800 hover:bg-brand-50">
              Sign in
            </SiteLink>
            <SiteLink
              to="/signup"
              className="rounded-lg bg-brand-700 px-4 py-2 text-sm font-semibold text-white shadow-sm hover:bg-brand-800"
            >
              Sign up
            </SiteLink>
          </div>
        )}
        <details
          className="group relative md:hidden"
          onToggle={
            user
              ? (event) => {
                  if (event.currentTarget.open) void loadSettingsDialogs();
                }
              : undefined
          }
        >
          <summary
            className="flex size-11 cursor-pointer list-none items-center justify-center rounded-lg text-brand-800 hover:bg-slate-100 [&::-webkit-details-marker]:hidden"
            aria-label="Menu"
          >
            <Menu className="size-6 group-open:hidden" aria-hidden="true" />
            <X className="hidden size-6 group-open:block" aria-hidden="true" />
          </summary>
          <nav
            aria-label="Mobile"
            className="absolute right-0 mt-2 w-64 rounded-xl border border-slate-200 bg-white p-2 shadow-xl"
          >
            <ul className="flex flex-col">
              {NAV.map((item) => (
                <li key={item.to}>
                  <SiteNavLink
                    to={item.to}
                    end={item.end}
                    className={({ isActive }) => `block ${linkClass({ isActive })} py-3`}
                  >
                    {item.label}
                  </SiteNavLink>
                </li>
              ))}
              {user ? (
                <li className="mt-2 border-t border-slate-100 pt-2">
                  <div className="flex items-center gap-3 px-3 py-2">
                    <Avatar initials={user.initials} imageUrl={user.image_url} size="sm" />
                    <span className="min-w-0">
                      <span className="block truncate text-sm font-semibold text-slate-900">
                        {user.name || user.email}
                      </span>
                      {user.name ? <span className="block truncate text-xs text-slate-600">{user.email}</span> : null}
                    </span>
                  </div>
                  <StaticMenuItems user={user} onOpenDialog={openDialog} />
                </li>
              ) : applicant ? (
                <li className="mt-2 border-t border-slate-100 pt-2">
                  <SiteLink
                    to={applicant.status_path}
                    className="block rounded-md px-3 py-3 text-sm font-medium text-brand-800 hover:bg-brand-50"
                  >
                    Your application
                  </SiteLink>
                </li>
              ) : (
                <>
                  <li className="mt-2 border-t border-slate-100 pt-2">
                    <SiteLink
                      to="/login"
                      className="block rounded-md px-3 py-3 text-sm font-medium text-brand-800 hover:bg-brand-50"
                    >
                      Sign in
                    </SiteLink>
                  </li>
                  <li>
                    <SiteLink
                      to="/signup"
                      className="mt-1 block rounded-lg bg-brand-700 px-3 py-3 text-center text-sm font-semibold text-white hover:bg-brand-800"
                    >
                      Sign up
                    </SiteLink>
                  </li>
                </>
              )}
            </ul>
          </nav>
        </details>
      </div>
      {user && dialogsMounted ? (
        <Suspense fallback={null}>
          <SiteSettingsDialogs dialog={dialog} onChange={setDialog} />
        </Suspense>
      ) : null}
    </header>
  );
}
