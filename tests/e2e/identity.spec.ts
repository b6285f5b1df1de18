import { expect as baseExpect, test, type Page } from "./fixtures";
import { applicationAnswers } from "../application-answers";
import {
  DESKTOP,
  PHONE,
  expectNoAxeViolations,
  fillApplication,
  makePng,
  uniqueEmail,
  watchConsole,
  type UploadFile,
} from "./support";

/**
 * Identity, acting as a person (docs/product.md#applications-and-review, docs/product.md#sign-in):
 * applying, signing in with a code read from the demo inbox, wrong codes, the password lock, a
 * password reset, and the redirects after sign-in. Each test uses its own account (a demo sign-in
 * or a fresh application), so tests run in parallel without reading each other's codes.
 */

// Each test walks a whole journey (apply, sign in, read the code): more than the default minute
// on a loaded machine.
test.describe.configure({ timeout: 180_000 });

/** Most steps post a form whose answer needs the database; give a busy machine time. */
const expect = baseExpect.configure({ timeout: 15_000 });

const PASSWORD = "Lighthouse keeper 2024";
/**
 * Posts that hash a password (argon2id) or re-encode an image can take seconds on a busy machine,
 * and a member's first page may build the demo history first.
 */
const SLOW = { timeout: 60_000 };

/** The membership form filled in as Robin Tester, born in 1990 (the status page shows the year). */
async function fillTheForm(page: Page, email: string, document?: UploadFile | null) {
  await fillApplication(
    page,
    applicationAnswers(email, PASSWORD, { first_name: "Robin", last_name: "Tester", date_of_birth: "1990-05-01" }),
    document,
  );
}

/** The application form: field messages are looked up inside it (the summary above repeats them). */
function form(page: Page) {
  return page.getByRole("form", { name: "Create your account" });
}

async function apply(page: Page, email: string) {
  await page.goto("/signup");
  await fillTheForm(page, email);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page).toHaveURL(/\/registration-success$/, SLOW);
}

/** The newest sign-in code sent to `email`, read from the demo inbox in another tab (reloaded until it arrives). */
async function codeFor(page: Page, email: string): Promise<string> {
  await expect(page.getByRole("heading", { name: "Verify OTP" })).toBeVisible(SLOW);
  const inbox = await page.context().newPage();
  try {
    const code = inbox.getByTestId("demo-code").first();
    await expect(async () => {
      await inbox.goto(`/demo/inbox?to=${encodeURIComponent(email)}`);
      await baseExpect(code).toBeVisible({ timeout: 1000 });
    }).toPass({ timeout: 60_000 });
    const text = (await code.textContent())?.trim() ?? "";
    expect(text).toMatch(/^\d{6}$/);
    return text;
  } finally {
    await inbox.close();
  }
}

/** Sends the password step and waits for the server's answer, so the next attempt is not typed
 * into a form that the previous answer is about to reset. */
async function passwordStep(page: Page, email: string, password = PASSWORD) {
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  const answered = page.waitForResponse(
    (response) => response.request().method() === "POST" && new URL(response.url()).pathname.startsWith("/login"),
  );
  await page.getByRole("button", { name: "Continue" }).click();
  await answered;
}

async function signIn(page: Page, email: string, password = PASSWORD) {
  await page.goto("/login");
  await passwordStep(page, email, password);
  await expect(page.getByRole("heading", { name: "Verify OTP" })).toBeVisible(SLOW);
  await page.getByLabel("Verification code").fill(await codeFor(page, email));
  await page.getByRole("button", { name: "Verify & Sign in" }).click();
}

