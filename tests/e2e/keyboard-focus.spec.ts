import { expect, test } from "./fixtures";
import { expectFocusNotLost, expectRingShown, focusedName, tabTo, unfocusedLook } from "./focus-support";
import { ALEX, DESKTOP, PHONE, STAFF, hydrated, openMemberDetails } from "./support";

/**
 * Keyboard users see where they are and never lose their place (issue 36; docs/product.md#accessibility):
 * with the keyboard only (Tab, arrows, Enter, Escape), at 1440 and 375 px, each focused control
 * shows a ring of 3:1 or more against what was there before (pixels compared), and focus goes into
 * a step or dialog that opens and back to the control that opened it when it closes.
 */
const WIDTHS = [
  ["1440", DESKTOP],
  ["375", PHONE],
] as const;

test.describe("focus rings a member sees", () => {
  test.use({ signedInAs: ALEX });

  for (const [label, viewport] of WIDTHS) {
    test(`dashboard transfer tabs and Card Services view buttons at ${label} px`, async ({ page }) => {
      await page.setViewportSize(viewport);
      await page.goto("/dashboard");
      await hydrated(page);
      const tabs = page.getByRole("tablist", { name: "Transfer type" }).getByRole("tab");
      await expect(tabs).toHaveCount(4);
      const looks = [];
      for (let i = 0; i < 4; i++) looks.push(await unfocusedLook(page, tabs.nth(i)));
      await tabTo(page, tabs.first());
      await expectRingShown(page, tabs.first(), looks[0]!, "Between Accounts tab");
      // The tabs activate by Enter (keyboardActivation="manual"): arrows move focus alone.
      for (let i = 1; i < 4; i++) {
        await page.keyboard.press("ArrowRight");
        await expectRingShown(page, tabs.nth(i), looks[i]!, `${await tabs.nth(i).textContent()} tab`);
      }

      const views = page.getByRole("form", { name: "Card Services view" }).getByRole("button");
      await expect(views).toHaveCount(2);
      const viewLooks = [await unfocusedLook(page, views.first()), await unfocusedLook(page, views.last())] as const;
      await tabTo(page, views.first());
      await expectRingShown(page, views.first(), viewLooks[0], "Overview button");
      await page.keyboard.press("Tab");
      await expectRingShown(page, views.last(), viewLooks[1], "Statements button");
    });

    test(`account menu items at ${label} px`, async ({ page }) => {
      await page.setViewportSize(viewport);
      await page.goto("/dashboard");
      await hydrated(page);
      // At 1440 px the account menu; on a phone the same items are in the phone menu.
      const opener =
        label === "1440"
          ? page.getByRole("button", { name: "Alex, account menu" })
          : page.getByRole("button", { name: "Open menu" });
      await tabTo(page, opener);
      await page.keyboard.press("Enter");
      const names = ["Profile Settings", "Account Settings", "Sign out"];
      if (label === "1440") {
        const items = names.map((name) => page.getByRole("menuitem", { name }));
        // The menu opens with its first item focused; each item is measured unfocused first (focus on another item).
        await expect(page.getByRole("menu", { name: "Account" })).toBeVisible();
        await page.keyboard.press("End");
        await expect(items[2]!).toBeFocused();
        const looks = [await unfocusedLook(page, items[0]!), await unfocusedLook(page, items[1]!)];
        await page.keyboard.press("Home");
        await expectRingShown(page, items[0]!, looks[0]!, "Profile Settings item");
        await page.keyboard.press("ArrowDown");
        await expectRingShown(page, items[1]!, looks[1]!, "Account Settings item");
        const signOut = await unfocusedLook(page, items[2]!);
        // End: Sign out is the last item, whatever the member's menu lists between (Loans, say).
        await page.keyboard.press("End");
        await expectRingShown(page, items[2]!, signOut, "Sign out item");
        await page.keyboard.press("Escape");
        await expect(opener).toBeFocused();
      } else {
        await expect(page.getByRole("dialog", { name: "Menu" })).toBeVisible();
        const menu = page.getByRole("dialog", { name: "Menu" });
        const phoneItems = [
          menu.getByRole("link", { name: "Profile Settings" }),
          menu.getByRole("link", { name: "Account Settings" }),
          menu.getByRole("button", { name: "Sign out" }),
        ];
        for (const [i, item] of phoneItems.entries()) {
          const look = await unfocusedLook(page, item);
          await tabTo(page, item, { limit: 30 });
          await expectRingShown(page, item, look, `phone menu ${names[i]}`);
        }
        await page.keyboard.press("Escape");
        await expect(opener).toBeFocused();
      }
    });
  }
});

