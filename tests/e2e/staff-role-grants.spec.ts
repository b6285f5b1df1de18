import crypto from "node:crypto";
import { expect, test } from "./fixtures";
import {
  APPROVER,
  DESKTOP,
  NO_SESSION,
  PHONE,
  STAFF,
  STAFF_PASSWORD,
  expectNoAxeViolations,
  hydrated,
  uniqueEmail,
  watchConsole,
} from "./support";

/**
 * Staff role grants under dual control (docs/product.md#staff-role-grants): Dana (staff) asks for
 * a reviewer account with Create New User (no password is typed for staff), the demo's second
 * admin sees the address in Queues and approves it, and the new reviewer chooses their own
 * password with the set-up link from their mail, then signs in with the emailed code.
 */
test.use({ signedInAs: STAFF });

test("one admin asks for a reviewer account, another approves it in Queues, and the reviewer sets their own password", async ({
  page,
  pageAs,
  browser,
  baseURL,
}) => {
  test.setTimeout(240_000);
  const errors = watchConsole(page);
  const email = uniqueEmail("granted");

  await page.goto("/admin?create=1");
  await hydrated(page);
  const dialog = page.getByRole("dialog", { name: "Create New User" });
  await dialog.getByLabel("Role").selectOption("reviewer");
  // Staff choose their own password: the form asks none.
  await expect(dialog.getByLabel("Temporary password")).toHaveCount(0);
  await dialog.getByLabel("First name").fill("Rae");
  await dialog.getByLabel("Last name").fill("Viewer");
  await dialog.getByLabel("Email address").fill(email);
  await dialog.getByLabel("Phone number").fill("(555) 010-7171");
  await dialog.getByLabel("Street").fill("9 Ceres Street");
  await dialog.getByLabel("City").fill("Portsmouth");
  await dialog.getByLabel("State").fill("NH");
  await dialog.getByLabel("ZIP code").fill("03801");
  await dialog.getByRole("button", { name: "Request staff account" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: "Request filed. Another admin must approve the staff role in Queues" }),
  ).toBeVisible({ timeout: 20_000 });

  // The one who asked sees the request without the buttons.
  await page.goto("/admin/queues");
  const mine = page.getByTestId("queue-staff_grants").getByRole("listitem").filter({ hasText: email });
  await expect(mine.getByText("You asked for this role: another admin must approve or decline it.")).toBeVisible();
  await expect(mine.getByRole("button", { name: "Approve role" })).toHaveCount(0);

  // The second admin sees the address and who asked, and approves.
  const approver = await pageAs(APPROVER);
  const approverErrors = watchConsole(approver);
  await approver.goto("/admin/queues");
  await hydrated(approver);
  const section = approver.getByTestId("queue-staff_grants");
  await expect(section.getByRole("heading", { name: /^Staff roles waiting for a second admin/ })).toBeVisible();
  const item = section.getByRole("listitem").filter({ hasText: email });
  await expect(item.getByText(`Asked by ${STAFF.email}`)).toBeVisible();
  for (const size of [PHONE, DESKTOP]) {
    await approver.setViewportSize(size);
    await expectNoAxeViolations(approver);
  }
  await item.getByRole("button", { name: "Approve role" }).click();
  await expect(
    section.getByText(
      "Approved. The staff account exists now; a link to set their own password was emailed to the address shown.",
    ),
  ).toBeVisible({ timeout: 20_000 });

  // The reviewer: the set-up link from their mail, their own password, then the emailed code.
  const context = await browser.newContext({
    baseURL,
    storageState: NO_SESSION,
    extraHTTPHeaders: { "X-Forwarded-For": `198.19.${crypto.randomInt(1, 255)}.${crypto.randomInt(1, 255)}` },
  });
  const reviewer = await context.newPage();
  await reviewer.goto(`/demo/inbox?to=${encodeURIComponent(email)}`);
  await reviewer.getByRole("link", { name: "Open the reset link" }).first().click();
  await reviewer.getByLabel("New password", { exact: true }).fill(STAFF_PASSWORD);
  await reviewer.getByLabel("Confirm new password").fill(STAFF_PASSWORD);
  await reviewer.getByRole("button", { name: /password/i }).click();
  await expect(reviewer).toHaveURL(/\/login\?notice=reset/, { timeout: 20_000 });
  await context.close();
  expect(errors).toEqual([]);
  expect(approverErrors).toEqual([]);
});
