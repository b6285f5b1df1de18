import fs from "node:fs";
import { expect as baseExpect, test, type Locator } from "./fixtures";
import { DESKTOP, PHONE, expectNoAxeViolations, fundedMember, hydrated, watchConsole } from "./support";

/**
 * An alert for all my accounts as a member sets it (docs/product.md#alerts): "Transaction above
 * $5.00" on "All my accounts, and any I open later", listed once; a transfer from checking to
 * savings is told for both accounts; the same kind on one account is then refused with its reason.
 * Axe-clean at 1440 and 375 px, with screenshots.
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

test("a member sets an alert for all their accounts and is told for each account a transfer touches; axe-clean at 1440 and 375 px", async ({
  page,
  newMember,
  pageAs,
  signInAs,
}) => {
  const errors = watchConsole(page);
  const member = await fundedMember({ newMember, pageAs }, "alerts-all", "200.00");
  await signInAs(member);
  await page.goto("/settings/alerts", { timeout: 120_000 });
  await hydrated(page);
  const add = page.getByRole("region", { name: "Add an alert" });
  await choose(add.getByLabel("Account"), "All my accounts");
  await add.getByLabel("Tell me about").selectOption("transaction_above");
  await add.getByLabel(/^Amount/).fill("5");
  await add.getByRole("button", { name: "Add alert" }).click();
  await expect(page.getByText("Alert added: Transaction above $5.00.")).toBeVisible();
  const alerts = page.getByTestId("alert");
  await expect(alerts).toHaveCount(1);
  await expect(alerts.first()).toContainText("All my accounts, and any I open later");
  fs.mkdirSync(SCREENS, { recursive: true });
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SCREENS}/alerts-all-accounts-${viewport.width}.png`, fullPage: true });
  }
  await page.setViewportSize(DESKTOP);

  // The same kind on one account is refused, with its reason next to the choice.
  await choose(add.getByLabel("Account"), "Checking");
  await add.getByLabel("Tell me about").selectOption("transaction_above");
  await add.getByLabel(/^Amount/).fill("9");
  await add.getByRole("button", { name: "Add alert" }).click();
  await expect(
    add.getByText("You already have this alert for all your accounts. Change its amount below instead.").first(),
  ).toBeVisible();
  await expect(alerts).toHaveCount(1);

  // A transfer between the member's own accounts: told for checking and for savings.
  await page.goto("/dashboard?transfer=internal#transfer");
  await hydrated(page);
  const panel = page.getByRole("tabpanel");
  await choose(panel.getByLabel("From"), "Checking");
  await choose(panel.getByLabel("To"), "Savings");
  await panel.getByLabel("Amount").fill("12.00");
  await panel.getByLabel("Reference").fill("Both told");
  await panel.getByRole("button", { name: "Transfer now" }).click();
  await expect(panel.getByRole("status").filter({ hasText: "Transfer complete: $12.00" })).toBeVisible();
  await page.getByRole("button", { name: /^Notifications, \d+ unread$/ }).click();
  const bell = page.getByRole("dialog", { name: "Notifications" });
  await expect(bell.getByText(/Withdrawal of \$12\.00 on Checking/).first()).toBeVisible();
  await expect(bell.getByText(/Deposit of \$12\.00 on Savings/).first()).toBeVisible();
  await expectNoAxeViolations(page);
  await page.screenshot({ path: `${SCREENS}/alerts-all-accounts-bell-1440.png` });
  expect(errors.filter((e) => !/status of 409 \(Conflict\)$/.test(e))).toEqual([]);
});
