import { expect, test } from "./fixtures";
import { DESKTOP, PHONE, expectNoAxeViolations, watchConsole } from "./support";

test.describe("locations", () => {
  test("lists every branch and ATM with address, hours and phone, in lists under headings", async ({ page }) => {
    const errors = watchConsole(page);
    await page.goto("/locations");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Branches and ATMs");
    await expect(page).toHaveTitle("Branches and ATMs | Harborview Community Credit Union");
    await expect(page.locator('meta[name="description"]')).toHaveAttribute("content", /branches and ATMs/);

    const branches = page.getByRole("region", { name: /^Branches/ });
    const atms = page.getByRole("region", { name: /^ATMs/ });
    await expect(branches.getByRole("list").first().locator(":scope > li")).toHaveCount(3);
    await expect(atms.getByRole("list").first().locator(":scope > li")).toHaveCount(2);
    await expect(branches.getByRole("heading", { level: 3 })).toHaveText([
      "Harbor Street (main office)",
      "Mill Pond",
      "North Market",
    ]);

    const harbor = branches
      .getByRole("listitem")
      .filter({ has: page.getByRole("heading", { name: "Harbor Street (main office)" }) });
    await expect(harbor.locator("address")).toContainText("100 Harbor Street");
    await expect(harbor.locator("address")).toContainText("Portsmouth, NH 03801");
    await expect(harbor.getByRole("term").first()).toHaveText("Monday–Friday");
    await expect(harbor.getByRole("definition").first()).toHaveText("9:00 AM – 5:00 PM");
    await expect(harbor.getByText("Safe deposit boxes")).toBeVisible();
    const call = harbor.getByRole("link", { name: "Call Harbor Street (main office) at (555) 010-4400" });
    await expect(call).toHaveAttribute("href", "tel:+15550104400");
    // ATMs have no phone of their own.
    await expect(atms.getByRole("link", { name: /^Call/ })).toHaveCount(0);
    // No map from another host.
    await expect(page.locator("iframe")).toHaveCount(0);
    expect(errors).toEqual([]);
  });

  test("filters branches and ATMs, from the keyboard", async ({ page }) => {
    const errors = watchConsole(page);
    await page.goto("/locations");
    const filter = page.getByRole("navigation", { name: "Show locations" });
    await expect(filter.getByRole("link", { name: /^All/ })).toHaveAttribute("aria-current", "page");
    await filter.getByRole("link", { name: /^ATMs/ }).focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/locations\?kind=atm$/);
    await expect(filter.getByRole("link", { name: /^ATMs/ })).toHaveAttribute("aria-current", "page");
    await expect(page.getByRole("region", { name: /^Branches/ })).toHaveCount(0);
    await expect(page.getByRole("region", { name: /^ATMs/ }).getByRole("heading", { level: 3 })).toHaveText([
      "University Student Center ATM",
      "Ferry Landing ATM",
    ]);
    await expect(page.getByText("Showing 2 ATMs.")).toBeVisible();

    await filter.getByRole("link", { name: /^Branches/ }).click();
    await expect(page).toHaveURL(/\/locations\?kind=branch$/);
    await expect(page.getByRole("region", { name: /^ATMs/ })).toHaveCount(0);
    await expect(page.getByText("Showing 3 branches.")).toBeVisible();
    expect(errors).toEqual([]);
  });

  test("an unknown filter shows everything", async ({ page }) => {
    const response = await page.goto("/locations?kind=" + "z".repeat(500));
    expect(response?.status()).toBe(200);
    await expect(page.getByText("Showing 3 branches and 2 ATMs.")).toBeVisible();
  });

  for (const viewport of [DESKTOP, PHONE]) {
    test(`passes an accessibility scan at ${viewport.width} px`, async ({ page }) => {
      const errors = watchConsole(page);
      await page.setViewportSize(viewport);
      await page.goto("/locations");
      await expectNoAxeViolations(page);
      await page.goto("/locations?kind=atm");
      await expectNoAxeViolations(page);
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow, "the page does not scroll sideways").toBeLessThanOrEqual(0);
      expect(errors).toEqual([]);
    });
  }
});

test.describe("locations without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the filter works as plain links", async ({ page }) => {
    await page.goto("/locations");
    await page
      .getByRole("navigation", { name: "Show locations" })
      .getByRole("link", { name: /^Branches/ })
      .click();
    await expect(page).toHaveURL(/\/locations\?kind=branch$/);
    await expect(page.getByRole("region", { name: /^Branches/ }).getByRole("heading", { level: 3 })).toHaveCount(3);
    await expect(page.getByRole("region", { name: /^ATMs/ })).toHaveCount(0);
  });
});
