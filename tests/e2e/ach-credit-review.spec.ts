import { expect as baseExpect, test } from "./fixtures";
import type { Page } from "@playwright/test";
import { DESKTOP, PHONE, STAFF, expectNoAxeViolations, hydrated, openMemberDetails, watchConsole } from "./support";
import { buildInboundFile } from "../unit/nacha-inbound-builder";

/**
 * Incoming credits to review (docs/product.md#incoming-credits-to-review) as staff: an inbound
 * file pays a new member two credits naming someone else; both post with their money held and wait
 * in the queue with why (1440 and 375 px, axe clean). Staff release one and return the other as
 * R23 (refused without a reason first, next to the field), and the return goes out in a return file.
 */
const expect = baseExpect.configure({ timeout: 30_000 });
const SCREENS = "test-results/ach-credit-review";
test.setTimeout(300_000);
test.use({ signedInAs: STAFF });

const STAMP = Date.now().toString(36).toUpperCase();
const COMPANY = `Gig ${STAMP}`.slice(0, 16);

async function checkingNumber(page: Page, email: string): Promise<string> {
  await openMemberDetails(page, email, { listedAs: "Jordan Tester", hydrate: true });
  return (
    (
      await page
        .getByRole("listitem")
        .filter({ hasText: /^Checking/ })
        .first()
        .locator("dd")
        .first()
        .textContent()
    )?.replace(/\s/g, "") ?? ""
  );
}

test("staff release one flagged credit and return another as R23", async ({ page, newMember }) => {
  const errors = watchConsole(page);
  const member = await newMember("credit-review", { temporary: true });
  const account_number = await checkingNumber(page, member.email);
  expect(account_number).toMatch(/^[1-9]\d{9}$/);
  const file = buildInboundFile([
    {
      company_name: COMPANY,
      company_id: `9${Date.now().toString().slice(-9)}`,
      description: "PAYOUT",
      entries: [
        { code: "22", account_number, amount_cents: 150_000, name: "CHRIS BLAKE" },
        { code: "22", account_number, amount_cents: 120_000, name: "DANA FROST" },
      ],
    },
  ]);

  await page.goto("/admin/queues");
  await hydrated(page);
  const achIn = page.getByTestId("queue-ach-in");
  await achIn
    .getByLabel("Inbound NACHA file from the Federal Reserve")
    .setInputFiles({ name: `review-${STAMP}.ach`, mimeType: "text/plain", buffer: Buffer.from(file) });
  await achIn.getByRole("button", { name: "Upload and post" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: `review-${STAMP}.ach: 2 entries, 2 posted, 0 returned.` }),
  ).toBeVisible();

  const section = page.getByTestId("queue-credit-reviews");
  const mine = section.getByTestId("credit-review").filter({ hasText: COMPANY.toUpperCase() });
  await expect(mine).toHaveCount(2);
  const blake = mine.filter({ hasText: "CHRIS BLAKE" });
  const frost = mine.filter({ hasText: "DANA FROST" });
  await expect(blake).toContainText("The name on the entry, CHRIS BLAKE, is not the account holder's");
  await expect(blake).toContainText("$1,500.00");
  await blake.scrollIntoViewIfNeeded();
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await section.screenshot({ path: `${SCREENS}/credit-reviews-${viewport.width}.png` });
  }
  await page.setViewportSize(DESKTOP);

  await blake.getByRole("button", { name: /^Release the credit of \$1,500\.00/ }).click();
  await expect(
    page
      .getByRole("status")
      .filter({ hasText: "The credit of $1,500.00 was released; it is available to the member." }),
  ).toBeVisible();
  await expect(mine).toHaveCount(1);

  // Return without a reason: refused next to the field, nothing changes.
  await frost.getByRole("button", { name: /^Return the credit of \$1,200\.00/ }).click();
  await expect(frost.getByText("Please choose why the credit goes back").first()).toBeVisible();
  await expect(mine).toHaveCount(1);
  await frost.getByLabel("Return reason").selectOption("R23");
  await frost.getByRole("button", { name: /^Return the credit of \$1,200\.00/ }).click();
  await expect(
    page.getByRole("status").filter({ hasText: "The credit of $1,200.00 was returned as R23 (Refused by the member)" }),
  ).toBeVisible();
  await expect(mine).toHaveCount(0);

  // It waits in Returned items with its reason, then goes out in the return file.
  const returns = page.getByTestId("queue-returns");
  const returned = returns.getByTestId("returned-item").filter({ hasText: COMPANY.toUpperCase() });
  await expect(returned).toHaveCount(1);
  await expect(returned).toContainText("R23");
  await returns.getByRole("button", { name: "Export return file" }).click();
  await expect(page.getByRole("status").filter({ hasText: /exported as ach-returns-/ })).toBeVisible();
  await expect(returned).toHaveCount(0);
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await page.screenshot({ path: `${SCREENS}/queues-after-${viewport.width}.png`, fullPage: true });
  }
  // The one refused request: the Return without a reason (400).
  expect(errors.filter((e) => !/status of 400 \(Bad Request\)$/.test(e))).toEqual([]);
});
