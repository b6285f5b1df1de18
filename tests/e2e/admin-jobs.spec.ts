import { expect, test } from "./fixtures";
import { DESKTOP, PHONE, STAFF, expectNoAxeViolations, watchConsole } from "./support";

/**
 * Scheduled jobs in the back office (/admin/jobs, docs/product.md#scheduled-jobs): staff see each
 * job's schedule, next run and last run; moving the demo's job clock forward makes the hourly
 * pruning job run (the test moves the job clock, never waits for the wall clock); a bad number of
 * hours is refused next to the field. Screenshots at 1440 and 375 px.
 */
test.describe.configure({ mode: "serial" });
test.use({ signedInAs: STAFF });

test("staff see every job with its schedule and next run, at 1440 and 375 px, axe clean", async ({ page }) => {
  const errors = watchConsole(page);
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await page.goto("/admin/jobs");
    await expect(page.getByRole("heading", { level: 1, name: "Scheduled jobs" })).toBeVisible();
    await expect(
      page.getByRole("navigation", { name: "Back office" }).getByRole("link", { name: "Jobs" }),
    ).toHaveAttribute("aria-current", "page");
    const jobs = page.getByTestId("job");
    await expect(jobs).toHaveCount(18);
    await expect(
      page.locator('[data-job="monthly-statements"]').getByRole("heading", { name: "Monthly statements" }),
    ).toBeVisible();
    await expect(
      page.locator('[data-job="monthly-dividends"]').getByRole("heading", { name: "Monthly dividends" }),
    ).toBeVisible();
    await expect(
      page.locator('[data-job="bill-payments"]').getByRole("heading", { name: "Bill payments" }),
    ).toBeVisible();
    await expect(
      page.locator('[data-job="unsettled-card-purchases"]').getByRole("heading", { name: "Unsettled card purchases" }),
    ).toBeVisible();
    await expect(
      page.locator('[data-job="unsettled-card-purchases"]').getByText(/^Every day at 12:45 AM [A-Z]{3,4}$/),
    ).toBeVisible();
    await expect(
      page.locator('[data-job="card-renewals"]').getByRole("heading", { name: "Debit card renewals" }),
    ).toBeVisible();
    await expect(
      page.locator('[data-job="dispute-clocks"]').getByRole("heading", { name: "Dispute deadlines" }),
    ).toBeVisible();
    await expect(
      page
        .locator('[data-job="sanctions-rescreen"]')
        .getByRole("heading", { name: "Sanctions re-screen of all members" }),
    ).toBeVisible();
    const prune = page.locator('[data-job="prune-expired"]');
    await expect(prune.getByRole("heading", { name: "Remove expired sign-in codes and limits" })).toBeVisible();
    await expect(prune.getByText("Every hour at minute 17")).toBeVisible();
    await expect(prune.getByTestId("next-run").locator("time")).toBeVisible();
    await expect(page.locator('[data-job="outbox-delivery"]').getByText("Every 5 minutes")).toBeVisible();
    await expect(page.locator('[data-job="push-delivery"]').getByText("Every minute")).toBeVisible();
    await expect(
      page.locator('[data-job="sms-delivery"]').getByRole("heading", { name: "Text messages" }),
    ).toBeVisible();
    await expect(
      page.locator('[data-job="database-upkeep"]').getByRole("heading", { name: "Embedded database upkeep" }),
    ).toBeVisible();
    // Every schedule in words, at the institution's time (it used to show "Cron 30 0 * * *").
    await expect(
      page.locator('[data-job="monthly-dividends"]').getByText(/^Every day at 12:30 AM [A-Z]{3,4}$/),
    ).toBeVisible();
    await expect(
      page.locator('[data-job="monthly-statements"]').getByText(/^Monday to Friday at 6:00 AM [A-Z]{3,4}$/),
    ).toBeVisible();
    await expect(page.getByText(/^Cron /)).toHaveCount(0);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `test-results/admin-jobs/jobs-${viewport.width}.png`, fullPage: true });
  }
  expect(errors).toEqual([]);
});

test("staff download last year's Form 1099-INT figures from the tax-forms job", async ({ page }) => {
  await page.goto("/admin/jobs");
  const taxForms = page.locator('[data-job="tax-forms"]');
  await expect(taxForms.getByRole("heading", { name: "Year-end tax forms (1099-INT)" })).toBeVisible();
  const link = taxForms.getByRole("link", { name: /^Download the \d{4} Form 1099-INT figures \(CSV\)$/ });
  const year = (await link.textContent())!.match(/\d{4}/)![0];
  const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
  expect(download.suggestedFilename()).toBe(`1099-INT-${year}.csv`);
  const csv = await (await import("node:fs/promises")).readFile((await download.path())!, "utf8");
  expect(csv.split("\r\n")[0]).toBe(
    "Tax year,Form,Member ID,Name,Email,Taxpayer number,Box 1 interest,Backup withholding flag,Issued",
  );
});

test("moving the job clock an hour forward runs the hourly pruning job, which staff then see", async ({ page }) => {
  await page.goto("/admin/jobs");
  const prune = page.locator('[data-job="prune-expired"]');
  const nextBefore = await prune.getByTestId("next-run").locator("time").getAttribute("datetime");
  await page.getByLabel("Hours to move forward").fill("1");
  await page.getByRole("button", { name: "Move the job clock" }).click();
  await expect(page.getByText(/The job clock is now 1 hour further on/)).toBeVisible();
  // The runner polls every 300 ms in the browser tests; the page shows the run once it ended.
  await expect(async () => {
    await page.goto("/admin/jobs");
    await expect(prune.getByTestId("last-run")).toContainText("Succeeded");
    const nextAfter = await prune.getByTestId("next-run").locator("time").getAttribute("datetime");
    expect(nextAfter && nextBefore && nextAfter > nextBefore).toBe(true);
  }).toPass({ timeout: 15_000 });
  await expect(
    page.getByTestId("job-run").filter({ hasText: "Remove expired sign-in codes and limits" }).first(),
  ).toContainText("succeeded");
  await page.setViewportSize(PHONE);
  await expectNoAxeViolations(page);
  await page.screenshot({ path: "test-results/admin-jobs/jobs-after-run-375.png", fullPage: true });
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: "test-results/admin-jobs/jobs-after-run-1440.png", fullPage: true });
});

test("a number of hours that is not a whole number from 1 to 8,784 is refused next to the field", async ({ page }) => {
  await page.goto("/admin/jobs");
  for (const bad of ["abc", "0", "9999", "1.5"]) {
    await page.getByLabel("Hours to move forward").fill(bad);
    await page.getByRole("button", { name: "Move the job clock" }).click();
    const field = page.getByLabel("Hours to move forward");
    await expect(field).toHaveAttribute("aria-invalid", "true");
    await expect(page.locator("#hours-error")).toHaveText("Enter a whole number of hours from 1 to 8,784.");
  }
  await expectNoAxeViolations(page);
});
