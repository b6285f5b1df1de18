import { expect as baseExpect, test } from "./fixtures";
import { DESKTOP, PHONE, PRIYA, STAFF, expectNoAxeViolations, hydrated, watchConsole } from "./support";
import type { Page } from "@playwright/test";

/**
 * A member's loans on their page in the back office (docs/product.md#member-details): staff look
 * up the demo's Priya Shah, see her line of credit under Loans with its state, and follow it to
 * the line's page. At 1440 and 375 px, axe clean.
 */
const expect = baseExpect.configure({ timeout: 15_000 });
const SHOTS = process.env.SHOTS_DIR ?? "test-results/member-loans-staff";

async function shots(page: Page, name: string) {
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SHOTS}/${name}-${viewport.width}.png`, fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}

test("staff see a member's line of credit on the member's page and open it", async ({ pageAs }) => {
  const page = await pageAs(STAFF);
  const errors = watchConsole(page);
  await page.goto("/admin?q=priya");
  await hydrated(page);
  await page
    .getByRole("list", { name: "Members" })
    .getByRole("link", { name: new RegExp(PRIYA.name) })
    .first()
    .click();
  await expect(page.getByRole("heading", { name: `User Details: ${PRIYA.email}` })).toBeVisible();
  const loans = page.getByRole("heading", { name: "Loans", exact: true }).locator("..");
  const line = loans.getByRole("link", { name: /^Personal Line of Credit LC-\d{6}$/ });
  await expect(line).toBeVisible();
  await expect(loans.getByRole("listitem").filter({ hasText: /Personal Line of Credit LC-\d{6}/ })).toContainText(
    "Open",
  );
  await shots(page, "member-loans");

  await line.click();
  await expect(page).toHaveURL(/\/admin\/loans\/lines\/\d+$/);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Personal Line of Credit");
  expect(errors).toEqual([]);
});
