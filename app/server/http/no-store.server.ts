import type { RequestHandler } from "express";

/**
 * Nothing a signed-in person sees may be kept by a browser's or a proxy's cache: balances,
 * history, a revealed date of birth or ID number in the back office, the outbox, CSV downloads,
 * ID documents, profile images. Every answer to a request that carries one of our cookies (the
 * session, the sign-in challenge, the remembered email), and every answer on a signed-in area's
 * paths (with or without a cookie, and their `.data` requests), goes out with
 * `Cache-Control: no-store`, whatever the route said: one rule here, so a new route cannot forget it.
 */
const SIGNED_IN_PATH =
  /^\/(dashboard|admin|settings|session|pending-approval|change-password|reset-password|demo\/inbox)(?=[/.?]|$)/;
/** Better Auth's cookies and ours are all named `mutual.…` (`__Secure-mutual.…` over https). */
const OUR_COOKIE = /(?:^|;)\s*(?:__Secure-|__Host-)?mutual\.[\w.-]*=/;

export function isSignedInRequest(path: string, cookieHeader: string | undefined): boolean {
  return SIGNED_IN_PATH.test(path) || (cookieHeader !== undefined && OUR_COOKIE.test(cookieHeader));
}

/** Sets `Cache-Control: no-store` as the headers go out, over anything a route set. */
export function noStoreWhenSignedIn(): RequestHandler {
  return (req, res, next) => {
    if (isSignedInRequest(req.path, req.get("cookie"))) {
      const writeHead = res.writeHead as (...args: unknown[]) => typeof res;
      res.writeHead = function (this: typeof res, ...args: unknown[]) {
        this.setHeader("Cache-Control", "no-store");
        return writeHead.apply(this, args);
      } as typeof res.writeHead;
    }
    next();
  };
}
