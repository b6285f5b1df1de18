import { expect, test, type BrowserContext, type Page } from "./fixtures";
import {
  DESKTOP,
  PHONE,
  STAFF,
  createMember,
  expectNoAxeViolations,
  makePng,
  signIn,
  totp,
  watchConsole,
  type TestMember,
} from "./support";

/**
 * Profile Settings and Account Settings (docs/product.md#settings) from the public site's signed-in
 * top bar (docs/product.md#header-and-footer), acting as a member: at 1440 and 375 px, keyboard
 * alone, with axe scans. Each test uses members made by staff, so tests never change a published
 * demo sign-in. Staff's and the shared member's sessions are the worker's (fixtures.ts); the TOTP
 * and password tests sign their own members in through the page, as that is what they test.
 */
test.describe.configure({ mode: "serial" });

let shared: TestMember;
let totpMember: TestMember;
let passwordMember: TestMember;
let sharedState: Awaited<ReturnType<BrowserContext["storageState"]>>;

test.beforeAll(async ({ browser, baseURL, sessions }) => {
  test.setTimeout(120_000);
  const staff = await browser.newContext({ baseURL, storageState: await sessions.stateFor(STAFF) });
  shared = await createMember(staff, baseURL!, "settings");
  totpMember = await createMember(staff, baseURL!, "totp");
  passwordMember = await createMember(staff, baseURL!, "password");
  await staff.close();
  sharedState = await sessions.stateFor(shared);
});

/** The shared member's session in this page's context. */
async function asSharedMember(page: Page) {
  await page.context().addCookies(sharedState.cookies);
}

async function openFromDesktopMenu(page: Page, item: "Profile Settings" | "Account Settings") {
  await page.getByRole("button", { name: /^Account menu for / }).click();
  await page.getByRole("menuitem", { name: item }).click();
  const dialog = page.getByRole("dialog", { name: item });
  await expect(dialog).toBeVisible();
  return dialog;
}

