import fs from "node:fs";
import { expect as baseExpect, test, type Locator, type Page } from "./fixtures";
import {
  CREATED_MEMBER_NAME,
  DESKTOP,
  PHONE,
  SAM,
  confirmWithCode,
  expectNoAxeViolations,
  fundedMember,
  hydrated,
  refuseMissingAndWrongCode,
  watchConsole,
} from "./support";

/**
 * Every transfer kind end to end as a member uses it (docs/product.md#transfers), each with its
 * refusals and their messages, the monthly savings-transfer limit, history search and CSV export of the
 * member's own transfers, notifications of money received, and an axe scan of every member page
 * and dialog at 1440 and 375 px.
 *
 * Each test makes its own members through the back office (staff "Create New User") and funds
 * them from a demo member (Sam Okafor or Priya Shah) with a real To Another Member transfer, so no test depends
 * on the demo members' balances, on another test, or on the order the tests run in. Frozen
 * accounts and paused payments need staff controls that do not exist yet: the integration tests
 * (tests/integration/payments/payments-transfers.test.ts) cover those messages.
 */
const expect = baseExpect.configure({ timeout: 15_000 });
const SCREENS = "test-results/screens";
const SENDER_NAME = CREATED_MEMBER_NAME;

// The shared machine can be very slow: a test makes its members, funds them and transfers.
test.setTimeout(300_000);
// The first member page of a fresh demo can be slow (the demo history is posted then): Sam's
// dashboard is opened once per worker before the tests.
test.beforeAll(async ({ browser, baseURL, sessions }) => {
  test.setTimeout(240_000);
  const context = await browser.newContext({ baseURL, storageState: await sessions.stateFor(SAM) });
  const page = await context.newPage();
  page.setDefaultTimeout(200_000);
  await page.goto("/dashboard", { timeout: 200_000 });
  await context.close();
});

/** Moves `dollars` from the member's checking into savings; the reference number it was given. */
async function intoSavings(panel: Locator, dollars: string, reference: string): Promise<string> {
  await chooseAccount(panel.getByLabel("From"), "Checking");
  await chooseAccount(panel.getByLabel("To"), "Savings");
  await panel.getByLabel("Amount").fill(dollars);
  await panel.getByLabel("Reference").fill(reference);
  const sentKey = await formKey(panel).inputValue();
  await panel.getByRole("button", { name: "Transfer now" }).click();
  const done = panel.getByRole("status").filter({ hasText: `Transfer complete: $${dollars}` });
  await expect(done).toBeVisible();
  const number = /MU\d{8}/.exec((await done.textContent()) ?? "")?.[0] ?? "";
  expect(number).toMatch(/^MU\d{8}$/);
  await freshKeyAfter(panel, sentKey);
  return number;
}

/** The idempotency key the open transfer form sends. */
function formKey(panel: Locator): Locator {
  return panel.locator('input[name="idempotency_key"]');
}

/**
 * Waits until the form holds a new idempotency key after a transfer went through: the page's data
 * is reloaded after each answer and brings it. A transfer sent before then would carry the last
 * one's key and be answered with the last transfer, not sent.
 */
async function freshKeyAfter(panel: Locator, sentKey: string) {
  await expect(formKey(panel)).not.toHaveValue(sentKey);
}

/** Chooses the member's account whose label contains `type` ("Checking" or "Savings"). */
async function chooseAccount(select: Locator, type: "Checking" | "Savings") {
  const value = await select
    .locator("option")
    .evaluateAll(
      (options, t) => (options as HTMLOptionElement[]).find((o) => o.textContent?.includes(t))?.value ?? "",
      type,
    );
  expect(value, `a ${type} account to choose`).not.toBe("");
  await select.selectOption(value);
}

async function openDashboard(page: Page, tab: "internal" | "member" | "ach" | "wire") {
  await page.goto(`/dashboard?transfer=${tab}#transfer`);
  await hydrated(page);
  return page.getByRole("tabpanel");
}

function unique(tag: string) {
  return `${tag}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`.toUpperCase();
}

