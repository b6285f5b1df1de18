import { expect, test, type Page } from "./fixtures";
import {
  DESKTOP,
  PHONE,
  STAFF,
  expectNoAxeViolations,
  hydrated,
  inboxCode,
  openMemberDetails,
  type TestMember,
} from "./support";

/**
 * Cards as a member uses them (docs/product.md#cards) with staff standing in for the card
 * network (Post card transaction): lock a card and see a purchase declined, unlock and see one
 * go through and settle, set a limit and see a purchase over it declined, view the card's
 * details and change its PIN after an emailed code, report a card lost. Each member is made
 * fresh by staff, so the demo people's cards stay as other tests expect them.
 */
/** The member's details in the back office, from the member list's link. */
const openMember = (page: Page, email: string) =>
  openMemberDetails(page, email, { listedAs: "Jordan Tester", hydrate: true });

/** Staff fund the member's checking (a balance adjustment) and open Post card transaction. */
async function fundAndOpenCardTool(page: Page, member: TestMember, dollars: string) {
  await openMember(page, member.email);
  const details = page.getByRole("form", { name: /^Edit .*Checking/ });
  if ((await details.count()) === 0) await page.getByRole("link", { name: /^Edit .*Checking/ }).click();
  const adjust = page.getByRole("form", { name: /^Adjust balance of .*Checking/ });
  await adjust.getByLabel("New balance").fill(dollars);
  await adjust.getByLabel("Reason").fill("Opening cash deposit");
  await adjust.getByRole("button", { name: "Adjust balance" }).click();
  await expect(adjust.getByText(`Balance adjusted to $${dollars}.`)).toBeVisible();
  await page.getByRole("link", { name: "Post card transaction" }).click();
  await expect(page.getByRole("heading", { name: `Post card transaction: ${member.email}` })).toBeVisible();
  await hydrated(page);
}

async function authorize(page: Page, merchant: string, amount: string) {
  const form = page.getByRole("form", { name: "Post a card purchase" });
  await form.getByLabel("Merchant").fill(merchant);
  await form.getByLabel("Amount").fill(amount);
  await form.getByRole("button", { name: "Authorize purchase" }).click();
}

