import { createCookie } from "react-router";
import { secrets } from "~/server/config/secrets.server";
import { COOKIE_PREFIX } from "./auth.server";
import { usesSecureCookies } from "../http/cookies.server";

/**
 * "Remember me" on the sign-in page (docs/product.md#two-steps): remembers the email address on
 * this device, in a signed, HttpOnly cookie that only /login reads. It never keeps anyone signed
 * in.
 */
const REMEMBER_DAYS = 180;
const EMAIL_MAX_CHARS = 254;

function rememberCookie() {
  return createCookie(`${COOKIE_PREFIX}.remember_email`, {
    httpOnly: true,
    sameSite: "lax",
    secure: usesSecureCookies(),
    // "/" and not "/login": React Router fetches the page's data from "/login.data", which a
    // cookie scoped to "/login" would not reach.
    path: "/",
    maxAge: REMEMBER_DAYS * 24 * 60 * 60,
    secrets: [secrets().session_secret],
  });
}

export async function rememberedEmail(request: Request): Promise<string | null> {
  const value: unknown = await rememberCookie().parse(request.headers.get("cookie"));
  return typeof value === "string" && value.length <= EMAIL_MAX_CHARS && value.includes("@") ? value : null;
}

/** The Set-Cookie line that remembers `email`, or forgets any remembered one (null). */
export async function rememberEmailHeader(email: string | null): Promise<string> {
  const cookie = rememberCookie();
  return email ? cookie.serialize(email) : cookie.serialize("", { maxAge: 0 });
}
