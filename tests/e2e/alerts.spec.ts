import fs from "node:fs";
import { expect as baseExpect, test, type Locator, type Page } from "./fixtures";
import { DESKTOP, PHONE, expectNoAxeViolations, fundedMember, hydrated, watchConsole } from "./support";

/**
 * Alerts as a member uses them (docs/product.md#alerts): the Alerts page from the account menu, a
 * balance-below alert refused without its amount (the message next to the field), then set in
 * dollars; a transfer that takes the checking balance below it; the bell tells of it. Changing
 * the amount and removing the alert. Axe-clean at 1440 and 375 px, with screenshots.
 */
const expect = baseExpect.configure({ timeout: 15_000 });
const SCREENS = "test-results/screens";
test.setTimeout(300_000);

/** Chooses the option whose label contains `text`. */
async function choose(select: Locator, text: string) {
  const value = await select
    .locator("option")
    .evaluateAll(
      (options, t) => (options as HTMLOptionElement[]).find((o) => o.textContent?.includes(t))?.value ?? "",
      text,
    );
  expect(value, `an option "${text}"`).not.toBe("");
  await select.selectOption(value);
}

async function moveToSavings(page: Page, dollars: string) {
  await page.goto("/dashboard?transfer=internal#transfer");
  await hydrated(page);
  const panel = page.getByRole("tabpanel");
  await choose(panel.getByLabel("From"), "Checking");
  await choose(panel.getByLabel("To"), "Savings");
  await panel.getByLabel("Amount").fill(dollars);
  await panel.getByLabel("Reference").fill("Rainy day");
  await panel.getByRole("button", { name: "Transfer now" }).click();
  await expect(panel.getByRole("status").filter({ hasText: `Transfer complete: $${dollars}` })).toBeVisible();
}

for (const [size, viewport] of [
  ["1440", DESKTOP],
  ["375", PHONE],
] as const) {
  test(`a member sets a balance-below alert, a transfer crosses it, the bell tells them; at ${size} px`, async ({
    page,
    newMember,
    pageAs,
    signInAs,
  }) => {
    await page.setViewportSize(viewport);
    const errors = watchConsole(page);
    const member = await fundedMember({ newMember, pageAs }, `alerts-${size}`, "200.00");
    await signInAs(member);

    // The Alerts page, from the account menu (on a phone, the menu's list).
    await page.goto("/dashboard");
    await hydrated(page);
    if (size === "1440") {
      await page.getByRole("button", { name: /, account menu$/ }).click();
      await page.getByRole("menuitem", { name: "Alerts" }).click();
    } else {
      await page.getByRole("button", { name: "Open menu" }).click();
      await page.getByRole("link", { name: "Alerts" }).click();
    }
    await expect(page.getByRole("heading", { level: 1, name: "Alerts" })).toBeVisible();
    await hydrated(page);
    await expect(page.getByText("You have no account alerts yet.")).toBeVisible();
    await expectNoAxeViolations(page);

    // The amount is asked for, next to its field.
    const add = page.getByRole("region", { name: "Add an alert" });
    await choose(add.getByLabel("Account"), "Checking");
    await add.getByLabel("Tell me about").selectOption("balance_below");
    await add.getByRole("button", { name: "Add alert" }).click();
    await expect(add.getByText("Please enter an amount", { exact: true })).toBeVisible();
    await expect(add.getByLabel(/^Amount/)).toHaveAttribute("aria-invalid", "true");
    await add.getByLabel(/^Amount/).fill("150");
    await add.getByRole("button", { name: "Add alert" }).click();
    await expect(page.getByText("Alert added: Balance below $150.00.")).toBeVisible();
    const alerts = page.getByTestId("alert");
    await expect(alerts).toHaveCount(1);
    await expect(alerts.first()).toContainText("Balance below $150.00");
    await expect(alerts.first()).toContainText("Checking");
    await expectNoAxeViolations(page);
    fs.mkdirSync(SCREENS, { recursive: true });
    await page.screenshot({ path: `${SCREENS}/alerts-${size}.png`, fullPage: true });

    // A transfer that takes checking from $200.00 to $120.00 crosses the alert.
    await moveToSavings(page, "80.00");
    await page.getByRole("button", { name: /^Notifications, \d+ unread$/ }).click();
    const bell = page.getByRole("dialog", { name: "Notifications" });
    await expect(bell.getByText(/Checking •••• \d{4} is below \$150\.00/).first()).toBeVisible();
    await expect(bell.getByText("Your available balance is now $120.00").first()).toBeVisible();
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SCREENS}/alerts-bell-${size}.png`, fullPage: false });
    await page.keyboard.press("Escape");

    // Change the amount, then remove the alert.
    await page.goto("/settings/alerts");
    await hydrated(page);
    const alert = page.getByTestId("alert").first();
    await alert.getByText("Change the amount").click();
    await alert.getByLabel(/^New amount/).fill("50.5");
    await alert.getByRole("button", { name: "Save amount" }).click();
    await expect(page.getByText("Alert changed: Balance below $50.50.")).toBeVisible();
    await page.getByRole("button", { name: /^Remove: Balance below \$50\.50 on Checking/ }).click();
    await expect(page.getByText("Alert removed: Balance below $50.50.")).toBeVisible();
    await expect(page.getByTestId("alert")).toHaveCount(0);
    await expectNoAxeViolations(page);
    expect(errors).toEqual([]);
  });
}
