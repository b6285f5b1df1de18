import type { AnchorHTMLAttributes } from "react";
import { createPath, useLocation, useNavigate } from "react-router";

/** A path on this site, written out from the root: nothing to resolve against the current route. */
export type SitePath = `/${string}`;

type SiteLinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "href"> & { to: SitePath };

/**
 * A link to a page of this site, for the public shell and the home page, which draw about 40.
 *
 * React Router's <Link> resolves its `to` against the current route twice per render (for its
 * href and for its click handler), <NavLink> a third time: that was about a seventh of the home
 * page's server render (bench/README.md, "Home page"). A path from the root needs no resolving,
 * so this writes the same markup as <Link> (`data-discover` lets React Router discover the route
 * before a click) and handles a click as <Link> does. Without JavaScript it is a plain link. Use
 * <Link> for relative paths or its other options (prefetch, state, replace, view transitions).
 */
export function SiteLink({ to, onClick, ...rest }: SiteLinkProps) {
  const navigate = useNavigate();
  const location = useLocation();
  return (
    <a
      {...rest}
      href={to}
      onClick={(event) => {
        onClick?.(event);
        // As <Link>: a click with a modifier key, another button or another target is the browser's.
        const modified = event.metaKey || event.altKey || event.ctrlKey || event.shiftKey;
        if (event.defaultPrevented || event.button !== 0 || modified || (rest.target && rest.target !== "_self"))
          return;
        event.preventDefault();
        // As <Link>: following a link to the page already shown replaces its history entry.
        void navigate(to, { replace: createPath(location) === to });
      }}
      data-discover="true"
    />
  );
}

/**
 * <NavLink> for the top bar, on SiteLink: `aria-current="page"` and the active look when the
 * current path is `to` or below it (only `to` itself with `end`), ignoring case as NavLink does.
 */
export function SiteNavLink({
  to,
  end = false,
  className,
  ...rest
}: Omit<SiteLinkProps, "className"> & { end?: boolean; className: (state: { isActive: boolean }) => string }) {
  const current = useLocation().pathname.toLowerCase();
  const path = to.toLowerCase();
  const isActive = current === path || (!end && current.startsWith(path) && current.charAt(path.length) === "/");
  return (
    <SiteLink {...rest} aria-current={isActive ? "page" : undefined} className={className({ isActive })} to={to} />
  );
}
