// First, before any module builds a Zod schema: no `new Function` (the CSP forbids it).
import "./components/ui/zod-settings";
import {
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useRouteLoaderData,
  type LinksFunction,
} from "react-router";
import type { Route } from "./+types/root";
import appStylesHref from "./app.css?url";
import interLatinHref from "@fontsource-variable/inter/files/inter-latin-wght-normal.woff2?url";
import { institution } from "./config/institution.server";
import { env } from "./config/env.server";
import { requestInfoContext } from "./context";
import { useNonce } from "./components/nonce";
import { DemoBanner, DrillBanner } from "./components/demo-banner";
import { readYourWrites } from "./server/db/read-your-writes.server";

export const links: LinksFunction = () => [{ rel: "icon", href: "/favicon.svg", type: "image/svg+xml" }];

/** Every request: where its reads may go when a read replica is configured (DATABASE_READ_URL). */
export const middleware: Route.MiddlewareFunction[] = [readYourWrites];

export async function loader({ context }: Route.LoaderArgs) {
  const { request_id } = context.get(requestInfoContext);
  const profile = institution();
  // Only what the shell (banner, header, footer) needs: page-specific content is loaded by its page.
  return {
    institution: {
      demo: profile.demo,
      name: profile.name,
      short_name: profile.short_name,
      founded_year: profile.founded_year,
      routing_number: profile.routing_number,
      support_email: profile.support_email,
      support_phone: profile.support_phone,
      brand: profile.brand,
      insurance: profile.insurance,
      time_zone: profile.time_zone,
    },
    request_id,
    /** A restore drill's copy (MUTUAL_DRILL=1): said on every page. */
    drill: env().MUTUAL_DRILL === "1",
    year: new Date().getFullYear(),
  };
}

export type RootData = Awaited<ReturnType<typeof loader>>;

/** The institution profile and request id, for any component under the root. */
export function useRootData(): RootData | undefined {
  return useRouteLoaderData<typeof loader>("root");
}

export function Layout({ children }: { children: React.ReactNode }) {
  const nonce = useNonce();
  const data = useRootData();
  const brand = data?.institution.brand;
  const style = brand
    ? ({ "--brand-primary": brand.primary, "--brand-accent": brand.accent } as React.CSSProperties)
    : undefined;
  return (
    <html lang="en" style={style}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {/* The stylesheet is what the first paint waits for. As a React resource (precedence),
            React writes it at the top of <head>, before the modulepreload links it hoists from
            <Scripts>; a plain <link> came after them all and queued behind the page's JavaScript
            on a slow connection. The Latin Inter file right after it, so that the text is
            usually drawn once, in Inter. */}
        <link rel="preload" href={interLatinHref} as="font" type="font/woff2" crossOrigin="anonymous" />
        <link rel="stylesheet" href={appStylesHref} precedence="default" />
        <meta name="theme-color" content={brand?.primary ?? "#0b2545"} />
        {/* React Aria injects a <style> for press handling and reads the CSP nonce from here. */}
        <meta name="csp-nonce" nonce={nonce} />
        <Meta />
        <Links />
      </head>
      <body className="min-h-dvh font-sans">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:fixed focus:left-4 focus:top-4 focus:z-50 focus:rounded-md focus:bg-white focus:px-4 focus:py-2 focus:shadow-lg"
        >
          Skip to main content
        </a>
        {data?.drill ? <DrillBanner /> : null}
        {data?.institution.demo ? <DemoBanner /> : null}
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

/** Last line of defence: a polite page with the request id, never a stack trace. */
export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const data = useRootData();
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  const status = isRouteErrorResponse(error) ? error.status : 500;
  // 503: the database could not be reached on a client-side navigation or form post; the answer
  // carries its own request id (app/server/http/database-unavailable.server.ts).
  const unavailable = status === 503;
  const reference =
    (unavailable &&
      isRouteErrorResponse(error) &&
      typeof error.data === "string" &&
      /Reference: ([\w-]+)/.exec(error.data)?.[1]) ||
    data?.request_id;
  return (
    <main id="main" className="mx-auto max-w-xl px-6 py-24 text-center">
      <p className="text-sm font-semibold text-accent-700">Error {status}</p>
      <h1 className="mt-2 text-3xl font-semibold text-brand-800">
        {notFound ? "We could not find that page" : unavailable ? "We will be right back" : "Something went wrong"}
      </h1>
      <p className="mt-4 text-slate-700">
        {notFound
          ? "The address may be mistyped, or the page may have moved."
          : unavailable
            ? "We cannot reach our records at the moment. Please try again in a minute or two. If you had just sent money, look at your recent activity before sending it again."
            : status < 500
              ? "We could not process that request. Please check it and try again."
              : "We hit a problem on our side. Nothing has been changed. Please try again in a moment."}
      </p>
      {reference ? <p className="mt-4 text-sm text-slate-600">Reference: {reference}</p> : null}
      <a
        href="/"
        className="mt-8 inline-block rounded-lg bg-brand-700 px-5 py-3 font-medium text-white hover:bg-brand-800"
      >
        Go to the home page
      </a>
    </main>
  );
}
