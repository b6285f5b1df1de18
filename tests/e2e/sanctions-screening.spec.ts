import path from "node:path";
import { expect as baseExpect, test, type Page } from "./fixtures";
import {
  APPROVER,
  DESKTOP,
  PHONE,
  STAFF,
  expectNoAxeViolations,
  fundedMember,
  hydrated,
  inboxCode,
  type TestMember,
} from "./support";

/**
 * Sanctions screening as people live it (docs/product.md#sanctions-screening): staff load OFAC's
 * files; a member's To US Bank payment to a name on the list is held with "We need to review this
 * payment" and no list named; staff clear one possible match with a reason (the payment goes to
 * its queue) and confirm another, which a second staff member approves (the payment is stopped
 * and the account frozen). From the confirmed match, staff open a suspicious activity report, a
 * second staff member approves it, and it is marked filed with its BSA ID (docs/product.md#suspicious-activity-reports).
 * The queue, an item and the report are photographed at 1440 and 375 px.
 */
const expect = baseExpect.configure({ timeout: 15_000 });
const SCREENS = "test-results/sanctions-screening";
const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/sanctions");
test.setTimeout(300_000);
test.describe.configure({ mode: "serial" });

// Both listed in tests/fixtures/sanctions: GONZALEZ MORENO, Jose Luis (10005); PETROVSKY, Dmitri Sergeyevich (10002).
const CLEARED_PAYEE = "Jose Luis Gonzales Moreno";
const CONFIRMED_PAYEE = "Dmitry Petrovskiy";
let member: TestMember;
/** The confirmed match's page, where a suspicious activity report is opened from. */
let confirmedItemUrl = "";

async function sendAch(page: Page, payee: string, dollars: string) {
  await page.goto("/dashboard?transfer=ach#transfer");
  await hydrated(page);
  const panel = page.getByRole("tabpanel");
  const from = panel.getByLabel("From");
  const checking = await from
    .locator("option")
    .evaluateAll(
      (options) => (options as HTMLOptionElement[]).find((o) => o.textContent?.includes("Checking"))?.value ?? "",
    );
  await from.selectOption(checking);
  await panel.getByLabel("Bank").selectOption({ label: "JPMorgan Chase Bank (021000021)" });
  await panel.getByLabel("Account number").fill("123456789");
  await panel.getByLabel("Name on the account").fill(payee);
  await panel.getByLabel("Amount").fill(dollars);
  await panel.getByLabel("Reference").fill("Invoice 42");
  await panel.getByRole("button", { name: "Continue" }).click();
  await panel.getByLabel("One-time code").fill(await inboxCode(page, member.email));
  await panel.getByRole("button", { name: "Confirm transfer" }).click();
  const answer = panel.getByRole("status").filter({ hasText: `We need to review this payment: $${dollars}` });
  await expect(answer).toBeVisible();
  await expect(answer).toContainText("The money is held while we review it.");
  // The member is never told which list, or that there is one.
  await expect(answer).not.toContainText(/sanction|OFAC|SDN|list/i);
}

/** The queue's item for `payee` on /admin/sanctions. */
const itemFor = (page: Page, payee: string) =>
  page
    .getByTestId("queue-screening")
    .getByRole("listitem")
    .filter({ hasText: payee })
    .filter({ hasText: member.email });

test("staff load OFAC's files; a member's payments to listed names are held: We need to review this payment", async ({
  page,
  newMember,
  pageAs,
  signInAs,
}) => {
  const staff = await pageAs(STAFF);
  await staff.goto("/admin/sanctions");
  await staff
    .getByLabel("List files")
    .setInputFiles(["SDN.CSV", "ALT.CSV", "ADD.CSV"].map((name) => path.join(FIXTURES, name)));
  await staff.getByLabel("Published by OFAC on").fill("2026-11-28");
  await staff.getByRole("button", { name: "Upload and load" }).click();
  // A server this spec ran on before (or this test's first try) has the same files already: the refusal says so,
  // next to the files field.
  await expect(
    staff
      .getByRole("status")
      .filter({ hasText: /Specially Designated Nationals \(SDN\) list: 10 entries loaded/ })
      .or(staff.getByText(/already loaded on \d{4}-\d{2}-\d{2}\. Nothing was loaded\./)),
  ).toBeVisible();

  member = await fundedMember({ newMember, pageAs }, "screened", "300.00");
  await signInAs(member);
  await sendAch(page, CLEARED_PAYEE, "20.00");
  await sendAch(page, CONFIRMED_PAYEE, "25.00");
  await page.goto("/dashboard/payments");
  await expect(
    page.getByTestId("member-payment").filter({ hasText: CLEARED_PAYEE }).getByText("In review"),
  ).toBeVisible();
});

