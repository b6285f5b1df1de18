import { describe, expect, it } from "vitest";
import { parseEnv } from "~/config/env.server";
import { metricsTokenMatches, routeLabel, type RouteManifest } from "~/server/metrics/metrics.server";

/** The shape of React Router's build.routes: a flat table with parent ids. */
const manifest: RouteManifest = {
  root: { id: "root", path: "" },
  "routes/public/layout": { id: "routes/public/layout", parentId: "root" },
  "routes/public/home": { id: "routes/public/home", parentId: "routes/public/layout", index: true },
  "routes/public/product": { id: "routes/public/product", parentId: "routes/public/layout", path: "products/:slug" },
  "routes/public/not-found": { id: "routes/public/not-found", parentId: "routes/public/layout", path: "*" },
  member: { id: "member", parentId: "root" },
  "routes/member/dashboard": { id: "routes/member/dashboard", parentId: "member", path: "dashboard" },
  "routes/member/transactions-csv": {
    id: "routes/member/transactions-csv",
    parentId: "root",
    path: "dashboard/transactions.csv",
  },
  "routes/settings/profile-image": {
    id: "routes/settings/profile-image",
    parentId: "root",
    path: "settings/profile-image/:userId",
  },
};

describe("routeLabel: requests are counted by route, never by their address", () => {
  it.each([
    ["/", "routes/public/home"],
    ["/_root.data", "routes/public/home"],
    ["/products/jane.doe@example.com", "routes/public/product"],
    ["/settings/profile-image/9f1c2e7a-member-id", "routes/settings/profile-image"],
    ["/dashboard", "routes/member/dashboard"],
    ["/dashboard.data", "routes/member/dashboard"],
    ["/dashboard/transactions.csv", "routes/member/transactions-csv"],
    ["/no/such/page/12345", "routes/public/not-found"],
    ["/assets/entry-abc123.js", "static"],
    ["/favicon.svg", "static"],
    ["/healthz", "/healthz"],
    ["/metrics", "/metrics"],
    // Refused by the request guards (a 404) before any route: no route answers them.
    ["/products/a%00b", "unmatched"],
    ["/settings/profile-image/%ZZ", "unmatched"],
    ["/products/a%00b.data", "unmatched"],
  ])("%s counts as %s", (path, label) => {
    expect(routeLabel(path, manifest)).toBe(label);
  });

  it("counts everything as unmatched before the route table is known", () => {
    expect(routeLabel("/dashboard", undefined)).toBe("unmatched");
  });
});

describe("metricsTokenMatches", () => {
  const token = "m".repeat(40);
  it("accepts the token as a bearer token only", () => {
    expect(metricsTokenMatches(`Bearer ${token}`, token)).toBe(true);
    expect(metricsTokenMatches(`bearer ${token}`, token)).toBe(true);
    expect(metricsTokenMatches(undefined, token)).toBe(false);
    expect(metricsTokenMatches("", token)).toBe(false);
    expect(metricsTokenMatches("Bearer ", token)).toBe(false);
    expect(metricsTokenMatches(token, token)).toBe(false);
    expect(metricsTokenMatches(`Bearer ${token.slice(1)}`, token)).toBe(false);
    expect(metricsTokenMatches(`Bearer ${token}x`, token)).toBe(false);
    expect(metricsTokenMatches(`Basic ${token}`, token)).toBe(false);
  });
});

describe("METRICS_* configuration", () => {
  it("serves no metrics port unless asked, and binds it to loopback by default", () => {
    const env = parseEnv({});
    expect(env.METRICS_PORT).toBeUndefined();
    expect(env.METRICS_TOKEN).toBeUndefined();
    expect(parseEnv({ METRICS_PORT: "9464" })).toMatchObject({ METRICS_PORT: 9464, METRICS_HOST: "127.0.0.1" });
  });

  it("refuses a short token, a port equal to PORT and a bad port, naming the variable", () => {
    expect(() => parseEnv({ METRICS_TOKEN: "short" })).toThrow(/METRICS_TOKEN: must be at least 32 characters/);
    expect(() => parseEnv({ METRICS_TOKEN: `${"a".repeat(20)} ${"b".repeat(20)}` })).toThrow(
      /METRICS_TOKEN: must not contain spaces/,
    );
    expect(() => parseEnv({ PORT: "3000", METRICS_PORT: "3000" })).toThrow(/METRICS_PORT: must differ from PORT/);
    expect(() => parseEnv({ METRICS_PORT: "70000" })).toThrow(/METRICS_PORT/);
  });
});
