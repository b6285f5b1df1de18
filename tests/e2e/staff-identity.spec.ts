import crypto from "node:crypto";
import { expect, test, type Browser, type BrowserContext, type Page } from "./fixtures";
import {
  DESKTOP,
  PHONE,
  STAFF,
  TEMPORARY_PASSWORD,
  createMember,
  expectNoAxeViolations,
  hydrated,
  makePng,
  openMemberDetails,
  signIn,
  uniqueEmail,
  watchConsole,
} from "./support";

/**
 * Staff-made identities (docs/product.md#create-new-user): a member created by staff with a
 * temporary password must choose a new one at first sign-in (every page sends them to
 * /change-password until then); staff upload a member's profile image from the detail pane; the
 * back office links to Reset Transfer Counts. Staff's session is the worker's (fixtures.ts).
 */
test.describe.configure({ mode: "serial" });

const NEW_PASSWORD = "Copper kettles by the bay 31";
const SHOTS = process.env.SHOTS_DIR;

let staffState: Awaited<ReturnType<BrowserContext["storageState"]>>;

test.beforeAll(async ({ browser, baseURL, sessions }) => {
  test.setTimeout(90_000);
  const staff = await browser.newContext({ baseURL, storageState: await sessions.stateFor(STAFF) });
  staffState = await staff.storageState();
  await staff.close();
});

async function staffPage(
  browser: Browser,
  baseURL: string,
  options: { javaScriptEnabled?: boolean } = {},
): Promise<Page> {
  const context = await browser.newContext({ baseURL, storageState: staffState, ...options });
  return context.newPage();
}

/** A context of its own address (fixtures.ts), for a second person in the same test. */
async function personContext(
  browser: Browser,
  baseURL: string,
  options: { javaScriptEnabled?: boolean } = {},
): Promise<BrowserContext> {
  const address = `198.19.${crypto.randomInt(1, 255)}.${crypto.randomInt(1, 255)}`;
  return browser.newContext({ baseURL, extraHTTPHeaders: { "X-Forwarded-For": address }, ...options });
}

test("a member created by staff signs in with the temporary password and the emailed code, and must choose a new one", async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(150_000);
  const errors = watchConsole(page);
  const email = uniqueEmail("temporary");

  // Staff: Create New User, with a temporary password.
  const staff = await staffPage(browser, baseURL!);
  await staff.goto("/admin");
  await staff.getByRole("link", { name: "Create New User" }).click();
  const dialog = staff.getByRole("dialog", { name: "Create New User" });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel("First name").fill("Morgan");
  await dialog.getByLabel("Last name").fill("Newcomer");
  await dialog.getByLabel("Email address").fill(email);
  await dialog.getByLabel("Temporary password").fill(TEMPORARY_PASSWORD);
  await dialog.getByLabel("Phone number").fill("(555) 010-7070");
  await dialog.getByLabel("Street").fill("3 Wharf Lane");
  await dialog.getByLabel("City").fill("Kittery");
  await dialog.getByLabel("State").fill("ME");
  await dialog.getByLabel("ZIP code").fill("03904");
  await dialog.getByRole("button", { name: "Create user" }).click();
  await expect(staff.getByRole("status").filter({ hasText: "User created" })).toBeVisible({ timeout: 20_000 });
  await staff.context().close();

  // The member: password, the emailed code (demo inbox), then "Choose a new password".
  await page.setViewportSize(DESKTOP);
  await signIn(page, email, TEMPORARY_PASSWORD);
  await expect(page).toHaveURL(/\/change-password$/);
  await expect(page.getByRole("heading", { name: "Choose a new password" })).toBeVisible();
  await expect(page.locator("#main").getByText(email)).toBeVisible();
  await expectNoAxeViolations(page);
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/change-password-1440.png`, fullPage: true });

  // Every member page sends them back here until they do.
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/change-password\?redirectTo=%2Fdashboard$/);
  await page.goto("/dashboard/transactions");
  await expect(page).toHaveURL(/\/change-password\?redirectTo=%2Fdashboard%2Ftransactions$/);
  await page.goto("/change-password");
  await hydrated(page);

  // The rules' messages, next to their fields (checked in the browser, then by the server).
  await page.getByLabel("Temporary password").fill(TEMPORARY_PASSWORD);
  await page.getByLabel("New password", { exact: true }).fill("too short");
  await page.getByLabel("Confirm new password").fill("too short");
  await page.getByRole("button", { name: "Save new password" }).click();
  await expect(page.getByText("Password should be at least 12 characters long.")).toBeVisible();
  await expect(page.getByLabel("New password", { exact: true })).toBeFocused();
  await page.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
  await page.getByLabel("Confirm new password").fill(`${NEW_PASSWORD}!`);
  await page.getByRole("button", { name: "Save new password" }).click();
  await expect(page.getByText("Passwords do not match")).toBeVisible();
  await page.getByLabel("Temporary password").fill("Not the temporary one 9");
  await page.getByLabel("Confirm new password").fill(NEW_PASSWORD);
  await page.getByRole("button", { name: "Save new password" }).click();
  await expect(page.getByText("The temporary password is not correct.")).toBeVisible();
  await expect(page.getByLabel("Temporary password")).toBeFocused();

  await page.setViewportSize(PHONE);
  await expectNoAxeViolations(page);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/change-password-375.png`, fullPage: true });

  // Keyboard alone: the temporary password field has focus; Tab through, Enter sends.
  await page.goto("/change-password");
  await hydrated(page);
  await expect(page.getByLabel("Temporary password")).toBeFocused();
  await page.keyboard.type(TEMPORARY_PASSWORD);
  await page.keyboard.press("Tab");
  await expect(page.getByLabel("New password", { exact: true })).toBeFocused();
  await page.keyboard.type(NEW_PASSWORD);
  await page.keyboard.press("Tab");
  await page.keyboard.type(NEW_PASSWORD);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard$/, { timeout: 20_000 });
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();

  // Done: the page now sends them home, and the new password is the one that signs in.
  await page.goto("/change-password");
  await expect(page).toHaveURL(/\/dashboard$/);
  // The wrong-password answer above is a 400 by design.
  expect(errors.filter((e) => !/status of 400 \(Bad Request\)/.test(e))).toEqual([]);
});

