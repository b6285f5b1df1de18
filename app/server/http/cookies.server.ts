import { env } from "~/config/env.server";

/** The cookies of a Cookie header, by name (the last of a repeated name wins). */
export function parseCookieHeader(header: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index <= 0) continue;
    map.set(part.slice(0, index).trim(), part.slice(index + 1).trim());
  }
  return map;
}

/** Cookies are marked Secure (and session cookies take the `__Secure-` prefix) when the public address is https. */
export function usesSecureCookies(): boolean {
  return env().PUBLIC_URL?.startsWith("https://") ?? false;
}
