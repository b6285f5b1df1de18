import { expect, test } from "./fixtures";
import { unstickHeader, virtualAuthenticator } from "./passkey-support";
import {
  DESKTOP,
  NO_SESSION,
  PHONE,
  STAFF,
  expectNoAxeViolations,
  grantedStaff,
  hydrated,
  signIn,
  watchConsole,
} from "./support";

/**
 * Passkeys as a staff member uses them (docs/product.md#passkeys, issue 32: phishing-resistant
 * sign-in for staff), with Chromium's virtual authenticator: a new staff member (made through a
 * role grant: the published demo sign-ins cannot add passkeys) adds one in Account Settings,
 * signs in with it in one step and lands in the back office, and removes it. The section axe
 * clean at 1440 and 375 px. That the profile's staff_passkeys_required sends staff without one to
 * Account Settings and refuses them the password path is tested in
 * tests/integration/auth/passkeys.test.ts and passkeys-authorization.test.ts (one profile serves
 * every browser spec).
 */
test.use({ signedInAs: STAFF });

const SCREENS = "test-results/screens";
const posted = { timeout: 20_000 };

test("a staff member adds a passkey, signs in to the back office with it in one step, and removes it", async ({
  page: admin,
  browser,
  baseURL,
}) => {
  test.setTimeout(240_000);
  const staff = await grantedStaff(admin.context(), browser, baseURL!, "passkey-staff", "admin");
  const context = await browser.newContext({ baseURL, storageState: NO_SESSION });
  const page = await context.newPage();
  const errors = watchConsole(page);
  const { cdp, authenticatorId } = await virtualAuthenticator(page);
  await signIn(page, staff.email, staff.password);

  // Add a passkey in Account Settings: a name and the current password, then the device's prompt.
  await page.goto("/settings/account#passkeys");
  await hydrated(page);
  const passkeys = page.getByRole("region", { name: "Passkeys" });
  await expect(passkeys.getByText("You have no passkeys yet.")).toBeVisible();
  const add = passkeys.getByRole("form", { name: "Add a passkey" });
  await add.getByLabel("Name").fill("Branch desk key");
  await add.getByLabel("Current password").fill(staff.password);
  await add.getByRole("button", { name: "Add passkey" }).click();
  await expect(passkeys.getByText('Passkey "Branch desk key" added.')).toBeVisible(posted);
  const list = passkeys.getByRole("list", { name: "Your passkeys" });
  await expect(list.getByText("Branch desk key")).toBeVisible(posted);
  const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
  expect(credentials).toHaveLength(1);

  // Signed out, then in with the passkey alone: no password, no code, straight to the back office.
  await context.clearCookies();
  await page.goto("/login");
  await hydrated(page);
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await expect(page).toHaveURL(/\/admin/, posted);

  // Account Settings says when it was last used; the section at both widths.
  await page.goto("/settings/account#passkeys");
  await hydrated(page);
  await expect(list.getByText(/Last used/)).toBeVisible();
  for (const [label, viewport] of [
    ["1440", DESKTOP],
    ["375", PHONE],
  ] as const) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await passkeys.scrollIntoViewIfNeeded();
    await unstickHeader(page);
    await passkeys.screenshot({ path: `${SCREENS}/passkeys-staff-${label}.png` });
  }
  await page.setViewportSize(DESKTOP);

  // Removed with the current password; it no longer signs in.
  await list.getByRole("button", { name: "Remove Branch desk key" }).click();
  const remove = list.getByRole("form", { name: "Remove Branch desk key" });
  await remove.getByLabel("Current password").fill(staff.password);
  await remove.getByRole("button", { name: "Remove passkey" }).click();
  await expect(passkeys.getByText("You have no passkeys yet.")).toBeVisible(posted);
  await context.clearCookies();
  await page.goto("/login");
  await hydrated(page);
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await expect(page.getByText(/That passkey could not sign you in/).first()).toBeVisible(posted);
  await expect(page).toHaveURL(/\/login/);
  expect(errors.filter((e) => !/status of 4\d\d/.test(e))).toEqual([]);
  await context.close();
});
