import { expect, test, type APIResponse } from "./fixtures";

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
    const res = await request.post("/contact", { headers: { "Content-Type": "application/x-www-form-urlencoded" }, data: "name=x" });
    await expectPoliteRefusal(res, 403);
  });

  test("wrong content types are refused", async ({ request, baseURL }) => {
    for (const type of ["application/json", "text/plain", "application/xml"]) {
      const res = await request.post("/contact", { headers: { Origin: baseURL!, "Content-Type": type }, data: '{"name":"x"}' });
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
      data: "--abc\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nunterminated",
    });
    expect(res.status()).toBeGreaterThanOrEqual(400);
    expect(res.status()).toBeLessThan(500);
  });

  test("a post to a page that takes no form is refused", async ({ request, baseURL }) => {
    const res = await request.post("/about", { headers: { Origin: baseURL!, "Content-Type": "application/x-www-form-urlencoded" }, data: "a=b" });
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

  test("a client address too long for a rate-limit key (X-Forwarded-For behind a proxy) does not break sign-in or contact", async ({ request, baseURL }) => {
    const headers = { Origin: baseURL!, "X-Forwarded-For": "x".repeat(300) };
    const login = await request.post("/login", { headers, form: { intent: "password", email: "nobody@example.com", password: "not the password" }, maxRedirects: 0 });
    expect(login.status()).toBe(401);
    expect(await login.text()).toContain("Failed to sign in. Please check your credentials.");
    const contact = await request.post("/contact", {
      headers,
      form: { name: "Ada Lovelace", email: "ada@example.com", subject: "general", message: "A question about savings accounts.", preferred_contact: "email" },
      maxRedirects: 0,
    });
    expect(contact.status()).toBe(200);
    expect(await contact.text()).toContain("Your message has been sent.");
  });
});
