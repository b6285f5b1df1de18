import { expect as baseExpect, test } from "./fixtures";
import { DESKTOP, PHONE, STAFF, expectNoAxeViolations, fundedMember, hydrated, watchConsole } from "./support";
import type { Locator, Page } from "@playwright/test";

/**
 * Share-secured loans (docs/product.md#share-secured-loans) in the browser: a member moves money
 * to savings, applies for a share-secured loan pledging it (the missing pledge and an amount above
 * the percent answered by their fields), staff see the pledged savings and approve, the member reads
 * the security interest in the Truth in Lending box, accepts, and sees the hold on the loan's page.
 * Pages at 1440 and 375 px, axe clean.
 */
const expect = baseExpect.configure({ timeout: 15_000 });
const SHOTS = process.env.SHOTS_DIR ?? "test-results/share-secured";
test.setTimeout(240_000);

async function shots(page: Page, name: string) {
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SHOTS}/${name}-${viewport.width}.png`, fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}

/** Chooses the option whose label contains `text`. */
async function choose(select: Locator, text: string) {
  const value = await select
    .locator("option")
    .evaluateAll(
      (options, t) => (options as HTMLOptionElement[]).find((o) => o.textContent?.includes(t))?.value ?? "",
      text,
    );
  expect(value, `an option "${text}"`).not.toBe("");
  await select.selectOption(value);
}

test("a member pledges savings for a share-secured loan, staff approve, the hold shows on the loan", async ({
  page,
  newMember,
  pageAs,
  signInAs,
  signedIn,
}) => {
  const member = await fundedMember({ newMember, pageAs }, "share-secured", "1500.00");
  await signInAs(member);
  const errors = watchConsole(page);

  // $1,000 into savings: at 90%, up to $900 may be borrowed against it.
  await page.goto("/dashboard?transfer=internal#transfer");
  await hydrated(page);
  const panel = page.getByRole("tabpanel");
  await choose(panel.getByLabel("From"), "Checking");
  await choose(panel.getByLabel("To"), "Savings");
  await panel.getByLabel("Amount").fill("1000.00");
  await panel.getByLabel("Reference").fill("For the pledge");
  await panel.getByRole("button", { name: "Transfer now" }).click();
  await expect(panel.getByRole("status").filter({ hasText: "Transfer complete: $1,000.00" })).toBeVisible();

  // A whole-dollar amount no other test asks for, to find this application in the shared queue.
  const dollars = 500 + Math.floor(Math.random() * 399);
  const shown = `$${dollars.toLocaleString("en-US")}.00`;

  await page.goto("/dashboard/loans");
  await hydrated(page);
  await page.getByRole("link", { name: "Apply for a share-secured loan" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Apply for a share-secured loan" })).toBeVisible();
  await expect(page.getByText("up to 90% of what is available in the account you pledge")).toBeVisible();
  await hydrated(page);
  await page.getByLabel("Amount to borrow ($)").fill("950");
  await page.getByLabel("Months to repay").fill("12");
  await page.getByLabel("What is the loan for?").fill("Building credit");
  await page.getByLabel("Yearly income before taxes ($)").fill("36000");
  await page.getByLabel("Employer").fill("Harbor Bakery");
  // No savings chosen: the server's answer, by the field.
  await page.getByRole("button", { name: "Send application" }).click();
  await expect(page.getByText("Choose the savings account to pledge.")).toBeVisible();
  await choose(page.getByLabel("Savings to pledge"), "borrow up to $900.00");
  await page.getByRole("button", { name: "Send application" }).click();
  await expect(
    page.getByText(/At most \$900\.00 may be borrowed against .*Savings \(90% of its \$1,000\.00 available\)/),
  ).toBeVisible();
  await shots(page, "apply-errors");

  await page.getByLabel("Amount to borrow ($)").fill(String(dollars));
  await page.getByRole("button", { name: "Send application" }).click();
  await expect(page.getByText("Your application was sent.")).toBeVisible();
  const applicationUrl = page.url().replace(/\?.*$/, "");

  const staff = await (await signedIn(STAFF)).newPage();
  await staff.goto("/admin/loans");
  await hydrated(staff);
  const row = staff.getByRole("row").filter({ hasText: shown });
  await expect(row).toHaveCount(1);
  await row.getByRole("link").click();
  await hydrated(staff);
  await expect(staff.getByText("Savings pledged")).toBeVisible();
  await staff.getByLabel("Interest rate (%)").fill("4.00");
  await staff.getByRole("button", { name: "Approve" }).click();
  await expect(staff.getByText(/Approved: .* was told in the app and by email/)).toBeVisible();
  await shots(staff, "decided");

  await page.goto(applicationUrl);
  await hydrated(page);
  await expect(page.getByRole("heading", { name: "Your offer" })).toBeVisible();
  await expect(
    page.getByText(/You are giving a security interest in your .*Savings \(account ending \d{4}\)/),
  ).toBeVisible();
  await shots(page, "offer");
  await page.getByRole("button", { name: "Accept this loan" }).click();
  await expect(page.getByRole("heading", { name: "Your loan" })).toBeVisible();

  await page.goto("/dashboard/loans");
  await page
    .getByRole("region", { name: "Your loans" })
    .getByRole("link", { name: /Share-Secured Loan L-\d+/ })
    .click();
  await expect(page.getByTestId("loan-pledge")).toContainText(`${shown} is held there`);
  await shots(page, "loan");
  expect(errors.filter((e) => !e.includes("status of 400"))).toEqual([]);
});
