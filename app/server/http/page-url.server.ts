/**
 * The address of the page a request is for, as the visitor's address bar shows it.
 *
 * React Router hands loaders the request as it arrived. On a client-side navigation that is the
 * page's data address: `/privacy.data`, `/_.data` for the home page, sometimes with a `_routes`
 * parameter naming the loaders to run. A loader that reads its page from the path, or remembers
 * the page to come back to, uses this (the same normalising React Router does for its matching).
 */
export function pageUrl(request: Request): URL {
  const url = new URL(request.url);
  url.pathname = url.pathname.endsWith("/_.data")
    ? url.pathname.slice(0, -"_.data".length)
    : url.pathname.replace(/\.data$/, "");
  url.searchParams.delete("_routes");
  return url;
}
