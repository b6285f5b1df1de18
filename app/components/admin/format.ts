/** Helpers of the back office. Its dates come from `useInstitutionDates` (components/institution-dates.ts). */

export function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  return ((parts[0]?.[0] ?? "") + (parts.length > 1 ? (parts[parts.length - 1]?.[0] ?? "") : "")).toUpperCase() || "?";
}

/** Builds an /admin URL from the current search params with some changed (null removes). */
export function withParams(
  search: URLSearchParams | string,
  changes: Record<string, string | number | null | undefined>,
  path = "/admin",
): string {
  const params = new URLSearchParams(search);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null || value === undefined || value === "") params.delete(key);
    else params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/**
 * Where a form on /admin posts: the index route's action (`?index`, as React Router needs for an
 * index route), with the current search params changed as given.
 */
export function adminActionUrl(
  search: URLSearchParams | string,
  changes: Record<string, string | number | null | undefined> = {},
): string {
  const url = withParams(search, changes);
  const query = url.indexOf("?");
  const params = new URLSearchParams(query === -1 ? "" : url.slice(query + 1));
  params.delete("index");
  const text = params.toString();
  return text ? `/admin?index&${text}` : "/admin?index";
}