test.describe("transfers, each kind with its refusals", () => {
  test("money received is in the bell, and marking it read lasts after a reload", async ({
    page,
    newMember,
    pageAs,
    signInAs,
  }) => {
    const errors = watchConsole(page);
    const member = await fundedMember({ newMember, pageAs }, "bell", "40.00", SAM);
    await signInAs(member);
    await openDashboard(page, "internal");
    await page.getByRole("button", { name: /^Notifications, \d+ unread$/ }).click();
    const bell = page.getByRole("dialog", { name: "Notifications" });
    const received = "You received $40.00 from Sam Okafor";
    await expect(bell.getByText(`Unread: ${received}`)).toBeVisible();
    const item = bell.getByRole("listitem").filter({ hasText: received });
    await item.getByRole("button", { name: /^Mark as read/ }).click();
    await expect(item.getByRole("button", { name: /^Mark as read/ })).toHaveCount(0);
    await expect(bell.getByText(received).first()).toBeVisible();
    await expectNoAxeViolations(page);
    await page.keyboard.press("Escape");
    await page.reload();
    await hydrated(page);
    await page.getByRole("button", { name: /^Notifications/ }).click();
    await expect(page.getByRole("dialog", { name: "Notifications" }).getByText(received).first()).toBeVisible();
    await expect(page.getByRole("dialog", { name: "Notifications" }).getByText(`Unread: ${received}`)).toHaveCount(0);
    await page.keyboard.press("Escape");
    expect(errors).toEqual([]);
  });

  test("Between Accounts refuses an empty form, a zero amount and more than available", async ({
    page,
    newMember,
    pageAs,
    signInAs,
  }) => {
    const errors = watchConsole(page);
    const member = await fundedMember({ newMember, pageAs }, "refusals", "40.00");
    await signInAs(member);
    const panel = await openDashboard(page, "internal");
    await panel.getByRole("button", { name: "Transfer now" }).click();
    await expect(panel.getByText("Please fill in all fields").first()).toBeVisible();
    await panel.getByLabel("Amount").fill("0");
    await panel.getByLabel("Reference").fill("Nothing");
    await panel.getByRole("button", { name: "Transfer now" }).click();
    await expect(panel.getByText("Please enter a valid amount").first()).toBeVisible();
    await chooseAccount(panel.getByLabel("From"), "Checking");
    await chooseAccount(panel.getByLabel("To"), "Savings");
    await panel.getByLabel("Amount").fill("40.01");
    await panel.getByRole("button", { name: "Transfer now" }).click();
    await expect(panel.getByText("Insufficient funds").first()).toBeVisible();
    expect(errors).toEqual([]);
  });

  test("Between Accounts: transfers out of savings go through until the monthly limit refuses, naming the count", async ({
    page,
    newMember,
    pageAs,
    signInAs,
  }) => {
    const errors = watchConsole(page);
    const member = await fundedMember({ newMember, pageAs }, "limit", "40.00");
    await signInAs(member);
    const panel = await openDashboard(page, "internal");
    // Into savings first (not limited), so there is money to take out.
    let last = await intoSavings(panel, "20.00", "Savings goal");

    // Out of savings until the monthly limit refuses, naming the count
    // (docs/product.md#transfer-limits). Staff may reset every count at any moment
    // (reset-transfers.spec.ts), so count at least the limit, not exactly.
    const limitMessage = panel.getByText(/^You have reached the limit of \d+ transfers out of savings this month\.$/);
    let sent = 0;
    for (let i = 1; i <= 20; i++) {
      await chooseAccount(panel.getByLabel("From"), "Savings");
      await chooseAccount(panel.getByLabel("To"), "Checking");
      await panel.getByLabel("Amount").fill("1.00");
      await panel.getByLabel("Reference").fill(`Out of savings ${i}`);
      const sentKey = await formKey(panel).inputValue();
      await panel.getByRole("button", { name: "Transfer now" }).click();
      let outcome: "sent" | "refused" | null = null;
      await expect(async () => {
        if ((await limitMessage.count()) > 0) {
          outcome = "refused";
          return;
        }
        const text =
          (await panel
            .getByRole("status")
            .filter({ hasText: "Transfer complete: $1.00" })
            .textContent({ timeout: 1_000 })) ?? "";
        const ref = /MU\d{8}/.exec(text)?.[0] ?? "";
        expect(ref !== "" && ref !== last).toBe(true);
        last = ref;
        outcome = "sent";
      }).toPass({ timeout: 20_000 });
      if (outcome === "refused") break;
      sent++;
      await freshKeyAfter(panel, sentKey);
    }
    await expect(limitMessage).toBeVisible();
    const limit = Number(/limit of (\d+)/.exec((await limitMessage.textContent()) ?? "")![1]);
    expect(limit).toBeGreaterThan(0);
    expect(sent).toBeGreaterThanOrEqual(limit);
    await expect(panel.getByText("Staff can reset the count; it starts again next month.")).toBeVisible();
    await expectNoAxeViolations(page);
    fs.mkdirSync(SCREENS, { recursive: true });
    await page.screenshot({ path: `${SCREENS}/transfer-savings-limit-1440.png` });
    expect(errors).toEqual([]);
  });

  test("Between Accounts: the reference finds both sides of the transfer in history search and in the CSV export", async ({
    page,
    newMember,
    pageAs,
    signInAs,
  }) => {
    const errors = watchConsole(page);
    const member = await fundedMember({ newMember, pageAs }, "history", "40.00");
    await signInAs(member);
    const panel = await openDashboard(page, "internal");
    const reference = unique("GOAL");
    await intoSavings(panel, "20.00", reference);

    await page.goto("/dashboard/transactions");
    await page.getByRole("searchbox", { name: "Search" }).fill(reference.toLowerCase());
    await page.getByRole("button", { name: "Apply" }).click();
    await expect(page).toHaveURL(new RegExp(`q=${reference.toLowerCase()}`));
    const rows = page.locator("table tbody tr");
    await expect(rows).toHaveCount(2);
    for (let i = 0; i < 2; i++) await expect(rows.nth(i)).toContainText("$20.00");
    await expectNoAxeViolations(page);
    const download = page.waitForEvent("download");
    await page.getByRole("link", { name: /Export CSV/ }).click();
    const csv = fs
      .readFileSync((await (await download).path())!, "utf8")
      .trim()
      .split("\r\n");
    expect(csv[0]).toBe("Date,Time (UTC),Description,Category,Type,Amount,Status,Reference,Account,Reference number");
    expect(csv).toHaveLength(3);
    for (const line of csv.slice(1)) expect(line).toContain(reference);
    expect(
      csv
        .slice(1)
        .map((line) => (line.includes(",Debit,") ? "Debit" : line.includes(",Credit,") ? "Credit" : "?"))
        .sort(),
    ).toEqual(["Credit", "Debit"]);
    expect(errors).toEqual([]);
  });

  test("To Another Member at 375 px: refusals, then the money and the notification reach the recipient", async ({
    page,
    newMember,
    pageAs,
    signInAs,
  }) => {
    await page.setViewportSize(PHONE);
    const sender = await fundedMember({ newMember, pageAs }, "sender", "30.00");
    const recipient = await newMember("recipient");
    await signInAs(sender);
    const panel = await openDashboard(page, "member");

    await panel.getByLabel("Recipient's email").fill("nobody-here@harborview.example");
    await panel.getByRole("button", { name: "Verify" }).click();
    await expect(panel.getByText("Recipient not found").first()).toBeVisible();
    await panel.getByLabel("Recipient's email").fill(sender.email);
    await panel.getByRole("button", { name: "Verify" }).click();
    await expect(panel.getByText("Cannot transfer to your own account").first()).toBeVisible();
    await panel.getByLabel("Amount").fill("3.21");
    await panel.getByLabel("Reference").fill("Coffee");
    await panel.getByRole("button", { name: "Send money" }).click();
    await expect(panel.getByText("Please enter a valid recipient").first()).toBeVisible();

    await panel.getByLabel("Recipient's email").fill(recipient.email);
    await panel.getByRole("button", { name: "Verify" }).click();
    await expect(panel.getByText(`Recipient found: ${SENDER_NAME}`).first()).toBeVisible();
    await panel.getByLabel("Amount").fill("30.01");
    await panel.getByLabel("Reference").fill("Coffee");
    await panel.getByRole("button", { name: "Send money" }).click();
    await expect(panel.getByText("Insufficient funds").first()).toBeVisible();
    await expectNoAxeViolations(page);

    await panel.getByLabel("Recipient's email").fill(recipient.email);
    await panel.getByRole("button", { name: "Verify" }).click();
    await expect(panel.getByText(`Recipient found: ${SENDER_NAME}`).first()).toBeVisible();
    await panel.getByLabel("Amount").fill("3.21");
    await panel.getByLabel("Reference").fill("Coffee");
    await panel.getByRole("button", { name: "Send money" }).click();
    await expect(panel.getByRole("status").filter({ hasText: "Transfer sent: $3.21" })).toBeVisible();
    await expect(panel.getByText(/Reference number MU\d{8}/)).toBeVisible();
    await expectNoAxeViolations(page);
    fs.mkdirSync(SCREENS, { recursive: true });
    await page.screenshot({ path: `${SCREENS}/transfer-member-375.png`, fullPage: false });

    // The recipient, on a phone: the bell, mark all read, and the money in their checking.
    {
      const other = await pageAs(recipient, { viewport: PHONE });
      await other.goto("/dashboard");
      await hydrated(other);
      await other.getByRole("button", { name: /^Notifications, \d+ unread$/ }).click();
      const bell = other.getByRole("dialog", { name: "Notifications" });
      await expect(bell.getByText(`Unread: You received $3.21 from ${SENDER_NAME}`)).toBeVisible();
      await expectNoAxeViolations(other);
      await other.screenshot({ path: `${SCREENS}/notifications-375.png` });
      await bell.getByRole("button", { name: "Mark all as read" }).click();
      await expect(other.getByRole("button", { name: "Notifications, none unread" })).toBeVisible();
      await other.keyboard.press("Escape");
      // The money is in the recipient's balance.
      await expect(other.getByText("$3.21").first()).toBeVisible();
    }
  });

  // One test (not one per width): Sam funds the sender above the code amount, and two of Sam's
  // codes at once would void each other.
  test("To Another Member above the code amount at 375 and 1440 px: the limit named, then the code step as To US Bank's", async ({
    page,
    newMember,
    pageAs,
    signInAs,
  }) => {
    await page.setViewportSize(PHONE);
    const sender = await fundedMember({ newMember, pageAs }, "big", "1100.00");
    const recipient = await newMember("bigto");
    await signInAs(sender);
    const panel = await openDashboard(page, "member");
    await expect(
      panel.getByText(
        "Up to $5,000.00 a transfer and $10,000.00 a day. Above $1,000.00 we email you a code to confirm the transfer.",
      ),
    ).toBeVisible();

    await panel.getByLabel("Recipient's email").fill(recipient.email);
    await panel.getByRole("button", { name: "Verify" }).click();
    await expect(panel.getByText(`Recipient found: ${SENDER_NAME}`).first()).toBeVisible();
    await panel.getByLabel("Amount").fill("5000.01");
    await panel.getByLabel("Reference").fill("Car");
    await panel.getByRole("button", { name: "Send money" }).click();
    await expect(
      panel.getByText("The most you can send in one of your transfers to other members is $5,000.00").first(),
    ).toBeVisible();

    await panel.getByLabel("Amount").fill("1000.01");
    await panel.getByRole("button", { name: "Send money" }).click();
    await expect(panel.getByText("Check the transfer")).toBeVisible();
    await expect(panel.getByText(/^\$1,000\.01 from Checking •••• \d{4} to /)).toContainText(
      `to ${SENDER_NAME} (${recipient.email.toLowerCase()}).`,
    );
    await expect(
      panel.getByText("We emailed you a 6-digit code to confirm this transfer. It expires in 10 minutes."),
    ).toBeVisible();
    const code = await refuseMissingAndWrongCode(page, panel, sender.email);
    await expectNoAxeViolations(page);
    fs.mkdirSync(SCREENS, { recursive: true });
    await page.screenshot({ path: `${SCREENS}/transfer-member-code-375.png` });
    await page.setViewportSize(DESKTOP);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SCREENS}/transfer-member-code-1440.png` });
    await confirmWithCode(panel, code);
    await expect(panel.getByRole("status").filter({ hasText: "Transfer sent: $1,000.01" })).toBeVisible();
  });

  test('a retry after "Transfer failed" keeps the form\'s key, so a transfer whose answer was lost is sent once', async ({
    page,
    newMember,
    pageAs,
    signInAs,
  }) => {
    const sender = await fundedMember({ newMember, pageAs }, "retry", "30.00");
    const recipient = await newMember("retryto");
    await signInAs(sender);
    const panel = await openDashboard(page, "member");
    await panel.getByLabel("Recipient's email").fill(recipient.email);
    await panel.getByRole("button", { name: "Verify" }).click();
    await expect(panel.getByText(`Recipient found: ${SENDER_NAME}`).first()).toBeVisible();
    await panel.getByLabel("Amount").fill("12.34");
    await panel.getByLabel("Reference").fill("Lost answer");
    // The key the form sends (read now: Verify also reloads the page's data).
    const key = panel.locator('input[name="idempotency_key"]');
    const first = await key.inputValue();
    expect(first).toMatch(/^[0-9a-f-]{36}$/);

    // The first send reaches the server and is posted, but its answer is lost to an unexpected
    // error: the browser gets what the server answers to a failure ("Transfer failed"), for the
    // same form with an intent it does not know.
    let lost = false;
    await page.route(
      (url) => url.pathname.endsWith(".data"),
      async (route) => {
        if (lost || route.request().method() !== "POST") return route.fallback();
        lost = true;
        const body = route.request().postData() ?? "";
        await route.fetch();
        const failing = new URLSearchParams(body);
        failing.set("intent", "member-answer-lost");
        await route.fulfill({ response: await route.fetch({ postData: failing.toString() }) });
      },
    );
    await panel.getByRole("button", { name: "Send money" }).click();
    await expect(panel.getByText("Transfer failed. Please try again.").first()).toBeVisible();
    expect(lost).toBe(true);
    // The page's data came again with fresh keys; the form kept the key it sent.
    await expect(key).toHaveValue(first);

    // The member tries again: the same transfer, answered with the first one, not sent twice.
    await panel.getByRole("button", { name: "Send money" }).click();
    await expect(panel.getByRole("status").filter({ hasText: "Transfer sent: $12.34" })).toBeVisible();
    await expect(page.locator("table tbody tr").filter({ hasText: "12.34" })).toHaveCount(1);
    await expect(page.getByText("$17.66").first()).toBeVisible();
    // Known to have gone through: the next transfer gets a fresh key.
    await expect(key).not.toHaveValue(first);
  });

  test("To US Bank at 375 px: account number, routing checksum and code refusals, then the hold", async ({
    page,
    newMember,
    pageAs,
    signInAs,
  }) => {
    await page.setViewportSize(PHONE);
    const member = await fundedMember({ newMember, pageAs }, "ach", "50.00");
    await signInAs(member);
    const panel = await openDashboard(page, "ach");

    await panel.getByLabel("Bank").selectOption({ label: "JPMorgan Chase Bank (021000021)" });
    await panel.getByLabel("Account number").fill("12ab");
    await panel.getByLabel("Account type").selectOption("savings");
    await panel.getByLabel("Name on the account").fill("Lee Park");
    await panel.getByLabel("Amount").fill("12.50");
    await panel.getByLabel("Reference").fill("Rent share");
    await panel.getByRole("button", { name: "Continue" }).click();
    await expect(panel.getByText("Please enter a valid account number").first()).toBeVisible();
    await panel.getByLabel("Account number").fill("123456789");
    await panel.getByLabel("Bank").selectOption("other");
    await panel.getByLabel("Routing number").fill("021000022");
    await panel.getByRole("button", { name: "Continue" }).click();
    await expect(panel.getByText("Please enter a valid routing number").first()).toBeVisible();
    await panel.getByLabel("Routing number").fill("021000021");
    await panel.getByLabel("Amount").fill("50.01");
    await panel.getByRole("button", { name: "Continue" }).click();
    await expect(panel.getByText("Insufficient funds").first()).toBeVisible();
    await expectNoAxeViolations(page);

    await panel.getByLabel("Amount").fill("12.50");
    await panel.getByRole("button", { name: "Continue" }).click();
    await expect(panel.getByLabel("One-time code")).toBeVisible();
    // The code confirms this transfer as the email states it, to a savings account (chosen above, kept through the refusals).
    await expect(panel.getByText(/to Lee Park at JPMorgan Chase Bank, savings account ••6789\./)).toBeVisible();
    const code = await refuseMissingAndWrongCode(page, panel, member.email);
    await expectNoAxeViolations(page);
    await confirmWithCode(panel, code);
    await expect(panel.getByRole("status").filter({ hasText: "Transfer scheduled: $12.50" })).toBeVisible();
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SCREENS}/transfer-ach-375.png` });
    await expect(panel.getByRole("status").filter({ hasText: "Transfer scheduled" })).toBeHidden({ timeout: 6_000 });
    // The hold: pending in the list and in the pending total.
    await expect(page.getByText("1 pending transaction")).toBeVisible();
  });

  test("International at 375 px: SWIFT/BIC, account number and IBAN refusals, then confirm, notice and hold", async ({
    page,
    newMember,
    pageAs,
    signInAs,
  }) => {
    await page.setViewportSize(PHONE);
    const member = await fundedMember({ newMember, pageAs }, "wire", "80.00");
    await signInAs(member);
    const panel = await openDashboard(page, "wire");

    await panel.getByLabel("Recipient's name").fill("Marie Dupont");
    await panel.getByLabel("Bank name").fill("BNP Paribas");
    await panel.getByLabel("SWIFT/BIC").fill("bnp");
    await panel.getByLabel("Account number").fill("FR14 2004 1010 0505 0001 3M02 606");
    // Typed as a person types (React Aria's combobox filters on input events).
    await panel.getByRole("combobox", { name: "Country" }).click();
    await page.keyboard.type("Franc");
    await page.getByRole("option", { name: /France/ }).click();
    await panel.getByRole("combobox", { name: "Currency" }).click();
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.type("euro");
    await page.getByRole("option", { name: /Euro/ }).click();
    await panel.getByLabel(/^Amount/).fill("10.00");
    await panel.getByLabel("Reference").fill("Birthday");
    await panel.getByRole("button", { name: "Review transfer" }).click();
    await expect(panel.getByText("Invalid SWIFT/BIC code").first()).toBeVisible();
    await panel.getByLabel("SWIFT/BIC").fill("bnpafrpp");
    await panel.getByLabel("Account number").fill("1234");
    await panel.getByRole("button", { name: "Review transfer" }).click();
    await expect(panel.getByText("Invalid account number").first()).toBeVisible();
    await panel.getByLabel("Account number").fill("FR14 2004 1010 0505 0001 3M02 606");
    // A wrong check digit (14 -> 15).
    await panel.getByLabel("IBAN").fill("FR15 2004 1010 0505 0001 3M02 606");
    await panel.getByRole("button", { name: "Review transfer" }).click();
    await expect(panel.getByText("Invalid IBAN").first()).toBeVisible();
    await expectNoAxeViolations(page);

    await panel.getByLabel("IBAN").fill("FR14 2004 1010 0505 0001 3M02 606");
    await panel.getByRole("button", { name: "Review transfer" }).click();
    await expect(panel.getByTestId("wire-disclosure").getByText("Exchange rate used")).toBeVisible();
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SCREENS}/transfer-wire-confirm-375.png` });
    await panel.getByRole("button", { name: "Continue" }).click();
    await expect(panel.getByText(/cannot be reversed once sent/)).toBeVisible();
    await expectNoAxeViolations(page);
    await panel.getByRole("button", { name: "Send transfer" }).click();
    // Every wire is confirmed with the emailed code, on the same code step as To US Bank.
    await expect(panel.getByText("Check the transfer")).toBeVisible();
    await expect(
      panel.getByText(
        /^EUR 10\.00 to Marie Dupont at BNP Paribas \(France\), account ••2606: \$\d+\.\d\d held from Checking/,
      ),
    ).toBeVisible();
    const code = await refuseMissingAndWrongCode(page, panel, member.email);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SCREENS}/transfer-wire-code-375.png` });
    await confirmWithCode(panel, code);
    await expect(
      panel.getByRole("status").filter({ hasText: /International transfer submitted: \$\d+\.\d\d/ }),
    ).toBeVisible();
    await expect(page.getByText("1 pending transaction")).toBeVisible();
  });
});

