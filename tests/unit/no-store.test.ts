import { describe, expect, it } from "vitest";
import { isSignedInRequest } from "~/server/http/no-store.server";

describe("which answers must not be cached", () => {
  it("every signed-in area, its .data requests and downloads, with or without a cookie", () => {
    for (const path of [
      "/dashboard",
      "/dashboard.data",
      "/dashboard/transactions.csv",
      "/admin",
      "/admin/audit.csv",
      "/admin/members/abc/document",
      "/settings/account",
      "/settings/profile-image/user-1",
      "/pending-approval",
      "/change-password",
      "/reset-password",
      "/session",
      "/demo/inbox",
    ]) {
      expect(isSignedInRequest(path, undefined), path).toBe(true);
    }
  });
  it("any request that carries one of our cookies", () => {
    expect(isSignedInRequest("/", "mutual.session_token=abc")).toBe(true);
    expect(isSignedInRequest("/about", "theme=dark; __Secure-mutual.session_token=abc")).toBe(true);
    expect(isSignedInRequest("/login", "mutual.two_factor=abc")).toBe(true);
  });
  it("public pages for visitors without a cookie of ours stay cacheable", () => {
    expect(isSignedInRequest("/", undefined)).toBe(false);
    expect(isSignedInRequest("/products", "theme=dark; notmutual.x=1")).toBe(false);
    expect(isSignedInRequest("/administration-fees", undefined)).toBe(false);
  });
});
