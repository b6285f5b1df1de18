import { expect, test } from "./fixtures";
import { DESKTOP, PHONE, expectNoAxeViolations, hydrated, watchConsole } from "./support";
import { codeIn, startSmsProvider } from "../integration/notifications/sms-provider";

/**
 * Text messages (docs/product.md#text-messages): the browser tests' server has an SMS provider
 * configured (playwright.config.ts: the profile's `sms` section points at a local fake provider
 * speaking Twilio's Messages API, which this spec starts). A member adds a mobile number (a number
 * without the country code is refused next to the field), confirms it with the code the fake
 * provider caught, chooses which notifications are texted, and a real event (locking the card) is
 * texted by the sms-delivery job.
 */
const SCREENS = "test-results/screens";
const posted = { timeout: 20_000 };

test("a member adds and confirms a mobile number, chooses what is texted, and gets a text", async ({
  newMember,
  pageAs,
  baseURL,
}) => {
  test.setTimeout(240_000);
  const provider = await startSmsProvider(Number(new URL(baseURL!).port) + 2000);
  try {
    const member = await newMember("sms");
    const page = await pageAs(member);
    const errors = watchConsole(page);
    await page.goto("/settings/account#sms");
    await hydrated(page);
    const section = page.getByRole("region", { name: "Text messages" });
    await expect(section.getByRole("switch")).toHaveCount(0);

    await page.setViewportSize(PHONE);
    await section.scrollIntoViewIfNeeded();
    await section.screenshot({ path: `${SCREENS}/text-messages-add-375.png` });
    await expectNoAxeViolations(page);
    await page.setViewportSize(DESKTOP);

    // A number without + and the country code is refused next to the field.
    const number = section.getByRole("textbox", { name: "Mobile number" });
    await number.fill("202 555 0143");
    await section.getByRole("button", { name: "Send code" }).click();
    await expect(section.getByText(/Please enter your mobile number in international format/).first()).toBeVisible();
    expect(provider.received).toHaveLength(0);

    await number.fill("+1 (202) 555-0143");
    await section.getByRole("button", { name: "Send code" }).click();
    await expect(section.getByText("We texted a 6-digit code to •••• 0143").first()).toBeVisible(posted);
    await expect.poll(() => provider.received.length, posted).toBe(1);
    const text = provider.received[0]!;
    expect(text).toMatchObject({ to: "+12025550143", from: "+15005550006" });
    expect(text.path).toMatch(/^\/2010-04-01\/Accounts\/AC[0-9a-z]+\/Messages\.json$/);

    await expectNoAxeViolations(page);
    await section.screenshot({ path: `${SCREENS}/text-messages-confirm-1440.png` });
    await section
      .getByRole("textbox", { name: "6-digit code from the text" })
      .fill("000000" === codeIn(text) ? "111111" : "000000");
    await section.getByRole("button", { name: "Confirm number" }).click();
    await expect(section.getByText("That code did not match. Check the text and try again.").first()).toBeVisible(
      posted,
    );
    await section.getByRole("textbox", { name: "6-digit code from the text" }).fill(codeIn(text));
    await section.getByRole("button", { name: "Confirm number" }).click();
    await expect(section.getByText("Texts go to •••• 0143.")).toBeVisible(posted);

    // Nothing is texted until chosen; the member chooses cards and security.
    const choices = section.getByRole("group", { name: "Text me about" });
    await expect(choices.getByRole("switch")).toHaveCount(7);
    for (const name of [/^Cards/, /^Security/]) {
      const choice = choices.getByRole("switch", { name });
      await expect(choice).not.toBeChecked();
      await choice.check({ force: true });
    }
    await section.getByRole("button", { name: "Save text message choices" }).click();
    await expect(section.getByText("We will text you the notifications you chose.")).toBeVisible(posted);

    await expectNoAxeViolations(page);
    await page.evaluate(() => {
      for (const header of document.querySelectorAll<HTMLElement>("header")) header.style.position = "static";
    });
    await section.screenshot({ path: `${SCREENS}/text-messages-1440.png` });
    await page.setViewportSize(PHONE);
    await section.scrollIntoViewIfNeeded();
    await section.screenshot({ path: `${SCREENS}/text-messages-375.png` });
    await expectNoAxeViolations(page);
    await page.setViewportSize(DESKTOP);

    // The choice is kept.
    await page.reload();
    await hydrated(page);
    await expect(choices.getByRole("switch", { name: /^Cards/ })).toBeChecked();
    await expect(choices.getByRole("switch", { name: /^Payments and transfers/ })).not.toBeChecked();

    // What the member's devices show is chosen the same way (Web Push is configured here too).
    const devices = page.getByRole("region", { name: "Notifications on your devices" });
    const shown = devices.getByRole("group", { name: "Show on my devices" });
    await expect(shown.getByRole("switch")).toHaveCount(7);
    await shown.getByRole("switch", { name: /^Deposits/ }).uncheck({ force: true });
    await devices.getByRole("button", { name: "Save device choices" }).click();
    await expect(devices.getByText("Your devices will show the notifications you chose.")).toBeVisible(posted);
    await page.reload();
    await hydrated(page);
    await expect(shown.getByRole("switch", { name: /^Deposits/ })).not.toBeChecked();
    await expect(shown.getByRole("switch", { name: /^Cards/ })).toBeChecked();

    // A real event: the member locks their card; the sms-delivery job texts it.
    await page.goto("/dashboard/cards");
    await hydrated(page);
    const card = page.getByRole("region", { name: /^Debit card •••• \d{4}$/ }).first();
    await card.getByRole("button", { name: "Lock card" }).click();
    await expect(card.getByText(/is locked: purchases are declined until you unlock it\./)).toBeVisible(posted);
    await expect.poll(() => provider.received.length, { timeout: 100_000, intervals: [1_000] }).toBe(2);
    expect(provider.received[1]).toMatchObject({ to: "+12025550143" });
    expect(provider.received[1]!.body).toMatch(/lock/i);
    // The wrong code's refusal is a 400, which the browser logs; nothing else.
    expect(errors.filter((e) => !e.includes("status of 400"))).toEqual([]);
  } finally {
    await provider.close();
  }
});
