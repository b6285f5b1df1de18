import type { RequestHandler } from "express";
import { institution } from "~/config/institution.server";
import { escapeHtml, standalonePageHtml } from "./standalone-page.server";

/**
 * While the database cannot be reached, a request that needed it is answered 503 with
 * Retry-After, a polite message and the request id, not 500: nothing is broken for good, and
 * load balancers and monitoring tell an outage from a bug by the status.
 *
 * React Router catches what loaders and actions throw and answers 500 itself, so its error hook
 * (handleError in app/entry.server.tsx) marks the request here. Pages then get the whole page
 * below, `.data` requests the short answer below (both from app/entry.server.tsx), and resource
 * routes' 500 is turned into 503 by the Express entry as it writes the status.
 */

/** Seconds a client is asked to wait before trying again. */
export const RETRY_AFTER_S = 5;

// server.ts and the React Router build are separate module graphs in development: the marks
// live on globalThis so that both see the same set. A mark is removed when its response ends.
const KEY = Symbol.for("mutual.databaseUnavailableRequests");
const holder = globalThis as { [KEY]?: Set<string> };
const marked: Set<string> = (holder[KEY] ??= new Set<string>());
const MARKS_MAX = 10_000;

export function markDatabaseUnavailable(request_id: string): void {
  // Marks whose response never reached Express (a test calling a handler directly) must not pile up.
  if (marked.size >= MARKS_MAX) marked.delete(marked.values().next().value!);
  marked.add(request_id);
}

export function isMarkedDatabaseUnavailable(request_id: string): boolean {
  return marked.has(request_id);
}

/** Express middleware, before React Router's handler: a marked request's 500 goes out as 503. */
export function databaseUnavailableStatus(): RequestHandler {
  return (_req, res, next) => {
    const request_id = String(res.locals.request_id);
    const writeHead = res.writeHead as (...args: unknown[]) => typeof res;
    res.writeHead = function (this: typeof res, statusCode: number, ...rest: unknown[]) {
      if (statusCode === 500 && marked.has(request_id)) {
        statusCode = 503;
        this.statusMessage = "Service Unavailable";
        if (typeof rest[0] === "string") rest[0] = this.statusMessage;
        this.setHeader("Retry-After", String(RETRY_AFTER_S));
      }
      return writeHead.call(this, statusCode, ...rest);
    } as typeof res.writeHead;
    res.once("close", () => marked.delete(request_id));
    next();
  };
}

/**
 * The answer to a `.data` request (a client-side navigation or form post) while the database is
 * unreachable. Without React Router's X-Remix-Response header the browser's router turns it into
 * a 503 route error, which the root error boundary shows with this request's reference.
 */
export function databaseUnavailableData(request_id: string): Response {
  return new Response(`We will be right back. Reference: ${request_id}`, {
    status: 503,
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Retry-After": String(RETRY_AFTER_S),
      "Cache-Control": "no-store",
    },
  });
}

/**
 * The page for a page request while the database is unreachable: complete in itself (no
 * database, no scripts), in the institution's colours.
 */
export function databaseUnavailablePage(request: Request, request_id: string, nonce: string): Response {
  const profile = institution();
  const retry =
    request.method === "GET"
      ? new URL(request.url).pathname + new URL(request.url).search
      : new URL(request.url).pathname;
  const html = standalonePageHtml({
    status: 503,
    title: "Temporarily unavailable",
    heading: "We will be right back",
    paragraphs_html: [
      `${escapeHtml(profile.name)} cannot reach its records at the moment. Please try again in a minute or two.`,
      "If you had just sent money, look at your recent activity before sending it again.",
    ],
    request_id,
    nonce,
    link: { href: retry, label: "Try again" },
  });
  return new Response(html, {
    status: 503,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Retry-After": String(RETRY_AFTER_S),
      "Cache-Control": "no-store",
    },
  });
}
