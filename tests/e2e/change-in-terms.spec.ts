import { expect, test } from "./fixtures";
import { DESKTOP, PHONE, STAFF, expectNoAxeViolations, hydrated, watchConsole } from "./support";

/**
 * Change-in-terms notices (docs/product.md#disclosures) in the browser: staff find the job among the
 * scheduled jobs, and the Disclosures page, which lists each new version of a disclosure with the
 * date it takes effect and how many members were told. The demo runs with its first versions (the
 * baseline), so no change is listed: the page says so. The notices themselves are read back in
 * tests/integration/electronic-delivery/change-in-terms.test.ts. Pages at 1440 and 375 px, axe clean.
 */
const SHOTS = process.env.SHOTS_DIR ?? "test-results/change-in-terms";

test.use({ signedInAs: STAFF });

test("staff find the change-in-terms job and the Disclosures page", async ({ page }) => {
  const errors = watchConsole(page);
  await page.goto("/admin/jobs");
  await hydrated(page);
  await expect(page.getByText("Change-in-terms notices").first()).toBeVisible();
  await page.getByRole("link", { name: "Disclosures", exact: true }).first().click();
  await expect(page.getByRole("heading", { level: 1, name: "Disclosure changes" })).toBeVisible();
  await expect(
    page.getByText(/takes effect on the profile's date, or later when that is sooner than its rule allows/),
  ).toBeVisible();
  await expect(page.getByText("No disclosure has changed since this installation began.")).toBeVisible();
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SHOTS}/disclosures-${viewport.width}.png`, fullPage: true });
  }
  expect(errors).toEqual([]);
});
