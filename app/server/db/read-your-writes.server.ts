import type { MiddlewareFunction } from "react-router";
import { parseCookieHeader, usesSecureCookies } from "../http/cookies.server";
import { logger } from "../logger.server";
import { appDatabase } from "./db.server";
import { parseLsn } from "./lsn";
import { primaryLsn, READ_AFTER_COOKIE, replicaConfigured, withReadContext } from "./read-replica.server";

/** The cookie outlives any replica lag worth waiting for; past it the browser reads wherever. */
const READ_AFTER_MAX_AGE_S = 24 * 60 * 60;

/**
 * The root route's server middleware: a person always sees their own last write, with read-only
 * pages on a replica (read-replica.server.ts). Every request runs knowing the
 * position of the browser's last write (the cookie); a request that may write (any method but GET
 * and HEAD) reads only the primary, and its answer carries the primary's position after it.
 * Without DATABASE_READ_URL it does nothing.
 */
export const readYourWrites: MiddlewareFunction<Response> = async ({ request }, next) => {
  if (!replicaConfigured()) return next();
  const writes = request.method !== "GET" && request.method !== "HEAD";
  const after_lsn = parseLsn(parseCookieHeader(request.headers.get("cookie") ?? "").get(READ_AFTER_COOKIE));
  return withReadContext({ after_lsn, writes }, async () => {
    const response = await next();
    if (!writes) return response;
    let lsn: string | undefined;
    try {
      lsn = await primaryLsn(await appDatabase());
    } catch (error) {
      // The answer goes out without the cookie: the browser's next reads check an older
      // position, and may show the page from before this write until the replica has it.
      logger.warn({ err: error }, "the primary's position after a write could not be read");
    }
    if (!lsn) return response;
    const cookie = `${READ_AFTER_COOKIE}=${lsn}; Max-Age=${READ_AFTER_MAX_AGE_S}; Path=/; HttpOnly; SameSite=Lax${usesSecureCookies() ? "; Secure" : ""}`;
    try {
      response.headers.append("Set-Cookie", cookie);
      return response;
    } catch {
      // A response whose headers are immutable (Response.redirect): the same answer, copied.
      const copy = new Response(response.body, response);
      copy.headers.append("Set-Cookie", cookie);
      return copy;
    }
  });
};
