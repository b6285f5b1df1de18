import { expect, test } from "./fixtures";
import {
  DESKTOP,
  PHONE,
  STAFF,
  expectNoAxeViolations,
  hydrated,
  openMemberDetails,
  secondStaff,
  watchConsole,
} from "./support";

/**
 * Dual control of staff credits (docs/security.md#dual-control, docs/product.md#payment-queues):
 * one staff member uploads a CSV file whose credits are above the limits; the whole file waits,
 * nothing posted, and the maker cannot approve it; a second staff member reads its rows in
 * Payment queues and approves it, and every row posts. Axe clean at 1440 and 375 px.
 */
test.use({ signedInAs: STAFF });

const SCREENS = "test-results/staff-credit-approval";

function estateFile(): Buffer {
  return Buffer.from(
    [
      "Account Type,Transaction Type,Amount,Description,Category,Date,Time,Status",
      "Checking,credit,12000.00,Estate settlement by wire,Income,,09:15,Completed",
      "Savings,credit,50.00,Cash deposit at the branch,Deposit,,09:20,Completed",
    ].join("\n"),
  );
}

test("a large CSV waits for a second staff member, who reads its rows and approves it; every row posts", async ({
  page,
  newMember,
  browser,
  baseURL,
  pageAs,
}) => {
  test.setTimeout(240_000);
  const errors = watchConsole(page);
  const member = await newMember("dual-control", { temporary: true });
  await openMemberDetails(page, member.email, { listedAs: "Jordan Tester", hydrate: true });
  const section = page.getByRole("region", { name: "Add Transactions" });
  await section
    .getByLabel(/^CSV file/)
    .setInputFiles({ name: "estate.csv", mimeType: "text/csv", buffer: estateFile() });
  await section.getByRole("button", { name: "Upload CSV" }).click();
  await expect(section.getByRole("status")).toHaveText(
    "Sent for a second staff member's approval: a row credits $12,000.00, above $10,000.00 per row; the file credits $12,050.00 in all, above $10,000.00. Nothing is posted until another staff member approves the whole file in Payment queues.",
  );
  for (const [label, viewport] of [
    ["1440", DESKTOP],
    ["375", PHONE],
  ] as const) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await section.screenshot({ path: `${SCREENS}/sent-for-approval-${label}.png` });
  }
  await page.setViewportSize(DESKTOP);
  await section.getByRole("link", { name: "See it in Payment queues" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Payment queues" })).toBeVisible();
  const queue = page.getByTestId("queue-adjustments");
  const mine = queue.getByRole("listitem", { name: /^Add Transactions request/ }).filter({ hasText: member.email });
  await expect(
    mine.getByText("You sent these transactions: another staff member must approve or decline them."),
  ).toBeVisible();
  await expect(mine.getByRole("button", { name: "Approve and post" })).toHaveCount(0);

  const checker = await pageAs(await secondStaff(browser, baseURL!, page));
  await checker.goto("/admin/queues");
  await hydrated(checker);
  const waiting = checker
    .getByTestId("queue-adjustments")
    .getByRole("listitem", { name: /^Add Transactions request/ })
    .filter({ hasText: member.email });
  await expect(waiting.getByText(`CSV file estate.csv, 2 rows · sent by ${STAFF.email}`)).toBeVisible();
  await expect(
    waiting.getByText(/^Why it waits: a row credits \$12,000\.00, above \$10,000\.00 per row/),
  ).toBeVisible();
  const rows = waiting.getByRole("region", { name: /^Rows of request/ });
  await expect(rows.getByRole("row").filter({ hasText: "Estate settlement by wire" })).toContainText("+$12,000.00");
  await expect(rows.getByRole("row").filter({ hasText: "Cash deposit at the branch" })).toContainText("+$50.00");
  for (const [label, viewport] of [
    ["1440", DESKTOP],
    ["375", PHONE],
  ] as const) {
    await checker.setViewportSize(viewport);
    await expectNoAxeViolations(checker);
    await waiting.screenshot({ path: `${SCREENS}/waiting-file-${label}.png` });
  }
  await checker.setViewportSize(DESKTOP);
  await waiting.getByRole("button", { name: "Approve and post" }).click();
  await expect(checker.getByTestId("queue-adjustments").getByRole("status")).toHaveText(
    "Approved and posted: 2 transactions, $12,050.00 in credits and $0.00 in debits.",
  );
  await expect(
    checker
      .getByTestId("queue-adjustments")
      .getByRole("listitem", { name: /^Add Transactions request/ })
      .filter({ hasText: member.email }),
  ).toHaveCount(0);

  const staffAgain = await pageAs(STAFF);
  await openMemberDetails(staffAgain, member.email, { listedAs: "Jordan Tester" });
  const list = staffAgain.getByRole("region", { name: "User Transactions" });
  await expect(list.getByText("Estate settlement by wire")).toBeVisible();
  await expect(list.getByText("Cash deposit at the branch")).toBeVisible();
  expect(errors).toEqual([]);
});
