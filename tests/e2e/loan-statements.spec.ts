import fs from "node:fs";
import { extractText, getDocumentProxy } from "unpdf";
import type { Page } from "@playwright/test";
import { expect as baseExpect, test } from "./fixtures";
import { DESKTOP, PHONE, SAM, expectNoAxeViolations, hydrated, watchConsole } from "./support";

/**
 * A loan's monthly statement (docs/product.md#loan-statements) as a member finds it: Sam Okafor
 * (the demo's loan, paid out three months ago with autopay) goes from the dashboard to Statements,
 * finds the loan beside the accounts and downloads last month's statement; its text, read back by
 * an independent reader (unpdf), shows the amount due, the balance and the payments; the loan's
 * own page lists the same statements. Pages at 1440 and 375 px, axe clean.
 */
const SHOTS = process.env.SHOTS_DIR ?? "test-results/loan-statements";
const expect = baseExpect.configure({ timeout: 15_000 });
test.setTimeout(180_000);

async function shots(page: Page, name: string) {
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SHOTS}/${name}-${viewport.width}.png`, fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}

async function pdfText(path: string): Promise<string> {
  const document = await getDocumentProxy(new Uint8Array(fs.readFileSync(path)));
  return (await extractText(document, { mergePages: true })).text;
}

test("a member finds the loan's statement on Statements and on the loan's page, and reads it", async ({
  page,
  signInAs,
}) => {
  const errors = watchConsole(page);
  await signInAs(SAM);
  await page.goto("/dashboard", { timeout: 120_000 });
  await hydrated(page);
  await page.getByRole("link", { name: "Statements" }).click();
  await expect(page.getByRole("heading", { name: "Statements", level: 1 })).toBeVisible();
  const loan = page.getByRole("region", { name: /Personal Loan L-\d{6}/ });
  await expect(loan).toHaveCount(1);
  const links = loan.getByRole("link", { name: /^Download PDF: Personal Loan L-\d{6}, / });
  await expect(links).toHaveCount(3);
  await shots(page, "statements");

  const newest = links.first();
  const label = (await newest.getAttribute("aria-label"))!;
  const href = (await newest.getAttribute("href"))!;
  const month_label = label.replace(/^.*, /, "");
  const download_promise = page.waitForEvent("download");
  await newest.click();
  const download = await download_promise;
  expect(download.suggestedFilename()).toMatch(/^loan-statement-L-\d{6}-\d{4}-\d{2}\.pdf$/);
  await download.saveAs(`${SHOTS}/statement.pdf`);
  const text = await pdfText(`${SHOTS}/statement.pdf`);
  expect(text).toContain("Loan statement");
  expect(text).toContain(month_label);
  expect(text).toContain("Sam Okafor");
  expect(text).toMatch(/Payment due date [A-Z][a-z]{2} 10, \d{4}/);
  expect(text).toMatch(/Amount due \$[\d,]+\.\d{2}/);
  expect(text).toMatch(/Balance owed at the end \$[\d,]+\.\d{2}/);
  expect(text).toMatch(/of which principal outstanding \$[\d,]+\.\d{2}/);
  expect(text).toMatch(/Personal Loan L-\d{6}: autopay -\$[\d,]+\.\d{2}/);
  expect(text).toMatch(/Applied: principal \$[\d,]+\.\d{2}, interest \$[\d,]+\.\d{2}, fees \$0\.00/);

  // The loan's own page: its monthly statements, the same months.
  await page.goto("/dashboard/loans");
  await hydrated(page);
  await page
    .getByRole("region", { name: "Your loans" })
    .getByRole("link", { name: /Personal Loan L-\d{6}/ })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: /Personal Loan L-\d{6}/ })).toBeVisible();
  const statements = page.getByRole("region", { name: "Monthly statements" });
  await expect(statements.getByRole("link", { name: /^Download PDF/ })).toHaveCount(3);
  await expect(statements.getByRole("link", { name: label })).toHaveAttribute("href", href);
  await statements.scrollIntoViewIfNeeded();
  await shots(page, "loan");
  expect(errors).toEqual([]);
});
