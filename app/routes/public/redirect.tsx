import { redirect } from "react-router";
import type { Route } from "./+types/redirect";
import { pathRedirects } from "~/config/redirects";
import { pageUrl } from "~/server/http/page-url.server";

/** Paths the site links to for products and services, sent permanently to their page. */
export function loader({ request }: Route.LoaderArgs) {
  const path = pageUrl(request).pathname.replace(/^\/+|\/+$/g, "");
  const target = pathRedirects[path];
  if (!target) throw new Response("Not found", { status: 404 });
  return redirect(target, 301);
}
