import { expect, test, type Page } from "./fixtures";
import { DESKTOP, PHONE, expectNoAxeViolations, watchConsole } from "./support";

/** The demo profile's figures (app/config/demo-institution.ts), as the About page shows them. */
const FINAL_STATS = ["100,000+", "$2,500M", "98%", "$5M"];

/** Waits until React has hydrated the page (it tags hydrated DOM nodes with its fiber). */
async function hydrated(page: Page) {
  await page.waitForFunction(() => {
    const main = document.getElementById("main");
    return main !== null && Object.keys(main).some((key) => key.startsWith("__reactFiber"));
  });
}

test.describe("home", () => {
  test("the hero says who we are and leads to sign-up and to About", async ({ page }) => {
    const errors = watchConsole(page);
    await page.goto("/");
    const hero = page.getByRole("region", { name: "Community Banking that Empowers You" });
    await expect(hero.getByRole("heading", { level: 1 })).toHaveText("Community Banking that Empowers You");
    await expect(hero.getByRole("link", { name: "Get Started" })).toHaveAttribute("href", "/signup");
    await hydrated(page);
    await hero.getByRole("link", { name: "Learn More" }).click();
    await expect(page).toHaveURL(/\/about$/);
    await expect(page.getByRole("heading", { level: 1 })).toContainText("Owned by our members");
    expect(errors).toEqual([]);
  });

  test("with the market overview off, the hero shows the profile's rates and the way to apply", async ({ page }) => {
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      await page.goto("/");
      await expect(page.getByRole("region", { name: "Market overview" })).toHaveCount(0);
      await expect(page.getByText("not enabled")).toHaveCount(0);
      const rates = page.getByRole("region", { name: "Rates for members" });
      await expect(rates).toBeVisible();
      // The demo profile's personal products with a figure for a rate, each leading to its page.
      const lines = rates.getByRole("listitem");
      await expect(lines).toHaveCount(4);
      await expect(lines).toContainText([
        "High-Yield Savings",
        "Rewards Credit Card",
        "Home Mortgages",
        "Personal Loans",
      ]);
      await expect(lines).toContainText(["3.50% APY", "2% cash back", "From 3.99% APR", "From 5.99% APR"]);
      await expect(rates.getByRole("link", { name: /High-Yield Savings/ })).toHaveAttribute(
        "href",
        "/products/high-yield-savings",
      );
      await expect(rates.getByRole("link", { name: "Open an Account" })).toHaveAttribute("href", "/signup");
      await expect(rates.getByRole("link", { name: "Compare all products" })).toHaveAttribute("href", "/products");
      await expectNoAxeViolations(page);
      await page
        .getByRole("region", { name: "Community Banking that Empowers You" })
        .screenshot({ path: `test-results/marketing/home-hero-${viewport.width}.png` });
    }
  });

  test("quick cards, services, testimonials and calls to action lead where they say", async ({ page }) => {
    await page.goto("/");
    const quick = page.getByRole("region", { name: "Quick links" });
    await expect(quick.getByRole("link", { name: /Online Banking/ })).toHaveAttribute("href", "/login");
    await expect(quick.getByRole("link", { name: /Loan Calculator/ })).toHaveAttribute("href", "/calculators");
    await expect(quick.getByRole("link", { name: /Schedule Meeting/ })).toHaveAttribute("href", "/contact");
    await expect(page.getByRole("link", { name: "Explore Personal Banking" })).toHaveAttribute("href", "/products");
    await expect(page.getByRole("link", { name: "Explore Business Solutions" })).toHaveAttribute(
      "href",
      "/products?segment=business",
    );
    await expect(page.getByRole("link", { name: "Explore Wealth Management" })).toHaveAttribute(
      "href",
      "/products/investment-solutions",
    );
    await expect(page.getByRole("region", { name: "Members say it best" }).getByRole("figure")).toHaveCount(3);
    await expect(page.getByRole("link", { name: "See our community work" })).toHaveAttribute("href", "/community");
    const cta = page.getByRole("region", { name: "Ready to bank with people who know you?" });
    await expect(cta.getByRole("link", { name: "Open an Account" })).toHaveAttribute("href", "/signup");
    await expect(cta.getByRole("link", { name: "Talk to an Advisor" })).toHaveAttribute("href", "/contact");
  });

  test("a back-to-top button appears after 300 px of scrolling and returns to the top", async ({ page }) => {
    const errors = watchConsole(page);
    await page.goto("/");
    await hydrated(page);
    const toTop = page.getByRole("button", { name: "Back to top" });
    await page.evaluate(() => window.scrollTo(0, 200));
    await page.waitForTimeout(100);
    await expect(toTop).toHaveCount(0);
    await page.mouse.wheel(0, 600);
    await expect(toTop).toBeVisible();
    await expectNoAxeViolations(page);
    await toTop.click();
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);
    await expect(toTop).toHaveCount(0);
    expect(errors).toEqual([]);
  });
});

