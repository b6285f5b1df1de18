import { expect, test } from "./fixtures";
import { ALEX, hydrated } from "./support";
const INVALID_EMAIL = "Please enter a valid email address";

/**
 * The one form pipeline (docs/decisions/0009-one-form-pipeline.md): every form runs the same Zod
 * schema in the browser and on the server, and shows each message next to its field, linked
 * with aria-invalid and aria-describedby. The reset-password request form stands for them all.
 */
test.describe("a form checks in the browser with the server's schema", () => {
  test("a bad email is refused before anything is posted, next to the field", async ({ page }) => {
    await page.goto("/forgot-password");
    const posts: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST") posts.push(request.url());
    });
    const email = page.getByLabel("Email address");
    await email.fill("not-an-email");
    await page.getByRole("button", { name: "Send reset link" }).click();
    await expect(email).toHaveAttribute("aria-invalid", "true");
    await expect(email).toHaveAccessibleDescription(INVALID_EMAIL);
    await expect(email).toBeFocused();
    expect(posts).toEqual([]);
    // Editing the field hides its message until the next submit.
    await email.fill("someone@example.com");
    await expect(page.getByText(INVALID_EMAIL)).toBeHidden();
  });
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the server answers with the same message next to the field, and keeps what was typed", async ({ page }) => {
    await page.goto("/forgot-password");
    await page.getByLabel("Email address").fill("not-an-email");
    await page.getByRole("button", { name: "Send reset link" }).click();
    await page.waitForURL("**/forgot-password");
    const email = page.getByLabel("Email address");
    await expect(email).toHaveAttribute("aria-invalid", "true");
    await expect(email).toHaveAccessibleDescription(INVALID_EMAIL);
    await expect(email).toHaveValue("not-an-email");
    // A well-formed address goes through to the same answer whether or not it has an account.
    await email.fill("nobody-here@example.com");
    await page.getByRole("button", { name: "Send reset link" }).click();
    await expect(page.getByText("Check your email")).toBeVisible();
  });
});

test.describe("the transfer forms run their schema in the browser too", () => {
  test.use({ signedInAs: ALEX });

  test("an empty Between Accounts form posts nothing, with the server's message and each field's", async ({ page }) => {
    await page.goto("/dashboard?transfer=internal#transfer");
    await hydrated(page);
    const panel = page.getByRole("tabpanel");
    const posts: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST") posts.push(request.url());
    });
    await panel.getByRole("button", { name: "Transfer now" }).click();
    await expect(panel.getByText("Please fill in all fields").first()).toBeVisible();
    const amount = panel.getByLabel("Amount");
    await expect(amount).toHaveAttribute("aria-invalid", "true");
    await expect(amount).toHaveAccessibleDescription("Please fill in all fields");
    expect(posts).toEqual([]);
  });
});