test.describe("every member page and dialog", () => {
  for (const viewport of [DESKTOP, PHONE]) {
    test(`axe-clean at ${viewport.width} px, dialogs open too`, async ({ page, signInAs }) => {
      test.setTimeout(360_000);
      const errors = watchConsole(page);
      await page.setViewportSize(viewport);
      await signInAs(SAM);
      const phone = viewport.width < 768;

      for (const path of [
        "/dashboard",
        "/dashboard?transfer=member#transfer",
        "/dashboard?transfer=ach#transfer",
        "/dashboard?transfer=wire#transfer",
        "/dashboard?action=zelle#quick-actions",
        "/dashboard?action=rewards#quick-actions",
        "/dashboard/transactions",
        "/dashboard/transactions?type=debit&category=Groceries",
        "/dashboard/notifications",
        "/settings/profile",
        "/settings/account",
      ]) {
        await page.goto(path);
        await hydrated(page);
        await expect(page.locator("h1").first()).toBeVisible();
        await expectNoAxeViolations(page);
        // Nothing wider than the screen (the transfer tabs once pushed the phone layout to 654 px).
        expect(
          await page.evaluate(() => document.documentElement.scrollWidth),
          `page width of ${path}`,
        ).toBeLessThanOrEqual(viewport.width);
      }

      await page.goto("/dashboard");
      await hydrated(page);
      // The notifications dialog.
      await page.getByRole("button", { name: /^Notifications/ }).click();
      await expect(page.getByRole("dialog", { name: "Notifications" })).toBeVisible();
      await expectNoAxeViolations(page);
      await page.keyboard.press("Escape");
      await expect(page.getByRole("dialog", { name: "Notifications" })).toBeHidden();

      if (phone) {
        // The mobile menu (with the help section).
        await page.getByRole("button", { name: "Open menu" }).click();
        const menu = page.getByRole("dialog", { name: "Menu" });
        await expect(menu.getByRole("heading", { name: "Help" })).toBeVisible();
        await expectNoAxeViolations(page);
        await page.keyboard.press("Escape");
        await expect(menu).toBeHidden();
      } else {
        // The help popover and the user menu.
        await page.getByRole("button", { name: "Help" }).focus();
        await page.keyboard.press("Enter");
        await expect(page.getByRole("dialog", { name: "Need help?" })).toBeVisible();
        await expectNoAxeViolations(page);
        await page.keyboard.press("Escape");
        await page.getByRole("button", { name: "Sam, account menu" }).click();
        await expect(page.getByRole("menu", { name: "Account" })).toBeVisible();
        await expectNoAxeViolations(page);
        await page.keyboard.press("Escape");
        await expect(page.getByRole("menu", { name: "Account" })).toBeHidden();
      }

      // The searchable pickers' lists, open.
      await page.goto("/dashboard?transfer=wire#transfer");
      await hydrated(page);
      await page.getByRole("combobox", { name: "Country" }).click();
      await page.keyboard.type("Ger");
      await expect(page.getByRole("option", { name: /Germany/ })).toBeVisible();
      // React Aria hides the rest of the page from assistive technology (aria-hidden) while a
      // combobox's list is open, and axe reports the focusable elements inside: that one rule is
      // React Aria's design (reported), every other rule applies.
      await expectNoAxeViolations(page, { disableRules: ["aria-hidden-focus"] });
      await page.keyboard.press("Escape");

      // Both settings dialogs, from the member app's user menu (docs/product.md#settings: "from
      // every user menu").
      await page.goto("/dashboard");
      await hydrated(page);
      for (const item of ["Profile Settings", "Account Settings"] as const) {
        if (phone) {
          await page.getByRole("button", { name: "Open menu" }).click();
          await page.getByRole("dialog", { name: "Menu" }).getByRole("link", { name: item }).click();
        } else {
          await page.getByRole("button", { name: "Sam, account menu" }).click();
          await page.getByRole("menuitem", { name: item }).click();
        }
        const dialog = page.getByRole("dialog", { name: item });
        await expect(dialog).toBeVisible();
        await expect(dialog.getByRole("textbox").first()).toBeVisible();
        await expect(page).toHaveURL(/\/dashboard$/);
        await expectNoAxeViolations(page);
        await page.screenshot({
          path: `${SCREENS}/member-${item.toLowerCase().replace(" ", "-")}-${viewport.width}.png`,
        });
        await page.keyboard.press("Escape");
        await expect(dialog).toBeHidden();
        if (!phone) await expect(page.getByRole("button", { name: "Sam, account menu" })).toBeFocused();
      }
      expect(errors).toEqual([]);
    });
  }
});
