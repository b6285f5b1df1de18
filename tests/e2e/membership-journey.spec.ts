import { expect as baseExpect, test, type Page } from "./fixtures";
import { applicationAnswers } from "../application-answers";
import {
  STAFF,
  fillApplication,
  inboxCode,
  makePng,
  openMemberDetails,
  signIn,
  uniqueEmail,
  watchConsole,
} from "./support";

/**
 * The whole membership journey as the identity issue tells it, with two people at two browsers:
 * an applicant applies with a document and sees the pending page; staff ask for more
 * information; the applicant answers it; staff approve; the new member signs in with the emailed
 * code (the demo inbox is their mailbox) and lands on the dashboard, while staff see in the outbox
 * that a code was sent but never the code itself. Then the staff-issued code: a
 * member who cannot get an email code signs in with a code staff issue in the back office.
 */
test.describe.configure({ timeout: 240_000 });

/** Posts that hash a password or re-encode an image can take seconds on a busy machine. */
const expect = baseExpect.configure({ timeout: 20_000 });
const SLOW = { timeout: 60_000 };
const PASSWORD = "Tidewater Crossing 2026";

async function applyThroughTheForm(page: Page, email: string) {
  await page.goto("/signup");
  const answers = applicationAnswers(email, PASSWORD, {
    first_name: "Morgan",
    last_name: "Journey",
    id_type: "drivers_license",
    id_number: "D12345678",
  });
  await fillApplication(page, answers, { name: "licence.png", mimeType: "image/png", buffer: makePng() });
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page).toHaveURL(/\/registration-success$/, SLOW);
}

/** Staff open an application's verification dialog. */
async function openVerification(staff: Page, email: string) {
  await openMemberDetails(staff, email);
  await staff.getByRole("link", { name: "Verify User" }).click();
  const dialog = staff.getByRole("dialog");
  await expect(dialog).toBeVisible();
  return dialog;
}

/** Staff see at /admin/outbox that a sign-in code went to `email`, but not the code: it is masked. */
async function expectMaskedCodeInOutbox(staff: Page, email: string, code: string) {
  await staff.goto("/admin/outbox");
  const message = staff
    .getByTestId("outbox-message")
    .filter({ hasText: email })
    .filter({ hasText: "sign_in_code" })
    .first();
  await message.getByText("Message text").click();
  await expect(message.locator("pre")).toContainText("••••••");
  await expect(message).not.toContainText(code);
}