test("staff clear a possible match with a reason: the payment goes to its queue", async ({ pageAs }) => {
  const staff = await pageAs(STAFF);
  await staff.goto("/admin/sanctions");
  await hydrated(staff);
  const item = itemFor(staff, CLEARED_PAYEE);
  await expect(item).toContainText("GONZALEZ MORENO, Jose Luis");
  await expect(item).toContainText(/score 0\.9\d\d|score 1\.000/);
  for (const [size, name] of [
    [DESKTOP, "queue-1440"],
    [PHONE, "queue-375"],
  ] as const) {
    await staff.setViewportSize(size);
    await expectNoAxeViolations(staff);
    await staff.screenshot({ path: `${SCREENS}/${name}.png`, fullPage: true });
  }
  await staff.setViewportSize(DESKTOP);
  const clear = item.locator("form").filter({ has: staff.getByRole("button", { name: "Clear: not this party" }) });
  // A reason is required: said next to the field (the browser's own check first, then the server's).
  await clear.getByLabel("Reason").fill("   ");
  await clear.getByRole("button", { name: "Clear: not this party" }).click();
  await expect(clear.getByText("Enter the reason.")).toBeVisible();
  await clear.getByLabel("Reason").fill("Payee is a US landlord; the account holder's ID was checked");
  await clear.getByRole("button", { name: "Clear: not this party" }).click();
  await expect(
    staff.getByRole("status").filter({ hasText: "Cleared: the payment goes to its queue and out with the next file." }),
  ).toBeVisible();
  await expect(itemFor(staff, CLEARED_PAYEE)).toHaveCount(0);

  const page = await pageAs(member);
  await page.goto("/dashboard/payments");
  await expect(
    page.getByTestId("member-payment").filter({ hasText: CLEARED_PAYEE }).getByText("Pending"),
  ).toBeVisible();
});

test("staff confirm a possible match; a second staff member approves: the payment is stopped, the account frozen", async ({
  pageAs,
}) => {
  const staff = await pageAs(STAFF);
  await staff.goto("/admin/sanctions");
  await itemFor(staff, CONFIRMED_PAYEE)
    .getByRole("link", { name: /^Item \d+: every match and its history$/ })
    .click();
  await expect(staff.getByRole("heading", { level: 1, name: /^Screening item \d+$/ })).toBeVisible();
  const itemUrl = staff.url();
  confirmedItemUrl = itemUrl;
  await hydrated(staff);
  await expect(staff.getByText("PETROVSKY, Dmitri Sergeyevich").first()).toBeVisible();
  const possible = staff.getByRole("region", { name: "Possible match (payment)" });
  await expect(possible).toContainText("Payment of $25.00, reference “Invoice 42” · In review");
  const confirm = staff.locator("form").filter({ has: staff.getByRole("button", { name: "Confirm the match" }) });
  await confirm.getByLabel("Reason").fill("Name and the country of the bank agree with the listing");
  await confirm.getByRole("button", { name: "Confirm the match" }).click();
  await expect(
    staff.getByRole("status").filter({ hasText: "Confirmation asked: another staff member must approve it." }),
  ).toBeVisible();
  await expect(staff.getByText("You asked to confirm it: another staff member must approve or decline.")).toBeVisible();
  await expect(staff.getByRole("button", { name: "Approve: block and freeze" })).toHaveCount(0);
  for (const [size, name] of [
    [DESKTOP, "item-1440"],
    [PHONE, "item-375"],
  ] as const) {
    await staff.setViewportSize(size);
    await expectNoAxeViolations(staff);
    await staff.screenshot({ path: `${SCREENS}/${name}.png`, fullPage: true });
  }

  const approver = await pageAs(APPROVER);
  await approver.goto(itemUrl);
  await hydrated(approver);
  await approver.getByRole("button", { name: "Approve: block and freeze" }).click();
  await expect(
    approver
      .getByRole("status")
      .filter({ hasText: "Confirmed: the payment is blocked, its money stays held, and the account is frozen." }),
  ).toBeVisible();
  await expect(approver.getByText("Confirmed", { exact: true })).toBeVisible();
  // The report OFAC asks for within 10 business days, drafted for staff to file.
  const report = approver.getByRole("region", { name: "Report to OFAC: draft" });
  await expect(report).toContainText("31 CFR 501.603 (blocked property), within 10 business days");
  await expect(report).toContainText(
    'To US Bank payment of $25.00 to Dmitry Petrovskiy, JPMorgan Chase Bank, reference "Invoice 42", stopped: never sent.',
  );
  await approver.setViewportSize(DESKTOP);
  await approver.screenshot({ path: `${SCREENS}/item-confirmed-1440.png`, fullPage: true });
  await approver.setViewportSize(PHONE);
  await expectNoAxeViolations(approver);
  await approver.screenshot({ path: `${SCREENS}/item-confirmed-375.png`, fullPage: true });
  await expect(approver.getByRole("listitem").filter({ hasText: "Confirmation approved" })).toBeVisible();

  const page = await pageAs(member);
  await page.goto("/dashboard/payments");
  await expect(
    page.getByTestId("member-payment").filter({ hasText: CONFIRMED_PAYEE }).getByText("Stopped"),
  ).toBeVisible();
});

