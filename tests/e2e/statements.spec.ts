import fs from "node:fs";
import { extractText, getDocumentProxy } from "unpdf";
import { parseSync } from "ofx-js";
import { expect as baseExpect, test } from "./fixtures";
import { ALEX, DESKTOP, PHONE, expectNoAxeViolations, hydrated, watchConsole } from "./support";

/**
 * Statements (docs/product.md#statements) as a member uses them: from Quick actions to the
 * Statements page, download a month's PDF and read its text back with an independent reader
 * (unpdf, pdf.js): the opening and closing balances and every posted transaction of the month,
 * checked against the member's own history export for the same account and month.
 */
const SCREENS = "test-results/screens";
const expect = baseExpect.configure({ timeout: 15_000 });
test.setTimeout(180_000);

function dollars(cents: number): string {
  const abs = Math.abs(cents);
  const text = `$${Math.floor(abs / 100).toLocaleString("en-US")}.${String(abs % 100).padStart(2, "0")}`;
  return cents < 0 ? `-${text}` : text;
}

function cents(text: string): number {
  const negative = text.startsWith("-");
  const value = Math.round(Number(text.replace(/[^0-9.]/g, "")) * 100);
  return negative ? -value : value;
}

/** The CSV's fields (RFC 4180, quoted fields may hold commas). */
function csvRows(csv: string): string[][] {
  return csv
    .trim()
    .split("\r\n")
    .map((line) =>
      [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g)].map((m) => m[1]!.replace(/^"|"$/g, "").replace(/""/g, '"')),
    )
    .map((r) => r.slice(0, 10));
}

test("a member downloads last month's statement; its text shows the balances and every transaction; axe-clean at 1440 and 375 px", async ({
  page,
  signInAs,
}) => {
  const errors = watchConsole(page);
  await signInAs(ALEX);
  await page.goto("/dashboard", { timeout: 120_000 });
  await page.getByRole("link", { name: "Statements" }).click();
  await expect(page.getByRole("heading", { name: "Statements", level: 1 })).toBeVisible();
  const checking = page.getByRole("region", { name: /Personal Checking/ });
  const first = checking.getByRole("link", { name: /^Download PDF/ }).first();
  await expect(first).toBeVisible();
  await expectNoAxeViolations(page);
  fs.mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: `${SCREENS}/statements-1440.png`, fullPage: true });

  const href = (await first.getAttribute("href"))!;
  const [, account_id, month] = /\/dashboard\/statements\/(\d+)\/(\d{4}-\d{2})$/.exec(href)!;
  const download_promise = page.waitForEvent("download");
  await first.click();
  const download = await download_promise;
  expect(download.suggestedFilename()).toMatch(new RegExp(`^statement-\\d{4}-${month}\\.pdf$`));
  const pdf = fs.readFileSync((await download.path())!);
  const { text } = await extractText(await getDocumentProxy(new Uint8Array(pdf)), { mergePages: true });

  // The member's own history for the account and month, from the app's CSV export.
  const [year, mon] = month!.split("-").map(Number) as [number, number];
  const last_day = new Date(Date.UTC(year, mon, 0)).getUTCDate();
  const csv = await page.request.get(
    `/dashboard/transactions.csv?account=${account_id}&from=${month}-01&to=${month}-${last_day}`,
  );
  expect(csv.ok()).toBe(true);
  const rows = csvRows(await csv.text()).slice(1);
  const posted = rows.filter((r) => r[6] === "Completed" || r[6] === "Reversed");
  expect(posted.length).toBeGreaterThan(10);
  for (const r of posted) {
    expect(text).toContain(`${r[0]} ${r[2]}`);
    expect(text).toContain(dollars(cents(r[5]!)));
  }
  const opening = cents(/Opening balance (-?\$[\d,]+\.\d{2})/.exec(text)![1]!);
  const closing = cents(/Closing balance (-?\$[\d,]+\.\d{2})/.exec(text)![1]!);
  expect(opening + posted.reduce((sum, r) => sum + cents(r[5]!), 0)).toBe(closing);
  expect(text).toContain("Harborview Community Credit Union");
  expect(text).toContain("Alex Morgan");

  // The same month exported as OFX (Quicken/QuickBooks) from the form, read back by ofx-js.
  await page.getByLabel("Account", { exact: true }).selectOption(account_id!);
  await page.getByLabel("File type").selectOption("qfx");
  await page.getByLabel("From date").fill(`${month}-01`);
  await page.getByLabel("To date").fill(`${month}-${last_day}`);
  const ofx_promise = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export" }).click();
  const ofx_download = await ofx_promise;
  expect(ofx_download.suggestedFilename()).toMatch(/\.qfx$/);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed file, read field by field
  const ofx = parseSync(fs.readFileSync((await ofx_download.path())!, "utf8")) as { OFX: Record<string, any> };
  const rs = ofx.OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS;
  // Quicken finds the credit union by the profile's Intuit bank id (ofx-js reads INTU.BID as INTUBID).
  expect(ofx.OFX.SIGNONMSGSRSV1.SONRS.INTUBID).toBe("99999");
  const ofx_lines = [rs.BANKTRANLIST.STMTTRN].flat() as Record<string, string>[];
  const byValue = (a: number, b: number) => a - b;
  expect(ofx_lines.map((l) => cents(l.TRNAMT!)).sort(byValue)).toEqual(posted.map((r) => cents(r[5]!)).sort(byValue));
  expect(cents(rs.LEDGERBAL.BALAMT)).toBe(closing);

  await page.setViewportSize(PHONE);
  await page.reload();
  await expect(page.getByRole("heading", { name: "Statements", level: 1 })).toBeVisible();
  await expectNoAxeViolations(page);
  await page.screenshot({ path: `${SCREENS}/statements-375.png`, fullPage: true });

  // Email it to me: the answer beside the month, naming the registered address.
  await hydrated(page);
  const email = checking.getByRole("button", { name: /^Email it to me: / }).first();
  await email.click();
  await expect(
    checking.getByText(
      new RegExp(
        `^We emailed your [A-Z][a-z]+ \\d{4} statement for Personal Checking .+ to ${ALEX.email.replace(/[.]/g, "\\.")}\\.$`,
      ),
    ),
  ).toBeVisible();
  await expectNoAxeViolations(page);
  await page.screenshot({ path: `${SCREENS}/statements-emailed-375.png`, fullPage: true });
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: `${SCREENS}/statements-emailed-1440.png`, fullPage: true });
  expect(errors).toEqual([]);
});
