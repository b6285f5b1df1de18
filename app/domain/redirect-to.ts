/**
 * Where to go after signing in ("back to that page", docs/product.md#access-rules). Only a path on
 * this site is accepted: never another origin, never a scheme, never a protocol-relative `//host`,
 * and never the sign-in pages themselves (which would loop). Anything else gives null and the
 * caller uses the role's home.
 */
const REDIRECT_MAX_CHARS = 2048;
const BASE = "http://mutual.invalid";
const REFUSED_PATHS = ["/login", "/logout", "/signup", "/register", "/forgot-password", "/reset-password", "/session"];

export function safeRedirectTo(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const raw = value.trim();
  if (raw.length === 0 || raw.length > REDIRECT_MAX_CHARS) return null;
  // A relative path on this site: "/" then not "/" or "\" (browsers read "/\host" as "//host").
  if (!raw.startsWith("/") || raw.startsWith("//") || raw.startsWith("/\\")) return null;
  // Control characters, white space and backslashes have no place in our own links; browsers strip
  // or rewrite them in ways that can change the target.
  if ([...raw].some((c) => c.charCodeAt(0) <= 0x20 || c.charCodeAt(0) === 0x7f || c === "\\")) return null;
  let url: URL;
  try {
    url = new URL(raw, BASE);
  } catch {
    return null;
  }
  if (url.origin !== BASE) return null;
  const path = url.pathname;
  // Dot segments are resolved above, so "/.//evil.example" (or "/..//", "/%2e%2e//") becomes
  // "//evil.example": the same origin here, but another host once a browser reads it as a
  // Location. What we answer must itself pass the rules for a relative path.
  if (path.startsWith("//")) return null;
  if (REFUSED_PATHS.some((refused) => path === refused || path.startsWith(`${refused}/`))) return null;
  return `${path}${url.search}${url.hash}`;
}

/** `/login?redirectTo=...` for a path, or plain `/login` when the path is not a safe target. */
export function loginPathFor(target: string | null | undefined, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams(extra);
  const safe = safeRedirectTo(target);
  if (safe && safe !== "/") params.set("redirectTo", safe);
  const query = params.toString();
  return query ? `/login?${query}` : "/login";
}
