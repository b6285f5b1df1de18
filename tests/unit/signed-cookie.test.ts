import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { signedCookieValue, verifiedCookieValue } from "~/server/auth/signed-cookie.server";

const SECRET = "a-test-secret-of-enough-length-0123456789";
// As better-call signs a cookie value: value.base64(HMAC-SHA256(secret, value)), URL-encoded.
const sign = (value: string, secret = SECRET) =>
  encodeURIComponent(`${value}.${crypto.createHmac("sha256", secret).update(value).digest("base64")}`);

describe("signed session cookie", () => {
  it("gives the value of a cookie signed with the secret, among other cookies", () => {
    const header = `theme=dark; mutual.session_token=${sign("tok3n.with.dots")}; mutual.dont_remember=${sign("true")}`;
    expect(verifiedCookieValue(header, "mutual.session_token", SECRET)).toBe("tok3n.with.dots");
    expect(verifiedCookieValue(header, "__Secure-mutual.session_token", SECRET)).toBeNull();
  });

  it("refuses a changed value, a changed or missing signature, another secret and malformed encoding", () => {
    const good = sign("abc");
    const [value, signature] = decodeURIComponent(good).split(".");
    expect(
      verifiedCookieValue(
        `mutual.session_token=${encodeURIComponent(`abd.${signature}`)}`,
        "mutual.session_token",
        SECRET,
      ),
    ).toBeNull();
    expect(
      verifiedCookieValue(
        `mutual.session_token=${encodeURIComponent(`${value}.${signature!.replace(/^./, (c) => (c === "A" ? "B" : "A"))}`)}`,
        "mutual.session_token",
        SECRET,
      ),
    ).toBeNull();
    expect(verifiedCookieValue(`mutual.session_token=${value}`, "mutual.session_token", SECRET)).toBeNull();
    expect(
      verifiedCookieValue(`mutual.session_token=${sign("abc", "another-secret")}`, "mutual.session_token", SECRET),
    ).toBeNull();
    expect(verifiedCookieValue("mutual.session_token=%E0%A4%A", "mutual.session_token", SECRET)).toBeNull();
    expect(verifiedCookieValue("mutual.session_token=", "mutual.session_token", SECRET)).toBeNull();
    expect(verifiedCookieValue(`mutual.session_token=${good}`, "mutual.session_token", SECRET)).toBe("abc");
  });

  it("signs as better-call signs (the sign-in challenge cookie), and what it signs verifies back", () => {
    expect(signedCookieValue("tok3n.with.dots", SECRET)).toBe(sign("tok3n.with.dots"));
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 80 }), (value) => {
        const header = `a=b; mutual.two_factor=${signedCookieValue(value, SECRET)}`;
        expect(verifiedCookieValue(header, "mutual.two_factor", SECRET)).toBe(value);
        expect(verifiedCookieValue(header, "mutual.two_factor", "another-secret")).toBeNull();
      }),
    );
  });
});
