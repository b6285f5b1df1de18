import fs from "node:fs";
import { parse } from "csv-parse/sync";
import { expect, test } from "./fixtures";
import { DESKTOP, PHONE, expectNoAxeViolations, watchConsole } from "./support";

/**
 * The institution's books (docs/product.md#books), as an accountant: the back office shows them
 * the books only; they read the accounts and the trial balance (in balance), download it as CSV
 * (read back with a CSV parser), reconcile a day's wire settlement (a difference, then matched),
 * and propose a general-ledger entry that the other accountant approves (dual control).
 */
const ACCOUNTANT = { email: "accountant@harborview.example", password: "Books-Demo-Pass-1" };
const CONTROLLER = { email: "controller@harborview.example", password: "Books-Demo-Pass-2" };
const SCREENS = "test-results/books";

// A past day: no test posts to it while this one reconciles it.
const DAY = new Date(Date.now() - 3 * 24 * 60 * 60 * 1000).toISOString().slice(0, 10);

test.describe.configure({ mode: "serial" });

test.beforeEach(async ({ page, sessions }) => {
  await page.context().addCookies((await sessions.stateFor(ACCOUNTANT)).cookies);
});

test("an accountant sees the books only, reads the trial balance and downloads it", async ({ page }) => {
  test.setTimeout(90_000);
  const errors = watchConsole(page);
  await page.setViewportSize(DESKTOP);
  await page.goto("/admin");
  // Every other back-office page sends an accountant to the books.
  await expect(page).toHaveURL(/\/admin\/books$/);
  await expect(page.getByRole("heading", { name: "Institution accounts", level: 1 })).toBeVisible();
  const nav = page.getByRole("navigation", { name: "Back office" });
  await expect(nav.getByRole("link")).toHaveText(["Books"]);
  await expect(page.getByRole("link", { name: "Cash", exact: true })).toBeVisible();
  await expectNoAxeViolations(page);
  await page.screenshot({ path: `${SCREENS}/accounts-1440.png`, fullPage: true });

  await page.getByRole("link", { name: "Cash", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Cash", level: 1 })).toBeVisible();
  await expectNoAxeViolations(page);

  await page.getByRole("navigation", { name: "Books" }).getByRole("link", { name: "Trial balance" }).click();
  await expect(page.getByRole("heading", { name: "Trial balance", level: 1 })).toBeVisible();
  await expect(
    page.getByRole("status").filter({ hasText: "In balance: total debits equal total credits." }),
  ).toBeVisible();
  const totals = page.locator("tfoot td");
  await expect(totals.nth(0)).toHaveText(await totals.nth(1).innerText());
  await expectNoAxeViolations(page);
  await page.screenshot({ path: `${SCREENS}/trial-balance-1440.png`, fullPage: true });

  // The demo profile maps every line to a GL account code: the day's export is offered.
  const [glDownload] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Day's GL export (CSV)" }).click(),
  ]);
  expect(glDownload.suggestedFilename()).toMatch(/^gl-\d{4}-\d{2}-\d{2}\.csv$/);
  const glRows = parse(fs.readFileSync((await glDownload.path())!, "utf8"), { columns: true }) as Record<
    string,
    string
  >[];
  expect(glRows.find((r) => r.account === "Cash")).toMatchObject({ gl_account: "1010" });

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Download CSV" }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^trial-balance-\d{4}-\d{2}-\d{2}\.csv$/);
  const rows = parse(fs.readFileSync((await download.path())!, "utf8"), { columns: true }) as Record<string, string>[];
  const total = rows.at(-1)!;
  expect(total.code).toBe("TOTAL");
  expect(total.debit).toBe(total.credit);
  expect(rows.map((r) => r.account)).toContain("Cash");

  // A day still to come: its message next to the field.
  await page.getByLabel("As of the end of").fill("2999-01-01");
  await page.getByRole("button", { name: "Show" }).click();
  await expect(page.getByText("Please choose today or an earlier day")).toBeVisible();

  await page.setViewportSize(PHONE);
  await page.goto("/admin/books/trial-balance");
  await expect(page.getByRole("heading", { name: "Trial balance", level: 1 })).toBeVisible();
  await expectNoAxeViolations(page);
  await page.screenshot({ path: `${SCREENS}/trial-balance-375.png`, fullPage: true });
  await page.goto("/admin/books");
  await page.screenshot({ path: `${SCREENS}/accounts-375.png`, fullPage: true });
  expect(errors).toEqual([]);
});

