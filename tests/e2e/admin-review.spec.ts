import { expect, test, type APIRequestContext, type Page } from "./fixtures";
import crypto from "node:crypto";
import { applicationAnswers } from "../application-answers";
import { DESKTOP, PHONE, STAFF, expectNoAxeViolations, openMemberDetails, signIn, watchConsole } from "./support";

/**
 * The back office as staff use it (docs/product.md#back-office): sign in with the emailed code
 * (read from the demo inbox), request information on one application, reject it with a reason,
 * approve another once every checklist item is ticked, and see the tabs, the audit log and the
 * outbox follow. Applicants are made fresh through the real application form, so the demo people
 * stay as other tests expect them.
 */
test.describe.configure({ mode: "serial" });

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);
const run = Date.now().toString(36);

async function apply(
  request: APIRequestContext,
  baseURL: string,
  first_name: string,
  last_name: string,
): Promise<string> {
  const email = `${first_name.toLowerCase()}.${run}@example.com`;
  const response = await request.post("/signup", {
    headers: { origin: baseURL },
    maxRedirects: 0,
    multipart: {
      ...applicationAnswers(email, "Harbor lights at dusk 7", { first_name, last_name }),
      id_document: { name: "id.png", mimeType: "image/png", buffer: PNG },
    },
  });
  expect(response.status(), await response.text()).toBe(302);
  expect(response.headers()["location"]).toBe("/registration-success");
  return email;
}

async function count(page: Page, tab: string): Promise<number> {
  return Number((await page.getByTestId(`count-${tab}`).textContent())!.replace(/,/g, ""));
}

