import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { hydrated } from "./support";

/**
 * What a visitor's phone downloads before a public form page can paint (bench/README.md,
 * "Lighthouse"): the scripts the page's HTML asks for up front (its module scripts and their
 * modulepreload links). The forms draw and work without Zod and without React Aria: their fields
 * and buttons are native elements, and Zod with the form's schema arrives once the page is up
 * (docs/decisions/0012-form-checks-after-first-paint.md). Zod's error class and React Aria's
 * default class names are how each library shows in a built file.
 */
const FORM_PAGES = ["/login", "/signup", "/forgot-password", "/calculators"];

async function scriptsBeforeFirstPaint(request: APIRequestContext, path: string): Promise<Map<string, string>> {
  const html = await (await request.get(path)).text();
  const urls = new Set(
    [...html.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((match) => match[1]!),
  );
  const scripts = new Map<string, string>();
  for (const url of urls) scripts.set(url, await (await request.get(url)).text());
  return scripts;
}

for (const path of FORM_PAGES) {
  test(`${path} asks for neither Zod nor React Aria before it paints`, async ({ request }) => {
    const scripts = await scriptsBeforeFirstPaint(request, path);
    expect(scripts.size).toBeGreaterThan(0);
    const withZod = [...scripts].filter(([, code]) => code.includes("$ZodError")).map(([url]) => url);
    const withReactAria = [...scripts].filter(([, code]) => code.includes("react-aria-")).map(([url]) => url);
    expect(withZod).toEqual([]);
    expect(withReactAria).toEqual([]);
  });
}

/** Opens /login with every script it does not ask for up front (the checks, Zod, the schema) held back until `release`. */
async function loginWithChecksHeld(page: Page) {
  const upFront = new Set<string>();
  const held: (() => Promise<void>)[] = [];
  let holding = true;
  await page.route(/\/assets\/.+\.js$/, async (route) => {
    const path = new URL(route.request().url()).pathname;
    if (!holding || upFront.has(path)) return route.continue();
    held.push(() => route.continue());
  });
  const response = await page.request.get("/login");
  for (const match of (await response.text()).matchAll(/\b(?:src|href)="(\/assets\/[^"]+\.js)"/g))
    upFront.add(match[1]!);
  await page.goto("/login");
  await hydrated(page);
  const posts: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST") posts.push(request.url());
  });
  const release = async () => {
    holding = false;
    for (const next of held.splice(0)) await next();
  };
  return { held, posts, release };
}

test("a form sent before its checks arrive waits for them, and is checked in the browser", async ({ page }) => {
  const { held, posts, release } = await loginWithChecksHeld(page);
  const email = page.getByLabel("Email address");
  await email.fill("not-an-email");
  await page.getByLabel("Password").fill("a password");
  await page.getByRole("button", { name: "Continue" }).click();
  await expect.poll(() => held.length).toBeGreaterThan(0);
  // Not checked yet, and not posted: the submit waits.
  await expect(email).not.toHaveAttribute("aria-invalid", "true");
  expect(posts).toEqual([]);
  await release();
  await expect(email).toHaveAttribute("aria-invalid", "true");
  await expect(email).toHaveAccessibleDescription("Please enter a valid email address");
  expect(posts).toEqual([]);
});
