import { expect, test } from "./fixtures";
import { unstickHeader, virtualAuthenticator } from "./passkey-support";
import {
  DESKTOP,
  NO_SESSION,
  PHONE,
  expectNoAxeViolations,
  fundedMember,
  hydrated,
  signIn,
  watchConsole,
} from "./support";

/**
 * Passkeys as a member uses them (docs/product.md#passkeys), with Chromium's virtual authenticator
 * (CDP WebAuthn domain: a platform authenticator with user verification, as a phone's fingerprint
 * or a laptop's Touch ID is): add one in Account Settings, sign out, sign in with it in one step,
 * confirm a To US Bank transfer with it instead of the emailed code, and remove it.
 */
const SCREENS = "test-results/screens";
const posted = { timeout: 20_000 };
test("a member adds a passkey, signs in with it, confirms a transfer with it and removes it", async ({
  browser,
  baseURL,
  newMember,
  pageAs,
}) => {
  test.setTimeout(240_000);
  const member = await fundedMember({ newMember, pageAs }, "passkey", "40.00");
  const context = await browser.newContext({ baseURL, storageState: NO_SESSION });
  const page = await context.newPage();
  const errors = watchConsole(page);
  const { cdp, authenticatorId } = await virtualAuthenticator(page);
  await signIn(page, member.email, member.password);

  // Add a passkey: a name and the current password, then the device's prompt (answered by the virtual authenticator).
  await page.goto("/settings/account#passkeys");
  await hydrated(page);
  const passkeys = page.getByRole("region", { name: "Passkeys" });
  await expect(passkeys.getByText("You have no passkeys yet.")).toBeVisible();
  const add = passkeys.getByRole("form", { name: "Add a passkey" });
  await add.getByLabel("Name").fill("Work laptop");
  await add.getByLabel("Current password").fill(member.password);
  await add.getByRole("button", { name: "Add passkey" }).click();
  await expect(passkeys.getByText('Passkey "Work laptop" added.')).toBeVisible(posted);
  const list = passkeys.getByRole("list", { name: "Your passkeys" });
  await expect(list.getByText("Work laptop")).toBeVisible(posted);
  await expect(list.getByText("Not used yet")).toBeVisible();
  const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
  expect(credentials).toHaveLength(1);
  expect(credentials[0]!.isResidentCredential).toBe(true);

  // Sign out, then sign in with the passkey alone: no password, no code.
  await page.goto("/dashboard");
  await page.getByRole("button", { name: /account menu/ }).click();
  await page
    .getByRole("menuitem", { name: "Sign out" })
    .or(page.getByRole("button", { name: "Sign out" }))
    .first()
    .click();
  await expect(page).toHaveURL(/\/login\?notice=signed_out/, posted);
  await hydrated(page);
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await expect(page).toHaveURL(/\/dashboard/, posted);
  await expect(page.getByRole("heading", { name: /Jordan|Welcome/ }).first()).toBeVisible();

  // A To US Bank transfer: confirmed with the passkey instead of the emailed code.
  await page.goto("/dashboard?transfer=ach#transfer");
  await hydrated(page);
  const panel = page.getByRole("tabpanel");
  await panel.getByLabel("Bank").selectOption({ label: "JPMorgan Chase Bank (021000021)" });
  await panel.getByLabel("Account number").fill("123456789");
  await panel.getByLabel("Name on the account").fill("Lee Park");
  await panel.getByLabel("Amount").fill("12.50");
  await panel.getByLabel("Reference").fill("Rent share");
  await panel.getByRole("button", { name: "Continue" }).click();
  await expect(panel.getByLabel("One-time code")).toBeVisible(posted);
  await panel.getByRole("button", { name: "Confirm with your passkey instead" }).click();
  await expect(panel.getByRole("status").filter({ hasText: "Transfer scheduled" })).toBeVisible(posted);

  // The list says when it was last used; screenshots of the section at both widths.
  await page.goto("/settings/account#passkeys");
  await hydrated(page);
  await expect(list.getByText(/Last used/)).toBeVisible();
  await expectNoAxeViolations(page);
  await unstickHeader(page);
  await passkeys.screenshot({ path: `${SCREENS}/passkeys-1440.png` });
  await page.setViewportSize(PHONE);
  await passkeys.scrollIntoViewIfNeeded();
  await unstickHeader(page);
  await passkeys.screenshot({ path: `${SCREENS}/passkeys-375.png` });
  await expectNoAxeViolations(page);
  await page.setViewportSize(DESKTOP);

  // Remove it, confirmed with the current password.
  await list.getByRole("button", { name: "Remove Work laptop" }).click();
  const remove = list.getByRole("form", { name: "Remove Work laptop" });
  await remove.getByLabel("Current password").fill("Not the password 123");
  await remove.getByRole("button", { name: "Remove passkey" }).click();
  await expect(remove.getByText("The current password is not correct.").first()).toBeVisible(posted);
  await remove.getByLabel("Current password").fill(member.password);
  await remove.getByRole("button", { name: "Remove passkey" }).click();
  await expect(passkeys.getByText("You have no passkeys yet.")).toBeVisible(posted);

  // A removed passkey no longer signs in.
  await context.clearCookies();
  await page.goto("/login");
  await hydrated(page);
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await expect(page.getByText(/That passkey could not sign you in/).first()).toBeVisible(posted);
  await expect(page).toHaveURL(/\/login/);
  expect(errors.filter((e) => !/status of 4\d\d/.test(e))).toEqual([]);
  await context.close();
});
