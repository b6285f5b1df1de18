import fs from "node:fs";
import path from "node:path";
import { parse } from "csv-parse/sync";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import {
  DESKTOP,
  PHONE,
  STAFF,
  expectNoAxeViolations,
  hydrated,
  openMemberDetails,
  watchConsole,
  type TestMember,
} from "./support";

/**
 * The back office's Add Transactions and Currency rates as staff (docs/product.md#add-transactions,
 * docs/product.md#payment-controls): rows added by hand, the template downloaded and read back, a
 * valid and an invalid CSV uploaded, a rate set and the member's International form offering it.
 * Axe clean and screenshots at 1440 and 375 px. Pausing payments is in payments-pause.spec.ts.
 */
test.describe.configure({ mode: "serial" });
// Staff and the member each get their own signed-in context (pageAs): a test-wide signedInAs would
// hand staff's cookies to every new context, and the member signing in there would end them.

const FIXTURES = path.join(import.meta.dirname, "..", "fixtures", "postings");
const SCREENS = "test-results/staff-postings";
let member: TestMember;

/** The member's account (in the pane's account list) whose figures include `amount`. */
function balance(page: Page, amount: string) {
  return page.getByRole("listitem").filter({ hasText: "Routing" }).filter({ hasText: amount }).first();
}

async function openMember(page: Page, email: string, options: { hydrate?: boolean } = {}) {
  await openMemberDetails(page, email, { listedAs: "Jordan Tester", hydrate: options.hydrate !== false });
  return page.getByRole("region", { name: "Add Transactions" });
}

test("add rows by hand: add and remove rows (the last stays), post, the balance follows; axe clean at 1440 and 375 px", async ({
  pageAs,
  newMember,
}) => {
  test.setTimeout(180_000);
  member = await newMember("postings");
  const page = await pageAs(STAFF);
  const errors = watchConsole(page);
  const section = await openMember(page, member.email);
  await expect(section.getByRole("button", { name: "Remove row 1" })).toBeDisabled();
  await section.getByLabel("Type").first().selectOption("credit");
  await section.getByLabel("Amount ($)").first().fill("125.50");
  await section.getByLabel("Description").first().fill("Cash deposit at the branch");
  await section.getByLabel("Category").first().selectOption("Deposit");
  await section.getByRole("button", { name: "Add row" }).click();
  await section.getByRole("button", { name: "Add row" }).click();
  await expect(section.getByRole("listitem", { name: /^Row \d$/ })).toHaveCount(3);
  await section.getByRole("button", { name: "Remove row 3" }).click();
  await expect(section.getByRole("listitem", { name: /^Row \d$/ })).toHaveCount(2);
  const row2 = section.getByRole("listitem", { name: "Row 2" });
  await row2.getByLabel("Row 2: account").selectOption({ index: 1 });
  await row2.getByLabel("Type").selectOption("credit");
  await row2.getByLabel("Amount ($)").fill("20");
  await row2.getByLabel("Description").fill("Transfer from another bank");
  await row2.getByLabel("Category").selectOption("Transfer");
  await row2.getByLabel("Status").selectOption("Pending");
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await section.screenshot({ path: `${SCREENS}/add-transactions-${viewport.width}.png` });
  }
  await page.setViewportSize(DESKTOP);
  await section.getByRole("button", { name: "Add Transactions" }).click();
  await expect(section.getByRole("status").filter({ hasText: "Transactions added successfully!" })).toBeVisible();
  // A fresh table for the next batch.
  await expect(section.getByRole("listitem", { name: /^Row \d$/ })).toHaveCount(1);
  await expect(balance(page, "$125.50")).toBeVisible();
  // The message clears after 3 seconds.
  await expect(section.getByText("Transactions added successfully!")).toBeHidden({ timeout: 8_000 });

  // The pending row completes: staff Post it from the member's transactions, after a confirm step.
  const list = page.getByRole("region", { name: "User Transactions" });
  const pendingRow = list.getByRole("listitem").filter({ hasText: "Transfer from another bank" });
  await expect(pendingRow.getByText("Pending", { exact: true })).toBeVisible();
  await pendingRow.getByRole("link", { name: /^Post transaction/ }).click();
  await expect(
    pendingRow.getByText(/^Post pending transaction #\d+\? It completes now and the balance moves\./),
  ).toBeVisible();
  await pendingRow.getByRole("button", { name: "Confirm post" }).click();
  await expect(list.getByText("Pending transaction posted: the balance is updated")).toBeVisible();
  await expect(pendingRow.getByText("Completed", { exact: true })).toBeVisible();
  await expect(pendingRow.getByRole("link", { name: /^Post transaction/ })).toHaveCount(0);
  expect(errors).toEqual([]);
});