test("from the confirmed match staff open a suspicious activity report; a second staff member approves; it is marked filed", async ({
  pageAs,
}) => {
  const staff = await pageAs(STAFF);
  await staff.goto(confirmedItemUrl);
  await staff.getByRole("link", { name: "Open a suspicious activity report" }).click();
  await expect(staff.getByRole("heading", { level: 1, name: "Suspicious activity reports" })).toBeVisible();
  await hydrated(staff);
  const form = staff.getByRole("form", { name: "Open a suspicious activity report" });
  await expect(form).toContainText(/Confirmed screening match, item \d+ \(Dmitry Petrovskiy\)/);
  await expect(form.getByLabel("Amount involved ($)")).toHaveValue("25.00");
  // Bad input is answered next to the field.
  await form.getByText("Yes", { exact: true }).click();
  await form.getByLabel("Facts and narrative").fill("Too short");
  await form.getByRole("button", { name: "Open the report" }).click();
  await expect(form.getByText(/Describe the activity: who, what, when, where and why/)).toBeVisible();
  await form
    .getByLabel("Facts and narrative")
    .fill(
      "The member tried to send $25.00 to Dmitry Petrovskiy, who matches the SDN entry 10002 (PETROVSKY, Dmitri Sergeyevich). The payment was stopped and the account frozen.",
    );
  for (const [size, name] of [
    [DESKTOP, "sar-open-1440"],
    [PHONE, "sar-open-375"],
  ] as const) {
    await staff.setViewportSize(size);
    await expectNoAxeViolations(staff);
    await staff.screenshot({ path: `${SCREENS}/${name}.png`, fullPage: true });
  }
  await staff.setViewportSize(DESKTOP);
  await form.getByRole("button", { name: "Open the report" }).click();
  await expect(staff.getByRole("heading", { level: 1, name: /^Suspicious activity report \d+$/ })).toBeVisible();
  await expect(staff.getByText("Waiting for a second staff member's approval")).toBeVisible();
  await expect(staff.getByText("You opened this report: another staff member must approve its filing.")).toBeVisible();
  const reportUrl = staff.url();

  const approver = await pageAs(APPROVER);
  await approver.goto(reportUrl);
  await hydrated(approver);
  await expect(approver.getByText(/matches the SDN entry 10002/)).toBeVisible();
  await approver.getByRole("button", { name: "Approve the filing" }).click();
  await expect(
    approver
      .getByRole("status")
      .filter({ hasText: "Approved: file it on the BSA E-Filing System, then record its BSA ID here." }),
  ).toBeVisible();

  await staff.goto(reportUrl);
  await hydrated(staff);
  const record = staff.getByRole("form", { name: "Record the filing" });
  await record.getByLabel("BSA ID").fill("12-34");
  await record.getByRole("button", { name: "Mark as filed" }).click();
  await expect(record.getByText(/Enter the BSA ID the BSA E-Filing System acknowledged/)).toBeVisible();
  await record.getByLabel("BSA ID").fill("31000123456789");
  await record.getByRole("button", { name: "Mark as filed" }).click();
  await expect(
    staff.getByRole("status").filter({ hasText: "Recorded as filed, BSA ID 31000123456789." }),
  ).toBeVisible();
  for (const [size, name] of [
    [DESKTOP, "sar-filed-1440"],
    [PHONE, "sar-filed-375"],
  ] as const) {
    await staff.setViewportSize(size);
    await expectNoAxeViolations(staff);
    await staff.screenshot({ path: `${SCREENS}/${name}.png`, fullPage: true });
  }
  await staff.setViewportSize(DESKTOP);
  await staff.goto("/admin/sar");
  await expect(staff.getByRole("listitem").filter({ hasText: "BSA ID 31000123456789" })).toBeVisible();

  // The member hears nothing of it.
  const page = await pageAs(member);
  await page.goto("/dashboard");
  await expect(page.getByText(/suspicious activity/i)).toHaveCount(0);
});