test("apply, be asked for more, answer, be approved, and sign in with the emailed code, which staff cannot read", async ({
  browser,
  baseURL,
  sessions,
}) => {
  const email = uniqueEmail("journey");
  const applicantContext = await browser.newContext({ baseURL });
  // Staff start signed in (fixtures.ts); the applicant and then the member sign in as people do.
  const staffContext = await browser.newContext({ baseURL, storageState: await sessions.stateFor(STAFF) });
  const applicant = await applicantContext.newPage();
  const staff = await staffContext.newPage();
  const applicantErrors = watchConsole(applicant);
  const staffErrors = watchConsole(staff);
  try {
    // The applicant applies, with a photo of their licence, and sees where things stand.
    await applyThroughTheForm(applicant, email);
    await applicant.getByRole("link", { name: "View application status" }).click();
    await expect(applicant.getByRole("heading", { name: "Your application is under review" })).toBeVisible(SLOW);

    // Staff ask for more information.
    let dialog = await openVerification(staff, email);
    await dialog
      .getByLabel("Information needed")
      .fill("Please tell us your employer's name and how long you have worked there.");
    await dialog.getByRole("button", { name: "Request info" }).click();
    await expect(staff.getByRole("status").filter({ hasText: "Information requested" })).toBeVisible();

    // The applicant sees the request on their status page and answers it.
    await applicant.reload();
    const request = applicant.getByRole("region", { name: "We need a little more information" });
    await expect(
      request.getByText("Please tell us your employer's name and how long you have worked there."),
    ).toBeVisible();
    await request.getByLabel("Your answer").fill("Seacoast Shipyard, for six years.");
    await request.getByRole("button", { name: "Send answer" }).click();
    await expect(applicant.getByRole("heading", { name: "Your earlier answers" })).toBeVisible(SLOW);
    await expect(applicant.getByText("Seacoast Shipyard, for six years.")).toBeVisible();

    // Staff read the answer and approve once every item is ticked.
    await openMemberDetails(staff, email);
    await expect(staff.getByText("Seacoast Shipyard, for six years.").first()).toBeVisible();
    dialog = await openVerification(staff, email);
    const boxes = dialog.getByRole("checkbox");
    for (let i = 0, n = await boxes.count(); i < n; i++) await boxes.nth(i).check({ force: true });
    await dialog.getByRole("radio", { name: /^Documentary/ }).check({ force: true });
    await dialog.getByRole("radio", { name: "None found" }).check({ force: true });
    await dialog.getByRole("button", { name: "Approve" }).click();
    await expect(staff.getByRole("status").filter({ hasText: "Application approved" })).toBeVisible(SLOW);

    // The session the applicant had while waiting ends with the decision: the banking app needs
    // a real sign-in with the second factor.
    await applicant.goto("/dashboard");
    await expect(applicant).toHaveURL(/\/login/, SLOW);
    // The new member signs in with the code from their mailbox; staff see that it was sent, masked.
    await applicant.goto("/login");
    await applicant.getByLabel("Email address").fill(email);
    await applicant.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await applicant.getByRole("button", { name: "Continue" }).click();
    await expect(applicant.getByRole("heading", { name: "Verify OTP" })).toBeVisible(SLOW);
    const code = await inboxCode(applicant, email);
    await expectMaskedCodeInOutbox(staff, email, code);
    await applicant.getByLabel("Verification code").fill(code);
    await applicant.getByRole("button", { name: "Verify & Sign in" }).click();
    await expect(applicant).toHaveURL(/\/dashboard$/, SLOW);
    await expect(applicant.getByRole("heading", { name: "Welcome back, Morgan" })).toBeVisible();
    // Their two new accounts, opened at zero by the approval.
    await expect(applicant.getByText("$0.00").first()).toBeVisible();
    expect([...applicantErrors, ...staffErrors]).toEqual([]);
  } finally {
    await applicantContext.close();
    await staffContext.close();
  }
});

test("a member who cannot get an email code signs in with a code staff issue, which works once", async ({
  browser,
  baseURL,
  sessions,
}) => {
  const member = { email: "sam.okafor@harborview.example", password: "Member-Demo-Pass-3" };
  const staffContext = await browser.newContext({ baseURL, storageState: await sessions.stateFor(STAFF) });
  const memberContext = await browser.newContext({ baseURL });
  try {
    const staff = await staffContext.newPage();
    await staff.goto("/admin");
    await staff.getByText("One-time sign-in codes").click();
    const issue = staff.getByRole("form", { name: "Issue a sign-in code" });
    await issue.getByLabel("Member email").fill(member.email);
    await issue.getByRole("button", { name: "Issue code" }).click();
    const issued = staff.getByTestId("issued-code");
    await expect(issued).toBeVisible(SLOW);
    const code = (await issued.textContent())!.trim();
    expect(code).toMatch(/^\d{6}$/);

    const page = await memberContext.newPage();
    await signIn(page, member.email, member.password, () => code);
    await expect(page).toHaveURL(/\/dashboard$/, SLOW);

    // Used once, it is gone: a second sign-in with it is refused.
    await memberContext.clearCookies();
    await page.goto("/login");
    await page.getByLabel("Email address").fill(member.email);
    await page.getByLabel("Password", { exact: true }).fill(member.password);
    await page.getByRole("button", { name: "Continue" }).click();
    await expect(page.getByRole("heading", { name: "Verify OTP" })).toBeVisible(SLOW);
    await page.getByLabel("Verification code").fill(code);
    await page.getByRole("button", { name: "Verify & Sign in" }).click();
    await expect(page.getByText("Invalid OTP. Please try again.")).toBeVisible();

    // Staff see it among the used codes.
    await staff.goto("/admin");
    await staff.getByText("One-time sign-in codes").click();
    await expect(staff.getByRole("heading", { name: "Used codes" })).toBeVisible();
  } finally {
    await staffContext.close();
    await memberContext.close();
  }
});
