import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { DESKTOP, NO_SESSION, PHONE, expectNoAxeViolations, hydrated, signIn, watchConsole } from "./support";

/**
 * Sessions and devices (docs/product.md#sessions-and-devices): a member signed in on two browsers
 * sees both in Account Settings, this one marked, ends the other, and the other is signed out on
 * its next page.
 */
const SCREENS = "test-results/screens";
const posted = { timeout: 20_000 };
/**
 * The sticky top bar would cover a section scrolled under it in an element screenshot. Set through
 * the CSSOM (the page's CSP refuses an injected style sheet).
 */
async function unstickHeader(page: Page) {
  await page.evaluate(() => {
    for (const header of document.querySelectorAll<HTMLElement>("header")) header.style.position = "static";
  });
}
const PHONE_UA =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1";

test("a member ends a session on another device, which is then signed out", async ({ browser, baseURL, newMember }) => {
  test.setTimeout(180_000);
  const member = await newMember("sessions");
  const here = await browser.newContext({ baseURL, storageState: NO_SESSION });
  const there = await browser.newContext({ baseURL, storageState: NO_SESSION, userAgent: PHONE_UA });
  const page = await here.newPage();
  const other = await there.newPage();
  const errors = watchConsole(page);
  await signIn(page, member.email, member.password);
  await signIn(other, member.email, member.password);
  await other.goto("/dashboard");
  await expect(other).toHaveURL(/\/dashboard/);

  await page.goto("/settings/account#sessions");
  await hydrated(page);
  const section = page.getByRole("region", { name: "Sessions and devices" });
  const list = section.getByRole("list", { name: "Your sessions" });
  // This browser, the phone, and the session of the member's first sign-in (choosing their password).
  await expect(list.getByRole("listitem")).toHaveCount(3);
  const mine = list.getByRole("listitem").filter({ hasText: "This device" });
  await expect(mine).toHaveCount(1);
  await expect(mine).not.toContainText("Safari");
  const phone = list.getByRole("listitem").filter({ hasText: "Safari 18 on" });
  await expect(phone).toContainText("iPhone");
  await expectNoAxeViolations(page);
  await unstickHeader(page);
  await section.screenshot({ path: `${SCREENS}/sessions-1440.png` });
  await page.setViewportSize(PHONE);
  await section.scrollIntoViewIfNeeded();
  await unstickHeader(page);
  await section.screenshot({ path: `${SCREENS}/sessions-375.png` });
  await expectNoAxeViolations(page);
  await page.setViewportSize(DESKTOP);

  await phone.getByRole("button", { name: /^End session/ }).click();
  await expect(section.getByText("Session ended. That device is signed out.")).toBeVisible(posted);
  await expect(list.getByRole("listitem")).toHaveCount(2);

  // The other browser's next page: signed out (the session is gone from the database).
  await other.goto("/dashboard");
  await expect(other).toHaveURL(/\/login/, posted);

  // The rest at once.
  await section.getByRole("button", { name: "End all other sessions" }).click();
  await expect(section.getByText("1 other session ended.")).toBeVisible(posted);
  await expect(list.getByRole("listitem")).toHaveCount(1);
  await expect(section.getByText("You are not signed in anywhere else.")).toBeVisible();
  // This one stays signed in.
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/dashboard/);
  expect(errors.filter((e) => !/status of 4\d\d/.test(e))).toEqual([]);
  await here.close();
  await there.close();
});