test.describe("about", () => {
  test("with reduced motion the stats show their configured values at once", async ({ page }) => {
    await page.emulateMedia({ reducedMotion: "reduce" });
    await page.goto("/about");
    await hydrated(page);
    const stats = page.getByRole("region", { name: "Harborview CU in numbers" }).getByRole("definition");
    await expect(stats).toHaveText(FINAL_STATS);
    await page.waitForTimeout(300); // long enough for 15 ticks: nothing may have started counting
    await expect(stats).toHaveText(FINAL_STATS, { timeout: 0 });
  });

  test("without reduced motion the stats count up and end on the configured values", async ({ page }) => {
    await page.emulateMedia({ reducedMotion: "no-preference" });
    await page.goto("/about");
    const members = page.getByRole("region", { name: "Harborview CU in numbers" }).getByRole("definition").first();
    // While counting, the visible number is below the final one.
    await expect
      .poll(async () => members.locator("span[aria-hidden=true]").count(), { intervals: [20], timeout: 5_000 })
      .toBe(1);
    await expect(page.getByRole("region", { name: "Harborview CU in numbers" }).getByRole("definition")).toHaveText(
      FINAL_STATS,
      { timeout: 5_000 },
    );
  });

  test("the server's HTML already has the final figures, mission, values, timeline and calls to action", async ({
    browser,
  }) => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto("/about");
    await expect(page.getByRole("region", { name: "Harborview CU in numbers" }).getByRole("definition")).toHaveText(
      FINAL_STATS,
    );
    await expect(page.getByRole("heading", { name: "Why we are here" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "What we stand for" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "1973–2023" })).toBeVisible();
    await expect(page.getByRole("region", { name: "1973–2023" }).getByRole("listitem")).toHaveCount(5);
    const cta = page.getByRole("region", { name: "Become part of something better" });
    await expect(cta.getByRole("link", { name: "Become a Member" })).toHaveAttribute("href", "/signup");
    await expect(cta.getByRole("link", { name: "Contact Us" })).toHaveAttribute("href", "/contact");
    await context.close();
  });
});

test.describe("products", () => {
  test("personal is the default; Business Banking shows business products with segment=business in the URL", async ({
    page,
  }) => {
    const errors = watchConsole(page);
    await page.goto("/products");
    const toggle = page.getByRole("navigation", { name: "Banking type" });
    await expect(toggle.getByRole("link", { name: "Personal Banking" })).toHaveAttribute("aria-current", "page");
    await expect(page.getByRole("heading", { name: "Premier Checking", exact: true })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Business Checking", exact: true })).toHaveCount(0);
    await expect(page.getByRole("article").filter({ hasText: "Premier Checking" })).toContainText("Most Popular");
    await hydrated(page);
    await toggle.getByRole("link", { name: "Business Banking" }).click();
    await expect(page).toHaveURL(/\/products\?segment=business$/);
    await expect(page.getByRole("heading", { name: "Business Checking", exact: true })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Premier Checking", exact: true })).toHaveCount(0);
    await expect(toggle.getByRole("link", { name: "Business Banking" })).toHaveAttribute("aria-current", "page");
    await expect(page.getByRole("article")).toHaveCount(6);
    expect(errors).toEqual([]);
  });

  test("keyboard alone reaches and operates the toggle", async ({ page }) => {
    await page.goto("/products");
    await hydrated(page);
    const business = page
      .getByRole("navigation", { name: "Banking type" })
      .getByRole("link", { name: "Business Banking" });
    for (let i = 0; i < 60; i++) {
      if (await business.evaluate((el) => el === document.activeElement)) break;
      await page.keyboard.press("Tab");
    }
    await expect(business).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/segment=business/);
    await expect(page.getByRole("heading", { name: "Business Checking", exact: true })).toBeVisible();
  });

  test("the toggle works without JavaScript, and an unknown segment falls back to personal", async ({ browser }) => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto("/products");
    await page.getByRole("link", { name: "Business Banking" }).click();
    await expect(page).toHaveURL(/segment=business/);
    await expect(page.getByRole("heading", { name: "Merchant Services", exact: true })).toBeVisible();
    const response = await page.goto("/products?segment=<script>");
    expect(response?.status()).toBe(200);
    await expect(page.getByRole("heading", { name: "Premier Checking", exact: true })).toBeVisible();
    await expect(page.getByRole("link", { name: "Personal Banking" })).toHaveAttribute("aria-current", "page");
    await context.close();
  });

  test("Learn More opens the product's own page", async ({ page }) => {
    const errors = watchConsole(page);
    await page.goto("/products");
    await hydrated(page);
    await page.getByRole("link", { name: "Learn More about High-Yield Savings" }).click();
    await expect(page).toHaveURL(/\/products\/high-yield-savings$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("High-Yield Savings");
    await expect(page).toHaveTitle("High-Yield Savings | Harborview Community Credit Union");
    await expect(page.getByRole("main")).toContainText("3.50% APY");
    await expect(page.getByRole("link", { name: /Open an Account/ }).first()).toHaveAttribute("href", "/signup");
    // Other products of the same segment, and none of the other segment.
    const more = page.getByRole("region", { name: "You might also like" });
    await expect(more.getByRole("heading", { name: "Premier Checking", exact: true })).toBeVisible();
    await expect(more.getByRole("heading", { name: "Business Savings", exact: true })).toHaveCount(0);
    expect(errors).toEqual([]);
  });

  test("an unknown product gets the helpful 404 page with status 404", async ({ page }) => {
    const response = await page.goto("/products/no-such-product");
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("We could not find that page");
    await expect(page.getByRole("link", { name: /Products and services/ })).toHaveAttribute("href", "/products");
    await expectNoAxeViolations(page);
  });
});

test.describe("marketing pages are accessible and clean at 1440 and 375 px", () => {
  for (const path of [
    "/",
    "/about",
    "/products",
    "/products?segment=business",
    "/products/premier-checking",
    "/products/business-checking",
  ]) {
    test(path, async ({ page }) => {
      const errors = watchConsole(page);
      for (const viewport of [DESKTOP, PHONE]) {
        await page.setViewportSize(viewport);
        await page.goto(path);
        await hydrated(page);
        await expect(page.locator("h1")).toHaveCount(1);
        await expectNoAxeViolations(page);
        // Nothing sticks out sideways on a phone.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      }
      expect(errors).toEqual([]);
    });
  }
});