async function openVerify(page: Page) {
  await page.getByRole("link", { name: "Verify User" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toBeVisible();
  return dialog;
}

test("staff request information, reject with a reason and approve once every item is ticked", async ({
  page,
  request,
  baseURL,
  browser,
  signInAs,
}) => {
  // The new member signs in: slow on a busy machine.
  test.setTimeout(150_000);
  const errors = watchConsole(page);
  const first = await apply(request, baseURL!, "Avery", `Infoseeker${run}`);
  const second = await apply(request, baseURL!, "Blake", `Approvable${run}`);

  await signInAs(STAFF);
  await page.goto("/admin");
  await expect(page.getByRole("heading", { name: "Members" })).toBeVisible();
  await expect(page.getByText("Select a user to view and edit their details")).toBeVisible();
  const approvedBefore = await count(page, "approved");
  const rejectedBefore = await count(page, "rejected");

  // Request info on the first application: a description is required.
  await openMemberDetails(page, first);
  let dialog = await openVerify(page);
  await dialog.getByRole("button", { name: "Request info" }).click();
  await expect(page.getByRole("dialog").getByText("Please describe the information you need")).toBeVisible();
  dialog = page.getByRole("dialog");
  await dialog.getByLabel("Information needed").fill("Please upload a photo of the back of your passport card.");
  await dialog.getByRole("button", { name: "Request info" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Information requested" })).toBeVisible();
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(
    page.getByText("Please upload a photo of the back of your passport card.", { exact: true }),
  ).toBeVisible();

  // Reject it: a reason is required.
  dialog = await openVerify(page);
  await dialog.getByRole("button", { name: "Reject" }).click();
  await expect(page.getByRole("dialog").getByText("Please give the reason for the rejection")).toBeVisible();
  dialog = page.getByRole("dialog");
  await dialog.getByLabel("Reason for rejection").fill("We could not verify the identity document.");
  await dialog.getByRole("button", { name: "Reject" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Application rejected" })).toBeVisible();
  await expect(page.getByText(/We could not verify the identity document\./).first()).toBeVisible();

  // Approve the second: Approve stays disabled until every item is ticked.
  await openMemberDetails(page, second);
  dialog = await openVerify(page);
  const approve = dialog.getByRole("button", { name: "Approve" });
  await expect(approve).toBeDisabled();
  const boxes = dialog.getByRole("checkbox");
  await expect(boxes).toHaveCount(10);
  for (let i = 0; i < 9; i++) await boxes.nth(i).check({ force: true });
  await expect(approve).toBeDisabled();
  await boxes.nth(9).check({ force: true });
  // And how identity was verified (31 CFR 1020.220): the method and whether a discrepancy was found.
  await expect(approve).toBeDisabled();
  await dialog.getByRole("radio", { name: /^Documentary/ }).check({ force: true });
  await dialog.getByRole("radio", { name: "None found" }).check({ force: true });
  await expect(approve).toBeEnabled();
  await approve.click();
  await expect(page.getByRole("status").filter({ hasText: "Application approved" })).toBeVisible({ timeout: 20_000 });
  // Staff see the accounts as a list with inline Edit (docs/product.md#member-accounts-staff).
  const accounts = page.getByRole("list", { name: /Accounts of/ });
  await expect(accounts.getByRole("listitem")).toHaveCount(2);
  await expect(accounts.getByText("Checking", { exact: true })).toBeVisible();
  await expect(accounts.getByText("Savings", { exact: true })).toBeVisible();
  await expect(accounts.getByText("$0.00", { exact: true }).first()).toBeVisible();
  await expect(accounts.getByText(/^\d{3} \d{3} \d{4}$/)).toHaveCount(2);
  await expect(page.getByText(/Debit card/)).toBeVisible();

  // The tabs and their counts follow (other workers approve members at the same time, so the
  // counts can only be known to have grown by at least this test's decisions).
  expect(await count(page, "approved")).toBeGreaterThanOrEqual(approvedBefore + 1);
  expect(await count(page, "rejected")).toBeGreaterThanOrEqual(rejectedBefore + 1);
  await page.getByRole("link", { name: /^Rejected/ }).click();
  await page.getByRole("searchbox").fill(first);
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page.getByRole("list", { name: "Members" }).getByText(first)).toBeVisible();

  // The audit log shows each decision with the checklist as ticked.
  await page.goto(`/admin/audit?member=${encodeURIComponent(second)}`);
  const approval = page.getByTestId("audit-entry").filter({ hasText: "application.approve" });
  await expect(approval).toHaveCount(1);
  await approval.getByText("Before and after").click();
  await expect(approval.getByText(/"id_valid": true/)).toBeVisible();
  await page.goto(`/admin/audit?member=${encodeURIComponent(first)}`);
  await expect(page.getByTestId("audit-entry").filter({ hasText: "application.request_info" })).toHaveCount(1);
  await expect(page.getByTestId("audit-entry").filter({ hasText: "application.reject" })).toHaveCount(1);

  // The outbox shows the emails.
  await page.goto("/admin/outbox");
  await expect(
    page.getByTestId("outbox-message").filter({ hasText: first }).filter({ hasText: "info_requested" }),
  ).toHaveCount(1);
  await expect(
    page.getByTestId("outbox-message").filter({ hasText: first }).filter({ hasText: "application_rejected" }),
  ).toHaveCount(1);
  await expect(
    page.getByTestId("outbox-message").filter({ hasText: second }).filter({ hasText: "application_approved" }),
  ).toHaveCount(1);
  // The two refusals above (no description, no reason) are 400 answers by design.
  expect(errors.filter((e) => !/status of 400 \(Bad Request\)/.test(e))).toEqual([]);

  // The approved member's notification bell has the decision (docs/product.md#notifications), from
  // their own address.
  const address = `198.19.${crypto.randomInt(1, 255)}.${crypto.randomInt(1, 255)}`;
  const memberContext = await browser.newContext({ baseURL, extraHTTPHeaders: { "X-Forwarded-For": address } });
  try {
    const memberPage = await memberContext.newPage();
    await signIn(memberPage, second, "Harbor lights at dusk 7");
    await expect(memberPage).toHaveURL(/\/dashboard$/);
    await memberPage.getByRole("button", { name: /^Notifications, \d+ unread$/ }).click();
    await expect(
      memberPage.getByRole("dialog", { name: "Notifications" }).getByText("Your membership is approved").first(),
    ).toBeVisible();
  } finally {
    await memberContext.close();
  }
});

test("the back office pages and the dialog are accessible at 1440 and 375 px", async ({ page, signInAs }) => {
  // Twelve full axe scans: slow on a busy machine.
  test.setTimeout(300_000);
  await signInAs(STAFF);
  await page.goto("/admin");
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    for (const path of ["/admin", "/admin?create=1", "/admin/audit", "/admin/outbox", "/admin/messages"]) {
      await page.goto(path);
      await expect(page.locator("h1")).toBeVisible();
      await expectNoAxeViolations(page);
    }
    // The verification dialog of a member.
    await page.goto("/admin?tab=approved");
    await page.getByRole("list", { name: "Members" }).getByRole("link").first().click();
    await page.getByRole("link", { name: "Verify User" }).click();
    await expect(page.getByRole("dialog")).toBeVisible();
    await expectNoAxeViolations(page);
    await page.keyboard.press("Escape");
    await expect(page.getByRole("dialog")).toHaveCount(0);
  }
});

test("without JavaScript the list, search and dialog still render from the server", async ({ pageAs }) => {
  // Signing in without JavaScript is staff-identity.spec.ts's subject; this one starts signed in.
  const page = await pageAs(STAFF, { javaScriptEnabled: false });
  await page.goto("/admin");
  await page.getByRole("searchbox").fill("alex");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(/q=alex/);
  await page.getByRole("list", { name: "Members" }).getByRole("link").first().click();
  await page.getByRole("link", { name: "Verify User" }).click();
  await expect(page).toHaveURL(/verify=1/);
  await expect(page.getByRole("heading", { name: /^Verify / })).toBeVisible();
});
