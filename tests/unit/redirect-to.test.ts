import { describe, expect, it } from "vitest";
import { loginPathFor, safeRedirectTo } from "~/domain/redirect-to";

/**
 * The way back after signing in is a path on this site, whatever an attacker writes in
 * `redirectTo`: every answer, resolved by a browser against our origin, stays on our origin.
 */
const ORIGIN = "https://bank.example";

function staysHome(target: string | null): boolean {
  if (target === null) return true;
  return new URL(target, `${ORIGIN}/login`).origin === ORIGIN && target.startsWith("/") && !target.startsWith("//");
}

describe("safeRedirectTo", () => {
  it.each([
    "/.//evil.example",
    "/././/evil.example",
    "/..//evil.example",
    "/a/..//evil.example",
    "/%2e//evil.example",
    "/%2E%2E//evil.example",
    "/.%2f/evil.example",
    "/./\\evil.example",
    "/.\\/evil.example",
    "/%5C%5Cevil.example",
    "/%2F%2Fevil.example",
    "/%09/evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r\n//evil.example",
    "/.//evil.example/login",
    "//evil.example/%2e%2e",
    "/\u3000/evil.example",
  ])("never leads off the site: %j", (attack) => {
    const target = safeRedirectTo(attack);
    expect(staysHome(target), `${JSON.stringify(attack)} -> ${JSON.stringify(target)}`).toBe(true);
    expect(target === null || !/^\/[/\\]/.test(target)).toBe(true);
  });

  it("refuses dot tricks that a browser would turn into another host", () => {
    expect(safeRedirectTo("/.//evil.example")).toBeNull();
    expect(safeRedirectTo("/..//evil.example")).toBeNull();
    expect(safeRedirectTo("/%2e%2e//evil.example")).toBeNull();
  });

  it("keeps ordinary paths, with their query and fragment", () => {
    expect(safeRedirectTo("/dashboard/transactions?page=2#top")).toBe("/dashboard/transactions?page=2#top");
    expect(safeRedirectTo("/dashboard/./transactions")).toBe("/dashboard/transactions");
    expect(safeRedirectTo("/a/../dashboard")).toBe("/dashboard");
    expect(loginPathFor("/.//evil.example")).toBe("/login");
  });
});
