import { expect, test } from "./fixtures";
import { DESKTOP, PHONE, PUBLIC_PAGES, expectNoAxeViolations, watchConsole } from "./support";
import { promisesOfMissingFeatures } from "../../app/config/features";

test.describe("every public page", () => {
  for (const path of PUBLIC_PAGES) {
    test(`${path} is complete HTML before JavaScript, accessible at 1440 and 375 px`, async ({ page, browser }) => {
      // Without JavaScript: the server's HTML alone has the page's heading and footer.
      const noJs = await browser.newContext({ javaScriptEnabled: false });
      const raw = await noJs.newPage();
      const response = await raw.goto(path);
      expect(response?.status()).toBe(200);
      await expect(raw.locator("h1")).toHaveCount(1);
      await expect(raw.getByRole("contentinfo")).toContainText("Routing number");
      await noJs.close();

      const errors = watchConsole(page);
      for (const viewport of [DESKTOP, PHONE]) {
        await page.setViewportSize(viewport);
        await page.goto(path);
        await expect(page.locator("h1")).toBeVisible();
        await expectNoAxeViolations(page);
      }
      expect(errors).toEqual([]);
    });
  }
});

test("no internal link on any public page leads to a missing page or an error, loaded whole or by a click", async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const seen = new Set<string>();
  const broken: string[] = [];
  for (const path of PUBLIC_PAGES) {
    await page.goto(path);
    const hrefs = await page.locator("a[href]").evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href));
    for (const href of hrefs) {
      const url = new URL(href);
      if (url.origin !== new URL(page.url()).origin) continue;
      const target = url.pathname + url.search;
      if (seen.has(target)) continue;
      seen.add(target);
      const res = await request.get(target);
      if (res.status() >= 400) broken.push(`${target} (${res.status()}) linked from ${path}`);
      // A click in the browser loads the page's data address instead (React Router's single fetch).
      const data = `${url.pathname === "/" ? "/_" : url.pathname}.data${url.search}`;
      const viaClient = await request.get(data);
      if (viaClient.status() >= 400) broken.push(`${data} (${viaClient.status()}), the data of a link on ${path}`);
    }
  }
  expect(seen.size).toBeGreaterThan(20);
  expect(broken).toEqual([]);
});

/**
 * Members see the truth, on public pages too: a page may name a feature only once it works
 * (app/config/features.ts). Every public page, and every public page they link to (each product's
 * page, sign-in, the application), is read as the server sends it: its title, description,
 * labels and all of its text, shown or folded away.
 */
test("no public page promises a feature that does not work yet", async ({ browser, baseURL }) => {
  test.setTimeout(180_000);
  const context = await browser.newContext({ baseURL, javaScriptEnabled: false });
  const page = await context.newPage();
  const queue: string[] = [...PUBLIC_PAGES, "/login", "/signup", "/forgot-password", "/registration-success"];
  const seen = new Set(queue);
  const promises: string[] = [];
  const signedInAreas =
    /^\/(admin|dashboard|settings|logout|demo|pending-approval|not-approved|change-password|reset-password|session)(\/|\.|$)/;
  while (queue.length > 0) {
    const path = queue.shift()!;
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(200);
    const { text, links } = await page.evaluate(() => {
      const parts = [document.title];
      for (const el of document.querySelectorAll("meta[name='description'], meta[property^='og:']"))
        parts.push(el.getAttribute("content") ?? "");
      for (const el of document.querySelectorAll("[aria-label], [title], img[alt]"))
        parts.push(el.getAttribute("aria-label") ?? el.getAttribute("title") ?? el.getAttribute("alt") ?? "");
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode())
        if (!node.parentElement?.closest("script, style, template")) parts.push(node.textContent ?? "");
      return {
        text: parts.join(" \n "),
        links: [...document.querySelectorAll("a[href]")].map((a) => (a as HTMLAnchorElement).href),
      };
    });
    for (const promise of promisesOfMissingFeatures(text))
      promises.push(`${path}: names ${promise.name} ("${promise.words}")`);
    for (const href of links) {
      const url = new URL(href);
      const target = url.pathname + url.search;
      if (
        url.origin !== new URL(baseURL!).origin ||
        signedInAreas.test(url.pathname) ||
        /\.[a-z]+$/.test(url.pathname) ||
        seen.has(target)
      )
        continue;
      seen.add(target);
      queue.push(target);
    }
  }
  await context.close();
  expect(seen.size).toBeGreaterThan(25);
  expect(promises).toEqual([]);
});

test("an unknown path gets a helpful 404 page with status 404", async ({ page }) => {
  const response = await page.goto("/no-such-page/at-all");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("We could not find that page");
  await page.getByRole("link", { name: /Home/ }).first().click();
  await expect(page).toHaveURL(/\/$/);
});

test("old product paths redirect to their product pages", async ({ request }) => {
  const cases: Record<string, string> = {
    "/accounts/checking": "/products/premier-checking",
    "/accounts/savings": "/products/high-yield-savings",
    "/credit-cards": "/products/rewards-credit-card",
    "/credit-card": "/products/rewards-credit-card",
    "/mortgages": "/products/home-mortgages",
    "/investments": "/products/investment-solutions",
    "/loans": "/products/personal-loans",
    "/services": "/products",
    "/schedule": "/contact?subject=general&meeting=1",
  };
  for (const [from, to] of Object.entries(cases)) {
    const res = await request.get(from, { maxRedirects: 0 });
    expect(res.status(), from).toBe(301);
    expect(res.headers()["location"], from).toBe(to);
  }
});

test("the footer shows the institution's statements, routing number and year", async ({ page }) => {
  await page.goto("/");
  const footer = page.getByRole("contentinfo");
  await expect(footer).toContainText("Federally insured by NCUA");
  await expect(footer).toContainText("Equal Housing Lender");
  await expect(footer).toContainText("Routing number 501234566");
  await expect(footer).toContainText(`© ${new Date().getFullYear()} Harborview Community Credit Union`);
  await expect(footer).toContainText("Serving our members since 1973");
});

test("keyboard alone opens the phone menu and follows a link", async ({ page }) => {
  await page.setViewportSize(PHONE);
  await page.goto("/");
  const menu = page.getByLabel("Menu");
  await menu.focus();
  await page.keyboard.press("Enter");
  const mobileNav = page.getByRole("navigation", { name: "Mobile" });
  await expect(mobileNav).toBeVisible();
  await mobileNav.getByRole("link", { name: "Contact" }).focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/contact$/);
});

test("security headers are on every response", async ({ request }) => {
  for (const path of ["/", "/about", "/no-such-page", "/healthz"]) {
    const res = await request.get(path);
    const h = res.headers();
    expect(h["content-security-policy"], path).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+'/);
    expect(h["content-security-policy"], path).not.toContain("unsafe-inline' 'nonce");
    expect(h["content-security-policy"], path).toContain("frame-ancestors 'none'");
    expect(h["x-content-type-options"], path).toBe("nosniff");
    expect(h["referrer-policy"], path).toBe("strict-origin-when-cross-origin");
    expect(h["x-request-id"], path).toMatch(/^[\w-]{8,64}$/);
  }
  expect((await request.get("/readyz")).status()).toBe(200);
});
