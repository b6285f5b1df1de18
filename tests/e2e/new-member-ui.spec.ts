import { expect, test, type Locator, type Page } from "./fixtures";
import { ALEX, DESKTOP, PHONE, STAFF, expectNoAxeViolations, hydrated } from "./support";

/**
 * What a new member, an applicant and staff met on their first day, as they would meet it, at
 * 375 and 1440 px: From / To choices that cut the balance mid-number, transfer tabs scrolled off a
 * phone, seven history filters filling a phone's first screen, a help popover that opened on hover
 * and left the page hidden, Sign in / Sign up beside an applicant's Sign out, Reset Transfer Counts
 * without the back office's navigation, account numbers broken and columns cut on a phone, and one
 * icon for both Dashboard and Transactions. Each person's session is the worker's (fixtures.ts).
 */
const APPLICANT = { email: "chris.lee@harborview.example", password: "Applicant-Demo-Pass-2" };

/** Two animation frames: React has rendered whatever the last event asked for (no clock involved). */
async function settle(page: Page) {
  await page.evaluate(
    () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
  );
}

/** A screenshot to look at: the part that changed when given, else the whole page. */
async function shoot(page: Page, name: string, part?: Locator) {
  const path = `test-results/new-member-ui/${name}.png`;
  if (part) await part.screenshot({ path });
  else await page.screenshot({ path, fullPage: true });
}

/**
 * The text each visible account <select> shows, and whether it fits. A closed native select draws
 * its choice on one line and cuts what does not fit; it never scrolls, so its scrollWidth equals
 * its clientWidth whatever the text. The text is measured instead, in the select's own font, and
 * compared with the room between its paddings.
 */
async function accountChoiceWidths(page: Page) {
  await page.evaluate(() => document.fonts.ready);
  return page.evaluate(() => {
    const context = document.createElement("canvas").getContext("2d")!;
    return [
      ...document.querySelectorAll<HTMLSelectElement>(
        '#transfer select[name="from_account_id"], #transfer select[name="to_account_id"]',
      ),
    ]
      .filter((select) => select.offsetParent !== null)
      .map((select) => {
        const style = getComputedStyle(select);
        context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const text = select.selectedOptions[0]?.text ?? "";
        const padding_px = Number.parseInt(style.paddingLeft, 10) + Number.parseInt(style.paddingRight, 10);
        return {
          name: select.name,
          text,
          text_px: Math.ceil(context.measureText(text).width),
          room_px: select.clientWidth - padding_px,
        };
      });
  });
}