test("without JavaScript the temporary password is replaced the same way", async ({ browser, baseURL }) => {
  test.setTimeout(150_000);
  const staff = await staffPage(browser, baseURL!);
  const member = await createMember(staff.context(), baseURL!, "temporary-nojs", { temporary: true });
  await staff.context().close();
  const context = await personContext(browser, baseURL!, { javaScriptEnabled: false });
  try {
    const page = await context.newPage();
    await signIn(page, member.email, member.password);
    await expect(page).toHaveURL(/\/change-password$/);
    await page.getByLabel("Temporary password").fill(member.password);
    await page.getByLabel("New password", { exact: true }).fill("Password2024!");
    await page.getByLabel("Confirm new password").fill("Password2024!");
    await page.getByRole("button", { name: "Save new password" }).click();
    await expect(
      page.getByText("This password is too common. Please choose one that is harder to guess."),
    ).toBeVisible();
    await page.getByLabel("Temporary password").fill(member.password);
    await page.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel("Confirm new password").fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Save new password" }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
  } finally {
    await context.close();
  }
});

test("staff upload a member's profile image in the detail pane; a file that is not an image gets its message", async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(150_000);
  const page = await staffPage(browser, baseURL!);
  const errors = watchConsole(page);
  const member = await createMember(page.context(), baseURL!, "staff-image", { temporary: true });
  await page.setViewportSize(DESKTOP);
  await openMemberDetails(page, member.email);
  await hydrated(page);
  const pane = page.locator("section[aria-labelledby=member-title]");
  const form = pane.getByRole("form", { name: /Profile image of/ });
  await expect(form).toBeVisible();
  await expect(pane.locator("img[data-member-image]")).toHaveCount(0);

  // Not an image: the message at once, next to the field, and nothing is sent.
  await form
    .getByLabel("Profile image")
    .setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("hello") });
  await expect(form.getByText("Please select an image file")).toBeVisible();
  await form.getByRole("button", { name: "Upload image" }).click();
  await expect(form.getByText("Please select an image file")).toBeVisible();
  await expectNoAxeViolations(page);

  // A real PNG: stored, and shown in the header.
  await form
    .getByLabel("Profile image")
    .setInputFiles({ name: "face.png", mimeType: "image/png", buffer: makePng(96) });
  await expect(form.getByText("Please select an image file")).toHaveCount(0);
  await form.getByRole("button", { name: "Upload image" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Profile image updated." })).toBeVisible({ timeout: 20_000 });
  const image = pane.locator("img[data-member-image]");
  await expect(image).toBeVisible();
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(256);
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/admin-image-1440.png`, fullPage: true });
  await page.setViewportSize(PHONE);
  await expectNoAxeViolations(page);
  // Nothing wider than the phone (the accounts table scrolls inside the pane).
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/admin-image-375.png`, fullPage: true });
  // After the upload the form is empty again.
  await expect(form.getByLabel("Profile image")).toHaveValue("");

  // The audit log has it, with staff as the actor.
  await page.goto(`/admin/audit?member=${encodeURIComponent(member.email)}`);
  await expect(page.getByTestId("audit-entry").filter({ hasText: "member.profile_image.set" })).toHaveCount(1);
  expect(errors).toEqual([]);
  await page.context().close();

  // Without JavaScript, the server's message shows next to the field.
  const plain = await staffPage(browser, baseURL!, { javaScriptEnabled: false });
  await openMemberDetails(plain, member.email);
  const plainForm = plain.getByRole("form", { name: /Profile image of/ });
  await plainForm
    .getByLabel("Profile image")
    .setInputFiles({ name: "fake.png", mimeType: "image/png", buffer: Buffer.from("not really a png") });
  await plainForm.getByRole("button", { name: "Upload image" }).click();
  await expect(
    plain.getByRole("form", { name: /Profile image of/ }).getByText("Please select an image file"),
  ).toBeVisible();
  await expect(
    plain.getByRole("alert").filter({ hasText: "Failed to update profile image: Please select an image file" }),
  ).toBeVisible();
  await plain.context().close();
});

test("the back office has Reset Transfer Counts: in its menu and as a box in the detail pane", async ({
  browser,
  baseURL,
}) => {
  const page = await staffPage(browser, baseURL!);
  await page.goto("/admin");
  const nav = page.getByRole("navigation", { name: "Back office" });
  await nav.getByRole("link", { name: "Reset Transfer Counts" }).click();
  await expect(page).toHaveURL(/\/admin\/reset-transfers$/);
  await expect(page.getByRole("heading", { name: "Reset Transfer Counts", level: 1 })).toBeVisible();
  await page.getByRole("link", { name: "Back to Admin Dashboard" }).click();
  await expect(page).toHaveURL(/\/admin$/);

  // With a member selected, the pane's box; its button goes to the page (keyboard alone).
  await page.getByRole("list", { name: "Members" }).getByRole("link").first().click();
  const pane = page.locator("section[aria-labelledby=member-title]");
  await expect(pane.getByRole("heading", { name: "Reset Transfer Counts" })).toBeVisible();
  await hydrated(page);
  await pane.getByRole("link", { name: "Reset Transfer Counts" }).focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/admin\/reset-transfers$/);
  await page.context().close();
});
