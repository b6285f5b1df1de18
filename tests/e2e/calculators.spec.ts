import { expect, test, type Page } from "./fixtures";
import { DESKTOP, PHONE, expectNoAxeViolations, watchConsole } from "./support";

/** The loan calculator's section, so field names shared with the savings calculator stay apart. */
const loan = (page: Page) => page.getByRole("region", { name: "Loan payment calculator" });
const savings = (page: Page) => page.getByRole("region", { name: "Savings growth calculator" });
/** The headline figure of a calculator (monthly payment or final balance), announced as it changes. */
const headline = (section: ReturnType<typeof loan>) => section.locator("p[aria-live]");

test.describe("calculators", () => {
  test("the page arrives with both calculators worked out for the default figures", async ({ page }) => {
    const errors = watchConsole(page);
    await page.goto("/calculators");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Calculators");
    await expect(page.getByRole("heading", { level: 1 })).toHaveCount(1);
    await expect(page).toHaveTitle("Loan and Savings Calculators | Harborview Community Credit Union");
    await expect(page.locator('meta[name="description"]')).toHaveAttribute("content", /amortization/);
    // $25,000 at 6.5% for 60 months; $5,000 plus $200 a month at 3.5% APY for 10 years.
    await expect(headline(loan(page))).toHaveText("$489.15 a month");
    await expect(headline(savings(page))).toHaveText("$35,657.19");
    // The chart is drawn once it comes near the screen, and hidden from assistive technology (the
    // tables say the same).
    await loan(page).locator("figure").scrollIntoViewIfNeeded();
    await expect(loan(page).locator("figure svg.recharts-surface")).toBeVisible();
    await expect(loan(page).locator("figure [aria-hidden='true']").last()).toBeAttached();
    expect(errors).toEqual([]);
  });

  test("a loan of $10,000 at 6% APR for 36 months costs $304.22 a month, live as you type", async ({ page }) => {
    const errors = watchConsole(page);
    await page.goto("/calculators");
    const section = loan(page);
    await section.getByLabel("Loan amount").fill("10,000");
    await section.getByLabel("Interest rate (APR)").fill("6");
    await section.getByLabel("Term in months").fill("36");
    await expect(headline(section)).toHaveText("$304.22 a month");
    await expect(section.getByText("36 payments over 3 years; the last is $304.18.")).toBeVisible();
    const stats = section.locator("dl").first();
    await expect(stats).toContainText("Total interest$951.88");
    await expect(stats).toContainText("Total of payments$10,951.88");

    // The schedule by year, with every month behind a disclosure that opens from the keyboard.
    const byYear = section.getByRole("table", { name: /each year/ });
    await expect(byYear.locator("tbody tr")).toHaveCount(3);
    await expect(byYear.locator("tfoot")).toContainText("$10,000.00");
    const summary = section.getByText("Every monthly payment (36)");
    await summary.focus();
    await page.keyboard.press("Enter");
    const months = section.getByRole("table", { name: /Each payment/ });
    await expect(months).toBeVisible();
    await expect(months.locator("tbody tr")).toHaveCount(36);
    await expect(months.locator("tbody tr").first()).toContainText("$304.22$254.22$50.00$9,745.78");
    await expect(months.locator("tbody tr").last()).toContainText("$304.18");

    // Calculate puts the figures in the address, so the result can be bookmarked.
    await section.getByRole("button", { name: "Calculate" }).click();
    await expect(page).toHaveURL(/amount=10%2C000&apr=6&term=36/);
    await expect(headline(section)).toHaveText("$304.22 a month");
    expect(errors).toEqual([]);
  });

  test("0% APR splits the amount evenly", async ({ page }) => {
    await page.goto("/calculators?amount=1000&apr=0&term=3");
    const section = loan(page);
    await expect(headline(section)).toHaveText("$333.33 a month");
    await expect(section.getByText("3 payments over 3 months; the last is $333.34.")).toBeVisible();
  });

  test("savings: $10,000 at 5% APY for a year grows to $10,500.00", async ({ page }) => {
    await page.goto("/calculators");
    const section = savings(page);
    await section.getByLabel("Initial deposit").fill("10000");
    await section.getByLabel("Monthly deposit").fill("0");
    await section.getByLabel("Dividend rate (APY)").fill("5");
    await section.getByLabel("Years of saving").fill("1");
    await expect(headline(section)).toHaveText("$10,500.00");
    await expect(section.getByText("Balance after 1 year")).toBeVisible();
    await expect(section.locator("dl").first()).toContainText("Total dividends$500.00");
    await expect(section.getByRole("table", { name: /each year/ }).locator("tbody tr")).toHaveCount(1);
  });

  test("wrong input gets a message next to the field, and Calculate focuses it", async ({ page }) => {
    const errors = watchConsole(page);
    await page.goto("/calculators");
    const section = loan(page);
    const amount = section.getByLabel("Loan amount");
    await amount.fill("lots");
    await expect(amount).toHaveAttribute("aria-invalid", "true");
    await expect(amount).toHaveAccessibleDescription("Enter a loan amount in dollars, like 1,250.00.");
    // The last good result stays, marked as such.
    await expect(section.getByText("Showing results for your last valid entry")).toBeVisible();
    await expect(headline(section)).toHaveText("$489.15 a month");

    await section.getByLabel("Term in months").fill("600");
    await section.getByRole("button", { name: "Calculate" }).click();
    await expect(amount).toBeFocused();
    await expect(section.getByLabel("Term in months")).toHaveAccessibleDescription(
      /Enter a term in whole months, from 1 to 480/,
    );
    await expect(page).toHaveURL(/\/calculators$/);
    await expectNoAxeViolations(page);

    await amount.fill("12,000");
    await section.getByLabel("Term in months").fill("48");
    await expect(amount).not.toHaveAttribute("aria-invalid", "true");
    await expect(section.getByText("Showing results for your last valid entry")).toHaveCount(0);
    expect(errors).toEqual([]);
  });

  test("keyboard alone changes a figure and submits", async ({ page }) => {
    await page.goto("/calculators");
    await loan(page).getByLabel("Loan amount").focus();
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.type("10000");
    await page.keyboard.press("Tab");
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.type("6");
    await page.keyboard.press("Tab");
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.type("36");
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/amount=10000&apr=6&term=36/);
    await expect(headline(loan(page))).toHaveText("$304.22 a month");
  });

  test("a bookmarked address with bad figures shows the messages, not an error page", async ({ page }) => {
    const response = await page.goto("/calculators?amount=-1e308&apr=NaN&term=%00&years=0");
    expect(response?.status()).toBe(200);
    await expect(loan(page).getByLabel("Loan amount")).toHaveAccessibleDescription(/Enter a loan amount in dollars/);
    await expect(loan(page).getByLabel("Interest rate (APR)")).toHaveAccessibleDescription(
      /Enter an interest rate \(APR\) from 0 to 50%/,
    );
    await expect(savings(page).getByLabel("Years of saving")).toHaveAccessibleDescription(
      /Enter a whole number of years, from 1 to 50/,
    );
    await expect(loan(page).getByText("Correct the highlighted fields to see your results.")).toBeVisible();
    await expect(savings(page).getByText("Correct the highlighted fields to see your results.")).toBeVisible();
  });

  for (const viewport of [DESKTOP, PHONE]) {
    test(`passes an accessibility scan at ${viewport.width} px`, async ({ page }) => {
      const errors = watchConsole(page);
      await page.setViewportSize(viewport);
      await page.goto("/calculators");
      await loan(page).locator("figure").scrollIntoViewIfNeeded();
      await expect(loan(page).locator("figure svg.recharts-surface")).toBeVisible();
      await loan(page).getByText("Every monthly payment (60)").click();
      await expectNoAxeViolations(page);
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow, "the page does not scroll sideways").toBeLessThanOrEqual(0);
      expect(errors).toEqual([]);
    });
  }
});

test.describe("calculators without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the form is sent as a query and the server works out the result", async ({ page }) => {
    await page.goto("/calculators");
    const section = loan(page);
    await section.getByLabel("Loan amount").fill("10000");
    await section.getByLabel("Interest rate (APR)").fill("6");
    await section.getByLabel("Term in months").fill("36");
    await section.getByRole("button", { name: "Calculate" }).click();
    await expect(page).toHaveURL(/amount=10000&apr=6&term=36/);
    await expect(headline(section)).toHaveText("$304.22 a month");
    // The savings calculator kept its figures through the loan form's hidden fields.
    await expect(savings(page).getByLabel("Initial deposit")).toHaveValue("5,000");

    await section.getByLabel("Term in months").fill("0");
    await section.getByRole("button", { name: "Calculate" }).click();
    await expect(section.getByLabel("Term in months")).toHaveAccessibleDescription(/Enter a term in whole months/);
    await expect(section.getByLabel("Loan amount")).toHaveValue("10000");
  });
});