test.describe("applying for membership", () => {
  test("an applicant applies with a document, sees the success page, then their status", async ({ page }) => {
    const errors = watchConsole(page);
    const email = uniqueEmail("apply");
    await apply(page, email);
    await expect(page.getByRole("heading", { name: "Registration Successful" })).toBeVisible();
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      await expectNoAxeViolations(page);
    }
    await page.setViewportSize(DESKTOP);
    await page.getByRole("link", { name: "View application status" }).click();
    await expect(page).toHaveURL(/\/pending-approval$/, SLOW);
    await expect(page.getByRole("heading", { name: "Your application is under review" })).toBeVisible();
    await expect(page.getByText(email).first()).toBeVisible();
    await expect(page.getByText("••/••/1990")).toBeVisible();
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      await expectNoAxeViolations(page);
    }
    // The acknowledgement was sent.
    await page.goto(`/demo/inbox?to=${encodeURIComponent(email)}`);
    await expect(page.getByRole("heading", { name: "We received your membership application" })).toBeVisible();
    expect(errors).toEqual([]);
  });

  test("the form shows each rule's message next to its field and focuses the first invalid one", async ({ page }) => {
    await page.goto("/signup");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page.locator('[name="email"]')).toBeFocused();
    await expect(form(page).getByText("Please enter a valid email address")).toBeVisible();
    await expect(form(page).getByText("Password should be at least 12 characters long.")).toBeVisible();
    await expect(form(page).getByText("Please upload an image or PDF of your ID document")).toBeVisible();

    await fillTheForm(page, uniqueEmail("rules"));
    await page.locator('[name="confirm_password"]').fill("Something else entirely 1");
    await page.locator('[name="date_of_birth"]').fill(`${new Date().getFullYear() - 17}-01-01`);
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(form(page).getByText("Passwords do not match")).toBeVisible();
    await expect(form(page).getByText("You must be at least 18 years old to apply")).toBeVisible();
    await expect(page.locator('[name="confirm_password"]')).toBeFocused();

    await page.locator('[name="password"]').fill("password1234");
    await page.locator('[name="confirm_password"]').fill("password1234");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(
      form(page).getByText("This password is too common. Please choose one that is harder to guess."),
    ).toBeVisible();

    // A joint account needs the joint owner's details.
    await page.getByText("Joint account", { exact: true }).click();
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(form(page).getByText("Please enter the joint owner's name")).toBeVisible();
  });

  test("a used email address is refused with the server's message", async ({ page }) => {
    const email = uniqueEmail("taken");
    await apply(page, email);
    await page.context().clearCookies();
    await page.goto("/signup");
    await fillTheForm(page, email);
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(form(page).getByText("An account with this email already exists.")).toBeVisible();
    // Passwords are not kept; the other values are.
    await expect(page.locator('[name="password"]')).toHaveValue("");
    await expect(page.locator('[name="first_name"]')).toHaveValue("Robin");
  });
});

test.describe("applying without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the server's messages show next to the fields, values are kept except passwords", async ({ page }) => {
    await page.goto("/signup");
    await page.locator('[name="first_name"]').fill("Noscript");
    await page.locator('[name="password"]').fill("short");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(form(page).getByText("Please enter a valid email address")).toBeVisible();
    await expect(form(page).getByText("Password should be at least 12 characters long.")).toBeVisible();
    await expect(form(page).getByText("Please enter your last name")).toBeVisible();
    await expect(form(page).getByText("Please upload an image or PDF of your ID document")).toBeVisible();
    await expect(page.locator('[name="first_name"]')).toHaveValue("Noscript");
    await expect(page.locator('[name="password"]')).toHaveValue("");
    // Without JavaScript the summary of problems takes focus; each links to its field.
    const summary = page.getByRole("alert").filter({ hasText: "Please check the" });
    await expect(summary).toBeFocused();
    await summary.getByRole("link", { name: "Please enter your last name" }).click();
    await expect(page).toHaveURL(/#field-last-name$/, SLOW);
  });

  test("a file that is not an image or PDF, or is over 10 MB, is refused next to the field and nothing is created", async ({
    page,
  }) => {
    const email = uniqueEmail("upload");
    await page.goto("/signup");
    await fillTheForm(page, email, {
      name: "passport.png",
      mimeType: "image/png",
      buffer: Buffer.from("this is not really an image"),
    });
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(form(page).getByText("The document must be a JPEG, PNG or WebP image, or a PDF")).toBeVisible();
    await expect(page).toHaveURL(/\/signup$/, SLOW);

    const big = Buffer.alloc(10 * 1024 * 1024 + 10);
    makePng().copy(big);
    await fillTheForm(page, email, { name: "passport.png", mimeType: "image/png", buffer: big });
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(form(page).getByText("The document must be 10 MB or smaller")).toBeVisible();

    // No account exists: its password does not open a sign-in challenge.
    await page.goto("/login");
    await passwordStep(page, email);
    await expect(page.getByText("Failed to sign in. Please check your credentials.")).toBeVisible();
  });
});