test("a bad row by hand is refused by row and nothing is lost from the table", async ({ pageAs }) => {
  const page = await pageAs(STAFF);
  const section = await openMember(page, member.email);
  await section.getByLabel("Amount ($)").first().fill("5.00");
  await section.getByLabel("Description").first().fill('=HYPERLINK("https://evil.example")');
  await section.getByLabel("Category").first().selectOption("Other");
  await section.getByRole("button", { name: "Add Transactions" }).click();
  await expect(
    section.getByRole("alert").filter({
      hasText: /^Failed to add transactions: 1 row has an error: row 1: Description starts with = \+ - or @/,
    }),
  ).toBeVisible();
  await expect(section.getByLabel("Description").first()).toHaveValue('=HYPERLINK("https://evil.example")');
  await expectNoAxeViolations(page);
});

test("Download Template: the header and one example row", async ({ pageAs }) => {
  const page = await pageAs(STAFF);
  const section = await openMember(page, member.email);
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    section.getByRole("link", { name: "Download Template" }).click(),
  ]);
  expect(download.suggestedFilename()).toBe("transactions-template.csv");
  const records = parse(fs.readFileSync((await download.path())!)) as string[][];
  expect(records[0]).toEqual([
    "Account Type",
    "Transaction Type",
    "Amount",
    "Description",
    "Category",
    "Date",
    "Time",
    "Status",
  ]);
  expect(records).toHaveLength(2);
  expect(records[1]!.slice(0, 5)).toEqual(["Checking", "credit", "125.50", "Payroll deposit, ACME Corp", "Income"]);
});

test("Upload CSV: a valid file posts; an invalid one lists its lines and posts nothing", async ({ pageAs }) => {
  const page = await pageAs(STAFF);
  const section = await openMember(page, member.email);
  await section.getByLabel(/^CSV file/).setInputFiles(path.join(FIXTURES, "valid-lf-no-final-newline.csv"));
  await section.getByRole("button", { name: "Upload CSV" }).click();
  await expect(section.getByRole("status").filter({ hasText: "Transactions added successfully!" })).toBeVisible();
  await expect(balance(page, "$135.50")).toBeVisible();

  await section.getByLabel(/^CSV file/).setInputFiles(path.join(FIXTURES, "impossible-date.csv"));
  await section.getByRole("button", { name: "Upload CSV" }).click();
  await expect(
    section.getByRole("alert").filter({
      hasText:
        'Failed to parse CSV file: 1 line has an error: line 2: Date "2024-02-31" is not a real date (YYYY-MM-DD)',
    }),
  ).toBeVisible();
  await expect(section.getByRole("list", { name: "Errors by line" })).toContainText("Line 2:");
  await section.getByLabel(/^CSV file/).setInputFiles(path.join(FIXTURES, "header-other-order.csv"));
  await section.getByRole("button", { name: "Upload CSV" }).click();
  await expect(
    section
      .getByRole("alert")
      .filter({ hasText: /^Failed to parse CSV file: line 1 must be the header Account Type,Transaction Type/ }),
  ).toBeVisible();
  await expect(balance(page, "$135.50")).toBeVisible();
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await section.screenshot({ path: `${SCREENS}/upload-refused-${viewport.width}.png` });
  }
});

