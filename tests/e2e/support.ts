import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/** Every public page (SPEC 2), for crawling, scanning and screenshots. */
export const PUBLIC_PAGES = [
  "/",
  "/about",
  "/products",
  "/products?segment=business",
  "/products/premier-checking",
  "/contact",
  "/calculators",
  "/locations",
  "/security",
  "/privacy",
  "/terms",
  "/accessibility",
  "/careers",
  "/community",
] as const;

export const PHONE = { width: 375, height: 812 };
export const DESKTOP = { width: 1440, height: 900 };

/** An axe scan against WCAG 2.1 A and AA; fails listing each violation and where it is. */
export async function expectNoAxeViolations(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const summary = results.violations.map((v) => `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.map((n) => n.target.join(" ")).slice(0, 5).join("\n    ")}`);
  expect(summary, `axe violations on ${page.url()}`).toEqual([]);
}

/** Collects console errors and CSP violations so a test can assert a page ran cleanly. */
export function watchConsole(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(msg.text());
  });
  page.on("pageerror", (err) => errors.push(err.message));
  return errors;
}
