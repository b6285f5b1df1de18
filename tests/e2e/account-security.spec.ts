import { expect, test } from "./fixtures";
import { PHONE, STAFF, createMember, expectNoAxeViolations, watchConsole, type TestMember } from "./support";

/**
 * Someone with a member's signed-in session cannot guess the current password without end: after
 * five wrong ones, Account Settings refuses even the right one for 15 minutes and says why next to
 * the field. At 1440 and 375 px, each with a member of its own (made by staff).
 */
test.describe.configure({ mode: "serial" });

let desktopMember: TestMember;
let phoneMember: TestMember;

test.beforeAll(async ({ browser, baseURL, sessions }) => {
  test.setTimeout(120_000);
  const staff = await browser.newContext({ baseURL, storageState: await sessions.stateFor(STAFF) });
  desktopMember = await createMember(staff, baseURL!, "guess-desktop");
  phoneMember = await createMember(staff, baseURL!, "guess-phone");
  await staff.close();
});

const NEW_PASSWORD = "Brand new harbor light 2027";

for (const [label, viewport] of [
  ["1440 px", null],
  ["375 px", PHONE],
] as const) {
  test(`five wrong current passwords lock the password change, with the reason next to the field (${label})`, async ({
    page,
    signInAs,
  }) => {
    test.setTimeout(120_000);
    if (viewport) await page.setViewportSize(viewport);
    const member = viewport ? phoneMember : desktopMember;
    const errors = watchConsole(page);
    await signInAs(member);
    await page.goto("/settings/account");
    const form = page.getByRole("form", { name: "Change password" });
    const current = form.getByLabel("Current password");
    const submit = async (password: string) => {
      await current.fill(password);
      await form.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
      await form.getByLabel("Confirm new password").fill(NEW_PASSWORD);
      // Each answer is awaited: the message of the one before is still on the page.
      const answered = page.waitForResponse(
        (r) => new URL(r.url()).pathname.startsWith("/settings/account") && r.request().method() === "POST",
        { timeout: 20_000 },
      );
      await form.getByRole("button", { name: "Change password" }).click();
      await answered;
    };
    for (let i = 1; i <= 4; i++) {
      await submit(`Not my password ${i}`);
      await expect(form.getByText("The current password is not correct.").first()).toBeVisible({ timeout: 20_000 });
    }
    await submit("Not my password 5");
    await expect(
      form.getByText(/^Too many wrong passwords\. For your security, this is locked for 15 minutes\./).first(),
    ).toBeVisible({ timeout: 20_000 });
    await expect(current).toHaveAttribute("aria-invalid", "true");
    await expectNoAxeViolations(page);

    // The right password is refused too while the lock lasts.
    await submit(member.password);
    await expect(form.getByText(/^Too many wrong passwords/).first()).toBeVisible({ timeout: 20_000 });
    await expect(page.getByText("Account settings updated successfully")).toBeHidden();
    expect(errors.filter((e) => !/status of 4\d\d/.test(e))).toEqual([]);
  });
}
