import { expect as baseExpect, test, type Page } from "./fixtures";
import {
  DESKTOP,
  PHONE,
  SAM,
  confirmWithCode,
  expectNoAxeViolations,
  fundedMember,
  hydrated,
  refuseMissingAndWrongCode,
} from "./support";

/**
 * A remittance transfer as a member lives it (docs/product.md#remittance-transfers): an
 * international wire with its pre-payment disclosure, the receipt after paying, and the cancel
 * within 30 minutes that gives the money and the fee back. Screenshots of the disclosure and the
 * receipt at 1440 and 375 px.
 */
const expect = baseExpect.configure({ timeout: 15_000 });
const SCREENS = "test-results/screens";

test.setTimeout(300_000);
test.beforeAll(async ({ browser, baseURL, sessions }) => {
  test.setTimeout(240_000);
  const context = await browser.newContext({ baseURL, storageState: await sessions.stateFor(SAM) });
  const page = await context.newPage();
  page.setDefaultTimeout(200_000);
  await page.goto("/dashboard", { timeout: 200_000 });
  await context.close();
});

async function fillWire(page: Page) {
  const panel = page.getByRole("tabpanel");
  await panel.getByLabel("Recipient's name").fill("Marie Dupont");
  await panel.getByLabel("Bank name").fill("BNP Paribas");
  await panel.getByLabel("SWIFT/BIC").fill("BNPAFRPP");
  await panel.getByLabel("Account number").fill("FR14 2004 1010 0505 0001 3M02 606");
  await panel.getByRole("combobox", { name: "Country" }).click();
  await page.keyboard.type("Franc");
  await page.getByRole("option", { name: /France/ }).click();
  await panel.getByRole("combobox", { name: "Currency" }).click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.type("euro");
  await page.getByRole("option", { name: /Euro/ }).click();
  await panel.getByLabel(/^Amount/).fill("10.00");
  await panel.getByLabel("Reference").fill("Rent share");
  return panel;
}

for (const viewport of [DESKTOP, PHONE]) {
  test(`at ${viewport.width} px: a member sees the disclosure, pays, gets the receipt and cancels within 30 minutes`, async ({
    page,
    newMember,
    pageAs,
    signInAs,
  }) => {
    await page.setViewportSize(viewport);
    const member = await fundedMember({ newMember, pageAs }, `remit${viewport.width}`, "80.00");
    await signInAs(member);
    await page.goto("/dashboard?transfer=wire#transfer");
    await hydrated(page);
    const panel = await fillWire(page);
    await panel.getByRole("button", { name: "Review transfer" }).click();

    const disclosure = panel.getByTestId("wire-disclosure");
    await expect(disclosure.getByText("Exchange rate used")).toBeVisible();
    for (const term of [
      "Transfer amount",
      "Transfer fees",
      "Transfer taxes",
      "Total",
      "Total to recipient",
      "Date available",
    ])
      await expect(disclosure.getByText(term, { exact: true })).toBeVisible();
    await expect(disclosure.getByText("$0.00")).toBeVisible();
    await expect(disclosure.getByText("EUR 10.00").first()).toBeVisible();
    await expect(panel.getByText(/cancel within 30 minutes/)).toBeVisible();
    await expectNoAxeViolations(page);
    // The transfer panel alone: a full-page picture would paint the sticky top bar over it.
    await panel.screenshot({ path: `${SCREENS}/remittance-disclosure-${viewport.width}.png` });

    await panel.getByRole("button", { name: "Continue" }).click();
    await panel.getByRole("button", { name: "Send transfer" }).click();
    const code = await refuseMissingAndWrongCode(page, panel, member.email);
    await confirmWithCode(panel, code);
    const done = panel.getByRole("status").filter({ hasText: /International transfer submitted: \$\d+\.\d\d/ });
    await expect(done).toBeVisible();
    const held = /\$(\d+\.\d\d)/.exec((await done.textContent()) ?? "")?.[1] ?? "";

    await done.getByRole("link", { name: "View your receipt" }).click();
    await expect(page.getByRole("heading", { name: "Transfer receipt", level: 1 })).toBeVisible();
    await hydrated(page);
    const figures = page.getByTestId("receipt-figures");
    await expect(figures.getByText(`$${held}`)).toBeVisible();
    await expect(page.getByText("Marie Dupont")).toBeVisible();
    await expect(page.getByText(/within 30 minutes of payment/)).toBeVisible();
    await expect(page.getByText(/within 180 days/)).toBeVisible();
    await expect(page.getByRole("link", { name: /Download the receipt/ })).toBeVisible();
    await expectNoAxeViolations(page);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    await page.screenshot({ path: `${SCREENS}/remittance-receipt-${viewport.width}.png`, fullPage: true });

    await page.getByRole("button", { name: "Cancel this transfer" }).click();
    await expect(
      page.getByText(`Cancelled. $${held}, the transfer and its fee, is available in your account again.`),
    ).toBeVisible();
    await expect(page.getByRole("button", { name: "Cancel this transfer" })).toBeHidden();
    await page.screenshot({ path: `${SCREENS}/remittance-cancelled-${viewport.width}.png`, fullPage: true });

    // The money is back: the whole $80.00 is available again on the dashboard.
    await page.goto("/dashboard");
    await hydrated(page);
    await expect(page.getByText("$80.00").first()).toBeVisible();
    await page.goto("/dashboard/payments");
    await expect(page.getByTestId("member-payment").first().getByText("Cancelled")).toBeVisible();
  });
}
