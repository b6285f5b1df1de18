import { expect, test } from "./fixtures";
import { DESKTOP, PHONE, STAFF, expectNoAxeViolations, hydrated } from "./support";

/**
 * Pause outgoing payments as staff (docs/product.md#payment-controls): refused without a reason,
 * paused with one, a member's To US Bank and International refused for real, resumed. The pause
 * holds every member's outgoing payments, so this spec runs alone after all the others (the
 * "pause" project in playwright.config.ts): run beside them it disabled other tests' Continue.
 */
const SCREENS = "test-results/staff-postings";

test("Pause outgoing payments: the member's To US Bank and International say Transaction Denied, until resumed", async ({
  pageAs,
  newMember,
}) => {
  test.setTimeout(180_000);
  const member = await newMember("pause");
  const page = await pageAs(STAFF);
  const memberPage = await pageAs(member);
  // Each visit has its own address: a second goto to the same one would only move to the anchor.
  await memberPage.goto("/dashboard?transfer=ach&visit=before#transfer");
  await expect(memberPage.getByRole("button", { name: "Continue" })).toBeEnabled();
  await expect(memberPage.getByText("Transaction Denied")).toHaveCount(0);

  await page.goto("/admin/payments");
  await expect(page.getByRole("heading", { level: 1, name: "Payments" })).toBeVisible();
  await hydrated(page);
  // No reason: refused next to the field, in the browser (the same schema as the server's).
  await page.getByRole("button", { name: "Pause outgoing payments" }).click();
  const reason = page.getByRole("textbox", { name: "Reason" });
  await expect(reason).toHaveAttribute("aria-invalid", "true");
  await expect(reason).toHaveAccessibleDescription(/Please give the reason for pausing payments/);
  await expect(reason).toBeFocused();
  await reason.fill("Fraud alert from our ACH processor");
  await page.getByRole("button", { name: "Pause outgoing payments" }).click();
  await expect(page.getByRole("status").filter({ hasText: /^Outgoing payments paused/ })).toBeVisible();
  await expect(page.getByTestId("pause-state")).toContainText("Paused");
  await expect(page.getByTestId("pause-state")).toContainText("Fraud alert from our ACH processor");
  try {
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      await expectNoAxeViolations(page);
      await page.screenshot({ path: `${SCREENS}/payments-paused-${viewport.width}.png`, fullPage: true });
    }
    for (const tab of ["ach", "wire"]) {
      await memberPage.goto(`/dashboard?transfer=${tab}&visit=paused#transfer`);
      await expect(memberPage.getByText("Transaction Denied").first()).toBeVisible();
      await expect(memberPage.getByText("All transactions temporarily suspended").first()).toBeVisible();
    }
  } finally {
    await page.setViewportSize(DESKTOP);
    await page.getByRole("textbox", { name: "Reason" }).fill("Processor cleared the alert");
    await page.getByRole("button", { name: "Resume outgoing payments" }).click();
    await expect(page.getByTestId("pause-state")).toContainText("Running");
  }
  await memberPage.goto("/dashboard?transfer=ach&visit=after#transfer");
  await expect(memberPage.getByRole("button", { name: "Continue" })).toBeEnabled();
  await expect(memberPage.getByText("Transaction Denied")).toHaveCount(0);
});