test.describe("settings dialogs", () => {
  test("profile settings at 1440 px: details, a real PNG, refusals, and the avatar in the top bar", async ({
    page,
    baseURL,
  }) => {
    const errors = watchConsole(page);
    await page.setViewportSize(DESKTOP);
    await asSharedMember(page);
    await page.goto("/");
    const menuButton = page.getByRole("button", { name: "Account menu for Jordan Tester" });
    await expect(menuButton).toBeVisible();
    await expect(menuButton).toContainText("JT");

    const dialog = await openFromDesktopMenu(page, "Profile Settings");
    await expect(dialog.getByLabel("First name")).toHaveValue("Jordan");
    await expectNoAxeViolations(page);

    await dialog.getByLabel("First name").fill("Riley");
    await dialog.getByLabel("City").fill("Dover");
    await dialog.getByRole("button", { name: "Save profile" }).click();
    await expect(dialog.getByText("Profile updated successfully")).toBeVisible();
    // Status messages clear after 3 s.
    await expect(dialog.getByText("Profile updated successfully")).toBeHidden({ timeout: 6_000 });
    await expect(page.getByRole("button", { name: "Account menu for Riley Tester" })).toBeVisible();

    const chooser = dialog.getByLabel(/^Choose a profile picture/);
    await chooser.setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("not a picture") });
    await expect(dialog.getByText("Please select an image file")).toBeVisible();
    await chooser.setInputFiles({
      name: "huge.png",
      mimeType: "image/png",
      buffer: Buffer.concat([makePng(), Buffer.alloc(5 * 1024 * 1024)]),
    });
    await expect(dialog.getByText("Image size should be less than 5MB")).toBeVisible();

    await chooser.setInputFiles({ name: "me.png", mimeType: "image/png", buffer: makePng(96) });
    await expect(dialog.getByText("Profile updated successfully")).toBeVisible();
    await page.screenshot({ path: "test-results/settings-profile-1440.png" });
    const headerImage = page.locator("header button img[data-avatar-image]");
    await expect(headerImage).toHaveAttribute("src", /^\/settings\/profile-image\//);
    const src = await headerImage.getAttribute("src");
    const served = await page.request.get(src!);
    expect(served.status()).toBe(200);
    expect(served.headers()["content-type"]).toBe("image/webp");

    // A server that is asked directly refuses a disguised file too.
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(page.getByRole("button", { name: "Account menu for Riley Tester" })).toBeFocused();
    const refused = await page.request.post("/settings/profile", {
      headers: { Origin: new URL(baseURL!).origin },
      multipart: {
        intent: "image",
        image: { name: "fake.png", mimeType: "image/png", buffer: Buffer.from("GIF89a not really") },
      },
    });
    expect(refused.status()).toBe(400);
    expect(errors).toEqual([]);
  });

  test("account settings at 375 px from the mobile menu: toggles, password mismatch, axe", async ({ page }) => {
    const member = shared;
    await page.setViewportSize(PHONE);
    await asSharedMember(page);
    await page.goto("/about");
    await page.getByLabel("Menu", { exact: true }).click();
    await page.screenshot({ path: "test-results/settings-mobile-menu-375.png" });
    await page.getByRole("link", { name: "Account Settings" }).click();
    const dialog = page.getByRole("dialog", { name: "Account Settings" });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole("textbox", { name: "Email" })).toHaveValue(member.email);
    // Email, SMS and push notifications are not offered: nothing sends them (docs/product.md#settings).
    await expect(dialog.getByRole("switch", { name: /Email notifications/ })).toHaveCount(0);
    await expect(dialog.getByRole("switch", { name: /SMS notifications/ })).toHaveCount(0);
    await expect(dialog.getByRole("switch", { name: /Push notifications/ })).toHaveCount(0);
    await expect(dialog.getByRole("switch", { name: /Login alerts/ })).toBeChecked();
    await expect(dialog.getByRole("switch", { name: /Authenticator app/ })).not.toBeChecked();
    await expectNoAxeViolations(page);
    await page.screenshot({ path: "test-results/settings-account-375.png", fullPage: false });

    await dialog.getByText("Login alerts").click();
    await dialog.getByRole("button", { name: "Save settings" }).click();
    await expect(dialog.getByText("Account settings updated successfully")).toBeVisible();

    await dialog.getByLabel("Current password", { exact: true }).last().fill(member.password);
    await dialog.getByLabel("New password", { exact: true }).fill("Another harbor light 2027");
    await dialog.getByLabel("Confirm new password").fill("Something else entirely 1");
    await dialog.getByRole("button", { name: "Change password" }).click();
    await expect(dialog.getByText("Passwords do not match").first()).toBeVisible();

    // The saved toggle is there when the dialog opens again.
    await page.keyboard.press("Escape");
    await page.getByLabel("Menu", { exact: true }).click();
    await page.getByRole("link", { name: "Account Settings" }).click();
    await expect(
      page.getByRole("dialog", { name: "Account Settings" }).getByRole("switch", { name: /Login alerts/ }),
    ).not.toBeChecked();
  });

  test("the settings pages work without JavaScript", async ({ browser, baseURL }) => {
    const context = await browser.newContext({ baseURL, javaScriptEnabled: false });
    const page = await context.newPage();
    try {
      await asSharedMember(page);
      await page.goto("/settings/profile");
      await expect(page.getByRole("heading", { name: "Profile Settings", level: 1 })).toBeVisible();
      await page.getByLabel("Phone").fill("(555) 010-7777");
      await page.getByRole("button", { name: "Save profile" }).click();
      await expect(page.getByText("Profile updated successfully")).toBeVisible();
      await expect(page.getByLabel("Phone")).toHaveValue("(555) 010-7777");
      await page
        .getByLabel(/^Choose a profile picture/)
        .setInputFiles({ name: "me.png", mimeType: "image/png", buffer: makePng(48) });
      await page.getByRole("button", { name: "Upload picture" }).click();
      await expect(page.getByText("Profile updated successfully")).toBeVisible();

      await page.goto("/settings/account");
      await expect(page.getByRole("form", { name: "Set up an authenticator app" })).toBeVisible();
      await page.getByRole("button", { name: "Save settings" }).click();
      await expect(page.getByText("Account settings updated successfully")).toBeVisible();
    } finally {
      await context.close();
    }
  });

  test("keyboard alone opens the user menu and both dialogs, and Escape brings focus back", async ({ page }) => {
    await page.setViewportSize(DESKTOP);
    await asSharedMember(page);
    await page.goto("/");
    const trigger = page.getByRole("button", { name: /^Account menu for / });
    await trigger.focus();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("menu", { name: "Account" })).toBeVisible();
    await expect(page.getByRole("menuitem", { name: "Profile Settings" })).toBeFocused();
    await page.keyboard.press("Enter");
    const profile = page.getByRole("dialog", { name: "Profile Settings" });
    await expect(profile.getByLabel("First name")).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(profile).toBeHidden();
    await expect(trigger).toBeFocused();

    await page.keyboard.press("ArrowDown");
    await expect(page.getByRole("menu", { name: "Account" })).toBeVisible();
    await page.keyboard.press("ArrowDown");
    await expect(page.getByRole("menuitem", { name: "Account Settings" })).toBeFocused();
    await page.keyboard.press("Enter");
    const account = page.getByRole("dialog", { name: "Account Settings" });
    await expect(account.getByRole("switch", { name: /Login alerts/ })).toBeVisible();
    // Tab stays inside the dialog.
    for (let i = 0; i < 25; i++) await page.keyboard.press("Tab");
    expect(await account.evaluate((el) => el.contains(document.activeElement))).toBe(true);
    await page.keyboard.press("Escape");
    await expect(trigger).toBeFocused();

    // Go to dashboard and Sign out from the menu.
    await page.keyboard.press("Enter");
    await page.getByRole("menuitem", { name: "Sign out" }).press("Enter");
    await expect(page).toHaveURL(/\/login/);
    await page.goto("/settings/account");
    await expect(page).toHaveURL(/\/login\?redirectTo=%2Fsettings%2Faccount/);
  });

  test("an authenticator app enrolled from Account Settings then signs the member in", async ({ page }) => {
    test.setTimeout(90_000);
    const member = totpMember;
    await signIn(page, member.email, member.password);
    await page.goto("/");
    const dialog = await openFromDesktopMenu(page, "Account Settings");
    await dialog.getByText("Authenticator app (twoFactor)").click();
    const start = dialog.getByRole("form", { name: "Set up an authenticator app" });
    await start.getByLabel("Current password").fill(member.password);
    await start.getByRole("button", { name: "Continue" }).click();
    await expect(dialog.getByRole("img", { name: /QR code/ })).toBeVisible();
    await expectNoAxeViolations(page);
    const secret = ((await dialog.locator("[data-totp-secret]").textContent()) ?? "").replace(/\s+/g, "");
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);

    await dialog.getByLabel("6-digit code from your app").fill(totp(secret));
    await dialog.getByRole("button", { name: "Verify and turn on" }).click();
    await expect(dialog.getByText("Account settings updated successfully")).toBeVisible({ timeout: 15_000 });
    await expect(dialog.getByRole("switch", { name: /Authenticator app/ })).toBeChecked();
    // The set-up panel is gone; focus is on the message, still inside the dialog.
    expect(await dialog.evaluate((el) => el.contains(document.activeElement))).toBe(true);

    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: /^Account menu for / }).click();
    await page.getByRole("menuitem", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/login/);

    // The code used to enrol is spent: sign in with the next time step's code (within the window).
    await signIn(page, member.email, member.password, () => totp(secret, Date.now() + 30_000));
    await expect(page).toHaveURL(/\/dashboard/);
  });

  test("changing the password ends the member's other sessions", async ({ page, browser, baseURL }) => {
    const member = passwordMember;
    const other = await browser.newContext({ baseURL });
    const otherPage = await other.newPage();
    try {
      await signIn(otherPage, member.email, member.password);
      await signIn(page, member.email, member.password);
      await page.goto("/settings/account");
      await expect(page.getByRole("heading", { name: "Account Settings", level: 1 })).toBeVisible();
      await expectNoAxeViolations(page);
      const form = page.getByRole("form", { name: "Change password" });
      await form.getByLabel("Current password").fill(member.password);
      await form.getByLabel("New password", { exact: true }).fill("Brand new harbor light 2027");
      await form.getByLabel("Confirm new password").fill("Brand new harbor light 2027");
      await form.getByRole("button", { name: "Change password" }).click();
      await expect(page.getByText("Account settings updated successfully")).toBeVisible();
      // This browser stays signed in; the other one is signed out.
      await page.goto("/settings/profile");
      await expect(page.getByRole("heading", { name: "Profile Settings", level: 1 })).toBeVisible();
      await otherPage.goto("/settings/profile");
      await expect(otherPage).toHaveURL(/\/login/);
    } finally {
      await other.close();
    }
  });
});
