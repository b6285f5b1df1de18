import { expect as baseExpect, test } from "./fixtures";
import { DESKTOP, PHONE, STAFF, expectNoAxeViolations, hydrated, watchConsole } from "./support";
import type { Page } from "@playwright/test";
import fs from "node:fs";
import { parseSync } from "ofx-js";

/**
 * Loans (docs/product.md#loans) in the browser: a member applies for a personal loan (the form's
 * messages by their fields first), staff find it in the back office's queue and approve it with a
 * rate and term, and the member reads the offer's Truth in Lending box, accepts it and downloads
 * the disclosure; then sees the loan and pays it (docs/product.md#loan-servicing) and turns autopay
 * on. Pages at 1440 and 375 px, axe clean.
 */
const expect = baseExpect.configure({ timeout: 15_000 });
const SHOTS = process.env.SHOTS_DIR ?? "test-results/loans";
test.setTimeout(240_000);

async function shots(page: Page, name: string) {
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SHOTS}/${name}-${viewport.width}.png`, fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}

test("a member applies, staff approve, the member reads the disclosure and accepts", async ({
  page,
  newMember,
  signInAs,
  signedIn,
}) => {
  const member = await newMember("loans");
  await signInAs(member);
  const errors = watchConsole(page);
  // A whole-dollar amount no other test asks for, to find this application in the shared queue.
  const dollars = 2_000 + Math.floor(Math.random() * 8_000);
  const shown = `$${dollars.toLocaleString("en-US")}.00`;

  // The public personal loans page leads to the application; the other pages still open an account.
  await page.goto("/products/personal-loans");
  await expect(page.getByRole("link", { name: "Apply online" })).toHaveAttribute(
    "href",
    "/dashboard/loans/apply/personal",
  );
  await page.goto("/products/premier-checking");
  await expect(page.getByRole("link", { name: "Apply online" })).toHaveCount(0);

  await page.goto("/dashboard");
  await hydrated(page);
  await page.getByRole("button", { name: /account menu/ }).click();
  await page.getByRole("menuitem", { name: "Loans" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Loans" })).toBeVisible();
  await expect(page.getByText("5.99% to 17.99%")).toBeVisible();
  await shots(page, "products");

  await page.getByRole("link", { name: "Apply for a personal loan" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Apply for a personal loan" })).toBeVisible();
  await hydrated(page);
  // What the browser checks first: the fields left empty, each with its message.
  await page.getByRole("button", { name: "Send application" }).click();
  await expect(page.getByText("Enter the amount you want to borrow.")).toBeVisible();
  await expect(page.getByText("Tell us what the loan is for.")).toBeVisible();
  // What only the server knows: the product's range, by the field.
  await page.getByLabel("Amount to borrow ($)").fill("500");
  await page.getByLabel("Months to repay").fill("36");
  await page.getByLabel("What is the loan for?").fill("Replacing the furnace");
  await page.getByLabel("Yearly income before taxes ($)").fill("58000");
  await page.getByLabel("Employer").fill("Lakeside Clinic");
  await page.getByRole("button", { name: "Send application" }).click();
  await expect(page.getByText("Enter an amount from $1,000 to $50,000.")).toBeVisible();
  await shots(page, "apply-errors");

  await page.getByLabel("Amount to borrow ($)").fill(String(dollars));
  await page.getByRole("button", { name: "Send application" }).click();
  await expect(page.getByText("Your application was sent.")).toBeVisible();
  await expect(page.getByText("Under review")).toBeVisible();
  const applicationUrl = page.url().replace(/\?.*$/, "");
  await shots(page, "submitted");

  const staff = await (await signedIn(STAFF)).newPage();
  await staff.goto("/admin/loans");
  await hydrated(staff);
  const row = staff.getByRole("row").filter({ hasText: shown });
  await expect(row).toHaveCount(1);
  await shots(staff, "queue");
  await row.getByRole("link").click();
  await hydrated(staff);
  await expect(staff.getByText("Lakeside Clinic")).toBeVisible();
  await expect(staff.getByText("$58,000.00")).toBeVisible();
  await staff.getByLabel("Interest rate (%)").fill("4.00");
  await staff.getByRole("button", { name: "Approve" }).click();
  await expect(staff.getByText("The rate must be from 5.99% to 17.99% (the product's range).")).toBeVisible();
  await staff.getByLabel("Interest rate (%)").fill("8.99");
  await staff.getByRole("button", { name: "Approve" }).click();
  await expect(staff.getByText(/Approved: .* was told in the app and by email/)).toBeVisible();
  await shots(staff, "decided");

  await page.goto(applicationUrl);
  await hydrated(page);
  await expect(page.getByRole("heading", { name: "Your offer" })).toBeVisible();
  const box = page.getByRole("definition");
  await expect(page.getByText("Annual percentage rate")).toBeVisible();
  await expect(box.filter({ hasText: shown }).first()).toBeVisible();
  await expect(page.getByText(/36 payments of|35 payments of/).first()).toBeVisible();
  await shots(page, "offer");
  await page.getByRole("button", { name: "Accept this loan" }).click();
  await expect(page.getByText("Accepted", { exact: true })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Your loan" })).toBeVisible();
  const download = page.waitForEvent("download");
  await page.getByRole("link", { name: "Download the disclosure you accepted (PDF)" }).click();
  expect((await download).suggestedFilename()).toMatch(/^loan-disclosure-\d+\.pdf$/);
  await expect(page.getByText(`we deposited ${shown} into your checking account`)).toBeVisible();
  await page.getByText(/Every payment \(\d+\)/).click();
  await expect(page.getByRole("table", { name: "Payment schedule" })).toBeVisible();
  await shots(page, "accepted");

  // The loan under Loans (balance, next payment, rate) and the money in checking.
  await page.getByRole("link", { name: "Loans", exact: true }).first().click();
  const loan = page.getByRole("region", { name: "Your loans" });
  await expect(loan.getByText(shown).first()).toBeVisible();
  await expect(loan.getByText(/due /)).toBeVisible();
  await expect(loan.getByText("8.99%", { exact: false })).toBeVisible();
  await shots(page, "loans");

  // The loan's own page: what is owed, a payment (more than is owed refused by the field, then
  // the next payment due from checking), autopay, the history and the schedule.
  await loan.getByRole("link", { name: /Personal Loan L-\d+/ }).click();
  await expect(page.getByRole("heading", { level: 1, name: /Personal Loan L-\d+/ })).toBeVisible();
  await expect(page.getByTestId("loan-balance")).toHaveText(shown);
  await hydrated(page);
  await shots(page, "loan");
  const pay = page.getByRole("form", { name: "Make a payment" });
  await pay.getByLabel("Pay from").selectOption({ index: 1 });
  await pay.getByText("Another amount").click();
  await pay.getByLabel("Other amount ($)").fill(String(dollars + 100));
  await pay.getByRole("button", { name: "Pay" }).click();
  await expect(page.getByText(/That is more than you owe: the payoff today is \$/)).toBeVisible();
  await shots(page, "loan-pay-error");
  await pay.getByText(/Next payment due: \$/).click();
  await pay.getByRole("button", { name: "Pay" }).click();
  await expect(page.getByText("Your payment was made.")).toBeVisible();
  await expect(page.getByTestId("loan-history").getByText("Payment", { exact: true })).toBeVisible();
  await expect(page.getByRole("cell", { name: "Paid", exact: true }).first()).toBeVisible();
  await hydrated(page);
  const autopay = page.getByRole("form", { name: "Autopay" });
  await autopay.getByLabel("Take payments from").selectOption({ index: 1 });
  await autopay.getByRole("button", { name: "Save autopay" }).click();
  await expect(page.getByText("Autopay is on.")).toBeVisible();
  await expect(page.getByTestId("payoff-quote")).toContainText("pays off the loan if paid on");
  await shots(page, "loan-paid");
  await page.goto("/dashboard");
  await hydrated(page);
  await expect(page.getByText(shown).first()).toBeVisible();
  // The loan on the dashboard: balance owed, next payment and date, rate, linked to its page.
  const onDashboard = page.getByRole("region", { name: "Loans", exact: true });
  await expect(onDashboard.getByRole("link", { name: /Personal Loan L-\d+/ })).toBeVisible();
  await expect(onDashboard.getByText("8.99%")).toBeVisible();
  await expect(onDashboard.getByText(/ due /)).toBeVisible();
  await shots(page, "dashboard");

  // The loan in Export transactions as a credit line (OFX), read back by ofx-js.
  await page.goto("/dashboard/statements");
  await hydrated(page);
  const accountField = page.getByLabel("Account", { exact: true });
  const loanOption = await accountField.locator("option", { hasText: /Personal Loan L-\d+/ }).getAttribute("value");
  await accountField.selectOption(loanOption!);
  await page.getByLabel("File type").selectOption("ofx");
  // Today in the credit union's time zone (the demo profile's), the day the loan was paid out and paid.
  const today = new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York" }).format(new Date());
  await page.getByLabel("From date").fill(today);
  await page.getByLabel("To date").fill(today);
  const ofxDownload = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export" }).click();
  const ofxFile = fs.readFileSync((await (await ofxDownload).path())!, "utf8");
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed file, read field by field
  const rs = (parseSync(ofxFile) as { OFX: Record<string, any> }).OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS;
  expect(rs.BANKACCTFROM.ACCTTYPE).toBe("CREDITLINE");
  expect([rs.BANKTRANLIST.STMTTRN].flat().length).toBeGreaterThanOrEqual(2);
  // A 400 is the server's answer to the out-of-range amount above, as intended.
  expect(errors.filter((e) => !e.includes("status of 400"))).toEqual([]);
});
