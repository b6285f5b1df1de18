import { expect as baseExpect, test, type Page } from "./fixtures";
import { applicationAnswers } from "../application-answers";
import { ALEX, fillApplication, makePng, uniqueEmail } from "./support";

/**
 * Trying again after a refusal, as a person does it: click into the emptied password field and
 * type (Playwright's fill() replaces the value and would hide the fault). The password fields
 * used to be emptied by writing to the input while React kept the old text, which came back at
 * the click: the second attempt sent the old and the new password together.
 */
test.describe.configure({ timeout: 180_000 });

/** Posts that hash a password (argon2id) or re-encode an image take seconds on a busy machine. */
const expect = baseExpect.configure({ timeout: 20_000 });
const SLOW = { timeout: 60_000 };
const PASSWORD = "Quayside lanterns 2026";
const RETRY_NAMES = { first_name: "Robin", last_name: "Retry" };

/** Clicks into a password field that looks empty, checks it stays empty, and types. */
async function typeInto(page: Page, name: string, text: string) {
  const field = page.locator(`[name="${name}"]`);
  await expect(field).toHaveValue("");
  await field.click();
  await expect(field).toHaveValue("");
  await field.pressSequentially(text);
  await expect(field).toHaveValue(text);
}

/** The password step accepts `password` for `email`: the code step opens. */
async function passwordAccepted(page: Page, email: string, password: string) {
  await page.goto("/login");
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByRole("heading", { name: "Verify OTP" })).toBeVisible(SLOW);
}

test("after a wrong password, typing the right one signs in", async ({ page, browser, baseURL }) => {
  const email = uniqueEmail("retry-login");
  await page.goto("/signup");
  await fillApplication(page, applicationAnswers(email, PASSWORD, RETRY_NAMES));
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page).toHaveURL(/\/registration-success$/, SLOW);

  const context = await browser.newContext({ baseURL });
  const visitor = await context.newPage();
  try {
    await visitor.goto("/login");
    await visitor.getByLabel("Email address").fill(email);
    await visitor.getByLabel("Password", { exact: true }).fill("Not my password at all");
    await visitor.getByRole("button", { name: "Continue" }).click();
    await expect(visitor.getByText("Failed to sign in. Please check your credentials.")).toBeVisible(SLOW);
    await typeInto(visitor, "password", PASSWORD);
    await visitor.getByRole("button", { name: "Continue" }).click();
    await expect(visitor.getByRole("heading", { name: "Verify OTP" })).toBeVisible(SLOW);
  } finally {
    await context.close();
  }
});

test("after 'An account with this email already exists.', the application is saved with the newly typed password", async ({
  page,
  browser,
  baseURL,
}) => {
  const email = uniqueEmail("retry-signup");
  await page.goto("/signup");
  await fillApplication(page, applicationAnswers(ALEX.email, "First attempt passphrase 1", RETRY_NAMES));
  await page.getByRole("button", { name: "Create account" }).click();
  const form = page.getByRole("form", { name: "Create your account" });
  await expect(form.getByText("An account with this email already exists.")).toBeVisible(SLOW);

  // The applicant uses another address, types a new password twice and attaches the file again.
  await form.locator('[name="email"]').fill(email);
  await typeInto(page, "password", PASSWORD);
  await typeInto(page, "confirm_password", PASSWORD);
  await form
    .locator('[name="id_document"]')
    .setInputFiles({ name: "id.png", mimeType: "image/png", buffer: makePng() });
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page).toHaveURL(/\/registration-success$/, SLOW);

  // What was saved is what was typed the second time.
  const context = await browser.newContext({ baseURL });
  try {
    await passwordAccepted(await context.newPage(), email, PASSWORD);
  } finally {
    await context.close();
  }
});
