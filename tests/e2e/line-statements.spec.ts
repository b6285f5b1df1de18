import fs from "node:fs";
import { parseSync } from "ofx-js";
import { extractText, getDocumentProxy } from "unpdf";
import type { Page } from "@playwright/test";
import { expect as baseExpect, test } from "./fixtures";
import { DESKTOP, PHONE, PRIYA, expectNoAxeViolations, hydrated, watchConsole } from "./support";

/**
 * A line of credit's periodic statement and its export (docs/product.md#line-statements) as a
 * member finds them: Priya Shah (the demo's line, opened three months ago) goes to Statements,
 * finds the line beside the accounts, downloads its newest cycle's statement and reads it back
 * (an independent reader, unpdf), has it emailed, exports the line as OFX from the export form
 * (read back by ofx-js: a credit line, the balance owed negative), and finds the same statements
 * on the line's own page. Pages at 1440 and 375 px, axe clean.
 */
const SHOTS = process.env.SHOTS_DIR ?? "test-results/line-statements";
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

test("a member downloads and emails a line of credit's statement, exports the line, and finds it on the line's page", async ({
  page,
  signInAs,
}) => {
  const errors = watchConsole(page);
  await signInAs(PRIYA);
  await page.goto("/dashboard/statements", { timeout: 120_000 });
  await hydrated(page);
  await expect(page.getByRole("heading", { name: "Statements", level: 1 })).toBeVisible();
  const line = page.getByRole("region", { name: /Personal Line of Credit LC-\d{6}/ });
  await expect(line).toHaveCount(1);
  const links = line.getByRole("link", { name: /^Download PDF: Personal Line of Credit LC-\d{6}, Cycle closed / });
  const statement_count = await links.count();
  expect(statement_count).toBeGreaterThanOrEqual(2);
  await shots(page, "statements");

  const newest = links.first();
  const href = (await newest.getAttribute("href"))!;
  const [, line_id, closed_on] = /^\/dashboard\/loans\/lines\/(\d+)\/statements\/(\d{4}-\d{2}-\d{2})$/.exec(href)!;
  const number = `LC-${line_id!.padStart(6, "0")}`;
  const download_promise = page.waitForEvent("download");
  await newest.click();
  const download = await download_promise;
  expect(download.suggestedFilename()).toBe(`line-statement-${number}-${closed_on}.pdf`);
  await download.saveAs(`${SHOTS}/statement.pdf`);
  const text = await pdfText(`${SHOTS}/statement.pdf`);
  for (const expected of [
    "Line of credit statement",
    `Closing date ${closed_on}`,
    `Personal Line of Credit ${number}`,
    "Previous balance",
    "Payments and credits",
    "Minimum payment due",
    "Payment due date",
    "Late payment warning",
    "Credit limit $5,000.00",
    "Available credit",
    "daily periodic rate",
    "Balance subject to interest rate",
    "Total interest charged this year",
    "Billing rights",
    "Priya Shah",
  ])
    expect(text).toContain(expected);

  // Email it to me: the answer beside the statement, naming the registered address.
  await line
    .getByRole("button", { name: /^Email it to me: Personal Line of Credit/ })
    .first()
    .click();
  await expect(line.getByText(`statement for Personal Line of Credit ${number} to ${PRIYA.email}`)).toBeVisible();

  // The line in the export, as OFX, read back by ofx-js: a credit line, the balance owed negative.
  await page.getByLabel("Account", { exact: true }).selectOption(`line-${line_id}`);
  await page.getByLabel("File type").selectOption("ofx");
  const today = await page.getByLabel("To date").inputValue();
  const from = new Date(`${today}T12:00:00Z`);
  from.setUTCDate(from.getUTCDate() - 120);
  await page.getByLabel("From date").fill(from.toISOString().slice(0, 10));
  const ofx_promise = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export" }).click();
  const ofx_download = await ofx_promise;
  expect(ofx_download.suggestedFilename()).toMatch(/\.ofx$/);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed file, read field by field
  const ofx = parseSync(fs.readFileSync((await ofx_download.path())!, "utf8")) as { OFX: Record<string, any> };
  const rs = ofx.OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS;
  expect(rs.BANKACCTFROM).toMatchObject({ ACCTTYPE: "CREDITLINE", ACCTID: number.replace("-", "") });
  const ofx_lines = [rs.BANKTRANLIST.STMTTRN].flat() as Record<string, string>[];
  expect(ofx_lines.filter((l) => /: draw$/.test(l.NAME!)).map((l) => l.TRNAMT)).toEqual(
    expect.arrayContaining(["-1200.00", "-300.00"]),
  );
  expect(ofx_lines.filter((l) => l.TRNTYPE === "CREDIT").length).toBeGreaterThanOrEqual(1);
  expect(Number(rs.LEDGERBAL.BALAMT)).toBeLessThan(-1_000);

  // The line's own page lists the same statements.
  await page.goto(`/dashboard/loans/lines/${line_id}`);
  await hydrated(page);
  await expect(page.getByRole("heading", { name: "Statements", level: 2 })).toBeVisible();
  await expect(
    page.getByRole("link", { name: /^Download PDF: Personal Line of Credit LC-\d{6}, Cycle closed / }),
  ).toHaveCount(statement_count);
  await shots(page, "line");
  expect(errors).toEqual([]);
});