test.describe("signing in", () => {
  test("a member signs in with the emailed code and lands on the dashboard", async ({ page }) => {
    const errors = watchConsole(page);
    await page.goto("/login");
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      await expectNoAxeViolations(page);
    }
    await page.setViewportSize(DESKTOP);
    await passwordStep(page, "alex.morgan@harborview.example", "Member-Demo-Pass-1");
    await expect(page.getByRole("heading", { name: "Verify OTP" })).toBeVisible(SLOW);
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      await expectNoAxeViolations(page);
    }
    await page.setViewportSize(DESKTOP);
    const code = await codeFor(page, "alex.morgan@harborview.example");
    // The field keeps digits only, at most six, and Verify waits for all six.
    const field = page.getByLabel("Verification code");
    await field.fill(`ab${code}99`);
    await expect(field).toHaveValue(code);
    await field.fill(code.slice(0, 5));
    await expect(page.getByRole("button", { name: "Verify & Sign in" })).toBeDisabled();
    await field.fill(code);
    await page.getByRole("button", { name: "Verify & Sign in" }).click();
    await expect(page).toHaveURL(/\/dashboard$/, SLOW);
    expect(errors.filter((e) => !e.includes("404"))).toEqual([]);
  });

  test("a wrong code says so, and Back returns to the first step", async ({ page }) => {
    await page.goto("/login");
    await page.getByText("Remember me").click();
    await passwordStep(page, "priya.shah@harborview.example", "Member-Demo-Pass-2");
    const code = await codeFor(page, "priya.shah@harborview.example");
    await page.getByLabel("Verification code").fill(code === "000000" ? "111111" : "000000");
    await page.getByRole("button", { name: "Verify & Sign in" }).click();
    await expect(page.getByText("Invalid OTP. Please try again.")).toBeVisible();
    await page.getByRole("button", { name: "Back" }).click();
    await expect(page.getByRole("heading", { name: "Welcome Back" })).toBeVisible();
    // "Remember me" kept the email address on this device.
    await expect(page.getByLabel("Email address")).toHaveValue("priya.shah@harborview.example");
    await expect(page.getByRole("checkbox", { name: "Remember me" })).toBeChecked();
  });

  test("staff go to the back office, applicants to their status page", async ({ browser }) => {
    const staff = await (await browser.newContext()).newPage();
    await signIn(staff, "staff@harborview.example", "Staff-Demo-Pass-1");
    await expect(staff).toHaveURL(/\/admin$/, SLOW);
    const applicant = await (await browser.newContext()).newPage();
    await signIn(applicant, "chris.lee@harborview.example", "Applicant-Demo-Pass-2");
    await expect(applicant).toHaveURL(/\/pending-approval$/, SLOW);
  });

  test("a signed-out visitor is sent to sign in, then back where they were going; sign-out ends the session", async ({
    page,
  }) => {
    await page.goto("/pending-approval");
    await expect(page).toHaveURL(/\/login\?redirectTo=%2Fpending-approval$/, SLOW);
    await passwordStep(page, "taylor.reed@harborview.example", "Applicant-Demo-Pass-1");
    await page.getByLabel("Verification code").fill(await codeFor(page, "taylor.reed@harborview.example"));
    await page.getByRole("button", { name: "Verify & Sign in" }).click();
    await expect(page).toHaveURL(/\/pending-approval$/, SLOW);
    // Staff asked Taylor for more information: the request and the answer form show.
    await expect(page.getByRole("heading", { name: "We need a little more information" })).toBeVisible();
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/login\?notice=signed_out$/, SLOW);
    await expect(page.getByText("You have signed out.")).toBeVisible();
    await page.goto("/pending-approval");
    await expect(page).toHaveURL(/\/login\?redirectTo=/, SLOW);
  });

  test("five wrong passwords lock sign-in for 15 minutes and email the member", async ({ page }) => {
    const email = uniqueEmail("lock");
    await apply(page, email);
    await page.context().clearCookies();
    await page.goto("/login");
    for (let i = 1; i <= 4; i++) {
      await passwordStep(page, email, `Wrong password number ${i}`);
      await expect(page.getByText("Failed to sign in. Please check your credentials.")).toBeVisible();
    }
    await passwordStep(page, email, "Wrong password number 5");
    await expect(page.getByText(/sign-in to this account is locked for 15 minutes/)).toBeVisible();
    await passwordStep(page, email, PASSWORD);
    await expect(page.getByText(/sign-in to this account is locked/)).toBeVisible();
    await page.goto(`/demo/inbox?to=${encodeURIComponent(email)}`);
    await expect(page.getByRole("heading", { name: "Sign-in to your account was locked" })).toBeVisible();
  });

  test("a forgotten password is reset with the emailed link, which works once", async ({ page }) => {
    const email = uniqueEmail("reset");
    await apply(page, email);
    await page.context().clearCookies();
    await page.goto("/login");
    await page.getByRole("link", { name: "Forgot password?" }).click();
    await expect(page.getByRole("heading", { name: "Reset your password" })).toBeVisible();
    await page.getByLabel("Email address").fill(email);
    await page.getByRole("button", { name: "Send reset link" }).click();
    await expect(page.getByText(/If an account uses that email address/)).toBeVisible();

    await page.goto(`/demo/inbox?to=${encodeURIComponent(email)}`);
    const link = await page.getByRole("link", { name: "Open the reset link" }).first().getAttribute("href");
    expect(link).toMatch(/^\/reset-password\?token=/);
    await page.goto(link!);
    await page.getByLabel("New password", { exact: true }).fill("Fresh harbor breeze 88");
    await page.getByLabel("Confirm new password").fill("Fresh harbor breeze 88");
    await page.getByRole("button", { name: "Save new password" }).click();
    await expect(page).toHaveURL(/\/login\?notice=reset$/, SLOW);
    await expect(page.getByText("Your password has been changed.")).toBeVisible();

    await page.goto(link!);
    await expect(page.getByText("This reset link is invalid, has already been used, or has expired.")).toBeVisible();

    await signIn(page, email, "Fresh harbor breeze 88");
    await expect(page).toHaveURL(/\/pending-approval$/, SLOW);
  });
});

