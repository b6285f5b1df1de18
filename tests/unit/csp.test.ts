import { describe, expect, it } from "vitest";
import { contentSecurityPolicy } from "~/server/security/csp.server";
import { parseInstitution } from "~/config/institution.server";
import { demoInstitution } from "~/config/demo-institution";

const fakeRes = { locals: { nonce: "abc123" } };
function render(directives: ReturnType<typeof contentSecurityPolicy>) {
  return Object.fromEntries(
    Object.entries(directives).map(([k, v]) => [
      k,
      v.map((x) => (typeof x === "function" ? x({} as never, fakeRes as never) : x)).join(" "),
    ]),
  );
}

describe("Content-Security-Policy", () => {
  it("allows scripts only from our origin or with the response's nonce, and no frames when the widget is off", () => {
    const csp = render(contentSecurityPolicy(parseInstitution(demoInstitution, "demo"), { https: false, dev: false }));
    expect(csp["script-src"]).toBe("'self' 'nonce-abc123'");
    expect(csp["script-src"]).not.toContain("unsafe-inline");
    expect(csp["frame-src"]).toBe("'none'");
    expect(csp["frame-ancestors"]).toBe("'none'");
    expect(csp["upgrade-insecure-requests"]).toBeUndefined();
  });

  it("allows exactly the market widget's origin as a frame source when it is enabled", () => {
    const profile = parseInstitution(
      { ...demoInstitution, market_widget: { enabled: true, url: "https://widgets.example.com/market?x=1" } },
      "t",
    );
    const csp = render(contentSecurityPolicy(profile, { https: true, dev: false }));
    expect(csp["frame-src"]).toBe("https://widgets.example.com");
    expect(csp["upgrade-insecure-requests"]).toBe("");
  });
});