test("without JavaScript: the table posts to the Add Transactions page, which shows the answer", async ({ pageAs }) => {
  const page = await pageAs(STAFF, { javaScriptEnabled: false });
  const section = await openMember(page, member.email, { hydrate: false });
  await section.getByLabel("Type").first().selectOption("credit");
  await section.getByLabel("Amount ($)").first().fill("4.50");
  await section.getByLabel("Description").first().fill("Posted without JavaScript");
  await section.getByLabel("Category").first().selectOption("Deposit");
  await section.getByRole("button", { name: "Add Transactions" }).click();
  await expect(page).toHaveURL(/\/admin\/members\/[^/]+\/transactions$/);
  await expect(page.getByRole("heading", { level: 1, name: `Add Transactions: ${member.email}` })).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: "Transactions added successfully!" })).toBeVisible();
  // (axe needs JavaScript in the page; the same form was scanned with it above.)
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await page.screenshot({ path: `${SCREENS}/no-javascript-${viewport.width}.png`, fullPage: true });
  }
  await page.getByRole("link", { name: `Back to ${member.email}` }).click();
  await expect(balance(page, "$140.00")).toBeVisible();
});

test("a file over 2 MB is refused in the page before it is sent, with the limit", async ({ pageAs }) => {
  const page = await pageAs(STAFF);
  const section = await openMember(page, member.email);
  await section
    .getByLabel(/^CSV file/)
    .setInputFiles({ name: "big.csv", mimeType: "text/csv", buffer: Buffer.alloc(3 * 1024 * 1024, 0x41) });
  await expect(
    section
      .getByRole("alert")
      .filter({ hasText: "Failed to parse CSV file: the file is 3.0 MB; the limit is 10,000 rows and 2 MB per file" }),
  ).toBeVisible();
  await expect(section.getByRole("button", { name: "Upload CSV" })).toBeDisabled();
});

test("Currency rates: a currency without a rate cannot be chosen by members (shown disabled, no rate); once staff set one, it can", async ({
  pageAs,
}) => {
  const page = await pageAs(STAFF);
  const memberPage = await pageAs(member);
  let visit = 0;
  const currencyOptions = async (typed: string) => {
    visit += 1;
    await memberPage.goto(`/dashboard?transfer=wire&visit=${visit}#transfer`);
    await hydrated(memberPage);
    await memberPage.getByRole("combobox", { name: "Currency" }).click();
    await memberPage.keyboard.press("ControlOrMeta+a");
    await memberPage.keyboard.type(typed);
    return memberPage.getByRole("option", { name: /Swedish Krona/ });
  };
  // Listed (members see it exists) but not choosable, saying why.
  const before = await currencyOptions("Swedish");
  await expect(before).toContainText("no rate");
  await expect(before).toBeDisabled();

  await page.goto("/admin/payments");
  await hydrated(page);
  await page.getByRole("combobox", { name: "Currency" }).selectOption("SEK");
  await page.getByRole("textbox", { name: "USD per unit" }).fill("abc");
  await page.getByRole("button", { name: "Save rate" }).click();
  await expect(page.getByRole("textbox", { name: "USD per unit" })).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByRole("textbox", { name: "USD per unit" })).toHaveAccessibleDescription(
    /Please enter the US dollars for one unit/,
  );
  await page.getByRole("textbox", { name: "USD per unit" }).fill("0.0951");
  await page.getByRole("button", { name: "Save rate" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Rate for SEK saved." })).toBeVisible();
  const row = page.getByRole("row", { name: /SEK/ });
  await expect(row).toContainText("0.0951");
  await expect(row).toContainText(/\d{4}/);
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SCREENS}/payments-rates-${viewport.width}.png`, fullPage: true });
  }
  const after = await currencyOptions("Swedish");
  await expect(after).toBeEnabled();
  await expect(after).not.toContainText("no rate");
  await after.click();
  await expect(memberPage.getByRole("combobox", { name: "Currency" })).toHaveValue(/Swedish Krona/);
});
