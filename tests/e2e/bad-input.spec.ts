import { expect, test, type APIResponse } from "./fixtures";
import { ALEX, STAFF } from "./support";

/** A 4xx answer in plain words: no stack trace, no internals, a reference to quote. */
async function expectPoliteRefusal(res: APIResponse, status: number) {
  expect(res.status()).toBe(status);
  const body = await res.text();
  expect(body).not.toMatch(/\bat .+\.(ts|js):\d+/);
  expect(body).not.toMatch(/node_modules|TypeError|SyntaxError/);
  expect(body.length).toBeGreaterThan(10);
}

test.describe("bad input gets a clear 4xx, never a 500 or a stack trace", () => {
  test("a post from another site is refused (CSRF)", async ({ request, baseURL }) => {
    const res = await request.post("/contact", {
      headers: { Origin: "https://evil.example", "Content-Type": "application/x-www-form-urlencoded" },
      data: "name=x",
    });
    await expectPoliteRefusal(res, 403);
    expect(baseURL).toBeTruthy();
  });

  test("a post that does not say where it comes from is refused", async ({ request }) => {
    const res = await request.post("/contact", {
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      data: "name=x",
    });
    await expectPoliteRefusal(res, 403);
  });

  test("wrong content types are refused", async ({ request, baseURL }) => {
    for (const type of ["application/json", "text/plain", "application/xml"]) {
      const res = await request.post("/contact", {
        headers: { Origin: baseURL!, "Content-Type": type },
        data: '{"name":"x"}',
      });
      await expectPoliteRefusal(res, 415);
    }
  });

  test("an oversized body is refused", async ({ request, baseURL }) => {
    const res = await request.post("/contact", {
      headers: { Origin: baseURL!, "Content-Type": "application/x-www-form-urlencoded" },
      data: "message=" + "x".repeat(200_000),
    });
    await expectPoliteRefusal(res, 413);
  });

  test("a malformed multipart body is refused", async ({ request, baseURL }) => {
    const res = await request.post("/contact", {
      headers: { Origin: baseURL!, "Content-Type": "multipart/form-data; boundary=abc" },
      data: '--abc\r\nContent-Disposition: form-data; name="name"\r\n\r\nunterminated',
    });
    expect(res.status()).toBeGreaterThanOrEqual(400);
    expect(res.status()).toBeLessThan(500);
  });

  test("a post to a page that takes no form is refused", async ({ request, baseURL }) => {
    const res = await request.post("/about", {
      headers: { Origin: baseURL!, "Content-Type": "application/x-www-form-urlencoded" },
      data: "a=b",
    });
    expect(res.status()).toBe(405);
  });

  test("methods we do not serve are refused", async ({ request, baseURL }) => {
    const res = await request.fetch("/", { method: "PROPFIND", headers: { Origin: baseURL! } });
    await expectPoliteRefusal(res, 405);
  });

  test("absurd query strings do not break pages", async ({ request }) => {
    for (const path of [
      "/products?segment=%3Cscript%3Ealert(1)%3C/script%3E",
      "/products?segment[]=a&segment[]=b",
      "/products?segment=business&segment=personal",
      "/calculators?amount=-1e308&apr=NaN&term=%00",
      "/locations?kind=" + "z".repeat(500),
      "/contact?subject=%FF%FE",
    ]) {
      const res = await request.get(path);
      expect(res.status(), path).toBeLessThan(500);
      expect(await res.text(), path).not.toContain("<script>alert(1)</script>");
    }
    const long = await request.get("/?q=" + "a".repeat(5000));
    await expectPoliteRefusal(long, 414);
  });

  test("a client address too long for a rate-limit key (X-Forwarded-For behind a proxy) does not break sign-in or contact", async ({
    request,
    baseURL,
  }) => {
    const headers = { Origin: baseURL!, "X-Forwarded-For": "x".repeat(300) };
    const login = await request.post("/login", {
      headers,
      form: { intent: "password", email: "nobody@example.com", password: "not the password" },
      maxRedirects: 0,
    });
    expect(login.status()).toBe(401);
    expect(await login.text()).toContain("Failed to sign in. Please check your credentials.");
    const contact = await request.post("/contact", {
      headers,
      form: {
        name: "Ada Lovelace",
        email: "ada@example.com",
        subject: "general",
        message: "A question about savings accounts.",
        preferred_contact: "email",
      },
      maxRedirects: 0,
    });
    expect(contact.status()).toBe(200);
    expect(await contact.text()).toContain("Your message has been sent.");
  });
});

/**
 * A path segment that is no id at all (a NUL or another control character, an escape that does
 * not decode, an id longer than any we issue) is a 404 on every route with a dynamic segment, for
 * GET, POST and React Router's `.data` requests alike: one guard before the routes
 * (docs/decisions/0003-request-guards.md), not a check per route. Before it, a NUL reached
 * PostgreSQL (which refuses it in text) and the answer was a 500.
 */
const BAD_SEGMENTS = ["a%00b", "%00", "a%0Ab", "a%7Fb", "%ZZ", "a%C0%AFb", "%E0%A4%A", "x".repeat(300)];
const DYNAMIC_ROUTES = {
  staff: [
    "/admin/members/{id}/transactions",
    "/admin/members/{id}/cards",
    "/admin/members/{id}/document",
    "/admin/queues/files/{id}",
    "/admin/queues/returns/{id}",
    "/admin/queues/deposits/{id}/front",
    "/admin/loans/{id}",
  ],
  member: [
    "/settings/profile-image/{id}",
    "/dashboard/statements/{id}/2026-10",
    "/dashboard/statements/1/{id}",
    "/dashboard/loans/apply/{id}",
    "/dashboard/loans/applications/{id}",
    "/dashboard/loans/applications/{id}/disclosure.pdf",
    "/dashboard/loans/lines/{id}",
  ],
  anonymous: ["/products/{id}"],
};

for (const [who, routes] of Object.entries(DYNAMIC_ROUTES)) {
  test.describe(`a bad path segment is a 404 (${who})`, () => {
    if (who === "staff") test.use({ signedInAs: STAFF });
    if (who === "member") test.use({ signedInAs: ALEX });
    test(`GET, POST and .data on ${routes.length} routes`, async ({ page, baseURL }) => {
      for (const route of routes) {
        for (const segment of BAD_SEGMENTS) {
          const path = route.replace("{id}", segment);
          const get = await page.request.get(path, { maxRedirects: 0 });
          expect(get.status(), `GET ${path}`).toBe(404);
          const data = await page.request.get(`${path}.data`, { maxRedirects: 0 });
          expect(data.status(), `GET ${path}.data`).toBe(404);
          const post = await page.request.post(path, {
            headers: { Origin: baseURL! },
            form: { intent: "post", amount: "1.00" },
            maxRedirects: 0,
          });
          expect(post.status(), `POST ${path}`).toBe(404);
          expect(await post.text(), `POST ${path}`).not.toMatch(/\bat .+\.(ts|js):\d+|Something went wrong/);
        }
      }
    });
  });
}

test.describe("a good path segment still reaches its page", () => {
  test.use({ signedInAs: ALEX });
  test("an escaped space or letter decodes as before", async ({ page }) => {
    expect((await page.request.get("/products/%70remier-checking", { maxRedirects: 0 })).status()).toBe(200);
  });
});
