import { expect, test } from "./fixtures";
import { DESKTOP, PHONE, STAFF, expectNoAxeViolations, fundedMember, hydrated, openMemberDetails } from "./support";

/**
 * Wrong step-up codes lock the money actions that need a code (docs/product.md#step-up-codes): a
 * member who types 10 wrong codes on the code step reads the lock next to the code field, Continue
 * and the Cards page's "Email me a code" say it instead of sending a code, and staff read it on the
 * member's details in the back office. At 375 and 1440 px.
 */
test.setTimeout(300_000);

const LOCKED =
  "Too many wrong codes. For your security, transfers and card services that need a code are locked for 15 minutes. We have emailed you.";

test("10 wrong transfer codes: the lock is said next to the code and shown to staff", async ({
  page,
  newMember,
  pageAs,
  signInAs,
}) => {
  const posted = { timeout: 15_000 };
  await page.setViewportSize(PHONE);
  const member = await fundedMember({ newMember, pageAs }, "codes", "40.00");
  await signInAs(member);
  await page.goto("/dashboard?transfer=ach#transfer");
  await hydrated(page);
  const panel = page.getByRole("tabpanel");
  await panel.getByLabel("Bank").selectOption({ label: "JPMorgan Chase Bank (021000021)" });
  await panel.getByLabel("Account number").fill("123456789");
  await panel.getByLabel("Name on the account").fill("Lee Park");
  await panel.getByLabel("Amount").fill("12.50");
  await panel.getByLabel("Reference").fill("Rent share");
  await panel.getByRole("button", { name: "Continue" }).click();
  const code = panel.getByLabel("One-time code");
  await expect(code).toBeVisible(posted);

  // Nine wrong codes are each "Invalid OTP"; the tenth locks.
  for (let i = 1; i <= 10; i++) {
    await code.fill(String(100000 + i));
    await panel.getByRole("button", { name: "Confirm transfer" }).click();
    await expect(code).toHaveAccessibleDescription(i < 10 ? "Invalid OTP" : LOCKED, posted);
  }
  await expect(code).toHaveAttribute("aria-invalid", "true");
  await expectNoAxeViolations(page);
  await page.setViewportSize(DESKTOP);
  await expectNoAxeViolations(page);

  // Continue does not send a new code while locked: it says why.
  await page.goto("/dashboard?transfer=ach#transfer");
  await hydrated(page);
  await panel.getByLabel("Bank").selectOption({ label: "JPMorgan Chase Bank (021000021)" });
  await panel.getByLabel("Account number").fill("123456789");
  await panel.getByLabel("Name on the account").fill("Lee Park");
  await panel.getByLabel("Amount").fill("12.50");
  await panel.getByLabel("Reference").fill("Rent share");
  await panel.getByRole("button", { name: "Continue" }).click();
  await expect(panel.getByText(LOCKED)).toBeVisible(posted);
  await expect(panel.getByLabel("One-time code")).toHaveCount(0);

  // The Cards page's codes are locked too: "Email me a code" says why instead of sending one.
  await page.goto("/dashboard/cards");
  await hydrated(page);
  await page.getByText("View Card Details").first().click();
  await page.getByRole("button", { name: "Email me a code" }).first().click();
  await expect(page.getByText(LOCKED).first()).toBeVisible(posted);
  await expectNoAxeViolations(page);

  // Staff see the lock on the member's details.
  const staff = await pageAs(STAFF);
  for (const size of [DESKTOP, PHONE]) {
    await staff.setViewportSize(size);
    await openMemberDetails(staff, member.email, { hydrate: true });
    await expect(
      staff.getByRole("status").filter({
        hasText:
          /^Transfers and card services that need a code are locked until .+ after 10 wrong codes in 15 minutes\./,
      }),
    ).toBeVisible();
    await expectNoAxeViolations(staff);
  }
});
