import { expect, test } from "./fixtures";
import { watchConsole } from "./support";

test("the home page renders with the demo banner and hydrates without CSP errors", async ({ page }) => {
  const errors = watchConsole(page);
  await page.goto("/");
  await expect(page.getByRole("note")).toContainText("Demo — not a real bank");
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "About" })).toBeVisible();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "About" }).click();
  await expect(page).toHaveURL(/\/about$/);
  expect(errors).toEqual([]);
});
