import { describe, expect, it } from "vitest";
import { pageUrl } from "~/server/http/page-url.server";

const of = (path: string) => {
  const url = pageUrl(new Request(`http://localhost:3000${path}`));
  return `${url.pathname}${url.search}`;
};

describe("the page a request is for", () => {
  it("is the path itself for a document request", () => {
    expect(of("/privacy")).toBe("/privacy");
    expect(of("/dashboard/transactions?page=2")).toBe("/dashboard/transactions?page=2");
    expect(of("/")).toBe("/");
  });

  it("drops React Router's data suffix and its _routes parameter on client navigations", () => {
    expect(of("/privacy.data")).toBe("/privacy");
    expect(of("/_.data")).toBe("/");
    expect(of("/dashboard/transactions.data?page=2&_routes=routes%2Fmember%2Ftransactions")).toBe(
      "/dashboard/transactions?page=2",
    );
    expect(of("/accounts/checking.data")).toBe("/accounts/checking");
  });

  it("leaves other paths that merely contain 'data' alone", () => {
    expect(of("/data")).toBe("/data");
    expect(of("/metadata.json")).toBe("/metadata.json");
  });
});
