import crypto from "node:crypto";

/**
 * The value of a cookie signed as Better Auth (better-call) signs it: `value.base64(HMAC-SHA256)`,
 * URL-encoded. Null when absent, malformed or not signed with `secret` (compared in constant time).
 */
export function verifiedCookieValue(cookie_header: string, name: string, secret: string): string | null {
  let raw: string | undefined;
  for (const part of cookie_header.split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === name) {
      raw = part.slice(i + 1).trim();
      break;
    }
  }
  if (!raw) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return null;
  }
  const dot = decoded.lastIndexOf(".");
  if (dot < 1) return null;
  const value = decoded.slice(0, dot);
  const signature = Buffer.from(decoded.slice(dot + 1), "utf8");
  const expected = Buffer.from(crypto.createHmac("sha256", secret).update(value).digest("base64"), "utf8");
  return signature.length === expected.length && crypto.timingSafeEqual(signature, expected) ? value : null;
}

/** `value` signed as Better Auth signs a cookie (the counterpart of `verifiedCookieValue`), URL-encoded. */
export function signedCookieValue(value: string, secret: string): string {
  return encodeURIComponent(`${value}.${crypto.createHmac("sha256", secret).update(value).digest("base64")}`);
}