test.describe("focus in steps and dialogs of the back office", () => {
  test.use({ signedInAs: STAFF });

  for (const [label, viewport] of WIDTHS) {
    test(`Verify User: Escape returns focus to Verify User at ${label} px`, async ({ page }) => {
      await page.setViewportSize(viewport);
      await openMemberDetails(page, ALEX.email, { listedAs: ALEX.name, hydrate: true });
      const verify = page.getByRole("link", { name: "Verify User" });
      await tabTo(page, verify, { limit: 200 });
      await page.keyboard.press("Enter");
      const dialog = page.getByRole("dialog", { name: `Verify ${ALEX.name}` });
      await expect(dialog).toBeVisible();
      await expect.poll(() => dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
      await page.keyboard.press("Escape");
      await expect(dialog).toBeHidden();
      await expect(page).not.toHaveURL(/verify=1/);
      await expect(verify, `after Escape, focus is on ${await focusedName(page)}`).toBeFocused();
    });

    test(`Reset All Transfer Counts: the step takes focus, Cancel gives it back at ${label} px`, async ({ page }) => {
      await page.setViewportSize(viewport);
      await page.goto("/admin/reset-transfers");
      await hydrated(page);
      const initiate = page.getByRole("link", { name: "Initiate Reset All Transfer Counts" });
      await tabTo(page, initiate);
      await page.keyboard.press("Enter");
      const step = page.getByRole("alertdialog");
      await expect(step).toBeVisible();
      await expect.poll(() => step.evaluate((d) => d.contains(document.activeElement))).toBe(true);
      await tabTo(page, step.getByRole("link", { name: "Cancel" }), { limit: 5 });
      await page.keyboard.press("Enter");
      await expect(step).toBeHidden();
      await expectFocusNotLost(page);
      await expect(initiate).toBeFocused();
    });

    test(`Reverse on User Transactions: the confirm step takes focus, Cancel gives it back at ${label} px`, async ({
      page,
    }) => {
      await page.setViewportSize(viewport);
      await openMemberDetails(page, ALEX.email, { listedAs: ALEX.name, hydrate: true });
      const transactions = page.getByRole("region", { name: "User Transactions" });
      const reverse = transactions.getByRole("link", { name: /^Reverse transaction \d+$/ }).first();
      const name = (await reverse.getAttribute("aria-label"))!;
      const id = name.replace(/\D/g, "");
      await tabTo(page, reverse, { limit: 300 });
      await page.keyboard.press("Enter");
      const step = page.getByRole("form", { name: `Confirm: reverse transaction ${id}` });
      await expect(step).toBeVisible();
      await expectFocusNotLost(page);
      await expect.poll(() => step.evaluate((d) => d.contains(document.activeElement))).toBe(true);
      await tabTo(page, step.getByRole("link", { name: "Cancel" }), { limit: 5 });
      await page.keyboard.press("Enter");
      await expect(step).toBeHidden();
      await expectFocusNotLost(page);
      await expect(transactions.getByRole("link", { name })).toBeFocused();
    });
  }
});

test.describe("focus in the card code step", () => {
  for (const [label, viewport] of WIDTHS) {
    test(`View Card Details: the code field takes focus, Cancel returns it at ${label} px`, async ({
      page,
      newMember,
      signInAs,
    }) => {
      const member = await newMember("focus-card");
      await signInAs(member);
      await page.setViewportSize(viewport);
      await page.goto("/dashboard/cards");
      await hydrated(page);
      const summary = page.locator("summary").filter({ hasText: "View Card Details" }).first();
      await tabTo(page, summary);
      await page.keyboard.press("Enter");
      const send = page.getByRole("form", { name: "Email me a code" }).first().getByRole("button");
      await tabTo(page, send, { limit: 5 });
      await page.keyboard.press("Enter");
      const code = page.getByRole("form", { name: "Enter the code to view card details" }).getByLabel("One-time code");
      await expect(code).toBeVisible();
      await expectFocusNotLost(page);
      await expect(code).toBeFocused();
      const cancel = page.getByRole("link", { name: "Cancel" }).first();
      await tabTo(page, cancel, { limit: 10 });
      await page.keyboard.press("Enter");
      await expect(code).toBeHidden();
      await expectFocusNotLost(page);
      await expect(page.getByRole("form", { name: "Email me a code" }).first().getByRole("button")).toBeFocused();
    });
  }
});

test.describe("reflow at 320 px", () => {
  test.use({ signedInAs: STAFF });

  test("the back office's member detail does not scroll sideways (Add Transactions' file field)", async ({ page }) => {
    await page.setViewportSize({ width: 320, height: 720 });
    await openMemberDetails(page, ALEX.email, { listedAs: ALEX.name });
    const file = page.getByLabel(/^CSV file/);
    await expect(file).toBeVisible();
    const wide = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      return [...document.querySelectorAll<HTMLElement>("body *")]
        .filter((el) => el.getBoundingClientRect().right > width + 0.5 && el.getClientRects().length > 0)
        .filter((el) => !el.closest(".sr-only") && getComputedStyle(el).visibility !== "hidden")
        .filter((el) => {
          // Inside a box that scrolls on its own (a wide table) is not the page scrolling sideways.
          for (let p = el.parentElement; p; p = p.parentElement) {
            const overflow = getComputedStyle(p).overflowX;
            if ((overflow === "auto" || overflow === "scroll" || overflow === "hidden") && p !== document.body)
              return p.getBoundingClientRect().right > width + 0.5;
          }
          return true;
        })
        .map(
          (el) =>
            `<${el.tagName.toLowerCase()}> ${el.textContent?.trim().slice(0, 40)} right ${Math.round(el.getBoundingClientRect().right)}`,
        )
        .slice(0, 5);
    });
    expect(wide, "elements reaching past 320 px").toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
  });
});