async function shots(page: Page, name: string) {
  for (const [label, viewport] of [
    ["1440", DESKTOP],
    ["375", PHONE],
  ] as const) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    // Nothing wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} at ${label}`).toBeLessThanOrEqual(
      viewport.width,
    );
    await page.screenshot({ path: `test-results/cards-${name}-${label}.png`, fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}

function cardSection(page: Page) {
  return page.getByRole("region", { name: /^Debit card •••• \d{4}$/ }).first();
}

test("lock a card and see a purchase declined, unlock and see one go through, set a limit and see one over it declined", async ({
  newMember,
  pageAs,
}) => {
  test.setTimeout(240_000);
  const member = await newMember("cards-lock");
  // Staff stand in for the card network in a page of their own.
  const page = await pageAs(STAFF);
  await fundAndOpenCardTool(page, member, "200.00");
  const memberPage = await pageAs(member);
  await memberPage.goto("/dashboard/cards");
  await hydrated(memberPage);
  const card = cardSection(memberPage);
  await expect(card.getByText("Active", { exact: true })).toBeVisible();
  await card.getByRole("button", { name: "Lock card" }).click();
  await expect(card.getByText(/is locked: purchases are declined until you unlock it\./)).toBeVisible();
  await expect(card.getByText("Locked", { exact: true })).toBeVisible();

  await authorize(page, "Harbor Hardware", "12.50");
  await expect(page.getByText("Declined: The card is locked.")).toBeVisible();

  await card.getByRole("button", { name: "Unlock card" }).click();
  await expect(card.getByText(/is unlocked and works again\./)).toBeVisible();
  await authorize(page, "Harbor Hardware", "12.50");
  await expect(page.getByText(/^Authorized: \$12\.50 at Harbor Hardware/)).toBeVisible();
  await page.getByRole("button", { name: "Settle $12.50 at Harbor Hardware" }).click();
  await expect(page.getByText("Settled: $12.50 at Harbor Hardware is posted.")).toBeVisible();

  await memberPage.reload();
  await hydrated(memberPage);
  const latest = card.getByRole("list", { name: /^Latest transactions of card/ });
  await expect(latest.getByText("Harbor Hardware")).toBeVisible();
  await expect(latest.getByText("Completed")).toBeVisible();
  await expect(card.getByText("$12.50").first()).toBeVisible();

  // Set Transaction Limits: a limit out of bounds is refused next to the field, then $20.00.
  await card.getByText("Set Transaction Limits").click();
  const limit = card.getByRole("form", { name: "Set the daily purchase limit" });
  await limit.getByLabel("Daily purchase limit").fill("5000.01");
  await limit.getByRole("button", { name: "Save limit" }).click();
  await expect(limit.getByLabel("Daily purchase limit")).toHaveAttribute("aria-invalid", "true");
  await expect(limit.getByLabel("Daily purchase limit")).toHaveAccessibleDescription(
    /Please enter a daily limit between \$10\.00 and \$5,000\.00/,
  );
  await limit.getByLabel("Daily purchase limit").fill("20.00");
  await limit.getByRole("button", { name: "Save limit" }).click();
  await expect(card.getByText(/daily purchase limit of your debit card ending \d{4} is now \$20\.00\./)).toBeVisible();
  await shots(memberPage, "page");

  // $12.50 already spent today: $10.00 more passes the $20.00 limit.
  await page.reload();
  await hydrated(page);
  await authorize(page, "Seacoast Books", "10.00");
  await expect(
    page.getByText("Declined: The purchase would pass the card's daily limit of $20.00 ($7.50 left today)."),
  ).toBeVisible();

  // The merchant cancels a purchase: Release gives its hold back and frees that much of the day's limit.
  await authorize(page, "Seacoast Books", "7.50");
  await expect(page.getByText(/^Authorized: \$7\.50 at Seacoast Books/)).toBeVisible();
  // The purchase form is drawn afresh with a new key once the page's data has reloaded, which can
  // come a moment after the answer shows: wait for the new key, so what is typed is not cleared.
  const purchaseKey = page.getByRole("form", { name: "Post a card purchase" }).locator('input[name="request_key"]');
  const keyBefore = await purchaseKey.inputValue();
  await page.getByRole("button", { name: "Release $7.50 at Seacoast Books" }).click();
  await expect(
    page.getByText("Released: $7.50 at Seacoast Books is no longer held; the member was told."),
  ).toBeVisible();
  await expect(purchaseKey).not.toHaveValue(keyBefore);
  await authorize(page, "Seacoast Books", "7.50");
  await expect(page.getByText(/^Authorized: \$7\.50 at Seacoast Books/)).toBeVisible();
  await expect(page.getByRole("button", { name: "Release $7.50 at Seacoast Books" })).toBeVisible();
  await shots(page, "back-office");
  // In the member's transactions staff are pointed back here for a pending purchase, not offered Release.
  await page.getByRole("link", { name: `Back to ${member.email}` }).click();
  const pendingRow = page
    .getByRole("region", { name: "User Transactions" })
    .getByRole("listitem")
    .filter({ hasText: "Debit card purchase: Seacoast Books" })
    .filter({ hasText: "Pending" });
  await expect(
    pendingRow.getByText(
      "This is a card purchase waiting for the card network: settle or release it on Post card transaction.",
    ),
  ).toBeVisible();
  await expect(pendingRow.getByRole("link", { name: /^Release/ })).toHaveCount(0);
  await pendingRow.getByRole("link", { name: "Open Post card transaction" }).click();
  await expect(page.getByRole("heading", { name: `Post card transaction: ${member.email}` })).toBeVisible();
  await memberPage.reload();
  await hydrated(memberPage);
  await expect(latest.getByText("Released")).toBeVisible();
});

test("view the card's details and change its PIN, each after an emailed code", async ({ newMember, pageAs }) => {
  test.setTimeout(180_000);
  const member = await newMember("cards-code");
  const page = await pageAs(member);
  await page.goto("/dashboard/cards");
  await hydrated(page);
  const card = cardSection(page);

  await card.getByText("View Card Details").click();
  await card.getByRole("button", { name: "Email me a code" }).click();
  await expect(card.getByText(/We emailed a one-time code to/).first()).toBeVisible();
  const details = card.getByRole("form", { name: "Enter the code to view card details" });
  const code = await inboxCode(page, member.email);
  await details.getByLabel("One-time code").fill("12ab");
  await details.getByRole("button", { name: "Show card details" }).click();
  await expect(details.getByLabel("One-time code")).toHaveAccessibleDescription(/The code is at most 6 digits/);
  await details.getByLabel("One-time code").fill(code === "000000" ? "000001" : "000000");
  await details.getByRole("button", { name: "Show card details" }).click();
  await expect(details.getByLabel("One-time code")).toHaveAccessibleDescription(/Invalid OTP/);
  await details.getByLabel("One-time code").fill(code);
  await details.getByRole("button", { name: "Show card details" }).click();
  const shown = card.getByRole("group", { name: "Card details" }).or(card.locator("dl[aria-label='Card details']"));
  await expect(shown.getByText(/^4000 \d{4} \d{4} \d{4}$/)).toBeVisible();
  await expect(shown.getByText(/^\d{2}\/\d{2}$/)).toBeVisible();
  await shots(page, "details");

  await card.getByText("Change PIN").click();
  await card
    .getByRole("region", { name: /^Debit card/ })
    .or(card)
    .getByRole("button", { name: "Email me a code" })
    .last()
    .click();
  const pin = card.getByRole("form", { name: "Choose a new PIN" });
  await expect(pin).toBeVisible();
  const pinCode = await inboxCode(page, member.email);
  await pin.getByLabel("One-time code").fill(pinCode);
  await pin.getByLabel("New PIN", { exact: true }).fill("1234");
  await pin.getByLabel("New PIN again").fill("1234");
  await pin.getByRole("button", { name: "Change PIN" }).click();
  await expect(pin.getByLabel("New PIN", { exact: true })).toHaveAccessibleDescription(/not a sequence such as 1234/);
  await pin.getByLabel("New PIN", { exact: true }).fill("2580");
  await pin.getByLabel("New PIN again").fill("2581");
  await pin.getByRole("button", { name: "Change PIN" }).click();
  await expect(pin.getByLabel("New PIN again")).toHaveAccessibleDescription(/The two PINs do not match/);
  await pin.getByLabel("New PIN again").fill("2580");
  await pin.getByRole("button", { name: "Change PIN" }).click();
  await expect(card.getByText(/The PIN of your debit card ending \d{4} is changed\./)).toBeVisible();
});

test("report a card stolen: it is blocked for good and a new card replaces it", async ({ newMember, pageAs }) => {
  test.setTimeout(180_000);
  const member = await newMember("cards-lost");
  const page = await pageAs(member);
  await page.goto("/dashboard/cards");
  await hydrated(page);
  const card = cardSection(page);
  const heading = (await card.getByRole("heading", { level: 2 }).textContent()) ?? "";
  const old_last4 = /(\d{4})\s*$/.exec(heading)?.[1];
  expect(old_last4).toMatch(/^\d{4}$/);
  await card.getByText("Report lost or stolen").click();
  const report = card.getByRole("form", { name: "Report the card lost or stolen" });
  await report.getByText("Stolen", { exact: true }).click();
  await report.getByRole("button", { name: "Report and replace card" }).click();
  await expect(report.getByText("Please confirm that this card should stop working for good")).toBeVisible();
  await report.getByText(/^Block card/).click();
  await report.getByRole("button", { name: "Report and replace card" }).click();
  // The answer stays on the page after the card's own controls are gone.
  await expect(
    page
      .getByRole("status")
      .or(page.getByRole("alert"))
      .filter({
        hasText: new RegExp(`Your debit card ending ${old_last4} is blocked for good\\. Your new card ends \\d{4}`),
      }),
  ).toBeVisible();
  const blocked = page.getByRole("region", { name: "Cards that no longer work" });
  await expect(blocked.getByText(`•••• ${old_last4}`)).toBeVisible();
  await expect(
    blocked.getByText(/Reported stolen; blocked for good\. Replaced by the card ending \d{4}\./),
  ).toBeVisible();
  await expect(cardSection(page).getByRole("heading", { level: 2 })).not.toHaveText(new RegExp(`${old_last4}$`));
  await expect(cardSection(page).getByText("Active", { exact: true })).toBeVisible();
  await shots(page, "reported");
});

test("the dashboard: Cards in the top bar and the fragments open the quick actions; Card Services tabs", async ({
  newMember,
  pageAs,
  signedIn,
}) => {
  test.setTimeout(180_000);
  const member = await newMember("cards-dashboard");
  const page = await pageAs(member);
  await page.goto("/dashboard#quick-actions-cards");
  await hydrated(page);
  const quick = page.getByRole("region", { name: "Quick actions" });
  await expect(quick.getByRole("heading", { name: "Cards" })).toBeVisible();
  await expect(quick.getByRole("link", { name: "Manage cards" })).toBeVisible();
  await quick.getByRole("link", { name: "Back to Quick Actions" }).click();
  await expect(quick.getByRole("link", { name: "Cards" })).toBeVisible();
  await page.goto("/dashboard#quick-actions-billpay");
  await expect(quick.getByRole("link", { name: "Open Bill Pay" })).toBeVisible();

  const services = page.getByRole("region", { name: "Card Services" });
  await expect(services.getByRole("button", { name: "Overview" })).toHaveAttribute("aria-pressed", "true");
  await expect(services.getByText(/Debit card/).first()).toBeVisible();
  await services.getByRole("button", { name: "Statements" }).click();
  await expect(services.getByRole("button", { name: "Statements" })).toHaveAttribute("aria-pressed", "true");
  await expect(services.getByRole("link", { name: "All statements and exports" })).toBeVisible();
  await page.goto("/dashboard?action=cards#quick-actions-cards");
  await shots(page, "dashboard");

  // Without JavaScript: the top bar's Cards opens the quick action, and Lock works.
  const context = await signedIn(member, { javaScriptEnabled: false });
  const plain = await context.newPage();
  await plain.goto("/dashboard");
  await plain.getByRole("navigation").first().getByRole("link", { name: "Cards" }).click();
  await expect(
    plain.getByRole("region", { name: "Quick actions" }).getByRole("heading", { name: "Cards" }),
  ).toBeVisible();
  await plain.getByRole("region", { name: "Card Services" }).getByRole("button", { name: "Statements" }).click();
  await expect(
    plain.getByRole("region", { name: "Card Services" }).getByRole("link", { name: "All statements and exports" }),
  ).toBeVisible();
  await plain.getByRole("link", { name: "Manage cards" }).first().click();
  await plain.getByRole("button", { name: "Lock card" }).click();
  await expect(plain.getByText(/is locked: purchases are declined until you unlock it\./)).toBeVisible();
  await plain.getByRole("button", { name: "Unlock card" }).click();
  await expect(plain.getByText(/is unlocked and works again\./)).toBeVisible();
});