test.describe("the member app", () => {
  test.use({ signedInAs: ALEX });

  test("the transfer form's From and To choices show the whole balance at 1440 and 375 px", async ({ page }) => {
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      for (const tab of ["internal", "ach"]) {
        await page.goto(`/dashboard?transfer=${tab}#transfer`);
        await hydrated(page);
        const choices = await accountChoiceWidths(page);
        expect(choices.length, `${tab} at ${viewport.width} px`).toBeGreaterThan(0);
        for (const choice of choices) {
          expect(
            choice.text_px,
            `"${choice.text}" (${choice.name}, ${tab}) at ${viewport.width} px`,
          ).toBeLessThanOrEqual(choice.room_px);
          // The balance is part of the choice, with its cents.
          expect(choice.text).toMatch(/\$[\d,]+\.\d{2}/);
        }
      }
      await page.goto("/dashboard?transfer=internal#transfer");
      await shoot(page, `dashboard-${viewport.width}`, page.locator("#transfer"));
    }
  });

  test("on a phone all four transfer tabs are in sight, without sideways scrolling", async ({ page }) => {
    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewportSize(viewport);
      await page.goto("/dashboard?transfer=internal#transfer");
      await hydrated(page);
      const tabs = page.getByRole("tablist", { name: "Transfer type" }).getByRole("tab");
      await expect(tabs).toHaveText([/Between Accounts/, /To Another Member/, /To US Bank/, /International/]);
      for (const tab of await tabs.all()) {
        const box = (await tab.boundingBox())!;
        expect(box.x, `${await tab.textContent()} at ${viewport.width} px`).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width, `${await tab.textContent()} at ${viewport.width} px`).toBeLessThanOrEqual(
          viewport.width,
        );
      }
      const overflow = await page
        .getByRole("tablist", { name: "Transfer type" })
        .evaluate((list) => list.scrollWidth - list.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
    }
    // The last tab answers a tap on a phone.
    await page.setViewportSize(PHONE);
    await page.getByRole("tab", { name: "International" }).click();
    await expect(page.getByRole("tab", { name: "International" })).toHaveAttribute("aria-selected", "true");
    await shoot(page, "dashboard-tabs-375", page.locator("#transfer"));
  });

  test("on a phone the history filters fold behind Filters, with the count in use; at desktop width they show", async ({
    page,
  }) => {
    await page.setViewportSize(PHONE);
    await page.goto("/dashboard/transactions");
    await hydrated(page);
    const filters = page.locator("summary", { hasText: "Filters" });
    await expect(filters).toBeVisible();
    await expect(page.getByLabel("Account", { exact: true })).toBeHidden();
    await expect(page.getByLabel("To date")).toBeHidden();
    // The first transaction is on the first screen.
    const firstRow = page.getByRole("table").getByRole("row").nth(1);
    expect((await firstRow.boundingBox())!.y).toBeLessThan(PHONE.height);
    await page.screenshot({ path: "test-results/new-member-ui/transactions-375.png" });
    await filters.click();
    await expect(page.getByLabel("Account", { exact: true })).toBeVisible();
    await expect(page.getByLabel("To date")).toBeVisible();
    await shoot(page, "transactions-375-filters", page.getByRole("search"));
    await expectNoAxeViolations(page);

    await page.goto("/dashboard/transactions?type=debit&status=posted");
    await expect(filters).toContainText("2 active");
    await expect(page.getByLabel("Type", { exact: true })).toBeHidden();

    await page.setViewportSize(DESKTOP);
    await page.goto("/dashboard/transactions");
    await expect(filters).toBeHidden();
    for (const label of ["Account", "Type", "Category", "Status", "From date", "To date"])
      await expect(page.getByLabel(label, { exact: true })).toBeVisible();
    await expectNoAxeViolations(page);
    await shoot(page, "transactions-1440", page.getByRole("search"));
  });

  test("help opens on a click, not on hover; Escape and a click outside close it; the page stays usable", async ({
    page,
  }) => {
    await page.setViewportSize(DESKTOP);
    await page.goto("/dashboard");
    await hydrated(page);
    const help = page.getByRole("button", { name: "Help" });
    const panel = page.getByRole("dialog", { name: "Need help?" });
    await help.hover();
    await settle(page);
    await expect(panel).toBeHidden();
    await expect(help).toHaveAttribute("aria-expanded", "false");

    await help.click();
    await expect(panel).toBeVisible();
    await expect(panel).toContainText("support@harborview.example");
    // Not modal: the rest of the page is still there for a screen reader and a pointer.
    await expect(page.getByRole("heading", { name: /Welcome back/ })).toBeVisible();
    expect(
      await page.evaluate(
        () => document.getElementById("main")?.closest("[inert], [aria-hidden='true']")?.outerHTML.slice(0, 80) ?? null,
      ),
    ).toBeNull();
    await page.screenshot({ path: "test-results/new-member-ui/help-open-1440.png" });
    await page.keyboard.press("Escape");
    await expect(panel).toBeHidden();
    await expect(help).toBeFocused();

    await help.click();
    await expect(panel).toBeVisible();
    await page.getByRole("heading", { name: /Welcome back/ }).click();
    await expect(panel).toBeHidden();
    // Moving the pointer over it again does nothing.
    await help.hover();
    await settle(page);
    await expect(panel).toBeHidden();
  });

  test("the phone menu gives Dashboard and Transactions their own icons", async ({ page }) => {
    await page.setViewportSize(PHONE);
    await page.goto("/dashboard");
    await hydrated(page);
    await page.getByRole("button", { name: "Open menu" }).click();
    const menu = page.getByRole("navigation", { name: "Banking, mobile" });
    const icon = (name: string) =>
      menu
        .getByRole("link", { name, exact: true })
        .locator("svg")
        .evaluate((svg) => svg.innerHTML);
    const [dashboard, transactions] = [await icon("Dashboard"), await icon("Transactions")];
    expect(dashboard).not.toBe("");
    expect(transactions).not.toBe(dashboard);
    await page.screenshot({ path: "test-results/new-member-ui/menu-375.png" });
  });
});

