import { expect as baseExpect, test, type Page } from "./fixtures";
import { applicationAnswers } from "../application-answers";
import {
  DESKTOP,
  PHONE,
  STAFF,
  expectNoAxeViolations,
  fillApplication,
  hydrated,
  makePng,
  openMemberDetails,
  uniqueEmail,
  watchConsole,
} from "./support";

/**
 * Taxpayer numbers as people meet them (docs/product.md#taxpayer-identification): an applicant
 * types a sample SSN and is told next to the field, then applies with their own and a joint
 * owner's ITIN; staff see both masked, and reveal one in full only after stating a reason.
 */
test.describe.configure({ timeout: 240_000 });
const expect = baseExpect.configure({ timeout: 20_000 });
const SLOW = { timeout: 60_000 };
const SCREENS = "test-results/taxpayer-id";
const PASSWORD = "Tidewater Crossing 2026";

function form(page: Page) {
  return page.getByRole("form", { name: "Create your account" });
}

test("apply with a taxpayer number and a joint owner's; staff see them masked and reveal one with a reason", async ({
  browser,
  baseURL,
  sessions,
}) => {
  const email = uniqueEmail("tin");
  const applicantContext = await browser.newContext({ baseURL, viewport: DESKTOP });
  const staffContext = await browser.newContext({
    baseURL,
    viewport: DESKTOP,
    storageState: await sessions.stateFor(STAFF),
  });
  const applicant = await applicantContext.newPage();
  const staff = await staffContext.newPage();
  const applicantErrors = watchConsole(applicant);
  const staffErrors = watchConsole(staff);
  try {
    await applicant.goto("/signup");
    await hydrated(applicant);
    await fillApplication(
      applicant,
      applicationAnswers(email, PASSWORD, { first_name: "Quinn", last_name: "Taxpayer", tin: "078-05-1120" }),
    );
    await applicant.getByText("Joint account", { exact: true }).click();
    await form(applicant).getByRole("textbox", { name: "Joint owner's full name" }).fill("Rowan Taxpayer");
    await form(applicant).getByRole("textbox", { name: "Joint owner's email" }).fill(uniqueEmail("tin-joint"));
    await form(applicant).getByRole("textbox", { name: "Joint owner's phone number" }).fill("(555) 010-7777");
    // A non-US person's document asks for its issuing country; an ITIN does not.
    await form(applicant).locator('[name="joint_tin_type"]').selectOption("foreign");
    await expect(form(applicant).locator('[name="joint_tin_country"]')).toBeVisible();
    await form(applicant).locator('[name="joint_tin_type"]').selectOption("itin");
    await expect(form(applicant).locator('[name="joint_tin_country"]')).toBeHidden();
    await form(applicant).locator('[name="joint_tin"]').fill("912-78-4478");

    // The SSN printed on the 1938 wallet insert is refused next to its field.
    await applicant.getByRole("button", { name: "Create account" }).click();
    await expect(form(applicant).getByText(/published as a sample/)).toBeVisible();
    const section = applicant.locator("#section-taxpayer");
    for (const viewport of [DESKTOP, PHONE]) {
      await applicant.setViewportSize(viewport);
      await section.scrollIntoViewIfNeeded();
      await section.screenshot({ path: `${SCREENS}/signup-tin-error-${viewport.width}.png` });
    }
    await applicant.setViewportSize(DESKTOP);
    await form(applicant).locator('[name="tin"]').fill("555-01-2468");
    await form(applicant).locator('[name="password"]').fill(PASSWORD);
    await form(applicant).locator('[name="confirm_password"]').fill(PASSWORD);
    await form(applicant).locator('[name="id_document"]').setInputFiles({
      name: "id.png",
      mimeType: "image/png",
      buffer: makePng(),
    });
    await applicant.getByRole("button", { name: "Create account" }).click();
    await expect(applicant).toHaveURL(/\/registration-success$/, SLOW);

    // Staff see both numbers masked, in the details and in the review dialog.
    await openMemberDetails(staff, email, { hydrate: true });
    await expect(staff.getByText("SSN •••-••-2468")).toBeVisible();
    await expect(staff.getByText("ITIN •••-••-4478")).toBeVisible();
    await expect(staff.locator("body")).not.toContainText("555-01-2468");
    await staff.getByRole("link", { name: "Verify User" }).click();
    const dialog = staff.getByRole("dialog");
    await expect(dialog.getByText("SSN •••-••-2468")).toBeVisible();
    await expect(dialog.getByRole("radiogroup", { name: "How was identity verified?" })).toBeVisible();
    for (const viewport of [DESKTOP, PHONE]) {
      await staff.setViewportSize(viewport);
      await dialog.getByRole("group", { name: "Identity verification" }).scrollIntoViewIfNeeded();
      await staff.screenshot({ path: `${SCREENS}/review-identity-${viewport.width}.png` });
    }
    await staff.setViewportSize(DESKTOP);
    await staff.keyboard.press("Escape");

    // Reveal the joint owner's ITIN: a reason is required, then the number shows once.
    await openMemberDetails(staff, email, { hydrate: true });
    await staff.getByRole("link", { name: "Reveal the full number" }).nth(1).click();
    await expect(staff.getByRole("heading", { name: /Reveal taxpayer ID: Quinn Taxpayer/ })).toBeVisible();
    await expect(staff.getByRole("radio", { name: /Rowan Taxpayer \(joint owner\)/ })).toBeChecked();
    await staff.getByRole("button", { name: "Reveal the full number" }).click();
    await expect(staff.getByText(/Please state why you need the full number/).first()).toBeVisible();
    await expect(staff.getByTestId("tin")).toHaveCount(0);
    await staff.getByLabel("Reason").fill("Form 1099 returned by the IRS for a name/TIN mismatch");
    await staff.getByRole("button", { name: "Reveal the full number" }).click();
    await expect(staff.getByTestId("tin")).toHaveText("912-78-4478", SLOW);
    await expect(staff).not.toHaveURL(/4478/);
    await expectNoAxeViolations(staff);
    for (const viewport of [DESKTOP, PHONE]) {
      await staff.setViewportSize(viewport);
      await staff.screenshot({ path: `${SCREENS}/reveal-tin-${viewport.width}.png`, fullPage: true });
    }

    // The audit log has the reveal with its reason, and not the number.
    await staff.setViewportSize(DESKTOP);
    // Filtered to this member and action: other tests write the log at the same time.
    await staff.goto(`/admin/audit?action=member.tin.reveal&member=${encodeURIComponent(email)}`);
    const entry = staff.getByRole("list", { name: "Audit entries" }).getByRole("listitem").first();
    await expect(entry.getByText("member.tin.reveal")).toBeVisible();
    await expect(entry).toContainText("Form 1099 returned by the IRS");
    await expect(staff.locator("body")).not.toContainText("912-78-4478");
    expect([...applicantErrors, ...staffErrors]).toEqual([]);
  } finally {
    await applicantContext.close();
    await staffContext.close();
  }
});
