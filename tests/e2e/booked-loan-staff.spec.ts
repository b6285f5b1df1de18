import { expect as baseExpect, test } from "./fixtures";
import { DESKTOP, PHONE, STAFF, expectNoAxeViolations, fundedMember, hydrated, watchConsole } from "./support";
import type { Page } from "@playwright/test";

/**
 * Staff's view of a booked loan (docs/product.md#booked-loans-staff) in the browser: a member's
 * loan is booked and paid; staff find it under Loans, read its figures, history and schedule, and
 * correct the payment (a reason required, next to its field); the member sees the correction in
 * the loan's history. Pages at 1440 and 375 px, axe clean. (Waiving a late fee is the same form;
 * a fee needs the job clock 41 days on, which the shared browser-test server cannot afford, so the
 * waiver is tested in tests/integration/loans/loan-staff-actions.test.ts and the route's matrix.)
 */
const expect = baseExpect.configure({ timeout: 15_000 });
const SHOTS = process.env.SHOTS_DIR ?? "test-results/booked-loan-staff";
test.setTimeout(240_000);

async function shots(page: Page, name: string) {
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SHOTS}/${name}-${viewport.width}.png`, fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}

test("staff open a booked loan and reverse a payment posted wrongly; the member sees it", async ({
  page,
  newMember,
  pageAs,
  signInAs,
  signedIn,
}) => {
  const member = await fundedMember({ newMember, pageAs }, "booked-loan", "500.00");
  await signInAs(member);
  const errors = watchConsole(page);
  const dollars = 1_000 + Math.floor(Math.random() * 9_000);
  const shown = `$${dollars.toLocaleString("en-US")}.00`;

  await page.goto("/dashboard/loans/apply/personal");
  await hydrated(page);
  await page.getByLabel("Amount to borrow ($)").fill(String(dollars));
  await page.getByLabel("Months to repay").fill("24");
  await page.getByLabel("What is the loan for?").fill("New windows");
  await page.getByLabel("Yearly income before taxes ($)").fill("61000");
  await page.getByLabel("Employer").fill("Harbor Marine");
  await page.getByRole("button", { name: "Send application" }).click();
  await expect(page.getByText("Your application was sent.")).toBeVisible();
  const applicationUrl = page.url().replace(/\?.*$/, "");

  const staff = await (await signedIn(STAFF)).newPage();
  await staff.goto("/admin/loans");
  await hydrated(staff);
  await staff.getByRole("row").filter({ hasText: shown }).getByRole("link").click();
  await hydrated(staff);
  await staff.getByLabel("Interest rate (%)").fill("8.99");
  await staff.getByRole("button", { name: "Approve" }).click();
  await expect(staff.getByText(/Approved: .* was told in the app and by email/)).toBeVisible();

  await page.goto(applicationUrl);
  await hydrated(page);
  await page.getByRole("button", { name: "Accept this loan" }).click();
  await expect(page.getByRole("heading", { name: "Your loan" })).toBeVisible();
  await page.goto("/dashboard/loans");
  await page
    .getByRole("region", { name: "Your loans" })
    .getByRole("link", { name: /Personal Loan L-\d+/ })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: /Personal Loan L-\d+/ })).toBeVisible();
  const loanUrl = page.url();
  const number = (await page.getByRole("heading", { level: 1 }).textContent())!.match(/L-\d+/)![0];
  await hydrated(page);
  const pay = page.getByRole("form", { name: "Make a payment" });
  await pay.getByLabel("Pay from").selectOption({ index: 1 });
  await pay.getByText("Another amount").click();
  await pay.getByLabel("Other amount ($)").fill("120");
  await pay.getByRole("button", { name: "Pay" }).click();
  await expect(page.getByText("Your payment was made.")).toBeVisible();

  // The back office: Booked loans under Loans, then the loan's page.
  await staff.goto("/admin/loans");
  await staff
    .getByRole("region", { name: "Booked loans", exact: true })
    .getByRole("link", { name: new RegExp(number) })
    .click();
  await expect(staff.getByRole("heading", { level: 1, name: new RegExp(`${number}: `) })).toBeVisible();
  await expect(staff.getByTestId("staff-loan-history").getByText("Payment", { exact: true })).toBeVisible();
  await hydrated(staff);
  await shots(staff, "loan");
  const entry = staff.getByLabel("Entry", { exact: true });
  const value = await entry
    .locator("option")
    .evaluateAll(
      (options) =>
        (options as HTMLOptionElement[]).find((o) => o.textContent?.includes("Reverse the payment: $120.00"))?.value ??
        "",
    );
  expect(value).not.toBe("");
  await entry.selectOption(value);
  await staff.getByRole("button", { name: "Post the correction" }).click();
  await expect(staff.getByText("Say why: the reason is kept with the correction.")).toBeVisible();
  await shots(staff, "correct-error");
  await staff.getByLabel(/^Reason/).fill("Member paid from the wrong account by mistake");
  await staff.getByRole("button", { name: "Post the correction" }).click();
  await expect(
    staff.getByText(`Payment reversed: $120.00 on ${number}. The member sees it in the loan's history.`),
  ).toBeVisible();
  await expect(staff.getByRole("region", { name: "Corrections" })).toContainText("Posted");
  await shots(staff, "corrected");

  await page.goto(loanUrl);
  await expect(page.getByTestId("loan-history").getByText("Payment reversed")).toBeVisible();
  await shots(page, "member-history");
  expect(errors.filter((e) => !e.includes("status of 400"))).toEqual([]);
});
