import fs from "node:fs";
import { expect as baseExpect, test } from "./fixtures";
import { ALEX, DESKTOP, PHONE, expectNoAxeViolations, watchConsole } from "./support";

/**
 * Dividends (docs/product.md#dividends) as a member sees them: the savings account on the
 * dashboard says the APY it is paid, the same figure the public savings page quotes; checking,
 * which the demo pays nothing, says nothing; the history lists the monthly dividends the demo's
 * savings earned. Axe-clean at 1440 and 375 px, with screenshots.
 */
const SCREENS = "test-results/screens";
const expect = baseExpect.configure({ timeout: 15_000 });
test.setTimeout(180_000);

test("the savings account shows the APY the public page quotes, and its monthly dividends in the history", async ({
  page,
  signInAs,
}) => {
  const errors = watchConsole(page);
  await page.goto("/products/high-yield-savings");
  await expect(page.getByText("3.50% APY").first()).toBeVisible();

  await signInAs(ALEX);
  await page.goto("/dashboard", { timeout: 120_000 });
  const accounts = page.getByRole("region", { name: "Your accounts" });
  const savings = accounts.getByRole("listitem").filter({ has: page.getByRole("heading", { name: /Savings/ }) });
  const checking = accounts.getByRole("listitem").filter({ has: page.getByRole("heading", { name: /Checking/ }) });
  await expect(savings.getByText("3.50% APY, paid monthly")).toBeVisible();
  await expect(checking.getByText(/APY/)).toHaveCount(0);
  fs.mkdirSync(SCREENS, { recursive: true });
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await accounts.screenshot({ path: `${SCREENS}/dividends-accounts-${viewport.width}.png` });
  }

  await page.setViewportSize(DESKTOP);
  await page.goto("/dashboard/transactions?q=Dividend");
  // One credit a month, category Interest, e.g. "Dividend for October 2026 ... Money in: +$63.66".
  await expect(
    page
      .getByRole("row", { name: /Dividend for [A-Z][a-z]+ \d{4} .* Interest Completed .* Money in: \+\$\d+\.\d\d/ })
      .first(),
  ).toBeVisible();
  await page.screenshot({ path: `${SCREENS}/dividends-history-1440.png` });
  expect(errors).toEqual([]);
});
