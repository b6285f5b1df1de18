import fs from "node:fs";
import { expect as baseExpect, test, type Page } from "./fixtures";
import {
  ALEX,
  DESKTOP,
  PHONE,
  PRIYA,
  SAM,
  confirmWithCode,
  expectNoAxeViolations,
  hydrated,
  inboxCode,
  refuseMissingAndWrongCode,
  watchConsole,
} from "./support";

/**
 * The member banking app (docs/product.md#member-app) as members use it: the demo members (their
 * accounts and six months of history come from the demo-history seed). Each test uses its own
 * member, or only adds money, so the tests can run in parallel.
 */

const SCREENS = "test-results/screens";
// The shared machine can be slow: a transfer is a write plus a reload of every figure.
const expect = baseExpect.configure({ timeout: 15_000 });

test.setTimeout(120_000);
// The first member page of a fresh demo posts the demo history (until the start-up seed does it):
// warm it up once per worker so the tests measure the app, not the seeding.
test.beforeAll(async ({ browser, baseURL, sessions }) => {
  test.setTimeout(240_000);
  const context = await browser.newContext({ baseURL, storageState: await sessions.stateFor(ALEX) });
  const page = await context.newPage();
  page.setDefaultTimeout(200_000);
  await page.goto("/dashboard", { timeout: 200_000 });
  await context.close();
});

async function moneyText(page: Page, testid: string): Promise<number> {
  const text = (await page.getByTestId(testid).first().textContent()) ?? "";
  return Math.round(Number(text.replace(/[^0-9.-]/g, "")) * 100);
}

async function openTab(page: Page, name: string) {
  await page.getByRole("tab", { name }).click();
  await expect(page.getByRole("tab", { name })).toHaveAttribute("aria-selected", "true");
}

