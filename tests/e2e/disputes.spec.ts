import { expect as baseExpect, test } from "./fixtures";
import { DESKTOP, PHONE, STAFF, expectNoAxeViolations, fundedMember, hydrated, watchConsole } from "./support";
import type { Page } from "@playwright/test";

/**
 * Report a problem (Regulation E error resolution, docs/product.md#disputes) in the browser. A new
 * member, given money by another member, reports a problem with that transfer from the history and
 * gets a case number; staff find it in the disputes queue with its clock, credit it provisionally,
 * and the member sees the credit on the case and in the history. Staff resolve it (error found: the
 * credit is final); the member reports the same transfer again, staff credit and resolve with no
 * error found, and the member reads the date the provisional credit will be debited. Pages at
 * 1440 and 375 px, axe clean.
 */
const expect = baseExpect.configure({ timeout: 15_000 });
const SHOTS = process.env.SHOTS_DIR ?? "test-results/disputes";
test.setTimeout(300_000);

async function shots(page: Page, name: string) {
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SHOTS}/${name}-${viewport.width}.png`, fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}

async function report(page: Page, kind: string, details: string): Promise<string> {
  await page.goto("/dashboard/transactions");
  await hydrated(page);
  const row = page.getByRole("row").filter({ hasText: "$60.00" }).first();
  await row.getByRole("link", { name: /Report a problem/ }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Report a problem" })).toBeVisible();
  await hydrated(page);
  // The radio is drawn by its label (the input itself is visually hidden): a person clicks the words.
  await page.getByText(kind, { exact: true }).click();
  await expect(page.getByRole("radio", { name: kind })).toBeChecked();
  await page.getByLabel("What happened").fill(details);
  await page.getByRole("button", { name: "Send report" }).click();
  const received = page.getByText(/We received your report: case D-\d{6}/);
  await expect(received).toBeVisible();
  return /D-\d{6}/.exec((await received.textContent()) ?? "")![0];
}

async function openCase(staff: Page, number: string) {
  await staff.goto("/admin/disputes");
  await hydrated(staff);
  const row = staff.getByRole("row").filter({ hasText: number });
  await expect(row.getByText(/Resolve, or provisionally credit/)).toBeVisible();
  await expect(row.getByText("12 CFR 1005.11(c)(3)(i): 20 business days")).toBeVisible();
  return row;
}

test("a member reports a problem and sees the provisional credit; staff resolve it, error found", async ({
  page,
  newMember,
  pageAs,
  signInAs,
  signedIn,
}) => {
  const member = await fundedMember({ newMember, pageAs }, "dispute", "60.00");
  await signInAs(member);
  const errors = watchConsole(page);

  // The form: a missing kind and too short details are refused by their fields.
  await page.goto("/dashboard/transactions");
  await hydrated(page);
  await page
    .getByRole("row")
    .filter({ hasText: "$60.00" })
    .first()
    .getByRole("link", { name: /Report a problem/ })
    .click();
  await hydrated(page);
  await page.getByLabel("What happened").fill("short");
  await page.getByRole("button", { name: "Send report" }).click();
  await expect(page.getByText("Choose what is wrong.")).toBeVisible();
  await expect(page.getByText(/at least 10 characters/)).toBeVisible();
  await shots(page, "report-form");

  const first = await report(page, "The amount is wrong", "Sam meant to send me $80, not $60.");
  await shots(page, "case-received");

  const staff = await (await signedIn(STAFF)).newPage();
  const row = await openCase(staff, first);
  await shots(staff, "queue");
  await row.getByRole("link", { name: first }).click();
  await hydrated(staff);
  await expect(staff.getByText("Sam meant to send me $80, not $60.")).toBeVisible();
  await staff.getByLabel("Add a note (staff only)").fill("Asked Sam to confirm the amount.");
  await staff.getByRole("button", { name: "Add note" }).click();
  await expect(staff.getByRole("status").filter({ hasText: "Note added." })).toBeVisible();
  await staff.getByLabel("Amount").fill("60.00");
  await staff.getByRole("button", { name: "Credit provisionally" }).click();
  await expect(staff.getByRole("status").filter({ hasText: "Provisionally credited $60.00" })).toBeVisible();
  await shots(staff, "staff-case");

  // The member sees the provisional credit on the case and in the history; never the staff note.
  await page.reload();
  await expect(page.getByText("Provisionally credited").first()).toBeVisible();
  await expect(page.getByText(/^\$60\.00 on /)).toBeVisible();
  await expect(page.getByText("Asked Sam to confirm")).toHaveCount(0);
  await shots(page, "case-credited");
  await page.goto("/dashboard/transactions");
  await expect(page.getByRole("row").filter({ hasText: `Provisional credit: case ${first}` })).toBeVisible();

  // Error found: the credit is final.
  await staff.getByLabel("Error found", { exact: true }).check();
  await staff.getByLabel("Explanation for the member").fill("Sam confirmed $80; the $20 is not yet corrected by Sam.");
  await staff.getByRole("button", { name: "Resolve case" }).click();
  await expect(staff.getByRole("status").filter({ hasText: "Resolved: error found" })).toBeVisible();

  // "No error found" (the provisional credit debited after 5 business days' notice) is resolved in
  // tests/integration/disputes/dispute-life.test.ts; its browser half is still to be written: a
  // transaction with an open case offers no second "Report a problem", so it needs a second one.
  expect(errors.filter((e) => !e.includes("status of 400"))).toEqual([]);
});
