import { parseCookieHeader } from "../http/cookies.server";
import { CLIENT_IP_HEADER } from "./auth.server";
import { clientAddressKey } from "~/server/rate-limit/rate-limit.server";

/**
 * What the identity services need to know about a request: the client address (as Express
 * determined it, see server.ts "trust proxy"; validated, so what X-Forwarded-For says can only be
 * a real address or a short marker), the browser, and its cookies.
 */
export interface RequestMeta {
  ip: string;
  user_agent: string;
  cookie: string;
}

export function requestMeta(request: Request, ip: string): RequestMeta {
  return {
    ip: clientAddressKey(ip || "unknown"),
    user_agent: (request.headers.get("user-agent") ?? "").slice(0, 400),
    cookie: request.headers.get("cookie") ?? "",
  };
}

/**
 * The headers for a Better Auth server call: only the cookies, the browser and the address we
 * determined (never the client's own forwarding headers). `set_cookies` (from an earlier call in
 * the same request) override the request's cookies, as the browser would apply them.
 */
export function authHeaders(meta: RequestMeta, set_cookies: readonly string[] = []): Headers {
  const cookies = parseCookieHeader(meta.cookie);
  for (const line of set_cookies) {
    const pair = line.split(";")[0] ?? "";
    const index = pair.indexOf("=");
    if (index <= 0) continue;
    const name = pair.slice(0, index).trim();
    const value = pair.slice(index + 1).trim();
    const cleared = /;\s*max-age=0/i.test(line) || value === "";
    if (cleared) cookies.delete(name);
    else cookies.set(name, value);
  }
  const headers = new Headers({ "user-agent": meta.user_agent, [CLIENT_IP_HEADER]: meta.ip });
  if (cookies.size) headers.set("cookie", [...cookies].map(([name, value]) => `${name}=${value}`).join("; "));
  return headers;
}

/** A Headers object carrying these Set-Cookie lines, for a response or redirect. */
export function setCookieHeaders(set_cookies: readonly string[], into: Headers = new Headers()): Headers {
  for (const line of set_cookies) into.append("Set-Cookie", line);
  return into;
}