test.describe("dashboard", () => {
  test("shows the member's figures at 1440 and 375 px, axe-clean", async ({ page, signInAs }) => {
    const errors = watchConsole(page);
    await signInAs(ALEX);
    await page.goto("/dashboard");
    await expect(page.getByRole("heading", { name: "Welcome back, Alex" })).toBeVisible();
    await expect(page.getByText("Joint account · Alex Morgan & Jordan Morgan")).toBeVisible();
    await expect(page.getByRole("heading", { name: "Personal Checking" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Personal Savings" })).toBeVisible();
    // Account numbers grouped 3-3-4, and the copy buttons.
    await expect(page.getByText(/^\d{3} \d{3} \d{4}$/).first()).toBeVisible();
    await expect(page.getByRole("button", { name: "Copy account number" }).first()).toBeVisible();
    await expect(page.getByText(/1 pending transaction/)).toBeVisible();
    await expect(
      page.getByRole("list", { name: "Spending by category, last 30 days" }).getByRole("listitem").first(),
    ).toBeVisible();
    // 20 recent transactions in the table.
    await expect(page.locator("table tbody tr")).toHaveCount(20);
    await expectNoAxeViolations(page);
    fs.mkdirSync(SCREENS, { recursive: true });
    await page.screenshot({ path: `${SCREENS}/dashboard-1440.png`, fullPage: true });

    await page.setViewportSize(PHONE);
    await page.reload();
    await expect(page.getByRole("heading", { name: "Welcome back, Alex" })).toBeVisible();
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SCREENS}/dashboard-375.png`, fullPage: true });
    await page.getByRole("button", { name: "Open menu" }).click();
    const menu = page.getByRole("dialog", { name: "Menu" });
    for (const link of ["Dashboard", "Transfers", "Transactions", "Profile Settings", "Account Settings"])
      await expect(menu.getByRole("link", { name: link })).toBeVisible();
    await expect(menu.getByRole("heading", { name: "Help" })).toBeVisible();
    await expect(menu.getByRole("button", { name: "Sign out" })).toBeVisible();
    await page.screenshot({ path: `${SCREENS}/dashboard-375-menu.png` });
    await page.keyboard.press("Escape");
    await expect(menu).toBeHidden();
    await page.setViewportSize(DESKTOP);
    expect(errors).toEqual([]);
  });

  test("tabs and menus work with the keyboard alone", async ({ page, signInAs }) => {
    await signInAs(ALEX);
    await page.goto("/dashboard");
    await hydrated(page);
    // Manual activation: the arrow keys move focus along the tabs, Enter opens the focused one.
    await page.getByRole("tab", { name: "Between Accounts" }).focus();
    await page.keyboard.press("ArrowRight");
    await expect(page.getByRole("tab", { name: "To Another Member" })).toBeFocused();
    await expect(page.getByRole("tab", { name: "Between Accounts" })).toHaveAttribute("aria-selected", "true");
    await page.keyboard.press("Enter");
    await expect(page.getByRole("tab", { name: "To Another Member" })).toHaveAttribute("aria-selected", "true");
    await expect(page).toHaveURL(/transfer=member/);
    await expect(page.getByLabel("Recipient's email")).toBeVisible();

    const userMenu = page.getByRole("button", { name: "Alex, account menu" });
    await userMenu.focus();
    await page.keyboard.press("Enter");
    const menu = page.getByRole("menu", { name: "Account" });
    await expect(menu).toBeVisible();
    await expect(menu.getByRole("menuitem", { name: "Profile Settings" })).toBeFocused();
    await page.keyboard.press("ArrowDown");
    await expect(menu.getByRole("menuitem", { name: "Account Settings" })).toBeFocused();
    await expect(menu.getByRole("menuitem", { name: "Sign out" })).toBeVisible();
    await expect(menu.getByRole("menuitem", { name: "Reset Transfer Counts" })).toHaveCount(0);
    await page.keyboard.press("Escape");
    await expect(menu).toBeHidden();

    const bell = page.getByRole("button", { name: /^Notifications/ });
    await bell.focus();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("dialog", { name: "Notifications" })).toBeVisible();
    await page.keyboard.press("Escape");

    await page.getByRole("button", { name: "Help" }).focus();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("dialog", { name: "Need help?" }).getByRole("link", { name: /@/ })).toBeVisible();
    await page.keyboard.press("Escape");

    // Quick actions open in place, with a way back.
    await page.getByRole("link", { name: "Zelle" }).click();
    await expect(page.getByText("Zelle is coming soon")).toBeVisible();
    await page.getByRole("link", { name: "Back to Quick Actions" }).click();
    await page.getByRole("link", { name: "Rewards" }).click();
    await expect(page.getByText("Rewards are being enhanced")).toBeVisible();
  });
});

test.describe("transfers", () => {
  test("Between Accounts: posts at once with a reference number; refusals move nothing", async ({ page, signInAs }) => {
    await signInAs(PRIYA);
    await page.goto("/dashboard?transfer=internal#transfer");
    const panel = page.getByRole("tabpanel");
    // Refusal: more than available.
    await panel.getByLabel("Amount").fill("99999999.00");
    await panel.getByLabel("Reference").fill("Too much");
    await panel.getByRole("button", { name: "Transfer now" }).click();
    await expect(panel.getByText("Insufficient funds").first()).toBeVisible();
    // Same account.
    const from = await panel.getByLabel("From").inputValue();
    await panel.getByLabel("To").selectOption(from);
    await panel.getByLabel("Amount").fill("10.00");
    await panel.getByRole("button", { name: "Transfer now" }).click();
    await expect(panel.getByText("Cannot transfer to the same account").first()).toBeVisible();
    // Success.
    const options = await panel
      .getByLabel("To")
      .locator("option")
      .evaluateAll((els) => els.map((e) => (e as HTMLOptionElement).value).filter(Boolean));
    await panel.getByLabel("To").selectOption(options.find((v) => v !== from)!);
    await panel.getByLabel("Amount").fill("12.34");
    await panel.getByLabel("Reference").fill("Rainy day");
    await panel.getByRole("button", { name: "Transfer now" }).click();
    await expect(panel.getByRole("status").filter({ hasText: "Transfer complete: $12.34" })).toBeVisible();
    await expect(panel.getByText(/Reference number MU\d{8}/)).toBeVisible();
    await expect(page.locator("table tbody tr").first()).toContainText("Transfer from");
  });

  test("To Another Member: verify shows the name; own email refused; posts and notifies the recipient", async ({
    page,
    signInAs,
    pageAs,
  }) => {
    await signInAs(PRIYA);
    await page.goto("/dashboard?transfer=member#transfer");
    const panel = page.getByRole("tabpanel");
    await panel.getByLabel("Recipient's email").fill(PRIYA.email);
    await panel.getByRole("button", { name: "Verify" }).click();
    await expect(panel.getByText("Cannot transfer to your own account").first()).toBeVisible();
    await panel.getByLabel("Recipient's email").fill("nobody@harborview.example");
    await panel.getByRole("button", { name: "Verify" }).click();
    await expect(panel.getByText("Recipient not found").first()).toBeVisible();
    await panel.getByLabel("Amount").fill("5.00");
    await panel.getByLabel("Reference").fill("Lunch");
    await panel.getByRole("button", { name: "Send money" }).click();
    await expect(panel.getByText("Please enter a valid recipient").first()).toBeVisible();
    await panel.getByLabel("Recipient's email").fill(SAM.email);
    await panel.getByRole("button", { name: "Verify" }).click();
    await expect(panel.getByText(`Recipient found: ${SAM.name}`).first()).toBeVisible();
    await panel.getByRole("button", { name: "Send money" }).click();
    await expect(panel.getByRole("status").filter({ hasText: "Transfer sent: $5.00" })).toBeVisible();

    const sam = await pageAs(SAM);
    await sam.goto("/dashboard");
    const bell = sam.getByRole("button", { name: /^Notifications, \d+ unread/ });
    await expect(bell).toBeVisible();
    await bell.click();
    const dialog = sam.getByRole("dialog", { name: "Notifications" });
    await expect(dialog.getByText(`You received $5.00 from ${PRIYA.name}`).first()).toBeVisible();
    await dialog.getByRole("button", { name: "Mark all as read" }).click();
    await expect(sam.getByRole("button", { name: "Notifications, none unread" })).toBeVisible();
    await sam.goto("/dashboard/notifications");
    await expect(sam.getByRole("heading", { name: "Notifications" })).toBeVisible();
    await expect(sam.getByText("You're all caught up.")).toBeVisible();
    await expectNoAxeViolations(sam);
  });

  test("To US Bank: ABA check, one-time code, hold and reference", async ({ page, signInAs }) => {
    await signInAs(PRIYA);
    await page.goto("/dashboard?transfer=ach#transfer");
    const panel = page.getByRole("tabpanel");
    await panel.getByLabel("Bank").selectOption("other");
    await panel.getByLabel("Routing number").fill("021000022");
    await panel.getByLabel("Account number").fill("123456789");
    await panel.getByLabel("Name on the account").fill("Lee Park");
    await panel.getByLabel("Amount").fill("25.00");
    await panel.getByLabel("Reference").fill("Tuition");
    await panel.getByRole("button", { name: "Continue" }).click();
    await expect(panel.getByText("Please enter a valid routing number").first()).toBeVisible();
    await panel.getByLabel("Bank").selectOption({ label: "JPMorgan Chase Bank (021000021)" });
    await panel.getByRole("button", { name: "Continue" }).click();
    await expect(panel.getByLabel("One-time code")).toBeVisible();
    const code = await refuseMissingAndWrongCode(page, panel, PRIYA.email);
    await confirmWithCode(panel, code);
    await expect(panel.getByRole("status").filter({ hasText: "Transfer scheduled: $25.00" })).toBeVisible();
    // The success popup closes itself after 3 seconds.
    await expect(panel.getByRole("status").filter({ hasText: "Transfer scheduled" })).toBeHidden({ timeout: 6000 });
    await expect(page.locator("table tbody tr").first()).toContainText("Pending");
  });

  test("International: searchable pickers, confirm and notice steps, the code, hold with fee", async ({
    page,
    signInAs,
  }) => {
    // Alex, not Priya: the To US Bank test may run at the same moment, and a member's newest code
    // voids the older ones.
    await signInAs(ALEX);
    await page.goto("/dashboard?transfer=wire#transfer");
    const panel = page.getByRole("tabpanel");
    await panel.getByLabel("Recipient's name").fill("Marie Dupont");
    await panel.getByLabel("Bank name").fill("BNP Paribas");
    await panel.getByLabel("SWIFT/BIC").fill("bnpafrp");
    await panel.getByLabel("Account number").fill("FR1420041010050500013M02606");
    await panel.getByLabel("IBAN").fill("FR14 2004 1010 0505 0001 3M02 606");
    await panel.getByRole("combobox", { name: "Country" }).fill("Franc");
    await page.getByRole("option", { name: /France/ }).click();
    await panel.getByRole("combobox", { name: "Currency" }).fill("euro");
    await page.getByRole("option", { name: /Euro/ }).click();
    await panel.getByLabel(/^Amount/).fill("100.00");
    await panel.getByLabel("Reference").fill("Gift");
    await panel.getByRole("button", { name: "Review transfer" }).click();
    await expect(panel.getByText("Invalid SWIFT/BIC code").first()).toBeVisible();
    await panel.getByLabel("SWIFT/BIC").fill("bnpafrpp");
    await panel.getByRole("button", { name: "Review transfer" }).click();
    // The pre-payment disclosure (docs/product.md#remittance-transfers).
    await expect(panel.getByTestId("wire-disclosure").getByText("Total", { exact: true })).toBeVisible();
    await expect(panel.getByText("$108.38")).toBeVisible();
    await expect(panel.getByText("$45.00")).toBeVisible();
    await panel.getByRole("button", { name: "Continue" }).click();
    await expect(panel.getByText(/cannot be reversed once sent/)).toBeVisible();
    await panel.getByRole("button", { name: "Send transfer" }).click();
    // Every wire is confirmed with the emailed code.
    await panel.getByLabel("One-time code").fill(await inboxCode(page, ALEX.email));
    await panel.getByRole("button", { name: "Confirm transfer" }).click();
    await expect(
      panel.getByRole("status").filter({ hasText: "International transfer submitted: $153.38" }),
    ).toBeVisible();
  });
});

test.describe("history", () => {
  test("search, filters, pages and CSV export of the filtered set, axe-clean at both widths", async ({
    page,
    signInAs,
  }) => {
    await signInAs(ALEX);
    await page.goto("/dashboard");
    await page.getByRole("link", { name: "View All" }).click();
    await expect(page).toHaveURL(/\/dashboard\/transactions$/);
    await expect(page.locator("table tbody tr")).toHaveCount(25);
    await expectNoAxeViolations(page);
    await page.getByRole("link", { name: "Older" }).click();
    await expect(page).toHaveURL(/before=\d+/);
    await expect(page.locator("table tbody tr").first()).toBeVisible();

    await page.goto("/dashboard/transactions");
    await page.getByRole("searchbox", { name: "Search" }).fill("payroll");
    await page.getByLabel("Type").selectOption("credit");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect(page).toHaveURL(/q=payroll/);
    const rows = page.locator("table tbody tr");
    await expect(rows.first()).toContainText("Direct deposit");
    const count = await rows.count();
    for (let i = 0; i < count; i++) await expect(rows.nth(i)).toContainText("payroll");

    const download = page.waitForEvent("download");
    await page.getByRole("link", { name: /Export CSV/ }).click();
    const file = await (await download).path();
    const csv = fs.readFileSync(file, "utf8");
    const lines = csv.trim().split("\r\n");
    expect(lines[0]).toBe("Date,Time (UTC),Description,Category,Type,Amount,Status,Reference,Account,Reference number");
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines.slice(1)) {
      expect(line).toContain("payroll");
      expect(line).toContain(",Credit,");
    }

    await page.getByLabel("Category").selectOption("Groceries");
    await page.getByRole("searchbox", { name: "Search" }).fill("");
    await page.getByLabel("Type").selectOption("debit");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect(rows.first()).toContainText("Groceries");

    await page.setViewportSize(PHONE);
    await page.goto("/dashboard/transactions");
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SCREENS}/transactions-375.png`, fullPage: false });
  });

  test("a signed-out visitor is sent to sign in; the API answers 401", async ({ page, request }) => {
    await page.goto("/dashboard/transactions");
    await expect(page).toHaveURL(/\/login\?redirectTo=/);
    const response = await request.post("/dashboard?transfer=internal", {
      form: { intent: "internal" },
      headers: { Origin: new URL(page.url()).origin },
    });
    expect(response.status()).toBe(401);
  });
});

export { moneyText, openTab };
