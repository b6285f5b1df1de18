import { type RouteConfig, index, layout, route } from "@react-router/dev/routes";

import { pathRedirects, policyPages } from "./config/redirects";

/**
 * The explicit route table (SPEC 2). Pages that share one module (policy pages, redirects) get
 * their own ids.
 */
export default [
  layout("routes/public/layout.tsx", [
    index("routes/public/home.tsx"),
    route("about", "routes/public/about.tsx"),
    route("products", "routes/public/products.tsx"),
    route("products/:slug", "routes/public/product.tsx"),
    route("contact", "routes/public/contact.tsx"),
    route("calculators", "routes/public/calculators.tsx"),
    route("locations", "routes/public/locations.tsx"),
    ...policyPages.map((page) => route(page, "routes/public/policy.tsx", { id: `policy-${page}` })),
    route("*", "routes/public/not-found.tsx"),
  ]),
  // The benchmark's reference page: one component, no layout. 404 unless MUTUAL_BENCH=1.
  route("bench/minimal", "routes/bench-minimal.tsx"),
  ...Object.keys(pathRedirects).map((path) => route(path, "routes/public/redirect.tsx", { id: `redirect-${path}` })),
] satisfies RouteConfig;