test.describe("an applicant", () => {
  test.use({ signedInAs: APPLICANT });

  test("sees their application in the top bar, never Sign in or Sign up", async ({ page }) => {
    test.setTimeout(90_000);
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      for (const path of ["/pending-approval", "/", "/products"]) {
        await page.goto(path);
        const header = page.locator("header").first();
        if (viewport === PHONE) await header.locator("summary[aria-label='Menu']").click();
        await expect(header.getByRole("link", { name: "Sign in" })).toHaveCount(0);
        await expect(header.getByRole("link", { name: "Sign up" })).toHaveCount(0);
        await expect(header.getByRole("link", { name: "Your application" })).toBeVisible();
        await expect(header.getByRole("link", { name: "Your application" })).toHaveAttribute(
          "href",
          "/pending-approval",
        );
      }
      await page.screenshot({ path: `test-results/new-member-ui/applicant-${viewport.width}.png` });
    }
    // The status page it leads to is where they sign out; signed out, the bar offers Sign in again.
    await page.setViewportSize(DESKTOP);
    await page.locator("header").first().getByRole("link", { name: "Your application" }).click();
    await page.getByRole("main").getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/login/);
    await expect(page.locator("header").first().getByRole("link", { name: "Sign in" })).toBeVisible();
  });
});

test.describe("the back office", () => {
  test.use({ signedInAs: STAFF });

  test("Reset Transfer Counts is in the back office's frame, with its navigation, at 1440 and 375 px", async ({
    page,
  }) => {
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      await page.goto("/admin/reset-transfers");
      const nav = page.getByRole("navigation", { name: "Back office" });
      await expect(nav).toBeVisible();
      for (const name of ["Members", "Audit log", "Outbox", "Messages", "Reset Transfer Counts"]) {
        const link = nav.getByRole("link", { name, exact: true });
        const box = (await link.boundingBox())!;
        expect(box.x + box.width, `${name} at ${viewport.width} px`).toBeLessThanOrEqual(viewport.width);
      }
      await expect(nav.getByRole("link", { name: "Reset Transfer Counts" })).toHaveAttribute("aria-current", "page");
      await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();
      await expectNoAxeViolations(page);
      await page.screenshot({ path: `test-results/new-member-ui/reset-transfers-${viewport.width}.png` });
    }
    await page.getByRole("navigation", { name: "Back office" }).getByRole("link", { name: "Audit log" }).click();
    await expect(page).toHaveURL(/\/admin\/audit/);
  });

  test("on a phone a member's account numbers stay whole and no column is cut", async ({ page }) => {
    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewportSize(viewport);
      await page.goto(`/admin?q=${encodeURIComponent(ALEX.email)}`);
      await page.getByRole("link", { name: new RegExp(ALEX.email.replace(/\./g, "\\.")) }).click();
      // Staff see the accounts as a list with inline Edit (docs/product.md#member-accounts-staff).
      const accounts = page.getByRole("list", { name: /Accounts of/ });
      await expect(accounts).toBeVisible();
      const numbers = accounts.getByText(/^\d{3} \d{3} \d{4}$/);
      await expect(numbers).toHaveCount(2);
      for (const number of await numbers.all()) {
        // The number's text is on one line: one box for the digits.
        const lines = await number.evaluate((el) => {
          const text = [...el.childNodes].find(
            (n) => n.nodeType === Node.TEXT_NODE && /\d{3} \d{3} \d{4}/.test(n.textContent ?? ""),
          )!;
          const range = document.createRange();
          range.selectNodeContents(text);
          return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
        });
        expect(lines, `${await number.textContent()} at ${viewport.width} px`).toBe(1);
      }
      // Every account is inside the page: nothing to scroll sideways to, nothing cut.
      for (const item of await accounts.getByRole("listitem").all()) {
        const box = (await item.boundingBox())!;
        expect(box.x + box.width, `${await item.textContent()} at ${viewport.width} px`).toBeLessThanOrEqual(
          viewport.width,
        );
      }
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      // The member list shows whole email addresses.
      const email = page.getByRole("list", { name: "Members" }).getByText(ALEX.email, { exact: true });
      expect(await email.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
      await expectNoAxeViolations(page);
      await shoot(page, `admin-member-${viewport.width}`, accounts);
      await shoot(page, `admin-list-${viewport.width}`, page.getByRole("list", { name: "Members" }));
    }
  });
});