test("the idle warning comes a minute before sign-out; Stay signed in keeps the session, and time running out signs out", async ({
  page,
}) => {
  const email = uniqueEmail("idle");
  await apply(page, email);
  await page.clock.install();
  await page.goto("/pending-approval");
  await expect(page.getByRole("heading", { name: "Your application is under review" })).toBeVisible();
  // The clock starts once the page has hydrated (its scripts loaded).
  await page.waitForLoadState("networkidle");
  // The server's answer to "how long is left?" (GET /session), as if 14 minutes had passed.
  let left_ms = 50_000;
  await page.route("**/session", (route) =>
    route.request().method() === "GET"
      ? route.fulfill({ json: { signed_in: true, expires_in_ms: left_ms } })
      : route.continue(),
  );
  await page.clock.fastForward("14:00");
  const dialog = page.getByRole("alertdialog", { name: "Are you still there?" });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText("you will be signed out in");
  await dialog.getByRole("button", { name: "Stay signed in" }).click();
  await expect(dialog).toBeHidden();

  left_ms = 30_000;
  await page.clock.fastForward("14:00");
  await expect(dialog).toBeVisible();
  await page.clock.fastForward("01:00");
  await expect(page).toHaveURL(/\/login\?notice=idle$/, SLOW);
  await expect(page.getByText("You were signed out after 15 minutes without activity.")).toBeVisible();
  await page.unroute("**/session");
  await page.goto("/pending-approval");
  await expect(page).toHaveURL(/\/login\?redirectTo=/, SLOW);
});

test("the signup page passes an accessibility scan at both widths", async ({ page }) => {
  await page.goto("/signup");
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
  }
  // /register is the old address.
  await page.goto("/register");
  await expect(page).toHaveURL(/\/signup$/, SLOW);
});
