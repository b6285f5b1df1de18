import { expect, test } from "./fixtures";
import { hydrated } from "./support";

/**
 * A form's fields are drawn again only when something of theirs changes (their props, their
 * message, the value an answer sends back), not each time the page around them re-renders. The
 * membership application has about 25 fields: the page re-renders when React Router's state
 * changes (right after hydration, as it learns the routes of the links shown, and while the
 * form is sent) and when the joint-owner box is ticked, and each time every field was drawn
 * again, work a phone pays for as the page becomes usable (bench/LOG.md, "Lighthouse").
 *
 * React writes an input's `name` again (to '' and back) whenever it draws the input again with
 * new props, so the fields' `name` attributes show which were drawn again.
 */
test("ticking the joint-owner box draws the joint fields and no field again", async ({ page }) => {
  await page.goto("/signup");
  await hydrated(page);
  // Everything the page does once it is up (the route manifest, the checks) is done.
  await page.waitForLoadState("networkidle");
  await page.evaluate(() => {
    const form = document.querySelector('form[aria-label="Create your account"]')!;
    const redrawn = new Set<string>();
    (window as unknown as { redrawn: Set<string> }).redrawn = redrawn;
    new MutationObserver((records) => {
      for (const record of records) redrawn.add((record.target as HTMLInputElement).id);
    }).observe(form, { subtree: true, attributes: true, attributeFilter: ["name"] });
  });

  await page.getByText("Joint account", { exact: true }).click();
  await expect(page.getByRole("textbox", { name: "Joint owner's full name" })).toBeVisible();

  // The box itself is written again by React after its own change event, whatever else happens.
  const redrawn = await page.evaluate(() => [...(window as unknown as { redrawn: Set<string> }).redrawn]);
  expect(redrawn.filter((id) => id !== "field-joint-account")).toEqual([]);
  // The fields still work as before: a name typed stays, the form still holds every field.
  await page.getByRole("textbox", { name: "First name" }).fill("Ada");
  await expect(page.getByRole("textbox", { name: "First name" })).toHaveValue("Ada");
});
