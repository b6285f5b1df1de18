import { expect, test, type BrowserContext } from "./fixtures";
import { DESKTOP, PHONE, STAFF, createMember, expectNoAxeViolations, watchConsole, type TestMember } from "./support";

/**
 * Reset Transfer Counts (docs/product.md#reset-transfer-counts), as staff: one member, then all
 * after the confirm step. Staff's session is the worker's (fixtures.ts).
 */
test.describe.configure({ mode: "serial" });

let staffState: Awaited<ReturnType<BrowserContext["storageState"]>>;
let member: TestMember;

test.beforeAll(async ({ browser, baseURL, sessions }) => {
  test.setTimeout(90_000);
  const staff = await browser.newContext({ baseURL, storageState: await sessions.stateFor(STAFF) });
  member = await createMember(staff, baseURL!, "reset");
  staffState = await staff.storageState();
  await staff.close();
});

test.describe("reset transfer counts", () => {
  test("staff reset one member and then all, with the confirm step and banners", async ({ page }) => {
    test.setTimeout(90_000);
    const errors = watchConsole(page);
    await page.setViewportSize(DESKTOP);
    await page.context().addCookies(staffState.cookies);
    await page.goto("/admin/reset-transfers");
    await expect(page.getByRole("heading", { name: "Reset Transfer Counts", level: 1 })).toBeVisible();
    await expect(page.getByRole("link", { name: "Back to Admin Dashboard" })).toHaveAttribute("href", "/admin");
    // Staff are not listed; the new member is, with a count.
    await expect(page.locator(`[data-member="${STAFF.email}"]`)).toHaveCount(0);
    const row = page.locator(`[data-member="${member.email}"]`);
    await expect(row).toContainText("Current count: 0");
    // The heading counts every member, not the rows of this page.
    await expect(page.getByRole("heading", { name: /^Members \([\d,]+\)$/, level: 2 })).toBeVisible();
    await expect(page.getByText(/^[\d,]+ with savings transfers this month/)).toBeVisible();
    await expectNoAxeViolations(page);

    await row.getByRole("button", { name: `Reset transfer count for ${member.email}` }).click();
    await expect(page.getByText(`Reset transfer count for ${member.email}`, { exact: true })).toBeVisible({
      timeout: 15_000,
    });

    await page.getByRole("link", { name: "Initiate Reset All Transfer Counts" }).click();
    await expect(
      page.getByText("Are you sure you want to reset all transfer counts? This action cannot be undone."),
    ).toBeVisible();
    await expectNoAxeViolations(page);
    await page.getByRole("link", { name: "Cancel" }).click();
    await expect(page.getByText("Are you sure you want to reset all transfer counts?")).toBeHidden();

    await page.getByRole("link", { name: "Initiate Reset All Transfer Counts" }).click();
    await page.getByRole("button", { name: "Confirm Reset All" }).click();
    await expect(page.getByText(/^Successfully reset \d+ users\. \d+ users skipped\.$/)).toBeVisible({
      timeout: 15_000,
    });
    expect(errors).toEqual([]);

    await page.setViewportSize(PHONE);
    await page.goto("/admin/reset-transfers");
    await expectNoAxeViolations(page);
    await page.screenshot({ path: "test-results/reset-transfers-375.png", fullPage: true });
  });

  test("keyboard alone reaches the confirm step and confirms", async ({ page }) => {
    await page.context().addCookies(staffState.cookies);
    await page.goto("/admin/reset-transfers");
    await page.getByRole("link", { name: "Initiate Reset All Transfer Counts" }).focus();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("button", { name: "Confirm Reset All" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page.getByText(/^Successfully reset \d+ users\. \d+ users skipped\.$/)).toBeVisible({
      timeout: 15_000,
    });
  });

  test("a page address that the list never makes is refused with 400", async ({ page }) => {
    await page.context().addCookies(staffState.cookies);
    expect((await page.request.get("/admin/reset-transfers?after=bulk%00x")).status()).toBe(400);
    expect((await page.request.get(`/admin/reset-transfers?after=${"a".repeat(400)}`)).status()).toBe(400);
    expect((await page.request.get("/admin/reset-transfers?after=zzzz")).status()).toBe(200);
  });

  test("a member is sent away and the action refuses them", async ({ page, baseURL, signInAs }) => {
    await signInAs(member);
    await page.goto("/admin/reset-transfers");
    await expect(page).toHaveURL(/\/dashboard/);
    const refused = await page.request.post("/admin/reset-transfers", {
      headers: { Origin: new URL(baseURL!).origin },
      form: { intent: "reset-all" },
    });
    expect(refused.status()).toBe(403);
  });
});