test("an accountant reconciles a day's wire settlement: a difference, then matched", async ({ page }) => {
  test.setTimeout(90_000);
  const errors = watchConsole(page);
  await page.setViewportSize(DESKTOP);
  await page.goto(`/admin/books/settlement?date=${DAY}`);
  await expect(page.getByRole("heading", { name: "Daily settlement", level: 1 })).toBeVisible();
  const wires = page.getByRole("region", { name: "Wires" });
  const net = (await wires.getByTestId("ledger-net-wire").innerText()).replace(/[$,]/g, "");
  const ledgerCents = Math.round(Number(net) * 100);

  // The statement shows $10.00 more than the ledger: a settlement the ledger is missing.
  const form = wires.getByRole("form", { name: "Reconcile Wires" });
  await form.getByLabel(/Statement net/).fill(((ledgerCents + 1000) / 100).toFixed(2));
  await form.getByRole("button", { name: "Record" }).click();
  await expect(
    wires.getByText("Recorded. The statement and the ledger differ: look at the day's entries below."),
  ).toBeVisible();
  await expect(wires.getByText(/^Difference of \$10\.00/)).toBeVisible();
  await expect(wires.getByRole("heading", { name: "The day's entries to look at" })).toBeVisible();
  await expectNoAxeViolations(page);
  await page.screenshot({ path: `${SCREENS}/settlement-difference-1440.png`, fullPage: true });

  // Bad input: its message next to the field, nothing recorded.
  await form.getByLabel(/Statement net/).fill("ten dollars");
  await form.getByRole("button", { name: "Record" }).click();
  await expect(
    form.getByText("Please enter an amount in dollars and cents, such as 1250.00 or -1250.00"),
  ).toBeVisible();

  await form.getByLabel(/Statement net/).fill((ledgerCents / 100).toFixed(2));
  await form.getByRole("button", { name: "Record" }).click();
  await expect(wires.getByText("Recorded. The statement matches the ledger for this day.")).toBeVisible();
  await expect(wires.getByText(/^Matched: the statement's/)).toBeVisible();

  await page.setViewportSize(PHONE);
  await page.goto(`/admin/books/settlement?date=${DAY}`);
  await expect(page.getByRole("region", { name: "Wires" }).getByText(/^Matched/)).toBeVisible();
  await expectNoAxeViolations(page);
  await page.screenshot({ path: `${SCREENS}/settlement-375.png`, fullPage: true });
  expect(errors).toEqual([]);
});

test("an accountant proposes a general-ledger entry; the controller approves it and it posts", async ({
  page,
  browser,
  baseURL,
  sessions,
}) => {
  test.setTimeout(120_000);
  const errors = watchConsole(page);
  await page.setViewportSize(DESKTOP);
  await page.goto("/admin/books/entries");
  await expect(page.getByRole("heading", { name: "General ledger entries", level: 1 })).toBeVisible();
  const memo = `Reclassify fee ${Date.now()}`;
  await page.getByLabel("Debit (money out of)").selectOption("adjustments");
  await page.getByLabel("Credit (money into)").selectOption("fees_income");
  await page.getByLabel("Amount").fill("12.50");
  await page.getByLabel("Description").fill(memo);
  await page.getByRole("button", { name: "Propose entry" }).click();
  await expect(
    page.getByText("Proposed. Another accountant or staff member must approve it before it posts."),
  ).toBeVisible();
  const mine = page.getByRole("listitem").filter({ hasText: memo });
  await expect(mine.getByText("You proposed this entry")).toBeVisible();
  await expect(mine.getByRole("button", { name: "Approve and post" })).toHaveCount(0);
  await expectNoAxeViolations(page);
  await page.screenshot({ path: `${SCREENS}/entries-1440.png`, fullPage: true });

  const controller = await browser.newContext({ baseURL, storageState: await sessions.stateFor(CONTROLLER) });
  const other = await controller.newPage();
  await other.setViewportSize(PHONE);
  await other.goto("/admin/books/entries");
  const waiting = other.getByRole("listitem").filter({ hasText: memo });
  await expect(waiting).toContainText("$12.50 from Adjustments to Fees income");
  await expectNoAxeViolations(other);
  await other.screenshot({ path: `${SCREENS}/entries-375.png`, fullPage: true });
  await waiting.getByRole("button", { name: "Approve and post" }).click();
  await expect(other.getByText("Approved and posted to the ledger.")).toBeVisible();
  await expect(
    other.getByRole("region", { name: "Decided" }).getByRole("listitem").filter({ hasText: memo }),
  ).toContainText(/approved by controller@harborview\.example/);
  await controller.close();
  expect(errors).toEqual([]);
});
